"""The OpenCode adapter: the synthetic corpus samples, stores built to OpenCode's own schema, the storage
tree, export files, discovery and the format's oddities (trimmed diffs, schema drift, WAL, read-only)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus

from git_intent.adapters import Adapter, claude_code, codex, opencode
from git_intent.core.errors import DamagedTranscriptError
from git_intent.core.values import AddedLine, Session
from git_intent.transcripts import sqlite_store

OC = "transcripts/opencode"
SQLITE_SAMPLE = f"{OC}/synthetic__opencode-sqlite/opencode.db"
STORAGE_SAMPLE = f"{OC}/synthetic__opencode-storage"
SAMPLE_SESSION = "test-session-123"

_adapter: Adapter = opencode  # the module satisfies the Protocol (checked when tests are type-checked)


@pytest.fixture(autouse=True)
def opencode_env(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """OpenCode's data folder inside the isolated HOME, whatever the developer's environment says."""
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("OPENCODE_DB", raising=False)
    return isolated_env / ".local" / "share" / "opencode"


# --------------------------------------------------------------------------------------------------
# The corpus: two synthetic fixtures from git-ai's test suite (README.md beside them). Figures checked
# by reading the files with sqlite3/json alone: the store has 2 message rows and 4 part rows, the tree
# 2 message files and 5 part files (one an empty synthetic text part).
# --------------------------------------------------------------------------------------------------


def _one(sessions: list[Session]) -> Session:
    assert len(sessions) == 1
    return sessions[0]


def test_sqlite_sample() -> None:
    path = corpus(SQLITE_SAMPLE)
    assert opencode.sniff(path)
    session = _one(opencode.read(path))
    assert (session.agent, session.session_id, session.parent_session_id) == (
        "opencode",
        SAMPLE_SESSION,
        "parent-session-456",
    )
    assert (session.cwd, session.cwds, session.agent_version) == (
        "/Users/test/project",
        ["/Users/test/project"],
        "1.0",
    )
    assert session.transcript == path
    assert (session.stats.records, session.stats.unreadable, session.stats.unknown_types) == (6, 0, {})
    assert [(m.message_id, m.role, m.is_prompt) for m in session.messages] == [
        ("msg-user-sql-001", "user", True),
        ("msg-assistant-sql-001", "assistant", False),
    ]
    assert [m.text for m in session.messages if m.is_prompt] == [
        "Please update index.ts using sqlite transcript data"
    ]
    assert session.messages[0].timestamp == datetime(2024, 1, 28, 16, 37, 10, tzinfo=timezone.utc)
    assert [p.kind for p in session.messages[1].parts] == ["text", "tool_call", "tool_result", "text"]
    (edit,) = session.edits
    assert (edit.path, edit.tool, edit.message_id, edit.call_id) == (
        "/Users/test/project/index.ts",
        "edit",
        "msg-assistant-sql-001",
        "call-sql-001",
    )
    assert edit.timestamp == datetime(2024, 1, 28, 16, 37, 13, tzinfo=timezone.utc)  # state.time.end
    # schema.sql writes `\\n` inside an SQL literal (no escapes there): the JSON holds a backslash-n, so
    # the content is one line with a literal "\n" in it.
    assert edit.added == (AddedLine(text='// sqlite path\\nconsole.log("sqlite");', line=1),)


def test_storage_sample_read_from_the_folder_and_from_a_message_file() -> None:
    folder = corpus(STORAGE_SAMPLE)
    message_file = folder / "message" / SAMPLE_SESSION / "msg-user-001.json"
    assert opencode.sniff(folder) and opencode.sniff(message_file)
    for path in (folder, message_file):
        session = _one(opencode.read(path))
        assert session.session_id == SAMPLE_SESSION
        assert session.transcript == folder / "message" / SAMPLE_SESSION
        # No session/<project>/<id>.json and no assistant `path`: the directory is unknown.
        assert (session.cwd, session.parent_session_id, session.agent_version) == (None, None, None)
        assert (session.stats.records, session.stats.unreadable, session.stats.unknown_types) == (7, 0, {})
        assert [(m.message_id, m.role, m.is_prompt) for m in session.messages] == [
            ("msg-user-001", "user", True),
            ("msg-assistant-001", "assistant", False),
        ]
        # prt-004 is an empty synthetic text part: nothing to keep.
        assert [p.kind for p in session.messages[1].parts] == ["text", "tool_call", "tool_result", "text"]
        (edit,) = session.edits
        assert (edit.path, edit.tool, edit.message_id, edit.call_id) == (
            "/Users/test/project/index.ts",
            "edit",
            "msg-assistant-001",
            "call-001",
        )
        assert edit.added == (
            AddedLine(text="// Hello World", line=1),
            AddedLine(text="console.log('test');", line=2),
        )


def test_every_opencode_corpus_file_is_covered() -> None:
    root = corpus(OC)
    found = {str(p.relative_to(root.parent.parent)) for p in root.rglob("*") if p.is_file()}
    parts = [f"{STORAGE_SAMPLE}/part/msg-assistant-001/prt-00{i}.json" for i in range(1, 5)]
    assert found == {
        SQLITE_SAMPLE,
        f"{OC}/synthetic__opencode-sqlite/schema.sql",
        f"{OC}/README.md",
        f"{STORAGE_SAMPLE}/message/{SAMPLE_SESSION}/msg-assistant-001.json",
        f"{STORAGE_SAMPLE}/message/{SAMPLE_SESSION}/msg-user-001.json",
        f"{STORAGE_SAMPLE}/part/msg-user-001/prt-001.json",
        *parts,
    }


def test_corpus_files_that_are_not_transcripts() -> None:
    for rel in (
        f"{OC}/synthetic__opencode-sqlite/schema.sql",
        f"{OC}/README.md",
        f"{STORAGE_SAMPLE}/part/msg-assistant-001/prt-001.json",
    ):
        assert not opencode.sniff(corpus(rel))
    assert opencode.read(corpus(f"{OC}/synthetic__opencode-sqlite/schema.sql")) == []


def test_reading_the_corpus_store_writes_nothing() -> None:
    path = corpus(SQLITE_SAMPLE)
    before = (
        hashlib.sha256(path.read_bytes()).hexdigest(),
        path.stat().st_mtime_ns,
        sorted(os.listdir(path.parent)),
    )
    opencode.read(path)
    opencode.sniff(path)
    assert (
        hashlib.sha256(path.read_bytes()).hexdigest(),
        path.stat().st_mtime_ns,
        sorted(os.listdir(path.parent)),
    ) == before


def test_a_store_is_marked_as_holding_many_sessions() -> None:
    assert (opencode.NAME, opencode.MULTI_SESSION) == ("opencode", True)


def test_other_adapters_do_not_claim_opencode_files() -> None:
    for rel in (SQLITE_SAMPLE, f"{STORAGE_SAMPLE}/message/{SAMPLE_SESSION}/msg-user-001.json"):
        assert not claude_code.sniff(corpus(rel)) and not codex.sniff(corpus(rel))


# --------------------------------------------------------------------------------------------------
# A store built to OpenCode's schema (packages/opencode/src/session/session.sql.ts), holding what the
# tools really record: trimmed diffs, filediff before/after, apply_patch files, multiedit results.
# --------------------------------------------------------------------------------------------------

SCHEMA = """
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, time_created integer NOT NULL,
  time_updated integer NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE cascade,
  workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL, path text,
  title text NOT NULL,
  version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer,
  summary_files integer, summary_diffs text, revert text, permission text, time_created integer NOT NULL,
  time_updated integer NOT NULL, time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE cascade,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE cascade,
  session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
