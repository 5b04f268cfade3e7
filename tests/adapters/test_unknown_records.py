"""Every adapter recognises a transcript by its structure. Records of a type it does not know,
at the head of the file (the first line included), in the middle and at the end, are skipped and counted;
the file is still sniffed as its agent's, and its sessions keep every message and edit the clean file has, so
its lines are still credited."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import corpus

from git_intent.adapters import ADAPTERS, sniff
from git_intent.core.values import Session

T = ("transcripts",)


def _jsonl(
    source: Path,
    target: Path,
    head: list[dict[str, Any]],
    middle: list[dict[str, Any]],
    end: list[dict[str, Any]],
) -> Path:
    """`source`'s lines with `head` before the first, `middle` after the middle one and `end` after the
    last."""
    lines = source.read_text(encoding="utf-8").splitlines()
    mid = len(lines) // 2
    dumped = (
        [json.dumps(r) for r in head]
        + lines[:mid]
        + [json.dumps(r) for r in middle]
        + lines[mid:]
        + [json.dumps(r) for r in end]
    )
    target.write_text("\n".join(dumped) + "\n", encoding="utf-8")
    return target


def _claude(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "claude-code", "entire-cli__c9883595c929__queue-operation.jsonl")
    sid = json.loads(source.read_text(encoding="utf-8").splitlines()[1]).get("sessionId", "s")
    future = {"type": "future-kind", "sessionId": sid, "value": 1}
    # The first line holds a type no Claude Code version wrote yet, without a uuid or a sessionId.
    head = [
        {"type": "opening-banner", "text": "x"},
        {"type": "last-prompt", "leafUuid": "u", "sessionId": sid},
    ]
    return (
        source,
        _jsonl(source, tmp / "s.jsonl", head, [future], [future, {"type": "pr-link", "sessionId": sid}]),
        {"opening-banner": 1, "last-prompt": 1, "future-kind": 2, "pr-link": 1},
    )


def _codex(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "codex", "git-sync__8feaf84a600f__apply-patch.jsonl")
    stamp = "2026-04-30T08:00:00.000Z"
    head = [{"timestamp": stamp, "type": "rollout_banner", "payload": {"text": "x"}}]
    middle = [
        {"timestamp": stamp, "type": "event_msg", "payload": {"type": "future_event", "n": 1}},
        {"timestamp": stamp, "type": "response_item", "payload": {"type": "future_item"}},
    ]
    end = [{"timestamp": stamp, "type": "future_record", "payload": {}}]
    return (
        source,
        _jsonl(source, tmp / "rollout.jsonl", head, middle, end),
        {
            "rollout_banner": 1,
            "event_msg/future_event": 1,
            "response_item/future_item": 1,
            "future_record": 1,
        },
    )


def _gemini(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "gemini", "git-ai__gemini-session-simple.jsonl")
    future = {
        "id": "future-1",
        "timestamp": "2025-12-06T18:25:20.000Z",
        "type": "future_kind",
        "content": "x",
    }
    return (
        source,
        _jsonl(
            source,
            tmp / "session-x.jsonl",
            [{**future, "id": "future-0"}],
            [future],
            [{**future, "id": "future-2"}],
        ),
        {"future_kind": 3},
    )


def _cursor(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "cursor", "git-ai__cursor-session-simple.jsonl")
    future = {"role": "future_role", "message": {"content": [{"type": "text", "text": "x"}]}}
    return (
        source,
        _jsonl(source, tmp / source.name, [future, {"role": "banner"}], [future], [future]),
        {"future_role": 3, "banner": 1},
    )


def _aider(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "aider", "aider__chat-history__excerpt.md")
    text = source.read_text(encoding="utf-8")
    session = text.index("# aider chat started at", 1)
    # Lines of no shape aider writes: before the first header, between two sessions, at the end.
    odd = "<!-- written by aider v9: a line of a kind this adapter has never seen -->\n\n"
    target = tmp / "history.md"
    target.write_text(odd + text[:session] + odd + text[session:] + "\n" + odd, encoding="utf-8")
    return source, target, {}


def _specstory(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "specstory", "getspecstory__claude-code__2026-01-28_13-10-29Z-take-a-look-at.md")
    lines = source.read_text(encoding="utf-8").split("\n")
    # A comment of no kind SpecStory writes before the first message and at the end, and a tool block of a
    # type and name never seen in the middle of the message that holds the Write.
    odd = ["<!-- written by SpecStory v9: a line of a kind this adapter has never seen -->", ""]
    future = [
        '<tool-use data-tool-type="teleport" data-tool-name="Teleport"><details>',
        "<summary>Tool use: **Teleport**</summary>",
        "",
        "```text",
        "_**User**_",
        "```",
        "</details></tool-use>",
        "",
    ]
    first, write = (
        lines.index("_**User (2026-01-28 13:10:29Z)**_"),
        lines.index('<tool-use data-tool-type="write" data-tool-name="Write"><details>'),
    )
    target = tmp / source.name
    target.write_text(
        "\n".join(lines[:first] + odd + lines[first:write] + future + lines[write:] + odd), encoding="utf-8"
    )
    return source, target, {}


def _opencode(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "opencode", "synthetic__opencode-sqlite", "opencode.db")
    target = tmp / "opencode.db"
    shutil.copy(source, target)
    with sqlite3.connect(target) as conn:
        rows = conn.execute(
            "SELECT message_id, session_id, MIN(time_created), MAX(time_created) FROM part WHERE "
            "message_id LIKE 'msg-assistant%' GROUP BY message_id"
        ).fetchall()
        message, session, first, last = rows[0]
        for name, when in (("head", first - 1), ("middle", (first + last) // 2), ("end", last + 1)):
            conn.execute(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                (f"prt-future-{name}", message, session, when, when, json.dumps({"type": "future-part"})),
            )
    return source, target, {"future-part": 3}


def _qwen(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "qwen-code", "documented__0.24.4-edit-session.jsonl")
    first = json.loads(source.read_text(encoding="utf-8").splitlines()[0])
    future = {k: first[k] for k in ("parentUuid", "sessionId", "timestamp", "cwd", "version")}
    records = [{**future, "uuid": f"future-{n}", "type": "future_kind"} for n in range(3)]
    return source, _jsonl(source, tmp / "s.jsonl", records[:1], records[1:2], records[2:]), {"future_kind": 3}


def _amp(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "amp", "git-ai__T-019ca1f6-7f21-77b5-a308-65416ebbdf48.json")
    thread = json.loads(source.read_text(encoding="utf-8"))
    messages = thread["messages"]
    future = {"role": "future_role", "messageId": 90, "content": [{"type": "text", "text": "x"}]}
    messages[0]["content"].insert(0, {"type": "future_block", "data": 1})
    thread["messages"] = [
        future,
        *messages[:3],
        {**future, "messageId": 91},
        *messages[3:],
        {**future, "messageId": 92},
    ]
    target = tmp / source.name
    target.write_text(json.dumps(thread, indent=2), encoding="utf-8")
    return source, target, {"role:future_role": 3, "block:future_block": 1}


def _droid(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "droid", "git-ai__droid-session.jsonl")
    future = {"type": "future_kind", "id": "f0", "timestamp": "2026-01-28T16:57:00.000Z", "value": 1}
    return (
        source,
        _jsonl(source, tmp / "s.jsonl", [future], [{**future, "id": "f1"}], [{**future, "id": "f2"}]),
        {"future_kind": 3},
    )


def _pi(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "pi", "git-ai__pi-session-tool.jsonl")
    future = {"type": "future_kind", "id": "f0", "parentId": None, "timestamp": "2026-03-31T10:10:00.500Z"}
    return (
        source,
        _jsonl(source, tmp / "s.jsonl", [future], [{**future, "id": "f1"}], [{**future, "id": "f2"}]),
        {"future_kind": 3},
    )


def _store_with_future(source: Path, target: Path, column: str, item: dict[str, Any]) -> Path:
    """A copy of a SQLite store whose messages hold `item`, a record of a type no version wrote yet, first in
    the first message, in a middle one and last in the last one."""
    shutil.copy(source, target)
    with sqlite3.connect(target) as conn:
        rows = conn.execute(f"SELECT rowid, {column} FROM messages ORDER BY rowid").fetchall()
        for (rowid, raw), at in ((rows[0], 0), (rows[len(rows) // 2], 1), (rows[-1], -1)):
            items = json.loads(raw)
            items.insert(at if at >= 0 else len(items), item)
            conn.execute(f"UPDATE messages SET {column} = ? WHERE rowid = ?", (json.dumps(items), rowid))
    return target


def _crush(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "crush", "documented__greeter", ".crush", "crush.db")
    (tmp / ".crush").mkdir()
    target = _store_with_future(
        source, tmp / ".crush" / "crush.db", "parts", {"type": "future_part", "data": {}}
    )
    return source, target, {"part:future_part": 3}


def _goose(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "goose", "documented__schema-13", "sessions.db")
    target = _store_with_future(
        source, tmp / "sessions.db", "content_json", {"type": "futureContent", "x": 1}
    )
    return source, target, {"content:futureContent": 3}


def _copilot_cli(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "copilot-cli", "git-ai__copilot_cli_session_events.jsonl")
    future = {
        "type": "future.kind",
        "data": {"x": 1},
        "id": "f0",
        "timestamp": "2026-05-12T00:21:06.000Z",
        "parentId": None,
    }
    return (
        source,
        _jsonl(source, tmp / "events.jsonl", [future], [{**future, "id": "f1"}], [{**future, "id": "f2"}]),
        {"future.kind": 3},
    )


def _copilot_chat(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "copilot-chat", "git-ai__copilot_session_simple.json")
    chat = json.loads(source.read_text(encoding="utf-8"))
    response = chat["requests"][1]["response"]
    for at in (0, len(response) // 2, len(response) + 1):
        response.insert(at, {"kind": "futurePart", "value": 1})
    target = tmp / source.name
    target.write_text(json.dumps(chat), encoding="utf-8")
    return source, target, {"response:futurePart": 3}


def _blocks_added(source: Path, target: Path, key: str) -> Path:
    """A copy of a message array (or of the object holding it under `key`) whose first, middle and last
    messages each hold a content block of a type no version wrote yet."""
    data = json.loads(source.read_text(encoding="utf-8"))
    items = data[key] if key else data
    for item in (items[0], items[len(items) // 2], items[-1]):
        item["content"] = (
            [{"type": "text", "text": item["content"]}]
            if isinstance(item["content"], str)
            else (item["content"])
        )
        item["content"].append({"type": "future_block", "data": 1})
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


def _cline(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "cline", "cline-sdk__1784094124598_rruoq", "1784094124598_rruoq.messages.json")
    return source, _blocks_added(source, tmp / source.name, "messages"), {"block:future_block": 3}


def _roo(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = next(corpus(*T, "roo-code").rglob("api_conversation_history.json"))
    return source, _blocks_added(source, tmp / source.name, ""), {"block:future_block": 3}


def _continue(tmp: Path) -> tuple[Path, Path, dict[str, int]]:
    source = corpus(*T, "continue", "git-ai__continue-cli-session-simple.json")
    session = json.loads(source.read_text(encoding="utf-8"))
    future = {"message": {"role": "future_role", "content": "x"}, "contextItems": []}
    history = session["history"]
    session["history"] = [future, *history[:2], future, *history[2:], future]
    target = tmp / source.name
    target.write_text(json.dumps(session), encoding="utf-8")
    return source, target, {"role:future_role": 3}


BUILDERS: dict[str, Callable[[Path], tuple[Path, Path, dict[str, int]]]] = {
    "claude-code": _claude,
    "codex": _codex,
    "gemini-cli": _gemini,
    "cursor": _cursor,
    "aider": _aider,
    "opencode": _opencode,
    "qwen-code": _qwen,
    "amp": _amp,
    "droid": _droid,
    "pi": _pi,
    "crush": _crush,
    "goose": _goose,
    "specstory": _specstory,
    "copilot-cli": _copilot_cli,
    "copilot-chat": _copilot_chat,
    "cline": _cline,
    "roo-code": _roo,
    "continue": _continue,
}


def test_every_adapter_is_covered() -> None:
    assert set(BUILDERS) == set(ADAPTERS)


def _edits(sessions: list[Session], ids: bool = True) -> list[tuple[str, str, tuple[str, ...]]]:
    """Each edit's path, message id (or "" without `ids`) and added lines."""
    return [
        (e.path, e.message_id if ids else "", tuple(a.text for a in e.added))
        for s in sessions
        for e in s.edits
    ]


