"""Every `--json` output of a dataclass answer is what pydantic would print.

`models.to_json` writes the JSON form of the value types by hand (building pydantic's serializer cost each
`--json` call ~70 ms); pydantic stays the authority it is checked against: Hypothesis builds sessions,
blame answers, why answers and topics with every field filled at random and both must agree exactly."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from git_intent.answer.values import WhyAnswer
from git_intent.core.values import Message, Session, adapter, to_json
from git_intent.explain.blame import BlameAnswer
from git_intent.fidelity.topics import Topic

ZONES = st.sampled_from(
    [
        None,
        timezone.utc,
        timezone(timedelta(hours=2)),
        timezone(timedelta(hours=-5, minutes=-30)),
        timezone(timedelta(0), "elsewhere"),
    ]
)
st.register_type_strategy(
    datetime, st.builds(lambda d, z: d.replace(tzinfo=z), st.datetimes(min_value=datetime(1990, 1, 1)), ZONES)
)
st.register_type_strategy(
    Path, st.builds(Path, st.sampled_from(["a.jsonl", "/home/x/s.jsonl", "sub/ü.json"]))
)


def pydantic_form(value: Any, **options: Any) -> Any:
    return adapter(type(value)).dump_python(value, mode="json", **options)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.from_type(Session), st.from_type(Message), st.from_type(Topic)))
def test_sessions_messages_and_topics_print_as_pydantic_prints_them(value: Any) -> None:
    assert to_json(value) == pydantic_form(value)


@settings(max_examples=60, deadline=None)
@given(st.from_type(BlameAnswer))
def test_blame_answers_print_as_pydantic_prints_them(answer: BlameAnswer) -> None:
    assert answer.contract() == pydantic_form(answer, exclude={"problems", "whole_file"})


@settings(max_examples=40, deadline=None)
@given(st.from_type(WhyAnswer))
def test_why_answers_print_as_pydantic_prints_them(answer: WhyAnswer) -> None:
    assert to_json(answer) == pydantic_form(answer)
    assert to_json([answer]) == [pydantic_form(answer)]