"""

T0 = 1_767_000_000_000  # 2025-12-29T09:20:00Z in epoch milliseconds, as OpenCode stores times
REPO = "/repo"
ROOT_COMMIT = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
CALC_BEFORE = (
    "def total():\n" + "".join(f"    {v} = {i}\n" for i, v in enumerate("abcdefghi", 1)) + "    return a\n"
)
APP_BEFORE = "def main():\n    pass\n"
APP_AFTER = 'def greet(name):\n    return f"hi {name}"\n\n\ndef main():\n    pass\n'
# OpenCode's trimDiff strips the indentation every line of a hunk shares: here four spaces.
CALC_DIFF = """Index: /repo/src/calc.py
===================================================================
--- /repo/src/calc.py
+++ /repo/src/calc.py
@@ -2,9 +2,10 @@
 a = 1
 b = 2
 c = 3
 d = 4
-e = 5
+e = 50
+e2 = 55
 f = 6
 g = 7
 h = 8
 i = 9
"""
CFG_CONTENT = "def f():\n" + "".join(f"    v{i} = {i * 10 if i == 6 else i}\n" for i in range(1, 11))
CFG_DIFF = """Index: /repo/src/cfg.py
===================================================================
--- /repo/src/cfg.py
+++ /repo/src/cfg.py
@@ -3,9 +3,9 @@
 v2 = 2
 v3 = 3
 v4 = 4
 v5 = 5
-v6 = 6
+v6 = 60
 v7 = 7
 v8 = 8
 v9 = 9
 v10 = 10
"""
PATCH_WITH_FILES = """*** Begin Patch
*** Update File: src/calc.py
@@
     h = 8