def _messages(sessions: list[Session]) -> list[tuple[str, str]]:
    return [(m.message_id, m.role) for s in sessions for m in s.messages]


@pytest.mark.parametrize("agent", sorted(BUILDERS))
def test_unknown_records_at_head_middle_and_end_are_skipped_and_counted(agent: str, tmp_path: Path) -> None:
    source, changed, counted = BUILDERS[agent](tmp_path)
    found = sniff(changed)
    assert found is not None and found.NAME == agent
    clean, read = ADAPTERS[agent].read(source), ADAPTERS[agent].read(changed)
    # Codex's, Cursor's and Continue's message ids are record ordinals: the inserted records shift them.
    ids = agent not in ("codex", "cursor", "continue")
    assert _edits(clean) and _edits(read, ids) == _edits(clean, ids)
    if agent == "aider":
        # Aider's log has no record types: a line of no known shape is the assistant's text (as aider's own
        # `split_chat_history_markdown` reads it), so it adds replies but never loses one or an edit.
        assert len(_messages(read)) == len(_messages(clean)) + 3
    elif agent not in ("codex", "cursor", "continue"):
        assert _messages(read) == _messages(clean)
    else:
        assert [role for _, role in _messages(read)] == [role for _, role in _messages(clean)]
    unknown: dict[str, int] = {}
    for session in read:
        for kind, count in session.stats.unknown_types.items():
            unknown[kind] = unknown.get(kind, 0) + count
    for session in clean:
        for kind, count in session.stats.unknown_types.items():
            unknown[kind] -= count
    assert {k: v for k, v in unknown.items() if v} == counted


