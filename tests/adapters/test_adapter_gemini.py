"""Gemini CLI adapter: the real corpus with exact figures, then hand-built chats for each oddity of the format
($set, $rewindTo, rewritten message ids, fileDiff, legacy JSON, subagents, project folders)."""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, corpus
from support import write_records as write_jsonl

from git_intent.adapters import claude_code, codex, gemini_cli
from git_intent.core.values import Session

# --------------------------------------------------------------------------------------------------
# The corpus. Figures computed with the adapter, then checked by an independent script (json + difflib
# only): records = JSONL objects, or entries of a legacy file's `messages`; messages = message records
# with text, thoughts or tool calls; prompts = `user` records with text; edits = replace/write_file
# calls whose status is absent or "success"; added = write_file content lines, replace new_string lines
# that difflib finds inserted or replaced against old_string.
# --------------------------------------------------------------------------------------------------

GM = "transcripts/gemini"
LEGACY_SMALL = f"{GM}/entire-cli__12cbfeaa512b__legacy-session.json"
LEGACY_COLOR = f"{GM}/entire-cli__ab2b9748b105__legacy-session.json"
GIT_AI = f"{GM}/git-ai__gemini-session-simple.jsonl"
V040 = f"{GM}/synthetic__jsonl_v040.jsonl"
LINKED = "linked/entire-cli/checkpoints/ab/2b9748b105/0/full.jsonl"
ENTIRE_CWD = "/Users/peytonmontei/Documents/entire/devenv/entireio/cli"


@dataclass(frozen=True)
class Expected:
    session_id: str
    records: int
    messages: int
    edits: int
    prompts: int
    added: int


TABLE: dict[str, Expected] = {
    LEGACY_SMALL: Expected("faff42ab-6ea5-4f78-b8c4-f7dd6272af08", 6, 6, 1, 2, 1),
    # write_file docs/blue.md (3 lines), then `echo -e "...Red..." >> docs/color.md` (17 lines, via
    # transcripts.shell)
    LEGACY_COLOR: Expected("f7633853-6663-4dbb-bbf4-6159afa29df8", 13, 13, 2, 1, 20),
    # no metadata line in git-ai's fixture, so the session id is the file name
    GIT_AI: Expected("git-ai__gemini-session-simple", 7, 6, 2, 1, 2),
    V040: Expected("gemini_stage0_jsonl", 5, 3, 0, 1, 0),
    LINKED: Expected("f7633853-6663-4dbb-bbf4-6159afa29df8", 13, 13, 2, 1, 20),
}


def _read(rel: str) -> Session:
    sessions = gemini_cli.read(corpus(rel))
    assert len(sessions) == 1
    return sessions[0]


@pytest.mark.parametrize("rel", list(TABLE), ids=lambda r: r.rsplit("/", 1)[-1])
def test_corpus_figures(rel: str) -> None:
    session = _read(rel)
    actual = Expected(
        session.session_id,
        session.stats.records,
        len(session.messages),
        len(session.edits),
        sum(m.is_prompt for m in session.messages),
        sum(len(e.added) for e in session.edits),
    )
    assert actual == TABLE[rel]
    assert (session.stats.unreadable, session.stats.unknown_types) == (0, {})
    assert session.agent == "gemini-cli"
    assert all(":" not in m.message_id for m in session.messages)
    assert all(m.timestamp is not None and m.timestamp.tzinfo is not None for m in session.messages)


def test_table_covers_every_gemini_corpus_file() -> None:
    root = corpus(GM)
    assert {str(p.relative_to(CORPUS)) for p in root.glob("*.json*")} | {LINKED} == set(TABLE)


@pytest.mark.parametrize("rel", list(TABLE), ids=lambda r: r.rsplit("/", 1)[-1])
def test_corpus_files_sniff_as_gemini_only(rel: str) -> None:
    path = corpus(rel)
    assert gemini_cli.sniff(path)
    assert not codex.sniff(path)