-    i = 9
+    i = 90
*** Add File: src/extra.py
+Z = 1
*** End Patch"""
PATCH_ONLY = """*** Begin Patch
*** Add File: docs/notes.md
+# Notes
+first
*** Update File: src/app.py
@@ def main():
-    pass
+    print("hi")
*** Delete File: old.txt
*** End Patch"""


def tool(
    call_id: str,
    name: str,
    args: dict[str, Any],
    metadata: dict[str, Any] | None = None,
    *,
    status: str = "completed",
    end: int = 9_000,
) -> dict[str, Any]:
    state: dict[str, Any] = {"status": status, "input": args, "time": {"start": T0 + end - 500}}
    if status == "completed":
        state.update(
            output="Edit applied successfully.",
            title=name,
            metadata=metadata or {},
            time={"start": T0 + end - 500, "end": T0 + end},
        )
    elif status == "error":
        state.update(
            error="Could not find oldString in the file.", time={"start": T0 + end - 500, "end": T0 + end}
        )
    return {"type": "tool", "callID": call_id, "tool": name, "state": state}


def user(created: int) -> dict[str, Any]:
    return {
        "role": "user",
        "time": {"created": T0 + created},
        "agent": "build",
        "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
    }


def assistant(created: int, cwd: str = REPO, **extra: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "time": {"created": T0 + created, "completed": T0 + created + 60_000},
        "parentID": "msg_01",
        "modelID": "claude-sonnet-4-5",
        "providerID": "anthropic",
        "mode": "build",
        "agent": "build",
        "path": {"cwd": cwd, "root": cwd},
        "cost": 0,
        "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        **extra,
    }


SESSION_A: list[tuple[str, dict[str, Any], list[Any]]] = [
    (
        "msg_01",
        user(0),
        [
            {"type": "text", "text": "Add a greeting function to src/app.py"},
            {
                "type": "text",
                "text": "Called the Read tool with the following input: {...}",
                "synthetic": True,
            },
            {"type": "file", "mime": "text/plain", "filename": "app.py", "url": "file:///repo/src/app.py"},
        ],
    ),
    (
        "msg_02",
        assistant(1_000),
        [
            {"type": "step-start"},
            {"type": "reasoning", "text": "Plan: add greet() above main().", "time": {"start": T0 + 1_100}},
            {"type": "text", "text": "Adding greet()."},
            tool(
                "call_edit_exact",
                "edit",
                {
                    "filePath": "/repo/src/app.py",
                    "oldString": "def main():",
                    "newString": 'def greet(name):\n    return f"hi {name}"\n\n\ndef main():',
                },
                {
                    "diff": "(unused when filediff has before/after)",
                    "filediff": {
                        "file": "/repo/src/app.py",
                        "before": APP_BEFORE,
                        "after": APP_AFTER,
                        "additions": 4,
                    },
                },
            ),
            tool(
                "call_edit_trimmed",
                "edit",
                {
                    "filePath": "/repo/src/calc.py",
                    "oldString": "    e = 5",
                    "newString": "    e = 50\n    e2 = 55",
                },
                {"diff": CALC_DIFF, "filediff": {"file": "/repo/src/calc.py", "patch": CALC_DIFF}},
            ),
            tool(
                "call_write_new",
                "write",
                {"filePath": "src/new.py", "content": "X = 1\nY = 2\n"},
                {"filepath": "/repo/src/new.py", "exists": False},
            ),
            tool(
                "call_write_over",
                "write",
                {"filePath": "/repo/src/cfg.py", "content": CFG_CONTENT},
                {"filepath": "/repo/src/cfg.py", "exists": True, "diff": CFG_DIFF},
            ),
            tool(
                "call_patch_files",
                "apply_patch",
                {"patchText": PATCH_WITH_FILES},
                {
                    "files": [
                        {
                            "filePath": "/repo/src/calc.py",
                            "relativePath": "src/calc.py",
                            "type": "update",
                            "patch": (
                                "@@ -7,6 +7,6 @@\n e2 = 55\n f = 6\n g = 7\n h = 8\n-i = 9\n+i = 90\n "
                                "return a\n"
                            ),
                        },
                        {
                            "filePath": "/repo/src/extra.py",
                            "relativePath": "src/extra.py",
                            "type": "add",
                            "patch": "@@ -0,0 +1,1 @@\n+Z = 1\n",
                        },
                    ]
                },
            ),
            tool("call_patch_only", "apply_patch", {"patchText": PATCH_ONLY}, {}),
            tool(
                "call_multi",
                "multiedit",
                {
                    "filePath": "/repo/src/app.py",
                    "edits": [
                        {"oldString": 'print("hi")', "newString": 'print("hello")'},
                        {"oldString": "def main():", "newString": "def main() -> None:"},
                    ],
                },
                {
                    "results": [
                        {
                            "filediff": {
                                "before": APP_AFTER.replace("pass", 'print("hi")'),
                                "after": APP_AFTER.replace("pass", 'print("hello")'),
                            }
                        },
                        {},
                    ]
                },
            ),
            tool(
                "call_failed",
                "edit",
                {"filePath": "/repo/src/app.py", "oldString": "nope", "newString": "x"},
                status="error",
            ),
            tool(
                "call_running",
                "edit",
                {"filePath": "/repo/src/app.py", "oldString": "a", "newString": "b"},
                status="running",
            ),
            {"type": "mystery", "payload": 1},
            "{torn part",
            {
                "type": "step-finish",
                "reason": "stop",
                "cost": 0,
                "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            },
        ],
    ),
    ("msg_03", user(20_000), [{"type": "compaction", "auto": True}]),
    (
        "msg_04",
        assistant(21_000, summary=True),
        [{"type": "text", "text": "We added greet() and reworked calc."}],
    ),
    (
        "msg_05",
        user(30_000),
        [{"type": "subtask", "prompt": "Review the change", "description": "review", "agent": "general"}],
    ),
]


def build_store(path: Path) -> Path:
    """Sessions A (the edits above), B (A's child) and C (another project) in an OpenCode-shaped store."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO project VALUES (?, ?, 'git', ?, ?)", (ROOT_COMMIT, REPO, T0, T0))
    conn.execute("INSERT INTO project VALUES ('other-root', '/elsewhere/proj', 'git', ?, ?)", (T0, T0))
    sessions = [
        ("ses_A", ROOT_COMMIT, None, REPO, SESSION_A, 40_000),
        (
            "ses_B",
            ROOT_COMMIT,
            "ses_A",
            f"{REPO}/src",
            [
                ("msg_b1", user(50_000), [{"type": "text", "text": "Review src/app.py"}]),
                ("msg_b2", assistant(51_000, cwd=f"{REPO}/src"), [{"type": "text", "text": "Looks fine."}]),
            ],
            52_000,
        ),
        (
            "ses_C",
            "other-root",
            None,
            "/elsewhere/proj",
            [("msg_c1", user(-86_400_000), [{"type": "text", "text": "Unrelated work"}])],
            -86_000_000,
        ),
    ]
    for sid, project, parent, directory, messages, updated in sessions:
        created = messages[0][1]["time"]["created"]
        conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
            "time_created, time_updated) VALUES (?, ?, ?, 'slug', ?, 'title', '1.2.10', ?, ?)",
            (sid, project, parent, directory, created, T0 + updated),
        )
        for mid, info, parts in messages:
            conn.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (mid, sid, info["time"]["created"], info["time"]["created"], json.dumps(info)),
            )
            for n, part in enumerate(parts):
                data = part if isinstance(part, str) else json.dumps(part)
                conn.execute(
                    "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                    (f"prt_{mid}_{n:02d}", mid, sid, T0, T0, data),
                )
    conn.commit()
    conn.close()
    return path


