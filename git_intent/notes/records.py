"""The note format: typed record kinds, the range digest, and note text (JSON Lines) in and out.

A note is one JSON object per line (docs/design.md: git concatenates notes on squash and rewrite and merges
them with `cat_sort_uniq`, which a single JSON document would not survive). Every git-intent line carries
`"schema": "git-intent/1"` and a `kind`; lines that are not git-intent records (another tool's, or damaged
ones) are kept verbatim, never raised. Notes hold ids, hashes and counts only, never transcript text, so no
secret can enter a git object through them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Literal

from ..core.values import AGENT, AGENT_NAME, AgentName

NOTE_SCHEMA: Literal["git-intent/1"] = "git-intent/1"
Match = str  # "exact" | "fuzzy" today; a newer writer may add kinds, so any string is read
_POSITION = frozenset({"schema", "kind", "path", "start", "end", "sha"})
# Unknown fields of a newer writer, kept so a carried or rewritten record copies them (pydantic's
# extra="allow" once); never compared by hash, always by value.
_EXTRA: Any = field(default_factory=dict, hash=False, repr=False, metadata={"exclude": True})


def range_digest(lines: Sequence[str]) -> str:
    """The `sha` of a lines record: 16 hex digits of sha256 over the lines joined by "\\n" (UTF-8).

    A line's trailing "\\r" is not part of it: the diff a note is recorded from and the blob a
    note is checked against must hash a CRLF line alike. Notes written before this rule hashed diff text
    read with universal newlines, so they agree with it.
    """
    text = "\n".join(line.removesuffix("\r") for line in lines)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True, kw_only=True)
class Credit:
    """Who wrote a line, as a lines record says it: everything of the record except where the lines are.

    `match` is "exact" or "fuzzy" (near match, `confidence` < 1); `derived_from` is the commit a carried
    credit first came from. `extra` holds the fields of a newer writer this version does not know, so
    carrying a credit to another commit copies every field of the source record.
    """

    agent: AgentName = field(metadata=AGENT)
    session_id: str
    message_id: str
    tool: str
    match: Match
    confidence: float
    call_id: str | None = None
    derived_from: str | None = None
    extra: Mapping[str, Any] = _EXTRA


@dataclass(frozen=True, kw_only=True)
class LinesRecord(Credit):
    """kind "lines": lines `start..end` (1-based, inclusive) of `path` at the commit, credited to a
    session's message; `sha` is `range_digest` of those lines."""

    schema: Literal["git-intent/1"] = NOTE_SCHEMA
    kind: Literal["lines"] = "lines"
    path: str
    start: int = field(metadata={"ge": 1})
    end: int = field(metadata={"ge": 1})
    sha: str

    @property
    def credit(self) -> Credit:
        """The record without its position (path, lines, digest): what carrying copies."""
        return Credit(**{f.name: getattr(self, f.name) for f in fields(Credit)})

    def covers(self, path: str, line: int) -> bool:
        """Whether line `line` of `path` lies in this range."""
        return self.path == path and self.start <= line <= self.end

    def matches(self, file_lines: Sequence[str]) -> bool:
        """Whether the range of `file_lines` (the file at the commit, split on "\\n") still hashes to `sha`:
        git copies notes onto amended and rebased commits (notes.rewriteRef), where the recorded line
        numbers may no longer fit."""
        return range_digest(file_lines[self.start - 1 : self.end]) == self.sha


@dataclass(frozen=True, kw_only=True)
class CommitRecord:
    """kind "commit": the commit a note was recorded for, and counts of its non-blank added lines."""

    schema: Literal["git-intent/1"] = NOTE_SCHEMA
    kind: Literal["commit"] = "commit"
    commit: str
    lines_added: int
    lines_attributed: int
    recorded_by: str
    extra: Mapping[str, Any] = _EXTRA


@dataclass(frozen=True, kw_only=True)
class SessionRecord:
    """kind "session": a session credited in the note and how many non-blank lines it wrote there."""

    schema: Literal["git-intent/1"] = NOTE_SCHEMA
    kind: Literal["session"] = "session"
    agent: AgentName = field(metadata=AGENT)
    session_id: str
    lines_attributed: int
    parent_session_id: str | None = None
    transcript_sha256: str | None = None
    extra: Mapping[str, Any] = _EXTRA

    @property
    def key(self) -> tuple[str, str]:
        """(agent, session_id)."""
        return self.agent, self.session_id


NoteRecord = CommitRecord | SessionRecord | LinesRecord
_KINDS: dict[str, type[NoteRecord]] = {"commit": CommitRecord, "session": SessionRecord, "lines": LinesRecord}


@dataclass(frozen=True)
class Note:
    """The records of one commit's note, and its lines that are not git-intent records (`foreign`)."""

    commit: str
    records: tuple[NoteRecord, ...]
    foreign: tuple[str, ...] = ()

    @property
    def foreign_lines(self) -> int:
        """How many non-blank lines are not git-intent records."""
        return sum(1 for line in self.foreign if line.strip())

    @cached_property
    def lines(self) -> list[LinesRecord]:
        """The lines records, in note order (treat as read-only)."""
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
        # on entireio/git-sync; note order is kept within each path, so the first match is the same.
        by_path: dict[str, list[LinesRecord]] = {}
        for record in self.lines:
            by_path.setdefault(record.path, []).append(record)
        return by_path


