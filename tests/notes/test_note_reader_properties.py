"""Property tests (Hypothesis) of the readers of data other people write: the note reader and the
shared evidence reader never raise on any input, keep every line they cannot read, and round-trip what they
write. Bounded (`max_examples`) so the suite stays fast."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_intent.notes import CommitRecord, LinesRecord, SessionRecord, parse_note, render_note
from git_intent.notes.evidence_ref import MAX_DEPTH, parse_payload
from git_intent.sessions.shared import MAX_PART_CHARS, readable_session

BOUNDED = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
IDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=30)
AGENTS = st.sampled_from(["claude-code", "codex", "opencode", "gemini-cli", "cursor", "aider"])
LINES = st.builds(
    LinesRecord,
    agent=AGENTS,
    session_id=IDS,
    message_id=IDS,
    tool=IDS,
    path=IDS,
    start=st.integers(1, 10_000),
    end=st.integers(1, 10_000),
    match=st.sampled_from(["exact", "fuzzy"]),
    confidence=st.floats(0, 1),
    sha=st.text("0123456789abcdef", min_size=16, max_size=16),
)
RECORDS = st.lists(
    st.one_of(
        LINES,
        st.builds(SessionRecord, agent=AGENTS, session_id=IDS, lines_attributed=st.integers(0, 10**6)),
        st.builds(
            CommitRecord,
            commit=st.text("0123456789abcdef", min_size=40, max_size=40),
            lines_added=st.integers(0, 10**6),
            lines_attributed=st.integers(0, 10**6),
            recorded_by=IDS,
        ),
    ),
    max_size=8,
)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@BOUNDED
@given(
    st.lists(
        st.one_of(
            st.text(max_size=200),
            JSON.map(json.dumps),
            st.integers(1, 50_000).map(nested),
            JSON.map(lambda v: json.dumps({"schema": "git-intent/1", "kind": "lines", "x": v})),
        ),
        max_size=12,
    )
)
def test_the_note_reader_never_raises_and_keeps_every_line_it_cannot_read(lines: list[str]) -> None:
    text = "\n".join(lines)
    note = parse_note("a" * 40, text)
    shown = [line for line in text.splitlines() if line.strip()]
    assert len(note.records) + note.foreign_lines == len(shown)
    assert all(line in shown for line in note.foreign if line.strip())


@BOUNDED
@given(
    RECORDS,
    st.lists(
        st.text(
            st.characters(exclude_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
            min_size=1,
            max_size=40,
        ).filter(lambda s: s.strip() and not s.startswith("{")),
        max_size=3,
    ),
)
def test_notes_round_trip_records_and_keep_foreign_lines(records: list[Any], foreign: list[str]) -> None:
    note = parse_note("b" * 40, render_note(records, foreign))
    assert set(note.records) == set(records)
    assert list(note.foreign) == foreign


def payload(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "schema": "git-intent-evidence/1",
        "level": "sessions",
        "agent": "claude-code",
        "session_id": "s1",
        "commits": [],
        "topics": [],
        "messages": [{"message_id": "m1", "role": "user", "parts": [{"kind": "text", "text": "hello"}]}],
        "edits": [{"message_id": "m1", "tool": "Write", "path": "a.py", "new_text": "x", "added": []}],
    }
    base.update(changes)
    return base


FIELDS = st.sampled_from(
    ["agent", "session_id", "messages", "edits", "topics", "commits", "level", "agent_version"]
)


@BOUNDED
@given(st.binary(max_size=2000) | JSON.map(lambda v: json.dumps(v).encode()))
def test_the_evidence_reader_never_raises_on_any_bytes(data: bytes) -> None:
    value, problem = parse_payload(data)
    assert (value is None) != (problem is None)


@BOUNDED
@given(FIELDS, JSON, st.sampled_from(["parts", "message_id", "role", "timestamp", "text", "kind"]), JSON)
def test_a_shared_blob_of_any_shape_is_read_or_refused_never_raised(
    field: str, value: Any, inner: str, inner_value: Any
) -> None:
    document = payload(**{field: value})
    if (
        isinstance(document.get("messages"), list)
        and document["messages"]
        and isinstance(document["messages"][0], dict)
    ):
        document["messages"][0][inner] = inner_value
    parsed, problem = parse_payload(json.dumps(document).encode())
    if parsed is None:
        assert problem
        return
    session = readable_session(parsed, "refs/intent/evidence:sessions/x.json")
    if session is not None:
        assert all(len(p.text) <= MAX_PART_CHARS + 100 for m in session.messages for p in m.parts)


@BOUNDED
@given(st.integers(1, 100_000), st.sampled_from(["messages", "topics", "extra"]))
def test_deep_nesting_is_refused_at_the_limit_whatever_the_depth(depth: int, field: str) -> None:
    data = json.dumps(payload())[:-1] + f', "{field}_deep": ' + nested(depth) + "}"
    parsed, problem = parse_payload(data.encode())
    assert (parsed is not None) == (depth + 1 <= MAX_DEPTH)
    assert parsed is not None or problem == f"nests deeper than {MAX_DEPTH} levels"


@BOUNDED
@given(st.integers(1, 5_000))
def test_a_record_nested_past_the_limit_is_kept_as_a_foreign_line_and_every_note_renders_again(
    depth: int,
) -> None:
    record = {
        "schema": "git-intent/1",
        "kind": "lines",
        "agent": "claude-code",
        "session_id": "s",
        "message_id": "m",
        "tool": "Write",
        "match": "exact",
        "confidence": 1.0,
        "path": "a.py",
        "start": 1,
        "end": 1,
        "sha": "0" * 16,
    }
    line = json.dumps(record)[:-1] + ', "extra": ' + nested(depth) + "}"
    note = parse_note("c" * 40, line)
    assert (len(note.records), len(note.foreign)) == ((1, 0) if depth + 1 <= 16 else (0, 1))
    assert parse_note("c" * 40, render_note(note.records, note.foreign)).records == note.records