def by_id(sessions: list[Session]) -> dict[str, Session]:
    return {s.session_id: s for s in sessions}


def test_store_sessions_messages_and_prompts(tmp_path: Path) -> None:
    store = build_store(tmp_path / "opencode.db")
    assert opencode.sniff(store)
    sessions = opencode.read(store)
    assert [s.session_id for s in sessions] == ["ses_C", "ses_A", "ses_B"]  # by time_created
    a, b, c = (by_id(sessions)[i] for i in ("ses_A", "ses_B", "ses_C"))
    assert (a.cwd, a.cwds, a.parent_session_id, a.agent_version) == (REPO, [REPO], None, "1.2.10")
    assert (b.parent_session_id, b.cwds) == ("ses_A", [f"{REPO}/src"])
    assert c.cwd == "/elsewhere/proj"
    # 5 message rows and 3 + 15 + 1 + 1 + 1 part rows, one of them torn; the compaction request has no
    # part to keep, so msg_03 is not a message.
    assert (a.stats.records, a.stats.unreadable, a.stats.unknown_types) == (25, 1, {"mystery": 1})
    assert [(m.message_id, m.role, m.is_prompt, m.is_summary) for m in a.messages] == [
        ("msg_01", "user", True, False),
        ("msg_02", "assistant", False, False),
        ("msg_04", "assistant", False, True),
        ("msg_05", "user", False, False),
    ]
    assert a.messages[0].text == (
        "Add a greeting function to src/app.py\n\nCalled the Read tool with the following input: {...}"
    )
    assert a.messages[3].text == "Review the change"
    assert a.messages[1].timestamp == datetime(2025, 12, 29, 9, 20, 1, tzinfo=timezone.utc)
    assert all(
        m.timestamp is not None and m.timestamp.tzinfo is not None for s in sessions for m in s.messages
    )
    kinds = [p.kind for p in a.messages[1].parts]
    assert kinds[:2] == ["reasoning", "text"]
    assert kinds.count("tool_call") == 9 and kinds.count("tool_result") == 8  # the running call has no result
    failed = [p for p in a.messages[1].parts if p.call_id == "call_failed" and p.kind == "tool_result"]
    assert failed[0].is_error and failed[0].text == "Could not find oldString in the file."
    assert [sum(m.is_prompt for m in s.messages) for s in (a, b, c)] == [1, 1, 1]
    assert all(":" not in m.message_id for s in sessions for m in s.messages)


def test_store_edits(tmp_path: Path) -> None:
    a = by_id(opencode.read(build_store(tmp_path / "opencode.db")))["ses_A"]
    summary = [(e.call_id, e.tool, e.path, e.kind, [(x.text, x.line) for x in e.added]) for e in a.edits]
    assert summary == [
        # filediff.before/after: exact lines and numbers.
        (
            "call_edit_exact",
            "edit",
            "/repo/src/app.py",
            "update",
            [("def greet(name):", 1), ('    return f"hi {name}"', 2), ("", 3), ("", 4)],
        ),
        # the trimmed diff gives the numbers; newString gives back the four spaces.
        ("call_edit_trimmed", "edit", "/repo/src/calc.py", "update", [("    e = 50", 6), ("    e2 = 55", 7)]),
        ("call_write_new", "write", "src/new.py", "create", [("X = 1", 1), ("Y = 2", 2)]),
        # a write's diff is re-indented from the whole new file, line by line.
        ("call_write_over", "write", "/repo/src/cfg.py", "update", [("    v6 = 60", 7)]),
        ("call_patch_files", "apply_patch", "/repo/src/calc.py", "update", [("    i = 90", 11)]),
        ("call_patch_files", "apply_patch", "/repo/src/extra.py", "create", [("Z = 1", 1)]),
        # no metadata.files: the envelope alone, paths relative to the session directory.
        ("call_patch_only", "apply_patch", "docs/notes.md", "create", [("# Notes", 1), ("first", 2)]),
        ("call_patch_only", "apply_patch", "src/app.py", "update", [('    print("hi")', None)]),
        ("call_patch_only", "apply_patch", "old.txt", "delete", []),
        ("call_multi", "multiedit", "/repo/src/app.py", "update", [('    print("hello")', 6)]),
        ("call_multi", "multiedit", "/repo/src/app.py", "update", [("def main() -> None:", None)]),
    ]
    assert {e.message_id for e in a.edits} == {"msg_02"}
    first = a.edits[0]
    assert first.old_text == "def main():"
    assert first.new_text == 'def greet(name):\n    return f"hi {name}"\n\n\ndef main():'
    assert first.timestamp == datetime(2025, 12, 29, 9, 20, 9, tzinfo=timezone.utc)  # the tool's time.end
    assert a.edits[4].old_text == "    h = 8\n    i = 9" and a.edits[4].new_text == "    h = 8\n    i = 90"