def test_a_claude_code_file_opening_with_many_unknown_records_is_still_claude_code(tmp_path: Path) -> None:
    """Claude Code 2.1.14x: a run of records of new types before the first message."""
    source = corpus(*T, "claude-code", "entire-cli__c9883595c929__queue-operation.jsonl")
    kinds = ["last-prompt", "mode", "permission-mode", "ai-title", "pr-link", "bridge-session", "agent-name"]
    head = [{"type": kind, "sessionId": "0c7c5b1e-0000-4000-8000-000000000000"} for kind in kinds * 3]
    changed = _jsonl(source, tmp_path / "s.jsonl", head, [], [])
    found = sniff(changed)
    assert found is not None and found.NAME == "claude-code"
    (session,) = found.read(changed)
    assert _edits([session]) == _edits(ADAPTERS["claude-code"].read(source))
    assert {k: session.stats.unknown_types[k] for k in kinds} == dict.fromkeys(kinds, 3)


@pytest.mark.parametrize(
    ("agent", "fixture", "stray"),
    [
        (
            "claude-code",
            ("claude-code", "entire-cli__c9883595c929__queue-operation.jsonl"),
            {"type": "tool-state", "payload": {"running": True}},
        ),
        ("codex", ("codex", "git-sync__8feaf84a600f__apply-patch.jsonl"), {"type": "note", "sessionId": "x"}),
    ],
)
def test_one_record_with_another_agents_field_does_not_veto_the_file(
    tmp_path: Path, agent: str, fixture: tuple[str, str], stray: dict[str, Any]
) -> None:
    """Sniffing goes by the majority of the first records: an unknown record that happens to carry another
    agent's key (Codex's `payload`, Claude Code's `sessionId`) among them leaves the file its agent's."""
    lines = corpus(*T, *fixture).read_text(encoding="utf-8").splitlines()
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(stray), *lines[1:]]) + "\n", encoding="utf-8")
    found = sniff(path)
    assert found is not None and found.NAME == agent
