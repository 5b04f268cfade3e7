"""`git intent stats`: the added lines of a revision range, by status, agent, model, session and person.

One `git log -p -U0` stream gives every commit's added lines; every note of refs/notes/intent is read once
in one `git cat-file --batch`; each credited session is read once to learn its model and whether its
messages are still on this machine.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from pydantic import BaseModel

from ..errors import IntentError
from ..git.repo import PINNED, Hunk, Repository, parse_added_hunks
from ..models import Session
from ..notes import NOTES_REF, Note, note_blobs, read_notes
from ..sessions.discovery import find_session
from .trailers import trailer_agent

UNKNOWN_MODEL = "unknown"


class StatusCounts(BaseModel):
    """Non-blank added lines by status: credited to an agent session, written by a person (the commit's
    note credits no session with them), unrecorded (the commit has no readable note), or `trailer`: lines of a
    commit whose trailers name an agent while no transcript credits any of its lines (issue 19; counted
    apart from both agent sessions and people)."""

    agent: int = 0
    human: int = 0
    unrecorded: int = 0
    trailer: int = 0


class SessionStats(BaseModel):
    """One session credited in the range: its lines, the commits it wrote lines of, the model its
    transcript records (None when unknown), and how many of its lines have evidence on this machine
    (the transcript is found here and holds the crediting message)."""

    agent: str
    session_id: str
    model: str | None
    lines: int
    commits: int
    lines_with_evidence: int


class StatsReport(BaseModel):
    """`git intent stats --json`. Counts are of non-blank added lines (as notes count them) of the
    non-merge commits of `range`; `evidence_share` is `agent_lines_with_evidence / by_status.agent`,
    None when no line is an agent's. `problems` has one sentence per note that cannot be read."""

    range: str
    commits: int
    commits_recorded: int
    lines_added: int
    by_status: StatusCounts
    by_agent: dict[str, int]
    by_trailer_agent: dict[str, int]  # the `trailer` lines by the agent the trailers name
    by_model: dict[str, int]
    by_person: dict[str, int]
    sessions: list[SessionStats]
    agent_lines_with_evidence: int
    evidence_share: float | None
    problems: list[str]


@dataclass
class _Tally:
    status: Counter[str] = field(default_factory=Counter)
    person: Counter[str] = field(default_factory=Counter)
    trailer: Counter[str] = field(default_factory=Counter)  # agent named by a trailer -> lines
    # (agent, session_id) -> message_id -> lines; and -> commits
    messages: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    commits: dict[tuple[str, str], set[str]] = field(default_factory=dict)


def range_stats(repo: Repository, revision_range: str = "HEAD") -> StatsReport:
    """Count the added lines of `revision_range` (default: all of HEAD's history).

    Raises IntentError when the range names nothing in this repository.
    """
    if not repo.succeeds("rev-parse", "--verify", "-q", "HEAD"):
        raise IntentError("This repository has no commits yet, so there are no lines to count.")
    if revision_range.startswith("-"):
        raise IntentError(f"{revision_range!r} is not a revision or range of this repository.",
                          hint="Examples: HEAD, main~5..main, v1.0..")
    notes, problems = _notes(repo)
    tally = _Tally()
    commits = recorded = 0
    for commit, author, trailers, hunks in _commits(repo, revision_range):
        commits += 1
        note = notes.get(commit)
        if note is not None:
            recorded += 1
        # Only when no transcript credits a line of the commit: a transcript-based attribution always wins.
        by_trailer = trailer_agent(trailers.split("\x1f")) if note is None or not note.lines else None
        for hunk in hunks:
            for offset, text in enumerate(hunk.lines):
                if not text.strip():
                    continue
                if by_trailer is not None:
                    tally.status["trailer"] += 1
                    tally.trailer[by_trailer] += 1
                else:
                    _count(tally, commit, author, note, hunk.path, hunk.start + offset)
    return _report(repo, revision_range, commits, recorded, tally, problems)


def _count(tally: _Tally, commit: str, author: str, note: Note | None, path: str, line: int) -> None:
    if note is None:
        tally.status["unrecorded"] += 1
        tally.person[author] += 1
        return
    record = note.covering(path, line)
    if record is not None:
        key = (record.agent, record.session_id)
        tally.status["agent"] += 1
        tally.messages.setdefault(key, Counter())[record.message_id] += 1
        tally.commits.setdefault(key, set()).add(commit)
        return
    tally.status["human"] += 1
    tally.person[author] += 1