def test_trimmed_diff_lines_missing_from_new_string_keep_the_diff_text(tmp_path: Path) -> None:
    """When the diff's lines are not in newString (a formatter rewrote them), the diff's text stands."""
    args = {"filePath": "/repo/x.py", "oldString": "    e = 5", "newString": "    e = 5  # changed"}
    parts = [tool("c1", "edit", args, {"diff": CALC_DIFF})]
    store = _store_with(tmp_path, parts)
    (edit,) = _one(opencode.read(store)).edits
    assert [(x.text, x.line) for x in edit.added] == [("e = 50", 6), ("e2 = 55", 7)]


def _store_with(tmp_path: Path, parts: list[Any], name: str = "opencode.db") -> Path:
    conn = sqlite3.connect(tmp_path / name)
    conn.executescript(SCHEMA)
    conn.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
        "VALUES ('ses_X', 'p', 's', '/repo', 't', '1.0', 0, 0)"
    )
    conn.execute("INSERT INTO message VALUES ('msg_1', 'ses_X', 0, 0, ?)", (json.dumps(assistant(0)),))
    for n, part in enumerate(parts):
        conn.execute(
            "INSERT INTO part VALUES (?, 'msg_1', 'ses_X', 0, 0, ?)", (f"prt_{n:02d}", json.dumps(part))
        )
    conn.commit()
    conn.close()
    return tmp_path / name


# --------------------------------------------------------------------------------------------------
# Schema drift and bad files: [] and no exception
# --------------------------------------------------------------------------------------------------


def test_not_sqlite_and_empty_files_give_nothing(tmp_path: Path) -> None:
    for name, data in (("opencode.db", b"not a database at all\n"), ("empty.db", b"")):
        path = tmp_path / name
        path.write_bytes(data)
        assert not opencode.sniff(path)
        assert opencode.read(path) == []


def test_a_torn_sqlite_file_is_reported_as_damaged(tmp_path: Path) -> None:
    path = tmp_path / "opencode-torn.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    assert opencode.sniff(path)  # SQLite named as OpenCode's store: its damage is reported here
    assert not opencode.sniff(shutil.copyfile(path, tmp_path / "crush.db"))  # another agent's store
    with pytest.raises(
        DamagedTranscriptError,
        match=r"^The OpenCode store .*torn.db is damaged \(file is not a "
        r"database\); its sessions are skipped\.$",
    ):
        opencode.read(path)


def test_missing_file_raises_oserror_but_is_not_sniffed(tmp_path: Path) -> None:
    assert not opencode.sniff(tmp_path / "absent.db")
    with pytest.raises(OSError):
        opencode.read(tmp_path / "absent.db")


@pytest.mark.parametrize(
    "ddl",
    [
        "CREATE TABLE unrelated (x)",
        "CREATE TABLE message (id, session_id, data)",  # no part table
        # no data column
        "CREATE TABLE message (id, session_id, body); CREATE TABLE part (id, message_id, data)",
        # parts not tied to messages
        "CREATE TABLE message (id, session_id, data); CREATE TABLE part (id, data)",
    ],
)
def test_foreign_schema_gives_nothing(tmp_path: Path, ddl: str) -> None:
    path = tmp_path / "opencode.db"
    conn = sqlite3.connect(path)
    conn.executescript(ddl)
    conn.close()
    assert not opencode.sniff(path)
    assert opencode.read(path) == []


def test_older_schema_without_session_table_or_part_session_column(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE message (id, session_id, data); CREATE TABLE part (id, message_id, data);"
    )
    conn.execute("INSERT INTO message VALUES ('msg_2', 's1', ?)", (json.dumps(assistant(5)),))
    conn.execute("INSERT INTO message VALUES ('msg_1', 's1', ?)", (json.dumps(user(0)),))
    conn.execute("INSERT INTO message VALUES ('msg_3', 's1', 'null')")
    conn.execute("INSERT INTO part VALUES ('p1', 'msg_1', ?)", (json.dumps({"type": "text", "text": "go"}),))
    conn.execute("INSERT INTO part VALUES ('p2', 'msg_2', ?)", (json.dumps({"type": "text", "text": "ok"}),))
    conn.execute("INSERT INTO part VALUES ('p3', 'msg_2', ?)", (b"\xff\xfe not utf-8",))
    conn.commit()
    conn.close()
    assert opencode.sniff(path)
    session = _one(opencode.read(path))
    assert (session.session_id, session.cwd, session.parent_session_id) == ("s1", REPO, None)
    assert [(m.message_id, m.text) for m in session.messages] == [("msg_1", "go"), ("msg_2", "ok")]
    assert (session.stats.records, session.stats.unreadable) == (4, 2)


