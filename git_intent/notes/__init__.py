"""The one owner of git-intent's note on refs/notes/git-intent: its record kinds, the range digest, which
record covers a line, and reading and writing notes (one at a time, or in batches through fast-import).

Every other module builds, reads, checks and writes notes through the names below; the format itself is
documented in docs/json.md ("The note on refs/notes/git-intent").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .records import (
    NOTE_SCHEMA,
    CommitRecord,
    Credit,
    LinesRecord,
    Note,
    NoteRecord,
    SessionRecord,
    parse_note,
    parse_record,
    range_digest,
    render_note,
)
from .refs import LEGACY_NOTES_REF, NOTES_REF, adopt_legacy_notes, legacy_oid
from .store import (
    empty_notes_commit,
    note_blobs,
    note_text,
    notes_lock,
    notes_ref_damage,
    read_note,
    read_notes,
    remove_stale_scratch_refs,
    still_matches,
    write_note,
    write_notes,
)

if TYPE_CHECKING:
    from .build import CreditedLine, build_note, lines_record
    from .repair import SetAside, set_aside

# Building and repairing notes is capture's work: imported when first asked for, so reading a note (blame)
# does not load them.
_LATER = {
    "CreditedLine": "build",
    "build_note": "build",
    "lines_record": "build",
    "SetAside": "repair",
    "set_aside": "repair",
}


def __getattr__(name: str) -> Any:
    if name in _LATER:
        from importlib import import_module

        return getattr(import_module(f".{_LATER[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LEGACY_NOTES_REF",
    "NOTES_REF",
    "NOTE_SCHEMA",
    "CommitRecord",
    "Credit",
    "CreditedLine",
    "LinesRecord",
    "Note",
    "NoteRecord",
    "SessionRecord",
    "SetAside",
    "adopt_legacy_notes",
    "build_note",
    "empty_notes_commit",
    "legacy_oid",
    "lines_record",
    "note_blobs",
    "note_text",
    "notes_lock",
    "notes_ref_damage",
    "parse_note",
    "parse_record",
    "range_digest",
    "read_note",
    "read_notes",
    "remove_stale_scratch_refs",
    "render_note",
    "set_aside",
    "still_matches",
    "write_note",
    "write_notes",
]
