"""A note record is read the same whether the plain check builds it or pydantic validates it.

`parse_record` builds a record itself only when every known field already has exactly its type; anything else
goes to pydantic's lax validation. Hypothesis throws records of every kind with fields of the right type,
the wrong type, coercible text, booleans, nulls, out-of-range lines and unknown fields at both readers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_intent.notes import NOTE_SCHEMA, parse_record, render_note
from git_intent.notes.records import _KINDS, _split, _validated

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 5),
    st.floats(-1, 2, allow_nan=False),
    st.sampled_from([10**400, -(2**60), 2**53 + 1]),
    st.sampled_from(["", "x", "7", "1.5", "claude-code", "claude-code\n", "Not An Agent!", "exact"]),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.just("k"), st.integers(0, 1)),
)
FIELDS = {
    "lines": [
        "agent",
        "session_id",
        "message_id",
        "tool",
        "match",
        "confidence",
        "call_id",
        "derived_from",
        "path",
        "start",
        "end",
        "sha",
    ],
    "session": ["agent", "session_id", "lines_attributed", "parent_session_id", "transcript_sha256"],
    "commit": ["commit", "lines_added", "lines_attributed", "recorded_by"],
}
GOOD = {
    "agent": "claude-code",
    "session_id": "s",
    "message_id": "m",
    "tool": "Edit",
    "match": "exact",
    "confidence": 1,
    "path": "a.py",
    "start": 1,
    "end": 2,
    "sha": "0" * 16,
    "lines_attributed": 3,
    "commit": "c" * 40,
    "lines_added": 4,
    "recorded_by": "git-intent",
}


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(sorted(FIELDS)))
    value: dict[str, Any] = {"schema": NOTE_SCHEMA, "kind": kind}
    if draw(st.integers(0, 9)) == 0:  # a kind that is no kind: a list, a number, an unknown name
        value["kind"] = draw(st.sampled_from([["lines"], {"k": 1}, 3, "future-kind"]))
        return value
    for name in FIELDS[kind]:
        choice = draw(st.sampled_from(["good", "good", "other", "missing"]))
        if choice == "good" and name in GOOD:
            value[name] = GOOD[name]
        elif choice == "other":
            value[name] = draw(VALUES)
    if draw(st.booleans()):
        value[draw(st.sampled_from(["reviewed_by", "future", "extra"]))] = draw(VALUES)
    return value


def through_pydantic(value: dict[str, Any]) -> Any:
    kind = _KINDS.get(value["kind"]) if isinstance(value["kind"], str) else None
    return None if kind is None else _validated(kind, *_split(kind, value))


@settings(max_examples=400, deadline=None)
@given(records())
def test_the_plain_check_reads_a_record_as_pydantic_does(value: dict[str, Any]) -> None:
    read = parse_record(value)  # never raises: a damaged line of a teammate's note is read as no record
    assert read == through_pydantic(value)
    if read is not None:  # and it is written back the same way either route took
        assert render_note([read]) == render_note([through_pydantic(value)])


def test_what_git_intent_writes_never_needs_pydantic(monkeypatch: pytest.MonkeyPatch) -> None:
    from git_intent.notes import records

    def refuse(*_: Any) -> None:
        raise AssertionError("a record git-intent writes went to pydantic")

    monkeypatch.setattr(records, "_validated", refuse)
    for kind in FIELDS:
        value = {"schema": NOTE_SCHEMA, "kind": kind, **{k: GOOD[k] for k in FIELDS[kind] if k in GOOD}}
        assert parse_record(value) is not None