@pytest.mark.parametrize(
    "rel", [LEGACY_SMALL, LEGACY_COLOR, GIT_AI, LINKED], ids=lambda r: r.rsplit("/", 1)[-1]
)
def test_claude_code_sniff_rejects_gemini_files(rel: str) -> None:
    assert not claude_code.sniff(corpus(rel))


def test_claude_code_sniff_rejects_gemini_jsonl_with_metadata_line() -> None:
    assert not claude_code.sniff(corpus(V040))


def test_claude_and_codex_corpus_files_do_not_sniff_as_gemini() -> None:
    root = corpus("transcripts")
    others = [
        *(root / "claude-code").rglob("*.jsonl"),
        *(root / "codex").glob("*.jsonl"),
        *(
            p
            for p in (CORPUS / "linked").glob("*/checkpoints/*/*/*/full.jsonl")
            if "2b9748b105" not in str(p)
        ),
    ]
    assert len(others) > 10
    assert [p for p in others if gemini_cli.sniff(p)] == []


def test_legacy_session_write_file_creates_with_numbered_lines() -> None:
    session = _read(LEGACY_COLOR)
    edit, appended = session.edits
    assert (edit.path, edit.tool, edit.kind) == ("docs/blue.md", "write_file", "create")
    assert (edit.message_id, edit.call_id) == (
        "98b30b64-9492-42d4-bee3-0503a112fa53",
        "write_file-1768510312836-c85bc7ab6bf4a8",
    )
    assert edit.timestamp == datetime(2026, 1, 15, 20, 51, 57, 58000, tzinfo=timezone.utc)
    assert [(a.line, a.text[:20]) for a in edit.added] == [
        (1, "# Blue"),
        (2, ""),
        (3, "Blue is a primary co"),
    ]
    # docs/color.md, the file the linked commit added, was only appended to by run_shell_command: the
    # command text shows the 17 lines it wrote, so transcripts.shell turns it into an edit.
    appends = [
        (m.message_id, p.tool)
        for m in session.messages
        for p in m.parts
        if p.kind == "tool_call" and ">> docs/color.md" in p.text
    ]
    assert appends == [("4b1fa2ec-f4ae-4ac6-90c7-1ab2b5bdf6e5", "run_shell_command")]
    assert (appended.path, appended.tool, appended.kind, appended.message_id) == (
        "docs/color.md",
        "run_shell_command",
        "update",
        "4b1fa2ec-f4ae-4ac6-90c7-1ab2b5bdf6e5",
    )
    assert [a.text for a in appended.added][:3] == ["", "# Red", ""] and len(appended.added) == 17
    assert session.cwd == ENTIRE_CWD  # sha256(cwd) is the recorded projectHash
    legacy = json.loads(corpus(LEGACY_COLOR).read_text(encoding="utf-8"))
    assert hashlib.sha256(ENTIRE_CWD.encode()).hexdigest() == legacy["projectHash"]


def test_legacy_session_info_message_is_system_and_prompts_are_typed_text() -> None:
    session = _read(LEGACY_COLOR)
    info = session.message("f923baa6-4f04-4912-b169-1a0c22fe13ae")
    assert info is not None and info.role == "system" and not info.is_prompt
    assert [m.text for m in session.messages if m.is_prompt] == [
        "run an agent that creates a color file inside docs, choose your color"
    ]
    first = session.messages[1]
    assert [p.kind for p in first.parts] == ["reasoning", "reasoning", "text", "tool_call", "tool_result"]
    assert first.parts[-1].text.startswith("Successfully created and wrote to new file: /Users/peytonmontei/")


def test_legacy_overwrite_is_an_update_of_the_whole_file() -> None:
    session = _read(LEGACY_SMALL)
    (edit,) = session.edits
    assert (edit.path, edit.tool, edit.kind, edit.old_text) == (
        "test-gemini.txt",
        "write_file",
        "update",
        None,
    )
    assert [(a.line, a.text) for a in edit.added] == [(1, "hello from gemini,how are you")]
    assert [m.text for m in session.messages if m.is_prompt] == [
        "add new text to test-gemini.txt",
        '",how are you"',
    ]
    assert session.cwd == ENTIRE_CWD


