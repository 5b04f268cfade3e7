"""The Crush adapter on its documented sample (a store built with Crush's own migrations) and hand-built
stores: counts, exact lines from the tools' metadata, failed calls, a read-only open, discovery of
`.crush/crush.db`, and lines Crush wrote blamed to their messages through a real commit."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from support import agent_commit, blamed, corpus, make_repo

from git_intent.adapters import ADAPTERS, crush
from git_intent.core.errors import DamagedTranscriptError

STORE = "transcripts/crush/documented__greeter/.crush/crush.db"
SESSION, CHILD = "b6f3d0a2-5c1e-4f7a-8d29-0e4c7b1a9f35", "c2a8e915-3b7d-4e60-a1f4-7d9e2c5b8a06"
PROJECT = "/home/dev/greeter"


def mid(n: int) -> str:
    return f"0d9b5c31-8f7a-4a2e-b6c1-3e5f7a9d1b{n:02x}"


def rows(path: Path, sql: str) -> list[Any]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


def test_store_counts() -> None:
    path = corpus(STORE)
    assert crush.sniff(path)
    sessions = crush.read(path)
    assert [
        (
            s.session_id,
            s.parent_session_id,
            s.stats.records,
            len(s.messages),
            len(s.edits),
            sum(m.is_prompt for m in s.messages),
            sum(len(e.added) for e in s.edits),
        )
        for s in sessions
    ] == [(SESSION, None, 10, 10, 2, 1, 20), (CHILD, SESSION, 2, 2, 0, 1, 0)]
    assert all(s.stats.unreadable == 0 and s.stats.unknown_types == {} for s in sessions)
    assert sessions[0].cwd == str(path.parent.parent.resolve())
    assert crush.read(path) == sessions
    # An independent reading: ten messages, one edit and one write, 11 + 9 lines added (the tools' own
    # counts).
    metadata = [
        json.loads(part["data"]["metadata"])
        for (parts,) in rows(path, "SELECT parts FROM messages")
        for part in json.loads(parts)
        if part["type"] == "tool_result" and part["data"]["name"] != "view"
    ]
    assert sum(m.get("additions", 0) for m in metadata) == 20


def test_edit_and_write_take_the_metadata_lines_and_numbers() -> None:
    session = crush.read(corpus(STORE))[0]
    edit, write = session.edits
    assert (edit.path, edit.tool, edit.kind, edit.message_id, edit.call_id) == (
        f"{PROJECT}/main.go",
        "edit",
        "update",
        mid(4),
        "toolu_02",
    )
    assert [(a.line, a.text) for a in edit.added][:4] == [
        (3, "import ("),
        (4, '\t"flag"'),
        (5, '\t"fmt"'),
        (6, ")"),
    ]
    assert (edit.added[-1].line, edit.added[-1].text) == (16, "}")
    assert edit.before is not None and edit.after is not None and "greeting(*name)" in edit.after
    assert (write.path, write.tool, write.kind, write.message_id) == (
        f"{PROJECT}/main_test.go",
        "write",
        "create",
        mid(6),
    )
    assert [a.line for a in write.added] == list(range(1, 10))


def test_messages_roles_times_and_models() -> None:
    session = crush.read(corpus(STORE))[0]
    assert [m.role for m in session.messages] == ["user", *["assistant", "tool"] * 4, "assistant"]
    first = session.messages[0]
    assert (first.message_id, first.is_prompt, first.timestamp) == (
        mid(1),
        True,
        datetime(2026, 7, 15, 9, 0, tzinfo=timezone.utc),
    )
    assert [p.kind for p in session.messages[1].parts] == ["reasoning", "text", "tool_call"]
    assert session.messages[1].model == "claude-sonnet-4-5-20250929"


def test_only_crush_takes_the_store() -> None:
    assert [name for name, a in ADAPTERS.items() if a.sniff(corpus(STORE))] == ["crush"]
    assert not crush.sniff(corpus("transcripts/opencode/synthetic__opencode-sqlite/opencode.db"))
    assert not crush.sniff(corpus("transcripts/goose/documented__schema-13/sessions.db"))


# --------------------------------------------------------------------------------------------------
# Hand-built stores
# --------------------------------------------------------------------------------------------------


def store_with(tmp_path: Path, parts: list[list[dict[str, Any]]], roles: list[str]) -> Path:
    (tmp_path / ".crush").mkdir()
    path = shutil.copy(corpus(STORE), tmp_path / ".crush" / "crush.db")
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM messages")
        for n, (role, items) in enumerate(zip(roles, parts, strict=True)):
            conn.execute(
                "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES (?, ?, "
                "?, ?, ?, ?)",
                (f"m{n}", SESSION, role, json.dumps(items), 1784106000 + n, 1784106000),
            )
    return Path(path)


def call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "tool_call",
        "data": {"id": call_id, "name": name, "input": json.dumps(args), "finished": True},
    }


def result(
    call_id: str, name: str, metadata: dict[str, Any] | None = None, error: bool = False
) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "data": {
            "tool_call_id": call_id,
            "name": name,
            "content": "",
            "metadata": json.dumps(metadata) if metadata else "",
            "is_error": error,
        },
    }


def test_failed_calls_write_nothing_and_inputs_stand_in_for_missing_metadata(tmp_path: Path) -> None:
    path = store_with(
        tmp_path,
        [
            [{"type": "text", "data": {"text": "go"}}],
            [
                call("a", "edit", {"file_path": "/w/a.go", "old_string": "x", "new_string": "y"}),
                call("b", "write", {"file_path": "/w/b.go", "content": "one\ntwo\n"}),
                call(
                    "c",
                    "multiedit",
                    {"file_path": "/w/c.go", "edits": [{"old_string": "p", "new_string": "p\nq"}]},
                ),
                call("d", "bash", {"command": "echo hi > out.txt", "working_dir": "/w"}),
                {"type": "future_part", "data": {}},
            ],
            [
                result("a", "edit", error=True),
                result("b", "write"),
                result("c", "multiedit"),
                result("d", "bash"),
            ],
            [],
        ],
        ["user", "assistant", "tool", "assistant"],
    )
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE messages SET parts = 'not json' WHERE id = 'm3'")
    session = [s for s in crush.read(path) if s.session_id == SESSION][0]
    assert [(e.path, e.tool, e.kind, [(a.line, a.text) for a in e.added]) for e in session.edits] == [
        ("/w/b.go", "write", "create", [(1, "one"), (2, "two")]),
        ("/w/c.go", "multiedit", "update", [(None, "q")]),
        ("/w/out.txt", "bash", "create", [(1, "hi")]),
    ]
    assert session.stats.unknown_types == {"part:future_part": 1} and session.stats.unreadable == 1


def test_damaged_and_foreign_stores(tmp_path: Path) -> None:
    torn = tmp_path / "crush.db"
    torn.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    assert crush.sniff(torn) and not crush.sniff(shutil.copy(torn, tmp_path / "other.db"))
    with pytest.raises(DamagedTranscriptError, match=r"^The Crush store .*crush.db is damaged"):
        crush.read(torn)
    assert crush.read(corpus("transcripts/goose/documented__schema-13/sessions.db")) == []


def test_the_store_is_opened_read_only(tmp_path: Path) -> None:
    path = store_with(tmp_path, [[{"type": "text", "data": {"text": "go"}}]], ["user"])
    before = path.read_bytes()
    crush.read(path)
    assert path.read_bytes() == before and not path.with_name("crush.db-journal").exists()


# --------------------------------------------------------------------------------------------------
# Where Crush keeps its store
# --------------------------------------------------------------------------------------------------


def test_discover_the_closest_data_folder_and_a_configured_one(tmp_path: Path) -> None:
    root = tmp_path / "work" / "proj"
    (root / ".crush").mkdir(parents=True)
    here = shutil.copy(corpus(STORE), root / ".crush" / "crush.db")
    (tmp_path / "work" / ".crush").mkdir()
    above = shutil.copy(corpus(STORE), tmp_path / "work" / ".crush" / "crush.db")
    (root / "state").mkdir()
    configured = shutil.copy(corpus(STORE), root / "state" / "crush.db")
    (root / ".crush.json").write_text(json.dumps({"options": {"data_directory": "state"}}), encoding="utf-8")
    assert list(crush.discover(root)) == [Path(here), Path(above), Path(configured)]
    assert list(crush.discover(root, since=datetime(2999, 1, 1, tzinfo=timezone.utc))) == []


# --------------------------------------------------------------------------------------------------
# Lines Crush wrote, blamed through a real commit
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_lines_crush_wrote_are_blamed_to_their_messages(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / ".crush").mkdir()
    (repo / ".crush" / ".gitignore").write_text("*\n", encoding="utf-8")  # as Crush writes it
    store = Path(shutil.copy(corpus(STORE), repo / ".crush" / "crush.db"))
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE messages SET parts = replace(parts, ?, ?)", (PROJECT, str(repo)))
    tools = {
        (part["type"], part["data"]["name"]): part["data"]
        for (parts,) in rows(store, "SELECT parts FROM messages")
        for part in json.loads(parts)
        if part["type"] in ("tool_call", "tool_result")
    }
    edited = json.loads(tools["tool_result", "edit"]["metadata"])
    test = json.loads(tools["tool_call", "write"]["input"])["content"]
    sha = agent_commit(
        repo,
        {"main.go": edited["old_content"]},
        {"main.go": edited["new_content"], "main_test.go": test},
        datetime(2026, 7, 15, 9, 0, tzinfo=timezone.utc),
        datetime(2026, 7, 15, 9, 0, 24, tzinfo=timezone.utc),
    )
    for path, text, message, tool in (
        ("main.go", '\tname := flag.String("name", "world", "who to greet")', mid(4), "edit"),
        ("main_test.go", "func TestGreetingUsesTheName(t *testing.T) {", mid(6), "write"),
    ):
        assert blamed(repo, path, text) == (sha, "agent", "crush", SESSION, message, tool, "user", mid(1))
    assert blamed(repo, "main.go", "package main")[1:3] == ("unrecorded", None)