def _report(repo: Repository, revision_range: str, commits: int, recorded: int, tally: _Tally,
            problems: list[str]) -> StatsReport:
    sessions: list[SessionStats] = []
    by_agent: Counter[str] = Counter()
    by_model: Counter[str] = Counter()
    for (agent, session_id), messages in tally.messages.items():
        session = _session(repo, agent, session_id)
        lines = sum(messages.values())
        evidence = 0
        models: Counter[str] = Counter()
        for message_id, count in messages.items():
            message = session.message(message_id) if session is not None and message_id else None
            evidence += count if message is not None else 0
            models[_model(session, message) or UNKNOWN_MODEL] += count
        by_agent[agent] += lines
        by_model.update(models)
        known = [m for m, _ in models.most_common() if m != UNKNOWN_MODEL]
        sessions.append(SessionStats(agent=agent, session_id=session_id, model=known[0] if known else None,
                                     lines=lines, commits=len(tally.commits[(agent, session_id)]),
                                     lines_with_evidence=evidence))
    sessions.sort(key=lambda s: (-s.lines, s.agent, s.session_id))
    agent_lines = tally.status["agent"]
    with_evidence = sum(s.lines_with_evidence for s in sessions)
    return StatsReport(
        range=revision_range, commits=commits, commits_recorded=recorded,
        lines_added=sum(tally.status.values()),
        by_status=StatusCounts(agent=agent_lines, human=tally.status["human"], unrecorded=tally.status["unrecorded"],
                               trailer=tally.status["trailer"]),
        by_agent=dict(by_agent.most_common()), by_trailer_agent=dict(tally.trailer.most_common()),
        by_model=dict(by_model.most_common()),
        by_person=dict(tally.person.most_common()), sessions=sessions,
        agent_lines_with_evidence=with_evidence,
        evidence_share=round(with_evidence / agent_lines, 4) if agent_lines else None, problems=problems)


def _session(repo: Repository, agent: str, session_id: str) -> Session | None:
    try:
        return find_session(repo, session_id, agent, exact=True)
    except IntentError:
        return None


def _model(session: Session | None, message: object | None) -> str | None:
    """The model id the transcript records for `message` (or the session), where the parsed transcript
    carries one; None otherwise."""
    for holder in (message, session):
        value = getattr(holder, "model", None)
        if isinstance(value, str) and value:
            return value
    return None


def _notes(repo: Repository) -> tuple[dict[str, Note], list[str]]:
    """Every note on refs/notes/intent, read in one batch: commit -> Note. A note that holds no git-intent
    record is left out (its commit's lines count as unrecorded) and named in a sentence."""
    notes: dict[str, Note] = {}
    problems: list[str] = []
    found = read_notes(repo)
    for commit in note_blobs(repo):
        note = found.get(commit)  # None: the note's blob is missing
        if note is not None and note.records:
            notes[commit] = note
        else:
            problems.append(f"The note on {commit[:12]} in {NOTES_REF} is not a git-intent record; the lines "
                            f"of that commit count as unrecorded.")
    return notes, problems


def _commits(repo: Repository, revision_range: str) -> Iterator[tuple[str, str, str, list[Hunk]]]:
    """(commit, author name, trailers separated by U+001F, added hunks against the first parent) for each
    non-merge commit of the range,
    streamed from one `git log -p -U0` (merges show no diff: their lines are counted where they were
    written)."""
    args = ["git", *PINNED, "log", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-renames", "--no-merges",
            "--src-prefix=a/", "--dst-prefix=b/", "--format=%x00%H%x00%an%x00%(trailers:unfold,only,separator=%x1f)",
            "--end-of-options", revision_range, "--"]
    proc = subprocess.Popen(args, cwd=repo.root, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    current: tuple[str, str, str] | None = None
    body: list[str] = []
    try:
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("\0"):
                if current is not None:
                    yield current[0], current[1], current[2], parse_added_hunks("\n".join(body))
                _, sha, author, trailers = line.split("\0", 3)
                current, body = (sha, author, trailers), []
            else:
                body.append(line)
        if current is not None:
            yield current[0], current[1], current[2], parse_added_hunks("\n".join(body))
    finally:
        proc.stdout.close()
        failed = proc.wait() != 0
    if failed and current is None:
        raise IntentError(f"{revision_range!r} is not a revision or range of this repository.",
                          hint="Examples: HEAD, main~5..main, v1.0..")
