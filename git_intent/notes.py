"""Reading and writing git-intent's notes on refs/notes/intent (JSON Lines, one object per line).

Writes go through the git CLI under an exclusive lock in `<git common dir>/intent/notes.lock` and are
verified by reading them back (DESIGN.md: 20 concurrent `git notes add` kept 3-5 of 20 notes without a
lock, 20/20 with one).
"""

from __future__ import annotations

import fcntl
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from pydantic import ValidationError

from .errors import NoteError
from .models import NOTE_SCHEMA, NoteRecord
from .repo import Repository

NOTES_REF = "refs/notes/intent"


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
    with open(repo.state_dir / "notes.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_note(repo: Repository, commit: str, records: list[NoteRecord]) -> bool:
    """Write `records` as the note of `commit`; returns False when the note already says exactly that.

    git-intent's earlier records are replaced; lines that are not git-intent records are kept.
    Raises NoteError when the note read back differs from what was written.
    """
    with notes_lock(repo):
        current = repo.git("notes", "--ref", NOTES_REF, "show", commit, check=False)
        text = render_note(records, parse_note(commit, current).foreign)
        if current == text:
            return False
        # Through a blob: `notes add -F` would strip whitespace from other tools' lines.
        blob = repo.git("hash-object", "-w", "--stdin", input_text=text).strip()
        repo.git(*_identity(repo), "notes", "--ref", NOTES_REF, "add", "-f", "-C", blob, commit)
        if repo.git("notes", "--ref", NOTES_REF, "show", commit, check=False) != text:
            raise NoteError(f"The note written on {commit[:12]} did not read back as written.")
    return True


def _identity(repo: Repository) -> list[str]:
    """`-c user.*` options when git has no committer identity: a note write must not fail for that."""
    if repo.git("var", "GIT_COMMITTER_IDENT", check=False).strip():
        return []
    return ["-c", "user.name=git-intent", "-c", "user.email=git-intent@localhost"]