def test_git_ai_replace_edits_are_fragments_without_line_numbers() -> None:
    session = _read(GIT_AI)
    assert [(e.call_id, e.message_id, e.tool) for e in session.edits] == [
        ("replace-1", "c3da0aac-828a-4b14-b950-4635a726d85b", "replace"),
        ("replace-2", "ed875c37-07b5-4029-a48c-2199378ec906", "replace"),
    ]
    assert all(e.path == "/Users/svarlamov/projects/testing-git/index.ts" for e in session.edits)
    assert [[(a.line, a.text) for a in e.added] for e in session.edits] == [
        [(None, "console.log('hello bob');")]
    ] * 2
    assert session.edits[1].old_text == "console.log('hello world');\nconsole.log('hello world');"
    assert session.cwd is None  # no projectHash to confirm a folder, no relative paths


def test_v040_metadata_line_and_shell_call() -> None:
    session = _read(V040)
    assert [m.message_id for m in session.messages] == ["g-user-1", "g-assistant-1", "g-assistant-2"]
    call = session.messages[1].parts
    assert [(p.kind, p.tool, p.call_id) for p in call] == [
        ("tool_call", "run_shell_command", "run_shell_command_stage0"),
        ("tool_result", "run_shell_command", "run_shell_command_stage0"),
    ]
    assert call[1].text.startswith("Output: AgentSessions/")


def test_reads_are_stable() -> None:
    for rel in TABLE:
        path = corpus(rel)
        first, second = gemini_cli.read(path)[0], gemini_cli.read(path)[0]
        assert [m.message_id for m in first.messages] == [m.message_id for m in second.messages]
        assert first.edits == second.edits


# --------------------------------------------------------------------------------------------------
# Hand-built chats
# --------------------------------------------------------------------------------------------------

SID = "5e55a0c1-0000-4000-8000-000000000001"
ROOT = "/home/dev/proj"


@pytest.fixture(autouse=True)
def _no_gemini_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)


def meta(**extra: Any) -> dict[str, Any]:
    return {
        "sessionId": SID,
        "projectHash": hashlib.sha256(ROOT.encode()).hexdigest(),
        "startTime": "2026-02-01T10:00:00.000Z",
        "lastUpdated": "2026-02-01T10:00:00.000Z",
        "kind": "main",
        **extra,
    }


def user(mid: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "timestamp": "2026-02-01T10:00:01.000Z",
        "type": "user",
        "content": [{"text": text}],
        **extra,
    }


def gemini(mid: str, text: Any = "", calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": mid,
        "timestamp": "2026-02-01T10:00:02.000Z",
        "type": "gemini",
        "content": text,
        "thoughts": [],
        "model": "gemini-2.5-pro",
    }
    if calls is not None:
        record["toolCalls"] = calls
    return record


def call(
    call_id: str,
    name: str,
    args: dict[str, Any],
    *,
    status: str | None = "success",
    output: str = "ok",
    display: Any = None,
    error: str | None = None,
) -> dict[str, Any]:
    response = {"error": error} if error is not None else {"output": output}
    record: dict[str, Any] = {
        "id": call_id,
        "name": name,
        "args": args,
        "timestamp": "2026-02-01T10:00:03.000Z",
        "result": [{"functionResponse": {"id": call_id, "name": name, "response": response}}],
    }
    if status is not None:
        record["status"] = status
    if display is not None:
        record["resultDisplay"] = display
    return record


def read_one(path: Path) -> Session:
    (session,) = gemini_cli.read(path)
    return session


