"""The note format: typed record kinds, the range digest, and note text (JSON Lines) in and out.

A note is one JSON object per line (DESIGN.md: git concatenates notes on squash and rewrite and merges them
with `cat_sort_uniq`, which a single JSON document would not survive). Every git-intent line carries
`"schema": "git-intent/1"` and a `kind`; lines that are not git-intent records (another tool's, or
damaged ones) are kept verbatim, never raised. Notes hold ids, hashes and counts only, never transcript
text, so no secret can enter a git object through them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..models import AgentName

NOTE_SCHEMA: Literal["git-intent/1"] = "git-intent/1"
Match = str  # "exact" | "fuzzy" today; a newer writer may add kinds, so any string is read
_POSITION = frozenset({"schema_", "kind", "path", "start", "end", "sha"})


def range_digest(lines: Sequence[str]) -> str:
    """The `sha` of a lines record: 16 hex digits of sha256 over the lines joined by "\\n" (UTF-8).

    A line's trailing "\\r" is not part of it (issue 9): the diff a note is recorded from and the blob a
    note is checked against must hash a CRLF line alike. Notes written before this rule hashed diff text
    read with universal newlines, so they agree with it.
    """
    text = "\n".join(line.removesuffix("\r") for line in lines)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class Credit(BaseModel):
    """Who wrote a line, as a lines record says it: everything of the record except where the lines are.

    `match` is "exact" or "fuzzy" (near match, `confidence` < 1); `derived_from` is the commit a carried
    credit first came from. Unknown fields of newer writers are kept (extra="allow"), so carrying a
    credit to another commit copies every field of the source record.
    """

    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=True)

    agent: AgentName
    session_id: str
    message_id: str
    tool: str
    match: Match
    confidence: float
    call_id: str | None = None
    derived_from: str | None = None


class LinesRecord(Credit):
    """kind "lines": lines `start..end` (1-based, inclusive) of `path` at the commit, credited to a
    session's message; `sha` is `range_digest` of those lines."""

    schema_: Literal["git-intent/1"] = Field(default=NOTE_SCHEMA, alias="schema")
    kind: Literal["lines"] = "lines"
    path: str
    start: int = Field(ge=1)
    end: int = Field(ge=1)
    sha: str

    @property
    def credit(self) -> Credit:
        """The record without its position (path, lines, digest): what carrying copies."""
        return Credit.model_validate({k: v for k, v in self.model_dump().items() if k not in _POSITION})

    def covers(self, path: str, line: int) -> bool:
        """Whether line `line` of `path` lies in this range."""
        return self.path == path and self.start <= line <= self.end

    def matches(self, file_lines: Sequence[str]) -> bool:
        """Whether the range of `file_lines` (the file at the commit, split on "\\n") still hashes to `sha`:
        git copies notes onto amended and rebased commits (notes.rewriteRef), where the recorded line
        numbers may no longer fit."""
        return range_digest(file_lines[self.start - 1:self.end]) == self.sha


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=True)

    schema_: Literal["git-intent/1"] = Field(default=NOTE_SCHEMA, alias="schema")


class CommitRecord(_Record):
    """kind "commit": the commit a note was recorded for, and counts of its non-blank added lines."""

    kind: Literal["commit"] = "commit"
    commit: str
    lines_added: int
    lines_attributed: int
    recorded_by: str


class SessionRecord(_Record):
    """kind "session": a session credited in the note and how many non-blank lines it wrote there."""

    kind: Literal["session"] = "session"
    agent: AgentName
    session_id: str
    lines_attributed: int
    parent_session_id: str | None = None
    transcript_sha256: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        """(agent, session_id)."""
        return self.agent, self.session_id


NoteRecord = Annotated[CommitRecord | SessionRecord | LinesRecord, Field(discriminator="kind")]
_RECORD: TypeAdapter[CommitRecord | SessionRecord | LinesRecord] = TypeAdapter(NoteRecord)