def test_unknown_roles_and_odd_values_are_counted_not_raised(tmp_path: Path) -> None:
    parts = [
        {"type": "tool", "tool": "edit", "state": "not an object"},
        {"type": "tool", "tool": "write", "state": {"status": "completed", "input": {"filePath": 3}}},
        {
            "type": "tool",
            "tool": "apply_patch",
            "state": {"status": "completed", "input": {"patchText": None}, "metadata": {"files": "nope"}},
        },
        {"type": "text", "text": None},
        {"type": "reasoning", "text": ["x"]},
        {"no": "type"},
    ]
    store = _store_with(tmp_path, parts)
    conn = sqlite3.connect(store)
    conn.execute(
        "INSERT INTO message VALUES ('msg_9', 'ses_X', 9, 9, ?)",
        (json.dumps({"role": "system", "time": {"created": "yesterday"}}),),
    )
    conn.commit()
    conn.close()
    session = _one(opencode.read(store))
    assert session.edits == []
    assert session.stats.unknown_types == {"None": 1, "role:system": 1}
    assert [(p.kind, p.text) for p in session.messages[0].parts] == [
        ("tool_call", "{}"),
        ("tool_call", '{"filePath": 3}'),
        ("tool_result", ""),
        ("tool_call", '{"patchText": null}'),
        ("tool_result", ""),
    ]


# --------------------------------------------------------------------------------------------------
# Read-only access, WAL
# --------------------------------------------------------------------------------------------------


def test_connection_is_read_only(tmp_path: Path) -> None:
    store = build_store(tmp_path / "opencode.db")
    conn = sqlite_store.open_read_only(store)  # the read-only open every SQLite adapter shares
    with pytest.raises(sqlite3.OperationalError):
        conn.execute("CREATE TABLE intruder (x)")
    conn.close()


def test_wal_store_is_read_with_uncheckpointed_rows(tmp_path: Path) -> None:
    store = tmp_path / "opencode.db"
    conn = sqlite3.connect(store)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.executescript(SCHEMA)
    conn.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
        "VALUES ('ses_W', 'p', 's', '/repo', 't', '1.0', 0, 0)"
    )
    conn.execute("INSERT INTO message VALUES ('msg_1', 'ses_W', 0, 0, ?)", (json.dumps(user(0)),))
    conn.execute(
        "INSERT INTO part VALUES ('p1', 'msg_1', 'ses_W', 0, 0, ?)",
        (json.dumps({"type": "text", "text": "live"}),),
    )
    conn.commit()  # OpenCode is still running: the rows are in opencode.db-wal only
    try:
        assert (tmp_path / "opencode.db-wal").stat().st_size > 0
        session = _one(opencode.read(store))
        assert [m.text for m in session.messages] == ["live"]
    finally:
        conn.close()