MAX_DEPTH = (
    16  # a record nests 1 deep; deeper extra fields (another writer's, or hostile) cannot be written back
)


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


def parse_record(value: Any) -> NoteRecord | None:
    """A decoded JSON value as a git-intent record, or None when it is not one (wrong schema or shape, or
    nested deeper than MAX_DEPTH: such a record could be read but not rendered again).

    pydantic decides: a record whose known fields already have exactly their types is built
    without it (every record git-intent writes), and any other goes to pydantic's lax validation, so a
    record is read the same either way (tests/notes/test_record_reader.py)."""
    if (
        not isinstance(value, dict)
        or value.get("schema") != NOTE_SCHEMA
        or nesting(value, MAX_DEPTH) > MAX_DEPTH
    ):
        return None
    named = value.get("kind")
    kind = _KINDS.get(named) if isinstance(named, str) else None  # a list there must not raise
    if kind is None:
        return None
    known, extra = _split(kind, value)
    if _plain(kind, known):
        return kind(**known, extra=extra)
    return _validated(kind, known, extra)


_FIELDS: dict[type, dict[str, tuple[bool, tuple[type, ...]]]] = {}


def _spec(kind: type) -> dict[str, tuple[bool, tuple[type, ...]]]:
    """Field name -> (required, the exact Python types a plain record holds there), from the dataclass."""
    spec = _FIELDS.get(kind)
    if spec is None:
        spec = {}
        for f in fields(kind):
            if f.name != "extra":
                hint = str(f.type)
                required = f.default is MISSING and f.default_factory is MISSING
                spec[f.name] = (
                    required,
                    (int,)
                    if hint == "int"
                    else (float, int)
                    if hint == "float"
                    else (str, type(None))
                    if hint == "str | None"
                    else (str,),
                )
        _FIELDS[kind] = spec
    return spec


def _split(kind: type, value: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    spec = _spec(kind)
    known = {k: v for k, v in value.items() if k in spec}
    extra = {k: v for k, v in value.items() if k not in spec and v is not None}
    return known, extra


_AGENT = re.compile(AGENT_NAME)


def _plain(kind: type, known: dict[str, Any]) -> bool:
    """Whether every known field holds exactly its type (no bool for a number, no coercion needed) and
    meets its constraint; floats given as integers are made floats here, as pydantic would."""
    for name, (required, types) in _spec(kind).items():
        if name not in known:
            if required:
                return False
            continue
        item = known[name]
        if type(item) not in types:
            return False
        if types[0] is float and type(item) is int:
            if abs(item) > 2**53:  # no float holds it exactly (a 400-digit one overflows): pydantic decides
                return False
            known[name] = float(item)
    if isinstance(known.get("start"), int) and (known["start"] < 1 or known["end"] < 1):
        return False
    agent = known.get("agent")
    return agent is None or _AGENT.fullmatch(agent) is not None  # `$` alone lets "name\n" through


def _validated(kind: type[NoteRecord], known: dict[str, Any], extra: dict[str, Any]) -> NoteRecord | None:
    from pydantic import ValidationError

    from ..core.values import validate

    try:
        record = validate(kind, known)
    except ValidationError:
        return None
    return replace(record, extra=extra)


def parse_note(commit: str, text: str) -> Note:
    """Parse note text; lines that are not git-intent records are kept in `foreign`, never raised."""
    records: list[NoteRecord] = []
    foreign: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            if foreign:  # a blank line inside another tool's text is part of it
                foreign.append(line)
            continue
        try:
            record = parse_record(json.loads(line))
        except (
            ValueError,
            RecursionError,
            TypeError,
            OverflowError,
        ):  # another writer's damage: kept as foreign
            record = None
        if record is None:
            foreign.append(line)
        else:
            records.append(record)
    return Note(commit=commit, records=tuple(records), foreign=tuple(foreign))


def record_fields(record: NoteRecord) -> dict[str, Any]:
    """A record's fields as JSON-ready values, a newer writer's unknown fields included, nulls left out."""
    values = {**record.extra}
    values.update((f.name, getattr(record, f.name)) for f in fields(record) if f.name != "extra")
    return {k: v for k, v in values.items() if v is not None}


def render_record(record: NoteRecord) -> str:
    """One record as compact JSON with sorted keys and no nulls (equal records give equal bytes)."""
    return json.dumps(record_fields(record), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def render_note(records: Sequence[NoteRecord], foreign: Sequence[str] = ()) -> str:
    """Note text: one JSON object per line, sorted and without duplicates, each ending in "\\n".

    `foreign` lines (another tool's, or damaged ones) come first, verbatim and in their order: the notes
    ref is shared.
    """
    lines = {render_record(r) for r in records}
    return "".join(line + "\n" for line in [*foreign, *sorted(lines)])
