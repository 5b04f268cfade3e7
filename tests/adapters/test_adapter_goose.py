"""The Goose adapter on its documented sample (a sessions store at schema version 13) and hand-built stores:
counts, the developer extension's edits old and new, failed calls, `read_project` by working directory,
discovery under `$GOOSE_PATH_ROOT`/`$XDG_DATA_HOME`, and lines Goose wrote blamed through a real commit."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from support import agent_commit, blamed, corpus, make_repo

from git_intent.adapters import ADAPTERS, goose
from git_intent.core.errors import DamagedTranscriptError

STORE = "transcripts/goose/documented__schema-13/sessions.db"
NOTES, SITE = "20260716_3", "20251002_1"
WORK = "/home/dev/notes"


def rows(path: Path, sql: str, *args: Any) -> list[Any]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, args).fetchall()


def test_store_counts() -> None:
    path = corpus(STORE)
    assert goose.sniff(path)
    sessions = goose.read(path)
    assert [
        (
            s.session_id,
            s.cwd,
            s.stats.records,
            len(s.messages),
            len(s.edits),
            sum(m.is_prompt for m in s.messages),
            sum(len(e.added) for e in s.edits),
        )
        for s in sessions
    ] == [(SITE, "/home/dev/website", 6, 6, 2, 1, 2), (NOTES, WORK, 11, 11, 2, 1, 11)]
    assert all(s.stats.unreadable == 0 and s.stats.unknown_types == {} for s in sessions)
    assert goose.read(path) == sessions
    # An independent reading: 17 rows; the notes session asks for three edits and one shell command.
    requests = [
        c["toolCall"]["value"]["name"]
        for (content,) in rows(path, "SELECT content_json FROM messages WHERE session_id = ?", NOTES)
        for c in json.loads(content)
        if c["type"] == "toolRequest"
    ]
    assert (len(rows(path, "SELECT id FROM messages")), requests) == (17, ["shell", "edit", "write", "edit"])


def test_edits_of_the_developer_extension_old_and_new() -> None:
    site, notes = goose.read(corpus(STORE))
    edit, write = notes.edits  # the third edit's response is an error: it wrote nothing
    assert (edit.path, edit.tool, edit.message_id, [a.text for a in edit.added][:2]) == (
        f"{WORK}/notes.py",
        "edit",
        f"msg_{NOTES}_3",
        ["def word_count(text):", "    return len(text.split())"],
    )
    assert (write.path, write.kind, [a.line for a in write.added]) == (
        "test_notes.py",
        "create",
        [1, 2, 3, 4, 5],
    )
    replaced, inserted = site.edits
    assert [(a.line, a.text) for a in replaced.added] == [(None, "<p>&copy; 2025 Example</p>")]
    assert [(a.line, a.text) for a in inserted.added] == [(4, "<p>Contact: hello@example.com</p>")]
    assert replaced.tool == "developer__text_editor"


def test_messages_prompts_and_times() -> None:
    notes = goose.read(corpus(STORE))[1]
    assert [(m.message_id, m.role, m.is_prompt) for m in notes.messages[:3]] == [
        (f"msg_{NOTES}_0", "user", True),
        (f"msg_{NOTES}_1", "assistant", False),
        (f"msg_{NOTES}_2", "tool", False),
    ]
    hidden = notes.messages[-1]
    assert (hidden.role, hidden.is_prompt) == ("user", False)  # not visible to the user: injected, not typed
    assert notes.messages[0].timestamp == datetime(2026, 7, 16, 10, 0, tzinfo=timezone.utc)
    assert [p.kind for p in notes.messages[1].parts] == ["reasoning", "text", "tool_call"]
    assert notes.messages[8].parts[0].is_error


def test_read_project_keeps_the_work_tree_sessions(tmp_path: Path) -> None:
    path = corpus(STORE)
    assert [s.session_id for s in goose.read_project(path, root=Path(WORK))] == [NOTES]
    assert [s.session_id for s in goose.read_project(path, root=Path("/home/dev"))] == [SITE, NOTES]
    assert goose.read_project(path, root=Path(WORK), since=datetime(2026, 8, 1, tzinfo=timezone.utc)) == []


def test_only_goose_takes_the_store() -> None:
    assert [name for name, a in ADAPTERS.items() if a.sniff(corpus(STORE))] == ["goose"]
    assert not goose.sniff(corpus("transcripts/crush/documented__greeter/.crush/crush.db"))


# --------------------------------------------------------------------------------------------------
# Hand-built stores
# --------------------------------------------------------------------------------------------------


def test_odd_rows_are_counted_and_a_damaged_store_reported(tmp_path: Path) -> None:
    path = Path(shutil.copy(corpus(STORE), tmp_path / "sessions.db"))
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE messages SET content_json = 'not json' WHERE message_id = ?", (f"msg_{NOTES}_9",)
        )
        conn.execute(
            "UPDATE messages SET content_json = ? WHERE message_id = ?",
            (json.dumps([{"type": "futureContent"}, {"type": "text", "text": "hi"}]), f"msg_{NOTES}_10"),
        )
        conn.execute("UPDATE messages SET role = 'system' WHERE message_id = ?", (f"msg_{NOTES}_0",))
    notes = goose.read(path)[1]
    assert notes.stats.unreadable == 1
    assert notes.stats.unknown_types == {"content:futureContent": 1, "role:system": 1}
    torn = tmp_path / "torn" / "sessions.db"
    torn.parent.mkdir()
    torn.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    assert goose.sniff(torn)
    with pytest.raises(DamagedTranscriptError, match=r"^The Goose store .*sessions.db is damaged"):
        goose.read(torn)


# --------------------------------------------------------------------------------------------------
# Where Goose keeps its store
# --------------------------------------------------------------------------------------------------


def test_discover_honours_goose_path_root_and_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    default = Path.home() / ".local" / "share" / "goose" / "sessions" / "sessions.db"
    default.parent.mkdir(parents=True)
    shutil.copy(corpus(STORE), default)
    assert list(goose.discover(tmp_path)) == [default]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert list(goose.discover(tmp_path)) == []
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(tmp_path / "root"))
    rooted = tmp_path / "root" / "data" / "sessions" / "sessions.db"
    rooted.parent.mkdir(parents=True)
    shutil.copy(corpus(STORE), rooted)
    assert list(goose.discover(tmp_path)) == [rooted]
    monkeypatch.setenv("GOOSE_PATH_ROOT", "relative/root")  # Goose ignores a relative root
    assert goose.data_dir() == tmp_path / "xdg" / "goose"


# --------------------------------------------------------------------------------------------------
# Lines Goose wrote, blamed through a real commit
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_lines_goose_wrote_are_blamed_to_their_messages(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    store = goose.data_dir() / "sessions" / "sessions.db"
    store.parent.mkdir(parents=True)
    shutil.copy(corpus(STORE), store)
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE sessions SET working_dir = ? WHERE working_dir = ?", (str(repo), WORK))
        conn.execute("UPDATE messages SET content_json = replace(content_json, ?, ?)", (WORK, str(repo)))
    content = {
        c["id"] + ":" + c["type"]: c
        for (raw,) in rows(store, "SELECT content_json FROM messages WHERE session_id = ?", NOTES)
        for c in json.loads(raw)
        if c["type"] in ("toolRequest", "toolResponse")
    }
    before = content["toolu_g1:toolResponse"]["toolResult"]["value"]["content"][0]["text"]  # `cat notes.py`
    change = content["toolu_g2:toolRequest"]["toolCall"]["value"]["arguments"]
    test = content["toolu_g3:toolRequest"]["toolCall"]["value"]["arguments"]["content"]
    sha = agent_commit(
        repo,
        {"notes.py": before},
        {"notes.py": before.replace(change["before"], change["after"]), "test_notes.py": test},
        datetime(2026, 7, 16, 10, 0, tzinfo=timezone.utc),
        datetime(2026, 7, 16, 10, 0, 23, tzinfo=timezone.utc),
    )
    for path, text, message, tool in (
        ("notes.py", "def word_count(text):", f"msg_{NOTES}_3", "edit"),
        ("test_notes.py", "def test_word_count_splits_on_whitespace():", f"msg_{NOTES}_5", "write"),
    ):
        assert blamed(repo, path, text) == (
            sha,
            "agent",
            "goose",
            NOTES,
            message,
            tool,
            "user",
            f"msg_{NOTES}_0",
        )
    assert blamed(repo, "notes.py", "import sys")[1:3] == ("unrecorded", None)