@dataclass(frozen=True)
class Note:
    """The records of one commit's note, and its lines that are not git-intent records (`foreign`)."""

    commit: str
    records: tuple[CommitRecord | SessionRecord | LinesRecord, ...]
    foreign: tuple[str, ...] = ()

    @property
    def foreign_lines(self) -> int:
        """How many non-blank lines are not git-intent records."""
        return sum(1 for line in self.foreign if line.strip())

    @property
    def lines(self) -> list[LinesRecord]:
        """The lines records, in note order."""
        return [r for r in self.records if isinstance(r, LinesRecord)]

    @property
    def sessions(self) -> list[SessionRecord]:
        """The session records, in note order."""
        return [r for r in self.records if isinstance(r, SessionRecord)]

    @property
    def commit_records(self) -> list[CommitRecord]:
        """The commit records: one naming `commit` when recorded for it; others when git copied or
        concatenated the note from rewritten commits (notes.rewriteRef, squash)."""
        return [r for r in self.records if isinstance(r, CommitRecord)]

    @property
    def own(self) -> CommitRecord | None:
        """The commit record naming this note's own commit, or None (a note copied from another commit)."""
        return next((r for r in self.commit_records if r.commit == self.commit), None)

    def covering(self, path: str, line: int) -> LinesRecord | None:
        """The lines record crediting line `line` of `path` at this commit, or None (a human line)."""
        return next((r for r in self._lines_by_path.get(path, ()) if r.start <= line <= r.end), None)

    @cached_property
    def _lines_by_path(self) -> dict[str, list[LinesRecord]]:
        # `stats` asks for every added line of a history: a scan of every record per line was 4.5 of its 7.7 s
        # on entireio/git-sync (issue 22); note order is kept within each path, so the first match is the same.
        by_path: dict[str, list[LinesRecord]] = {}
        for record in self.lines:
            by_path.setdefault(record.path, []).append(record)
        return by_path


MAX_DEPTH = 16  # a record nests 1 deep; deeper extra fields (another writer's, or hostile) cannot be written back


def nesting(value: Any, limit: int) -> int:
    """How deep `value` nests (a scalar is 0), walked without recursion; stops counting past `limit`."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if depth > limit:
                return depth
            stack += [(child, depth) for child in (item.values() if isinstance(item, dict) else item)]
    return deepest


def parse_record(value: Any) -> CommitRecord | SessionRecord | LinesRecord | None:
    """A decoded JSON value as a git-intent record, or None when it is not one (wrong schema or shape, or
    nested deeper than MAX_DEPTH: issue 21, such a record read but could not be rendered again)."""
    if not isinstance(value, dict) or value.get("schema") != NOTE_SCHEMA or nesting(value, MAX_DEPTH) > MAX_DEPTH:
        return None
    try:
        return _RECORD.validate_python(value)
    except ValidationError:
        return None


def parse_note(commit: str, text: str) -> Note:
    """Parse note text; lines that are not git-intent records are kept in `foreign`, never raised."""
    records: list[CommitRecord | SessionRecord | LinesRecord] = []
    foreign: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            if foreign:  # a blank line inside another tool's text is part of it
                foreign.append(line)
            continue
        try:
            record = parse_record(json.loads(line))
        except (ValueError, RecursionError):
            record = None
        if record is None:
            foreign.append(line)
        else:
            records.append(record)
    return Note(commit=commit, records=tuple(records), foreign=tuple(foreign))


def render_record(record: CommitRecord | SessionRecord | LinesRecord) -> str:
    """One record as compact JSON with sorted keys and no nulls (equal records give equal bytes)."""
    return json.dumps(record.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True)


def render_note(records: Sequence[CommitRecord | SessionRecord | LinesRecord], foreign: Sequence[str] = ()) -> str:
    """Note text: one JSON object per line, sorted and without duplicates, each ending in "\\n".

    `foreign` lines (another tool's, or damaged ones) come first, verbatim and in their order: the notes
    ref is shared.
    """
    lines = {render_record(r) for r in records}
    return "".join(line + "\n" for line in [*foreign, *sorted(lines)])
