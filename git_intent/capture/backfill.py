"""`git intent backfill`: link past commits from the transcripts still on disk, no hooks needed.

In bulk: the range's parents and times come from one `git rev-list`, every commit's added lines from one
streamed `git log -p -U0`, the notes from one listing; sessions are read once for the whole range, and their
edits mapped onto the work tree and sorted by time once (`timeline.EditTimeline`: each commit's window is a
binary search); transcripts are hashed once and each credited session backed up once. Each commit is credited
as `record` would (`bulk.credit_commits`; tests/capture/test_backfill.py compares the two on a generated
history); notes are written in batches (`notes.write_notes`: one `git fast-import` per batch, verified by blob
id). Commits that already have a git-intent record are skipped, so a run cut short resumes where it stopped,
and a second run changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from ..git.objects import InProcessRepository
from ..git.repo import Repository
from ..notes import NoteRecord, note_blobs, read_notes, write_notes
from ..sessions.discovery import SkippedFile, candidate_sessions, transcript_files
from ..sessions.drift import NotRead, not_read
from .attribute import LineCredit
from .bulk import credit_commits, spans
from .commit_range import list_range
from .progress import Progress, Quiet
from .record import RecordResult, back_up_many, note_records, summarize

# Commits per notes batch: each batch lists the notes and runs one `git fast-import`; a run cut short
# resumes after the last batch written.
BATCH = 1000


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
    # Files below the `--transcript` folders that no adapter reads (passed over, not an error), and each
    # with its path and reason.
    transcripts_skipped: int = 0
    skipped_files: list[SkippedFile] = field(default_factory=list)
    # Record types the sessions read held and git-intent did not read, per agent and version.
    not_read: list[NotRead] = field(default_factory=list)


def backfill(
    repo: Repository,
    revision_range: str = "HEAD",
    *,
    transcripts: Iterable[Path] = (),
    force: bool = False,
    progress: Progress | None = None,
) -> BackfillResult:
    """Record every commit of `revision_range` (oldest first) that has no git-intent record yet.

    `transcripts` are files or folders (`discovery.transcript_files`). `force` recomputes commits already
    recorded (their notes keep what `record_commit` keeps of an earlier note). `progress` hears of each step
    (reading the transcripts, of no known length; recording the range's commits, one unit each, the commits
    skipped as already recorded at once).
    Raises IntentError for a range git does not understand, TranscriptError for a `transcripts` path that
    does not exist or an unreadable file, NoteError when a batch cannot be written or does not verify.
    """
    started = time.perf_counter()
    transcripts, passed_over = transcript_files(transcripts)
    # Commit, blob and note lookups for single objects: in process (pygit2), not one `git` process each.
    repo = InProcessRepository.of(repo)
    commits = list_range(repo, revision_range)
    result = BackfillResult(
        commits=len(commits), transcripts_skipped=len(passed_over), skipped_files=passed_over
    )
    noted = set(note_blobs(repo))
    recorded = set() if force else _recorded(repo, [c.sha for c in commits if c.sha in noted])
    todo = [c for c in commits if c.sha not in recorded]
    result.skipped = len(commits) - len(todo)
    tick = progress or Quiet()
    if todo:
        tick.stage("Reading transcripts", 0)
    windows = spans(repo, todo) if todo else {}
    sessions = (
        candidate_sessions(repo, min(w.earliest for w in windows.values()), transcripts) if todo else []
    )
    tick.stage("Recording commits", len(commits))
    if result.skipped:
        tick.advance(result.skipped)
    if not todo:
        result.seconds = time.perf_counter() - started
        return result
    result.not_read = not_read(sessions)
    digests: dict[Path, str | None] = {}
    credited = credit_commits(repo, todo, sessions, windows, noted)
    for _ in range(0, len(todo), BATCH):
        batch: dict[str, list[NoteRecord]] = {}
        done: list[tuple[str, list[LineCredit], RecordResult]] = []
        for sha, credits in islice(credited, BATCH):
            summary = summarize(sha, credits)
            batch[sha] = note_records(sha, credits, digests)
            done.append((sha, credits, summary))
            result.lines_added += summary.lines_added
            result.lines_attributed += summary.lines_attributed
            for key, lines in summary.sessions.items():
                result.sessions[key] = result.sessions.get(key, 0) + lines
            tick.advance(1)
        write_notes(repo, batch)
        back_up_many(repo, [item for item in done if item[2].sessions])
        result.recorded += len(batch)
    result.seconds = time.perf_counter() - started
    return result


def _recorded(repo: Repository, commits: list[str]) -> set[str]:
    """The commits whose note already holds a git-intent commit record naming that commit."""
    return {commit for commit, note in read_notes(repo, commits).items() if note.own is not None}