def test_rewind_drops_the_target_and_later_messages_and_their_edits(tmp_path: Path) -> None:
    edit = call("c1", "write_file", {"file_path": f"{ROOT}/a.txt", "content": "one\n"})
    path = write_jsonl(
        tmp_path / "session-2026-02-01T10-00-5e55a0c1.jsonl",
        [
            meta(),
            user("u1", "first ask"),
            gemini("g1", "on it"),
            user("u2", "second ask"),
            gemini("g2", "writing", [edit]),
            {"$set": {"lastUpdated": "x"}},
            {"$rewindTo": "u2"},
            user("u3", "ask again"),
            gemini("g3", "done"),
        ],
    )
    session = read_one(path)
    assert [m.message_id for m in session.messages] == ["u1", "g1", "u3", "g3"]
    assert session.edits == []
    assert session.stats.unknown_types == {gemini_cli.REWOUND: 2}
    assert session.stats.records == 9


def test_rewound_id_written_again_goes_to_the_end(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [
            meta(),
            user("u1", "a"),
            gemini("g1", "b"),
            {"$rewindTo": "g1"},
            user("u2", "c"),
            gemini("g1", "b again"),
        ],
    )
    session = read_one(path)
    assert [(m.message_id, m.text) for m in session.messages] == [("u1", "a"), ("u2", "c"), ("g1", "b again")]


def test_unmatched_rewind_drops_nothing_and_is_counted(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [meta(), user("u1", "a"), gemini("g1", "b"), {"$rewindTo": "lost-in-a-torn-line"}, {"$rewindTo": 7}],
    )
    session = read_one(path)
    assert [m.message_id for m in session.messages] == ["u1", "g1"]
    assert session.stats.unknown_types == {gemini_cli.UNMATCHED_REWIND: 2}


def test_rewritten_message_replaces_in_place(tmp_path: Path) -> None:
    # Gemini appends the whole message again as its tool calls finish: same id, later state wins.
    pending = call(
        "c1",
        "replace",
        {"file_path": f"{ROOT}/a.py", "old_string": "x = 1", "new_string": "x = 2"},
        status="executing",
    )
    pending.pop("result")
    done = call("c1", "replace", {"file_path": f"{ROOT}/a.py", "old_string": "x = 1", "new_string": "x = 2"})
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [
            meta(),
            user("u1", "bump x"),
            gemini("g1", "", [pending]),
            gemini("g1", "", [done]),
            user("u2", "thanks"),
        ],
    )
    session = read_one(path)
    assert [m.message_id for m in session.messages] == ["u1", "g1", "u2"]
    assert [(e.call_id, e.message_id) for e in session.edits] == [("c1", "g1")]
    assert session.messages[1].parts[-1].text == "ok"


def test_pending_or_failed_calls_make_no_edit(tmp_path: Path) -> None:
    args = {"file_path": f"{ROOT}/a.py", "old_string": "x", "new_string": "y"}
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [
            meta(),
            gemini(
                "g1",
                "",
                [
                    call("c1", "replace", args, status="error", error="could not find the string to replace"),
                    call("c2", "replace", args, status="cancelled"),
                    call("c3", "replace", args, status=None, error="File not found"),
                    call("c4", "replace", args, status="executing"),
                    call("c5", "replace", args),
                ],
            ),
        ],
    )
    session = read_one(path)
    assert [e.call_id for e in session.edits] == ["c5"]
    results = [p for p in session.messages[0].parts if p.kind == "tool_result"]
    assert [p.is_error for p in results] == [True, True, True, False, False]


def test_set_updates_session_fields_and_merges_messages(tmp_path: Path) -> None:
    masked = user("u1", "first ask")
    masked["content"] = [{"text": "first ask (masked)"}]
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [
            meta(),
            user("u1", "first ask"),
            {"id": "i1", "timestamp": "2026-02-01T10:00:01Z", "type": "info", "content": "Update available"},
            gemini("g1", "answer"),
            {
                "$set": {
                    "directories": [ROOT, "/home/dev/lib"],
                    "sessionId": "5e55a0c1-0000-4000-8000-00000000000f",
                }
            },
            {"$set": {"messages": [masked, gemini("g1", "answer"), user("u9", "history-only turn")]}},
        ],
    )
    session = read_one(path)
    # the $set list omits the info message: it is kept (only $rewindTo undoes messages)
    assert [(m.message_id, m.role) for m in session.messages] == [
        ("u1", "user"),
        ("i1", "system"),
        ("g1", "assistant"),
        ("u9", "user"),
    ]
    assert session.messages[0].text == "first ask (masked)"
    assert session.session_id == SID
    assert session.aliases == ["5e55a0c1-0000-4000-8000-00000000000f"]
    assert session.cwds[1:] == ["/home/dev/lib"]


