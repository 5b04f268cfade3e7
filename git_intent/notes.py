"""Reading and writing git-intent's notes on refs/notes/intent (JSON Lines, one object per line).

Writes go through the git CLI under an exclusive lock in `<git common dir>/intent/notes.lock` and are
verified by reading them back (DESIGN.md: 20 concurrent `git notes add` kept 3-5 of 20 notes without a
lock, 20/20 with one).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from pydantic import ValidationError

from .errors import NoteError
from .faults import crash_point
from .models import NOTE_SCHEMA, NoteRecord
from .repo import Repository

NOTES_REF = "refs/notes/intent"
SCRATCH_PREFIX = "refs/notes/intent-scratch/"
CAS_ATTEMPTS = 20
# Test-only: disables the lock and the compare-and-swap, so a test can show the notes they save.
UNLOCKED_FOR_TESTS = "GIT_INTENT_TEST_UNLOCKED_NOTES"


@dataclass(frozen=True)
class Note:
    """The records of one commit's note, and how many of its lines were not git-intent records."""

    commit: str
    records: tuple[NoteRecord, ...]
    foreign: tuple[str, ...] = ()

    @property
    def foreign_lines(self) -> int:
        """How many non-blank lines are not git-intent records."""
        return sum(1 for line in self.foreign if line.strip())


def parse_note(commit: str, text: str) -> Note:
    """Parse note text; lines that are not git-intent JSON records are counted, not raised."""
    records: list[NoteRecord] = []
    foreign: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            if foreign:  # a blank line inside another tool's text is part of it
                foreign.append(line)
            continue
        try:
            value = json.loads(line)
            if not isinstance(value, dict) or value.get("schema") != NOTE_SCHEMA:
                raise ValueError(line)
            records.append(NoteRecord.model_validate(value))
        except (ValueError, ValidationError, RecursionError):
            foreign.append(line)
    return Note(commit=commit, records=tuple(records), foreign=tuple(foreign))


def read_note(repo: Repository, commit: str) -> Note | None:
    """The note on `commit`, or None when it has none.

    Raises NoteError when the note exists but holds no git-intent record (corrupt or another tool's).
    """
    proc = repo.git("notes", "--ref", NOTES_REF, "show", commit, check=False)
    if not proc:
        return None
    note = parse_note(commit, proc)
    if not note.records:
        raise NoteError(f"The note on {commit[:12]} in {NOTES_REF} is not a git-intent record "
                        f"(corrupt, or written by another tool).",
                        hint=f"Run `git intent record {commit[:12]}` to record it again.")
    return note


def render_note(records: list[NoteRecord], foreign: tuple[str, ...] = ()) -> str:
    """Note text: one compact JSON object per line, sorted so equal records give equal bytes.

    `foreign` lines (another tool's, or damaged ones) come first, verbatim and in their order: the notes
    ref is shared.
    """
    lines = {json.dumps(r.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True,
                        separators=(",", ":")) for r in records}
    return "".join(line + "\n" for line in [*foreign, *sorted(lines)])


@contextmanager
def notes_lock(repo: Repository) -> Iterator[None]:
    """Hold the repository-wide lock on note writes (shared by linked worktrees)."""
    repo.state_dir.mkdir(parents=True, exist_ok=True)
    if os.environ.get(UNLOCKED_FOR_TESTS) == "1":
        yield
        return
    with open(repo.state_dir / "notes.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_note(repo: Repository, commit: str, records: list[NoteRecord]) -> bool:
    """Write `records` as the note of `commit`; returns False when the note already says exactly that.

    git-intent's earlier records are replaced; lines that are not git-intent records are kept. Under the
    lock, the new notes commit is built on a scratch ref and moved onto refs/notes/intent with a
    compare-and-swap (`git update-ref NEW OLD`), so even a writer that ignores the lock (another machine's
    tool on a shared disk, an older git-intent) cannot make a note vanish; a lost race is retried.
    Raises NoteError when the note cannot be written or does not read back as written.
    """
    with notes_lock(repo):
        remove_stale_scratch_refs(repo)
        for attempt in range(CAS_ATTEMPTS):
            old = repo.git("rev-parse", "-q", "--verify", NOTES_REF, check=False).strip()
            current = repo.git("notes", "--ref", NOTES_REF, "show", commit, check=False)
            text = render_note(records, parse_note(commit, current).foreign)
            if current == text:
                return False
            if _swap(repo, commit, text, old, attempt):
                if repo.git("notes", "--ref", NOTES_REF, "show", commit, check=False) != text:
                    raise NoteError(f"The note written on {commit[:12]} did not read back as written.")
                return True
    raise NoteError(f"refs/notes/intent kept moving; the note on {commit[:12]} was not written.",
                    hint="Run `git intent record --pending` again.")


def _swap(repo: Repository, commit: str, text: str, old: str, attempt: int) -> bool:
    """Build the notes commit on a scratch ref and compare-and-swap it in; False when `old` moved."""
    # Through a blob: `notes add -F` would strip whitespace from other tools' lines.
    blob = repo.git("hash-object", "-w", "--stdin", input_text=text).strip()
    if os.environ.get(UNLOCKED_FOR_TESTS) == "1":  # the pre-lock behaviour, to show what the lock prevents
        repo.git(*_identity(repo), "notes", "--ref", NOTES_REF, "add", "-f", "-C", blob, commit)
        return True
    scratch = f"{SCRATCH_PREFIX}{os.getpid()}-{attempt}"
    try:
        if old:
            repo.git("update-ref", scratch, old)
        repo.git(*_identity(repo), "notes", "--ref", scratch, "add", "-f", "-C", blob, commit)
        new = repo.git("rev-parse", "--verify", scratch).strip()
        crash_point("before-ref-update")
        swapped = repo.succeeds("update-ref", NOTES_REF, new, old or "0" * 40)
    finally:
        repo.git("update-ref", "-d", scratch, check=False)
    return swapped


def remove_stale_scratch_refs(repo: Repository) -> int:
    """Delete scratch refs left by writers that crashed mid-write; returns how many."""
    out = repo.git("for-each-ref", "--format=%(refname)", SCRATCH_PREFIX.rsplit("/", 1)[0], check=False)
    removed = 0
    for ref in out.split():
        pid = ref[len(SCRATCH_PREFIX):].split("-", 1)[0] if ref.startswith(SCRATCH_PREFIX) else ""
        if pid.isdigit() and not _alive(int(pid)):
            repo.git("update-ref", "-d", ref, check=False)
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _identity(repo: Repository) -> list[str]:
    """`-c user.*` options when git has no committer identity: a note write must not fail for that."""
    if repo.git("var", "GIT_COMMITTER_IDENT", check=False).strip():
        return []
    return ["-c", "user.name=git-intent", "-c", "user.email=git-intent@localhost"]
