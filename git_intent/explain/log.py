"""`git intent log`: recent commits with the sessions their notes credit."""

from __future__ import annotations

from datetime import datetime, timezone

from pydantic import BaseModel

from ..core.errors import GitError, IntentError
from ..git.repo import Repository
from ..notes import read_note


class SessionCredit(BaseModel):
    """A session credited in a commit's note and how many added lines it wrote."""

    agent: str
    session_id: str
    lines: int


class LogEntry(BaseModel):
    """One commit of `git intent log`. `recorded` is false when the commit has no readable note."""

    commit: str
    subject: str
    author: str
    committed_at: datetime
    recorded: bool
    lines_added: int | None = None
    lines_attributed: int | None = None
    sessions: list[SessionCredit] = []
    problem: str | None = None


def log_commits(repo: Repository, revision_range: str = "HEAD", max_count: int = 20) -> list[LogEntry]:
    """The newest `max_count` commits of `revision_range` with their sessions; raises GitError for a bad
    range."""
    try:
        # --end-of-options: a range such as `--output=/x` must never be read as an option.
        out = repo.git(
            "log",
            f"--max-count={max_count}",
            "--format=%H%x00%an%x00%ct%x00%s",
            "--end-of-options",
            revision_range,
            "--",
        )
    except GitError as exc:
        raise IntentError(
            f"{revision_range!r} is not a revision or range of this repository.",
            hint="Examples: HEAD, main~5..main, v1.0..",
        ) from exc
    entries: list[LogEntry] = []
    for row in out.splitlines():
        sha, author, when, subject = row.split("\0", 3)
        entry = LogEntry(
            commit=sha,
            subject=subject,
            author=author,
            recorded=False,
            committed_at=datetime.fromtimestamp(int(when), timezone.utc),
        )
        try:
            note = read_note(repo, sha)
        except IntentError as exc:
            entry.problem = str(exc)
            note = None
        if note is not None:
            entry.recorded = True
            counts: dict[tuple[str, str], int] = {}
            for commit_record in note.commit_records:
                entry.lines_added, entry.lines_attributed = (
                    commit_record.lines_added,
                    commit_record.lines_attributed,
                )
            for session in note.sessions:
                counts[session.key] = counts.get(session.key, 0) + session.lines_attributed
            entry.sessions = [SessionCredit(agent=a, session_id=s, lines=n) for (a, s), n in counts.items()]
        entries.append(entry)
    return entries