def test_file_diff_gives_exact_lines_for_replace_and_write_file(tmp_path: Path) -> None:
    replace_diff = (
        "Index: a.py\n===================================================================\n"
        "--- a.py\tCurrent\n+++ a.py\tProposed\n@@ -2,3 +2,4 @@\n b\n-c\n+C\n+C2\n d\n"
    )
    write_diff = (
        "Index: n.txt\n===================================================================\n"
        "--- n.txt\tOriginal\n+++ n.txt\tWritten\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file"
    )
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [
            meta(),
            gemini(
                "g1",
                "editing",
                [
                    call(
                        "c1",
                        "replace",
                        {"file_path": f"{ROOT}/a.py", "old_string": "c", "new_string": "C\nC2"},
                        display={
                            "fileDiff": replace_diff,
                            "fileName": "a.py",
                            "filePath": f"{ROOT}/a.py",
                            "originalContent": "a\nb\nc\nd\n",
                            "newContent": "a\nb\nC\nC2\nd\n",
                        },
                    ),
                    call(
                        "c2",
                        "write_file",
                        {"file_path": f"{ROOT}/n.txt", "content": "one\ntwo"},
                        display={
                            "fileDiff": write_diff,
                            "fileName": "n.txt",
                            "filePath": f"{ROOT}/n.txt",
                            "originalContent": "",
                            "newContent": "one\ntwo",
                            "isNewFile": True,
                        },
                    ),
                ],
            ),
        ],
    )
    replace, write = read_one(path).edits
    assert [(a.line, a.text) for a in replace.added] == [(3, "C"), (4, "C2")]
    assert (replace.kind, replace.old_text, replace.new_text) == ("update", "c", "C\nC2")
    assert [(a.line, a.text) for a in write.added] == [(1, "one"), (2, "two")]
    assert (write.kind, write.tool, write.new_text) == ("create", "write_file", "one\ntwo")


def test_original_and_new_content_without_diff_give_exact_lines(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [
            meta(),
            gemini(
                "g1",
                "",
                [
                    call(
                        "c1",
                        "replace",
                        {"file_path": "a.py", "old_string": "c", "new_string": "C"},
                        display={
                            "filePath": f"{ROOT}/a.py",
                            "originalContent": "a\nb\nc\n",
                            "newContent": "a\nb\nC\n",
                        },
                    ),
                    call(
                        "c2",
                        "replace",
                        {"file_path": "new.py", "old_string": "", "new_string": "x = 1\ny = 2\n"},
                    ),
                ],
            ),
        ],
    )
    session = read_one(path)
    first, created = session.edits
    assert [(a.line, a.text) for a in first.added] == [(3, "C")]
    assert first.path == "a.py"  # as recorded, relative to the cwd
    assert created.kind == "create" and [(a.line, a.text) for a in created.added] == [
        (1, "x = 1"),
        (2, "y = 2"),
    ]
    assert session.cwd == ROOT  # sha256 of an ancestor of the recorded absolute path is projectHash


def test_cwd_from_a_relative_path_when_no_project_hash(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [
            gemini(
                "g1",
                "",
                [
                    call(
                        "c1",
                        "write_file",
                        {"file_path": "docs/n.md", "content": "hi"},
                        output="Successfully created and wrote to new file: /srv/other/docs/n.md.",
                    ),
                ],
            )
        ],
    )
    session = read_one(path)
    assert session.cwd == "/srv/other"
    assert session.edits[0].kind == "create"


