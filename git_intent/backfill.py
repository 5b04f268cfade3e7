"""`git intent backfill`: link past commits from the transcripts still on disk, no hooks needed.

Sessions are read once for the whole range; each commit is attributed as `record` would; notes are
written in batches through one `git fast-import` per batch (a notes commit on top of the current
refs/notes/intent, which fast-import refuses to move unless it still points there), then verified by
comparing every note's blob id with the expected one. Commits that already have a git-intent record
are skipped, so a run cut short resumes where it stopped, and a second run changes nothing.
"""

from __future__ import annotations

import hashlib
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .catalog import candidate_sessions
from .config import lookback
from .errors import GitError, IntentError, NoteError
from .notes import NOTES_REF, notes_lock, parse_note, render_note
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
        sessions = candidate_sessions(repo, oldest - lookback(repo), transcripts)
        mapper = PathMapper(repo.root, repo.tree_files("HEAD") if repo.succeeds("rev-parse", "-q", "--verify",
                                                                                "HEAD") else [], repo.worktrees)
        for start in range(0, len(todo), BATCH):
            batch: dict[str, str] = {}
            backups = []
            for commit in todo[start:start + BATCH]:
                credits = attribute_commit(repo, commit, sessions=sessions, mapper=mapper)
                summary = summarize(commit, credits)
                current = repo.git("notes", "--ref", NOTES_REF, "show", commit, check=False)
                batch[commit] = render_note(note_records(commit, credits), parse_note(commit, current).foreign)
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


def write_notes(repo: Repository, notes: dict[str, str]) -> None:
    """Write many notes in one `git fast-import` transaction on refs/notes/intent, then verify them.

    Raises NoteError when fast-import fails (refs/notes/intent moved meanwhile, a full disk) or a note
    does not read back with the expected blob id; the ref is then as before or fully updated.
    """
    if not notes:
        return
    with notes_lock(repo):
        old = repo.git("rev-parse", "-q", "--verify", NOTES_REF, check=False).strip()
        stream = _fast_import_stream(notes, old)
        proc = subprocess.run(["git", "fast-import", "--quiet", "--date-format=raw"], cwd=repo.root,
                              input=stream, capture_output=True)
        if proc.returncode != 0:
            message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise NoteError(f"git fast-import could not write {len(notes)} notes: "
                            f"{message[-1] if message else 'exit ' + str(proc.returncode)}.")
        listed = dict(line.split()[::-1] for line in
                      repo.git("notes", "--ref", NOTES_REF, "list").splitlines() if len(line.split()) == 2)
        wrong = [c for c, text in notes.items() if listed.get(c) != _blob_id(text.encode("utf-8"))]
        if wrong:
            raise NoteError(f"{len(wrong)} backfilled notes did not read back as written (first: {wrong[0][:12]}).")


def _fast_import_stream(notes: dict[str, str], old: str) -> bytes:
    message = f"git-intent backfill: {len(notes)} notes".encode()
    parts = [f"commit {NOTES_REF}\n".encode(),
             f"committer git-intent <git-intent@localhost> {int(time.time())} +0000\n".encode(),
             f"data {len(message)}\n".encode(), message, b"\n"]
    if old:
        parts.append(f"from {old}\n".encode())
    for commit, text in notes.items():
        data = text.encode("utf-8")
        parts += [f"N inline {commit}\n".encode(), f"data {len(data)}\n".encode(), data, b"\n"]
    parts.append(b"\n")
    return b"".join(parts)


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _recorded(repo: Repository, commits: list[str]) -> set[str]:
    """The commits whose note already holds a git-intent commit record naming that commit."""
    listed = {}
    for line in repo.git("notes", "--ref", NOTES_REF, "list", check=False).splitlines():
        fields = line.split()
        if len(fields) == 2:
            listed[fields[1]] = fields[0]
    wanted = [c for c in commits if c in listed]
    if not wanted:
        return set()
    found: set[str] = set()
    for (commit, (_, body)) in zip(wanted, repo.cat_blobs([listed[c] for c in wanted]), strict=True):
        if body and f'"commit":"{commit}"'.encode() in body and b'"kind":"commit"' in body:
            found.add(commit)
    return found
