"""Copies of one session merge into one: records deduplicated by message id, edits by
call."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from git_intent.core.values import Edit, Message, ParseStats, Part, Session
from git_intent.sessions.merge import merge_copies, merge_session

T0 = datetime(2026, 5, 18, 12, 0, tzinfo=timezone.utc)


def _message(n: int) -> Message:
    return Message(
        message_id=f"m{n}",
        role="assistant",
        timestamp=T0 + timedelta(minutes=n),
        parts=(Part(kind="text", text=f"turn {n}"),),
    )


def _session(numbers: list[int], path: str, unknown: dict[str, int] | None = None) -> Session:
    return Session(
        agent="claude-code",
        session_id="s",
        transcript=Path(path),
        messages=[_message(n) for n in numbers],
        edits=[Edit(path="a.py", tool="Edit", message_id=f"m{n}", call_id=f"c{n}") for n in numbers],
        stats=ParseStats(records=len(numbers), unknown_types=unknown or {}),
    )


def test_a_shorter_prefix_copy_leaves_the_longer_as_it_is() -> None:
    longer, shorter = _session([1, 2, 3], "later.jsonl"), _session([1, 2], "earlier.jsonl")
    assert merge_session(shorter, longer) is longer
    assert merge_session(longer, shorter) is longer


def test_copies_holding_different_records_merge_in_time_order() -> None:
    one = _session([1, 2, 5], "a.jsonl", {"last-prompt": 3})
    other = _session([2, 3, 4], "b.jsonl", {"last-prompt": 2, "mode": 1})
    merged = merge_session(one, other)
    assert [m.message_id for m in merged.messages] == ["m1", "m2", "m3", "m4", "m5"]
    assert sorted(e.call_id or "" for e in merged.edits) == ["c1", "c2", "c3", "c4", "c5"]
    assert merged.stats.unknown_types == {"last-prompt": 3, "mode": 1}  # the larger count, not the sum
    assert merged.transcript == Path("a.jsonl")
    assert [m.message_id for m in one.messages] == ["m1", "m2", "m5"]  # the copies given are not changed


def test_merge_copies_keys_by_agent_and_session() -> None:
    found: dict[tuple[str, str], Session] = {}
    merge_copies(found, [_session([1], "a"), _session([2], "b"), _session([1, 3], "c")])
    assert list(found) == [("claude-code", "s")]
    assert [m.message_id for m in found["claude-code", "s"].messages] == ["m1", "m2", "m3"]