def test_function_response_turns_are_tool_messages_not_prompts(tmp_path: Path) -> None:
    response = {
        "id": "u2",
        "timestamp": "2026-02-01T10:00:04Z",
        "type": "user",
        "content": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "body"}}}],
    }
    typed = user("u3", "@a.py what is this", displayContent=[{"text": "@a.py what is this"}])
    typed["content"] = [
        {"text": "@a.py what is this"},
        {"text": "--- Content from referenced files ---\n..."},
    ]
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [
            meta(),
            user("u1", "read it"),
            response,
            typed,
            gemini("g1", [{"text": "hmm", "thought": True}, {"text": "It is a module."}]),
        ],
    )
    session = read_one(path)
    assert [(m.message_id, m.role, m.is_prompt) for m in session.messages] == [
        ("u1", "user", True),
        ("u2", "tool", False),
        ("u3", "user", True),
        ("g1", "assistant", False),
    ]
    assert session.messages[2].text == "@a.py what is this"
    assert [p.kind for p in session.messages[3].parts] == ["reasoning", "text"]


def test_messy_lines_are_counted_never_raised(tmp_path: Path) -> None:
    torn = json.dumps(user("u2", "cut short"))[:-9]
    path = write_jsonl(
        tmp_path / "session-x.jsonl",
        [
            meta(),
            user("u1", "ok"),
            torn,
            "not json at all",
            {"$set": "nonsense"},
            {"type": "hologram"},
            {"id": "h1", "type": "hologram", "content": "?"},
            {"id": "weird:id", "type": "gemini", "content": "colon"},
            {"id": "n1", "type": "gemini", "content": None, "toolCalls": "nope", "thoughts": ["x"]},
            [1, 2],
        ],
    )
    session = read_one(path)
    assert [m.message_id for m in session.messages] == ["u1", "weird-id"]
    assert session.stats.unreadable == 4  # torn line, non-JSON, $set that is not an object, a JSON array
    assert session.stats.unknown_types == {"hologram": 2}
    assert session.stats.records == 7


def test_legacy_torn_or_odd_files_never_raise(tmp_path: Path) -> None:
    torn = tmp_path / "session-torn.json"
    torn.write_text(
        json.dumps({"sessionId": SID, "projectHash": "x", "messages": [user("u1", "hi")]}, indent=2)[:-30]
    )
    session = read_one(torn)
    assert (session.session_id, session.messages, session.stats.unreadable) == ("session-torn", [], 1)
    compact = tmp_path / "session-compact.json"
    compact.write_text(
        json.dumps(
            {
                "sessionId": SID,
                "projectHash": "x",
                "messages": [
                    user("u1", "hi"),
                    "junk",
                    {"timestamp": "2026-02-01T10:00:00Z", "type": "gemini", "content": "no id"},
                ],
            }
        )
    )
    assert gemini_cli.sniff(compact)
    session = read_one(compact)
    assert [m.message_id for m in session.messages] == ["u1", "m3"]
    assert (session.stats.records, session.stats.unreadable) == (3, 1)
    empty = tmp_path / "session-empty.jsonl"
    empty.write_text("")
    assert read_one(empty).messages == [] and not gemini_cli.sniff(empty)
    with pytest.raises(OSError):
        gemini_cli.read(tmp_path / "missing.jsonl")


def test_sniff_hand_built(tmp_path: Path) -> None:
    headerless = write_jsonl(tmp_path / "a.jsonl", [user("u1", "hi"), {"$set": {"lastUpdated": "x"}}])
    claude = write_jsonl(
        tmp_path / "b.jsonl",
        [
            {
                "type": "user",
                "uuid": "u1",
                "sessionId": SID,
                "id": "u1",
                "message": {"role": "user", "content": "hi"},
                "content": "hi",
            }
        ],
    )
    wrong_suffix = write_jsonl(tmp_path / "c.txt", [meta()])
    assert gemini_cli.sniff(headerless)
    assert not gemini_cli.sniff(claude)
    assert not gemini_cli.sniff(wrong_suffix)
    assert not gemini_cli.sniff(tmp_path / "missing.jsonl")