def test_store_that_cannot_be_opened_shared_is_read_immutable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A WAL store in a folder we may not write (no -shm to share) fails a plain read-only open."""
    store = build_store(tmp_path / "opencode.db")
    real = sqlite_store._connect

    def refusing(path: Path, immutable: bool = False) -> sqlite3.Connection:
        if not immutable:
            raise sqlite3.OperationalError("unable to open database file")
        return real(path, immutable)

    monkeypatch.setattr(sqlite_store, "_connect", refusing)
    assert opencode.sniff(store)
    assert len(opencode.read(store)) == 3


# --------------------------------------------------------------------------------------------------
# read_project: membership by root commit, directory and time
# --------------------------------------------------------------------------------------------------


def ids(sessions: list[Session]) -> list[str]:
    return sorted(s.session_id for s in sessions)


def test_read_project_by_root_commit_directory_and_time(tmp_path: Path) -> None:
    store = build_store(tmp_path / "opencode.db")
    assert ids(opencode.read_project(store, project_id=ROOT_COMMIT)) == ["ses_A", "ses_B"]
    assert ids(opencode.read_project(store, root=Path(REPO))) == ["ses_A", "ses_B"]
    assert ids(opencode.read_project(store, root=Path(f"{REPO}/src"))) == ["ses_B"]
    assert ids(opencode.read_project(store, root=Path("/rep"))) == []  # a prefix of the name is not a parent
    assert ids(opencode.read_project(store, project_id="other-root", root=Path(REPO))) == [
        "ses_A",
        "ses_B",
        "ses_C",
    ]
    assert ids(opencode.read_project(store)) == ["ses_A", "ses_B", "ses_C"]
    since = datetime(2025, 12, 29, tzinfo=timezone.utc)  # ses_C was last updated the day before
    assert ids(opencode.read_project(store, since=since)) == ["ses_A", "ses_B"]
    assert ids(
        opencode.read_project(
            store, project_id=ROOT_COMMIT, since=datetime(2025, 12, 29, 9, 20, 45, tzinfo=timezone.utc)
        )
    ) == ["ses_B"]


def test_read_project_without_session_rows_uses_message_cwds(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE message (id, session_id, data); CREATE TABLE part (id, message_id, data);"
    )
    for sid, cwd in (("s_in", REPO), ("s_out", "/elsewhere")):
        conn.execute(
            "INSERT INTO message VALUES (?, ?, ?)", (f"m_{sid}", sid, json.dumps(assistant(0, cwd=cwd)))
        )
        conn.execute(
            "INSERT INTO part VALUES (?, ?, ?)", (f"p_{sid}", f"m_{sid}", '{"type": "text", "text": "x"}')
        )
    conn.commit()
    conn.close()
    assert [s.session_id for s in opencode.read_project(path, root=Path(REPO))] == ["s_in"]


# --------------------------------------------------------------------------------------------------
# The storage tree and export files
# --------------------------------------------------------------------------------------------------


def build_tree(storage: Path) -> Path:
    """OpenCode ≤ 1.1 storage: session info under its project, messages and parts as single JSON files."""

    def write(rel: str, value: Any) -> None:
        (storage / rel).parent.mkdir(parents=True, exist_ok=True)
        (storage / rel).write_text(value if isinstance(value, str) else json.dumps(value))

    write(
        f"session/{ROOT_COMMIT}/ses_T.json",
        {
            "id": "ses_T",
            "projectID": ROOT_COMMIT,
            "directory": REPO,
            "parentID": "ses_P",
            "version": "1.1.40",
            "title": "t",
            "time": {"created": T0, "updated": T0 + 5_000},
        },
    )
    # Message files are read in time order, whatever their names.
    write("message/ses_T/msg_b.json", {"id": "msg_b", "sessionID": "ses_T", **assistant(2_000)})
    write("message/ses_T/msg_a.json", {"id": "msg_a", "sessionID": "ses_T", **user(1_000)})
    write("message/ses_T/msg_c.json", "{torn")
    write("part/msg_a/prt_1.json", {"id": "prt_1", "messageID": "msg_a", "type": "text", "text": "Make it 2"})
    write(
        "part/msg_b/prt_1.json",
        {
            "id": "prt_1",
            "messageID": "msg_b",
            **tool("c1", "write", {"filePath": "/repo/two.txt", "content": "2\n"}, {"exists": False}),
        },
    )
    write("message/ses_U/msg_u.json", {"id": "msg_u", "sessionID": "ses_U", **user(0)})
    write("part/msg_u/prt_1.json", {"type": "text", "text": "orphan session"})
    return storage


def test_storage_tree(tmp_path: Path) -> None:
    storage = build_tree(tmp_path / "storage")
    info_file = storage / "session" / ROOT_COMMIT / "ses_T.json"
    assert opencode.sniff(storage) and opencode.sniff(info_file)
    assert sorted(s.session_id for s in opencode.read(storage)) == ["ses_T", "ses_U"]
    session = _one(opencode.read(info_file))
    assert (session.session_id, session.parent_session_id, session.cwd, session.agent_version) == (
        "ses_T",
        "ses_P",
        REPO,
        "1.1.40",
    )
    assert session.transcript == storage / "message" / "ses_T"
    assert [(m.message_id, m.is_prompt) for m in session.messages] == [("msg_a", True), ("msg_b", False)]
    assert (session.stats.records, session.stats.unreadable) == (4, 1)
    assert [(e.path, e.kind, len(e.added)) for e in session.edits] == [("/repo/two.txt", "create", 1)]
    assert [s.session_id for s in opencode.read_project(storage, project_id=ROOT_COMMIT)] == ["ses_T"]


def test_export_file(tmp_path: Path) -> None:
    doc = {
        "info": {
            "id": "ses_E",
            "slug": "s",
            "projectID": ROOT_COMMIT,
            "directory": REPO,
            "title": "t",
            "version": "1.2.10",
            "time": {"created": T0, "updated": T0},
        },
        "messages": [
            {
                "info": {"id": "msg_1", "sessionID": "ses_E", **user(0)},
                "parts": [{"id": "prt_1", "type": "text", "text": "Export me"}],
            },
            {
                "info": {"id": "msg_2", "sessionID": "ses_E", **assistant(1_000)},
                "parts": [tool("c1", "edit", {"filePath": "/repo/a.py", "oldString": "a", "newString": "b"})],
            },
            {"info": "torn"},
        ],
        "todos": [],
    }
    path = tmp_path / "ses_E.json"
    path.write_text(json.dumps(doc, indent=2))
    assert opencode.sniff(path)
    session = _one(opencode.read(path))
    assert (session.session_id, session.cwd, session.transcript) == ("ses_E", REPO, path)
    assert [m.is_prompt for m in session.messages] == [True, False]
    assert [(x.text, x.line) for e in session.edits for x in e.added] == [("b", None)]
    assert (session.stats.records, session.stats.unreadable) == (4, 1)
    path.write_text(json.dumps({"info": {"id": "not-a-session"}, "messages": []}))
    assert not opencode.sniff(path)


# --------------------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------------------


def test_discover_default_location_and_channel_stores(tmp_path: Path, opencode_env: Path) -> None:
    assert list(opencode.discover(tmp_path)) == []
    opencode_env.mkdir(parents=True)
    main = build_store(opencode_env / "opencode.db")
    dev = build_store(opencode_env / "opencode-dev.db")
    # The tree may never have been migrated (anomalyco/opencode#13654): its sessions are offered too.
    build_tree(opencode_env / "storage")
    info_file = opencode_env / "storage" / "session" / ROOT_COMMIT / "ses_T.json"
    assert list(opencode.discover(tmp_path)) == [dev, main, info_file]


def test_discover_honours_xdg_data_home_and_opencode_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    xdg = tmp_path / "xdg"
    (xdg / "opencode").mkdir(parents=True)
    store = build_store(xdg / "opencode" / "opencode.db")
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    assert opencode.data_dir() == xdg / "opencode"
    assert list(opencode.discover(tmp_path)) == [store]
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")  # the XDG spec: relative paths are invalid
    assert opencode.data_dir() == Path.home() / ".local" / "share" / "opencode"
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    custom = build_store(tmp_path / "custom.db")
    monkeypatch.setenv("OPENCODE_DB", str(custom))
    assert list(opencode.discover(tmp_path)) == [custom]
    monkeypatch.setenv("OPENCODE_DB", "opencode.db")  # a relative name lives in the data folder
    assert list(opencode.discover(tmp_path)) == [store]
    monkeypatch.setenv("OPENCODE_DB", ":memory:")
    assert list(opencode.discover(tmp_path)) == [store]


def test_discover_since_counts_the_wal_file(tmp_path: Path, opencode_env: Path) -> None:
    opencode_env.mkdir(parents=True)
    store = build_store(opencode_env / "opencode.db")
    old = datetime(2020, 1, 1, tzinfo=timezone.utc).timestamp()
    os.utime(store, (old, old))
    since = datetime(2024, 1, 1, tzinfo=timezone.utc)
    assert list(opencode.discover(tmp_path, since)) == []
    (opencode_env / "opencode.db-wal").write_bytes(b"")  # OpenCode writes here first
    assert list(opencode.discover(tmp_path, since)) == [store]


def test_discover_legacy_storage_by_time(tmp_path: Path, opencode_env: Path) -> None:
    build_tree(opencode_env / "storage")
    info_file = opencode_env / "storage" / "session" / ROOT_COMMIT / "ses_T.json"
    assert list(opencode.discover(tmp_path)) == [info_file]
    old = datetime(2020, 1, 1, tzinfo=timezone.utc).timestamp()
    os.utime(info_file, (old, old))
    assert list(opencode.discover(tmp_path, datetime(2024, 1, 1, tzinfo=timezone.utc))) == []


def test_discovered_corpus_copy_reads_like_the_original(tmp_path: Path, opencode_env: Path) -> None:
    opencode_env.mkdir(parents=True)
    shutil.copy(corpus(SQLITE_SAMPLE), opencode_env / "opencode.db")
    (found,) = opencode.discover(tmp_path)
    assert _one(opencode.read(found)).session_id == SAMPLE_SESSION


# --------------------------------------------------------------------------------------------------
# Moves: apply_patch's movePath and the bash tool's mv
# --------------------------------------------------------------------------------------------------


def test_apply_patch_move_and_bash_mv_are_move_edits(tmp_path: Path) -> None:
    """apply_patch records a moved file as `{type: "move", filePath, movePath, before, after}`
    (tool/apply_patch.ts) and the envelope as `*** Move to:`; bash runs `{command, workdir?}` and says
    `metadata.exit`."""
    moved = (
        "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
    )
    parts = [
        tool(
            "call_move",
            "apply_patch",
            {"patchText": moved},
            {
                "files": [
                    {
                        "filePath": "/repo/src/a.py",
                        "movePath": "/repo/src/b.py",
                        "type": "move",
                        "before": "x = 1\ny = 1\n",
                        "after": "x = 2\ny = 1\n",
                    }
                ]
            },
        ),
        tool("call_move_envelope", "apply_patch", {"patchText": moved}, {}),
        tool(
            "call_mv",
            "bash",
            {
                "command": "git mv src/b.py lib/b.py && cat > lib/c.py <<'EOF'\nc = 3\nEOF",
                "workdir": "/repo",
                "description": "Move b",
            },
            {"exit": 0, "output": ""},
        ),
        tool(
            "call_mv_failed",
            "bash",
            {"command": "mv x y", "description": "Move x"},
            {"exit": 1, "output": "no"},
        ),
        tool("call_mv_killed", "bash", {"command": "mv p q", "description": "Move p"}, {"exit": None}),
    ]
    session = _one(opencode.read(_store_with(tmp_path, parts)))
    assert [
        (e.call_id, e.tool, e.kind, e.source, e.path, [a.text for a in e.added]) for e in session.edits
    ] == [
        ("call_move", "apply_patch", "move", "/repo/src/a.py", "/repo/src/b.py", []),
        ("call_move", "apply_patch", "update", None, "/repo/src/b.py", ["x = 2"]),
        ("call_move_envelope", "apply_patch", "move", "src/a.py", "src/b.py", []),
        ("call_move_envelope", "apply_patch", "update", None, "src/b.py", ["x = 2"]),
        ("call_mv", "bash", "move", "/repo/src/b.py", "/repo/lib/b.py", []),
        ("call_mv", "bash", "create", None, "/repo/lib/c.py", ["c = 3"]),
    ]
