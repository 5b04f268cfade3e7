"""`git intent backfill`: link past commits from the transcripts still on disk, no hooks needed.

Sessions are read once for the whole range; each commit is attributed as `record` would; notes are
written in batches (`notes.write_notes`: one `git fast-import` per batch, verified by blob id). Commits
that already have a git-intent record are skipped, so a run cut short resumes where it stopped, and a
second run changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .catalog import candidate_sessions
from .config import lookback
from .errors import GitError, IntentError
from .notes import NoteRecord, read_notes, write_notes
from .objects import InProcessRepository
from .paths import PathMapper
from .record import attribute_commit, back_up, note_records, summarize
from .repo import Repository

BATCH = 250


@dataclass
class BackfillResult:
    """What a backfill did: commits seen, recorded and skipped, and the lines credited."""

    commits: int = 0
    recorded: int = 0
    skipped: int = 0
    lines_added: int = 0
    lines_attributed: int = 0
    sessions: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def backfill(repo: Repository, revision_range: str = "HEAD", *, transcripts: Iterable[Path] = (),
             force: bool = False, progress: Callable[[int], None] | None = None) -> BackfillResult:
    """Record every commit of `revision_range` (oldest first) that has no git-intent record yet.

    `force` recomputes commits already recorded. `progress` is called with 1 after each commit.
    Raises IntentError for a range git does not understand, TranscriptError for an unreadable
    `transcripts` file, NoteError when a batch cannot be written or does not verify.
    """
    started = time.perf_counter()
    # Thousands of commit, blob and note lookups: in process (pygit2), not one `git` process each.
    repo = InProcessRepository.of(repo)
    try:
        commits = repo.git("rev-list", "--reverse", "--end-of-options", revision_range).split()
    except GitError as exc:
        raise IntentError(f"{revision_range!r} is not a revision or range of this repository.",
                          hint="Examples: HEAD, main~50..main, v1.0..") from exc
    result = BackfillResult(commits=len(commits))
    recorded = set() if force else _recorded(repo, commits)
    todo = [c for c in commits if c not in recorded]
    result.skipped = len(commits) - len(todo)
    if progress and result.skipped:
        progress(result.skipped)
    if todo:
        stamps = [int(t) for i in range(0, len(todo), 1000)
                  for t in repo.git("show", "-s", "--format=%ct", *todo[i:i + 1000]).split()]
        oldest = datetime.fromtimestamp(min(stamps), timezone.utc)
        window = lookback(repo)
        sessions = candidate_sessions(repo, oldest - window, transcripts)
        mapper = PathMapper(repo.root, repo.tree_files("HEAD") if repo.succeeds("rev-parse", "-q", "--verify",
                                                                                "HEAD") else [], repo.worktrees)
        for start in range(0, len(todo), BATCH):
            batch: dict[str, list[NoteRecord]] = {}
            backups = []
            for commit in todo[start:start + BATCH]:
                credits = attribute_commit(repo, commit, sessions=sessions, mapper=mapper, keep_own=not force,
                                           window=window)
                summary = summarize(commit, credits)
                batch[commit] = note_records(commit, credits)
                backups.append((commit, credits, summary))
                result.lines_added += summary.lines_added
                result.lines_attributed += summary.lines_attributed
                for key, lines in summary.sessions.items():
                    result.sessions[key] = result.sessions.get(key, 0) + lines
                if progress:
                    progress(1)
            write_notes(repo, batch)
            for commit, credits, summary in backups:
                if summary.sessions:
                    back_up(repo, commit, credits, summary)
            result.recorded += len(batch)
    result.seconds = time.perf_counter() - started
    return result


def _recorded(repo: Repository, commits: list[str]) -> set[str]:
    """The commits whose note already holds a git-intent commit record naming that commit."""
    return {commit for commit, note in read_notes(repo, commits).items() if note.own is not None}