# --------------------------------------------------------------------------------------------------
# Project folders and discovery
# --------------------------------------------------------------------------------------------------


def _tmp_dir(home: Path) -> Path:
    return home / ".gemini" / "tmp"


def test_discover_hash_slug_registry_and_subagent_folders(isolated_env: Path, tmp_path: Path) -> None:
    root = tmp_path / "work" / "proj"
    root.mkdir(parents=True)
    tmp = _tmp_dir(isolated_env)
    hashed = write_jsonl(
        tmp / gemini_cli.project_hash(root) / "chats" / "session-2026-01-01T10-00-aaaaaaaa.jsonl", [meta()]
    )
    legacy = write_jsonl(
        tmp / gemini_cli.project_hash(root) / "chats" / "session-2025-01-01T10-00-bbbbbbbb.json",
        [meta(messages=[])],
    )
    migrated_old = write_jsonl(
        tmp / gemini_cli.project_hash(root) / "chats" / "session-2026-01-01T10-00-aaaaaaaa.json",
        [meta(messages=[])],
    )
    (tmp / "proj").mkdir(parents=True)
    (tmp / "proj" / ".project_root").write_text(str(root))
    slug = write_jsonl(tmp / "proj" / "chats" / "session-2026-03-01T10-00-cccccccc.jsonl", [meta()])
    child = write_jsonl(
        tmp / "proj" / "chats" / SID / "5e55a0c1-0000-4000-8000-0000000000c1.jsonl", [meta(kind="subagent")]
    )
    below = write_jsonl(tmp / "proj-sub" / "chats" / "session-2026-03-02T10-00-dddddddd.jsonl", [meta()])
    (tmp / "proj-sub" / ".project_root").write_text(str(root / "pkg"))
    registered = write_jsonl(
        tmp / "registered" / "chats" / "session-2026-03-03T10-00-eeeeeeee.jsonl", [meta()]
    )
    (isolated_env / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {str(root): "registered"}})
    )
    unmarked = write_jsonl(
        tmp / "unmarked" / "chats" / "session-2026-03-04T10-00-ffffffff.jsonl",
        [meta(projectHash=gemini_cli.project_hash(root))],
    )
    write_jsonl(tmp / "other" / "chats" / "session-2026-03-05T10-00-99999999.jsonl", [meta()])
    (tmp / "other" / ".project_root").write_text("/elsewhere/proj")
    write_jsonl(tmp / gemini_cli.project_hash("/elsewhere") / "chats" / "session-x.jsonl", [meta()])
    (tmp / "bin").mkdir()
    found = set(gemini_cli.discover(root))
    assert found == {hashed, legacy, slug, child, below, registered, unmarked}
    assert migrated_old not in found
    sub = read_one(child)
    assert (sub.parent_session_id, sub.cwd) == (SID, str(root))
    assert read_one(slug).cwd == str(root)


def test_discover_since_and_gemini_cli_home(
    isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    chats = _tmp_dir(isolated_env) / gemini_cli.project_hash(root) / "chats"
    old = write_jsonl(chats / "session-old.jsonl", [meta()])
    new = write_jsonl(chats / "session-new.jsonl", [meta()])
    past = time.time() - 3600
    os.utime(old, (past, past))
    cutoff = datetime.fromtimestamp(time.time() - 60, tz=timezone.utc)
    assert list(gemini_cli.discover(root, cutoff)) == [new]
    other_home = tmp_path / "profile"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(other_home))
    assert gemini_cli.gemini_dir() == other_home / ".gemini"
    assert list(gemini_cli.discover(root)) == []
    moved = write_jsonl(
        other_home / ".gemini" / "tmp" / gemini_cli.project_hash(root) / "chats" / "session-a.jsonl", [meta()]
    )
    assert list(gemini_cli.discover(root)) == [moved]


def test_discover_without_gemini_folder_is_empty(tmp_path: Path) -> None:
    assert list(gemini_cli.discover(tmp_path)) == []
