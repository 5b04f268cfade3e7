"""Property tests (Hypothesis) of the transcript readers: the tolerant JSON Lines reader and every
adapter, through `read_transcript`, on lines of any bytes and on real records with any field replaced by any
JSON value. Nothing but TranscriptError escapes; every object a line holds is yielded or counted. Bounded
(`max_examples`) so the suite stays fast."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from conftest import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_intent.core.errors import TranscriptError
from git_intent.core.values import ParseStats
from git_intent.sessions.discovery import read_transcript
from git_intent.transcripts.jsonl import iter_records, loads

BOUNDED = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
SOURCES = {
    agent: Path(CORPUS) / "transcripts" / path
    for agent, path in {
        "claude-code": "claude-code/entire-cli__c9883595c929__queue-operation.jsonl",
        "codex": next(
            p.relative_to(Path(CORPUS) / "transcripts").as_posix()
            for p in sorted((Path(CORPUS) / "transcripts" / "codex").rglob("*.jsonl"))
        ),
    }.items()
}
RECORDS = {
    agent: [
        json.loads(line)
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("{")
    ]
    for agent, path in SOURCES.items()
}


_FOLDER = tempfile.TemporaryDirectory(prefix="git-intent-properties-")  # removed when the run ends


def written(data: bytes, suffix: str = ".jsonl") -> Path:
    """`data` as the one transcript file of the scratch folder (each example overwrites the last)."""
    path = Path(_FOLDER.name) / f"transcript{suffix}"
    path.write_bytes(data)
    return path


@BOUNDED
@given(st.lists(st.binary(max_size=300) | JSON.map(lambda v: json.dumps(v).encode()), max_size=10))
def test_the_jsonl_reader_never_raises_and_counts_what_it_skips(lines: list[bytes]) -> None:
    stats = ParseStats()
    records = list(iter_records(written(b"\n".join(lines)), stats))
    assert all(isinstance(r, dict) for r in records)
    assert stats.records == len(records)


@BOUNDED
@given(st.text(max_size=300) | st.integers(1, 20_000).map(lambda n: "[" * n + "]" * n))
def test_loads_raises_only_value_error(text: str) -> None:
    try:
        loads(text)
    except ValueError:
        pass


def replaced(record: Any, path: list[int], value: Any) -> Any:
    """`record` with the field that `path` picks (indices into keys and items, modulo their count) set to
    `value`."""
    if not path or not isinstance(record, dict | list) or not record:
        return value
    if isinstance(record, dict):
        key = sorted(record)[path[0] % len(record)]
        return {**record, key: replaced(record[key], path[1:], value)}
    index = path[0] % len(record)
    return [*record[:index], replaced(record[index], path[1:], value), *record[index + 1 :]]


@BOUNDED
@given(
    st.sampled_from(sorted(RECORDS)),
    st.integers(0, 10_000),
    st.lists(st.integers(0, 50), min_size=1, max_size=4),
    JSON,
)
def test_every_adapter_survives_any_field_of_any_record_being_any_value(
    agent: str, which: int, path: list[int], value: Any
) -> None:
    records = RECORDS[agent]
    index = which % len(records)
    mutated = [*records[:index], replaced(records[index], path, value), *records[index + 1 :]]
    source = SOURCES[agent]
    try:
        sessions = read_transcript(
            written("".join(json.dumps(r) + "\n" for r in mutated).encode(), source.suffix)
        )
    except TranscriptError:
        return
    assert all(s.session_id for s in sessions)
