"""The Cursor adapter against the real corpus and hand-built transcripts: counts, edits, times, discovery."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, corpus, write_records

from git_intent.adapters import claude_code, codex, cursor

CU = "transcripts/cursor"
SIMPLE = f"{CU}/git-ai__cursor-session-simple.jsonl"
SUBAGENT = f"{CU}/synthetic__subagent-session.jsonl"
WORKSPACE = "/Users/aidancunniffe/Desktop/testing-gitflows-git-ai"

# Computed with the adapter, then checked with an independent script (json only): records = lines;
# messages = records with content blocks; prompts = user records holding <user_query>; edits = Write
# tool_use blocks; added = lines of the Write `contents`.
TABLE: dict[str, tuple[str, int, int, int, int, int]] = {
    # rel: (session_id, records, messages, edits, prompts, added)
    SIMPLE: ("git-ai__cursor-session-simple", 11, 11, 1, 1, 104),
    SUBAGENT: ("synthetic__subagent-session", 3, 3, 0, 1, 0),
}


@pytest.mark.parametrize("rel", sorted(TABLE))
def test_corpus_counts(rel: str) -> None:
    path = corpus(rel)
    assert cursor.sniff(path)
    [session] = cursor.read(path)
    assert (
        session.session_id,
        session.stats.records,
        len(session.messages),
        len(session.edits),
        sum(m.is_prompt for m in session.messages),
        sum(len(e.added) for e in session.edits),
    ) == TABLE[rel]
    assert session.agent == "cursor"
    assert session.stats.unreadable == 0 and session.stats.unknown_types == {}


def test_table_covers_every_cursor_transcript() -> None:
    found = {str(p.relative_to(CORPUS)) for p in corpus(CU).rglob("*.jsonl")}
    assert found == set(TABLE)


def test_corpus_counts_match_an_independent_reading() -> None:
    path = corpus(SIMPLE)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    writes = [
        b
        for r in records
        for b in r["message"]["content"]
        if b.get("type") == "tool_use" and b["name"] == "Write"
    ]
    assert len(records) == 11 and len(writes) == 1
    assert len(writes[0]["input"]["contents"].splitlines()) == 104


def test_write_edit_is_the_whole_file_with_exact_lines() -> None:
    [session] = cursor.read(corpus(SIMPLE))
    [edit] = session.edits
    assert (edit.path, edit.tool, edit.message_id, edit.kind) == (
        f"{WORKSPACE}/hbo-shows-1990s.txt",
        "Write",
        "r9",
        "create",
    )
    assert edit.added[0].text == "HBO shows that aired during the 1990s (1990–1999)"
    assert [a.line for a in edit.added] == list(range(1, 105))
    assert edit.added[-1].text == "Boxing After Dark (from 1996)"
    assert edit.new_text.endswith("Boxing After Dark (from 1996)\n")
    message = session.message("r9")
    assert message is not None and message.role == "assistant"
    assert [p.tool for p in message.parts if p.kind == "tool_call"] == ["Write"]
    assert edit.call_id in {p.call_id for p in message.parts}


def test_prompt_text_is_the_user_query_without_tags() -> None:
    [session] = cursor.read(corpus(SIMPLE))
    prompt = session.messages[0]
    assert prompt.is_prompt and prompt.role == "user"
    assert prompt.text == "Generate a file with all the HBO shows from the 90's in it"


def test_every_message_has_the_file_time_and_ids_are_stable() -> None:
    path = corpus(SUBAGENT)
    stamp = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
    first, second = cursor.read(path)[0], cursor.read(path)[0]
    assert [m.timestamp for m in first.messages] == [stamp] * 3
    assert (
        [m.message_id for m in first.messages]
        == [m.message_id for m in second.messages]
        == ["r1", "r2", "r3"]
    )
    assert all(":" not in m.message_id for m in first.messages)
    assert first.started_at == first.ended_at == stamp


def test_shell_call_is_a_tool_call_not_an_edit() -> None:
    [session] = cursor.read(corpus(SUBAGENT))
    call = session.messages[1].parts[0]
    assert (call.kind, call.tool) == ("tool_call", "Shell")
    assert json.loads(call.text) == {"command": "ls -la /tmp", "description": "List workspace files"}
    assert session.edits == []


def test_other_formats_do_not_take_cursor_files_and_cursor_takes_none_of_theirs() -> None:
    for rel in TABLE:
        assert not claude_code.sniff(corpus(rel)) and not codex.sniff(corpus(rel))
    for other in (
        "transcripts/claude-code/git-ai__example-claude-code.jsonl",
        "transcripts/codex/git-sync__8feaf84a600f__apply-patch.jsonl",
    ):
        assert not cursor.sniff(corpus(other))


# --------------------------------------------------------------------------------------------------
# Hand-built transcripts
# --------------------------------------------------------------------------------------------------


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "message": {"content": [{"type": "text", "text": text}]}}


def call(name: str, args: Any) -> dict[str, Any]:
    return {"role": "assistant", "message": {"content": [{"type": "tool_use", "name": name, "input": args}]}}


def test_str_replace_multi_edit_delete_and_apply_patch(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Add File: src/new.py\n+one\n+two\n*** End Patch\n"
    path = write_records(
        tmp_path / "t.jsonl",
        [
            user("<user_query>\nfix it\n</user_query>"),
            call(
                "StrReplace",
                {"path": "/w/a.py", "old_string": "x = 1\ny = 2\n", "new_string": "x = 1\ny = 3\n"},
            ),
            call(
                "MultiEdit",
                {
                    "path": "/w/b.py",
                    "edits": [
                        {"old_string": "a", "new_string": "b"},
                        {"old_string": "c", "new_string": "c\nd"},
                    ],
                },
            ),
            call("Delete", {"path": "/w/old.py"}),
            call("ApplyPatch", patch),
            call("ApplyPatch", {"patch": patch}),
            call("Write", {"path": "/w/empty.txt"}),
            call("StrReplace", {"old_string": "no path"}),
        ],
    )
    edits = cursor.read(path)[0].edits
    assert [(e.tool, e.path, e.kind, e.message_id) for e in edits] == [
        ("StrReplace", "/w/a.py", "update", "r2"),
        ("MultiEdit", "/w/b.py", "update", "r3"),
        ("Delete", "/w/old.py", "delete", "r4"),
        ("ApplyPatch", "src/new.py", "create", "r5"),
        ("ApplyPatch", "src/new.py", "create", "r6"),
        ("Write", "/w/empty.txt", "create", "r7"),
    ]
    assert [(a.text, a.line) for a in edits[0].added] == [("y = 3", None)]
    assert [a.text for a in edits[1].added] == ["b", "d"]
    assert edits[2].added == ()
    assert [(a.text, a.line) for a in edits[3].added] == [("one", 1), ("two", 2)]
    assert edits[5].added == ()


def test_messy_lines_and_unknown_roles_are_counted_not_raised(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "t.jsonl",
        [
            user("<user_query>go</user_query>"),
            '{"role": "assistant", "message": {"content": [{"type": "text", "te',
            '{"role": "assistant", "message": {"content": "plain string"}}{"role": "user", "message": {}}',
            {"type": "turn_ended"},
            {"role": "narrator", "message": {"content": []}},
            [1, 2],
            {
                "role": "assistant",
                "message": {
                    "content": [
                        {"type": "thinking", "thinking": "hmm"},
                        "junk",
                        {"type": "tool_result", "content": "x"},
                    ]
                },
            },
        ],
    )
    session = cursor.read(path)[0]
    assert session.stats.unreadable == 2
    assert session.stats.unknown_types == {"turn_ended": 1, "narrator": 1}
    assert [(m.message_id, m.role) for m in session.messages] == [
        ("r1", "user"),
        ("r2", "assistant"),
        ("r6", "assistant"),
    ]
    assert session.messages[1].text == "plain string"
    assert [p.kind for p in session.messages[2].parts] == ["reasoning", "tool_result"]


def test_injected_context_is_not_a_prompt(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "t.jsonl", [user("<user_info>OS: linux</user_info>"), user("plain request")]
    )
    assert [m.is_prompt for m in cursor.read(path)[0].messages] == [False, True]


def test_tool_result_only_record_is_a_tool_message(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "t.jsonl",
        [
            {
                "role": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "c1",
                            "is_error": True,
                            "content": [{"type": "text", "text": "denied"}],
                        }
                    ]
                },
            }
        ],
    )
    [message] = cursor.read(path)[0].messages
    assert message.role == "tool" and not message.is_prompt
    assert (message.parts[0].call_id, message.parts[0].is_error, message.parts[0].text) == (
        "c1",
        True,
        "denied",
    )


def test_unreadable_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        cursor.read(tmp_path / "missing.jsonl")


# --------------------------------------------------------------------------------------------------
# Layout: project folder, subagents, discovery, workspace
# --------------------------------------------------------------------------------------------------


def test_encode_project_matches_the_corpus_sample() -> None:
    assert cursor.encode_project(WORKSPACE) == "Users-aidancunniffe-Desktop-testing-gitflows-git-ai"
    assert cursor.encode_project("/Users/me/kafi/dp-2.0_x") == "Users-me-kafi-dp-2-0-x"
    assert cursor.encode_project("/Users/me/Desktop/.nosync/app") == "Users-me-Desktop-nosync-app"


def _projects() -> Path:
    return Path(os.environ["HOME"]) / ".cursor" / "projects"


def test_discover_finds_all_three_layouts_of_the_work_tree(tmp_path: Path) -> None:
    root = tmp_path / "work" / "my.proj"
    folder = _projects() / cursor.encode_project(root) / "agent-transcripts"
    flat = write_records(folder / "a1.jsonl", [user("hi")])
    nested = write_records(folder / "b2" / "b2.jsonl", [user("hi")])
    sub = write_records(folder / "b2" / "subagents" / "c3.jsonl", [user("hi")])
    below = write_records(
        _projects() / cursor.encode_project(root / "pkg") / "agent-transcripts" / "d4.jsonl", [user("hi")]
    )
    write_records(
        _projects() / cursor.encode_project(tmp_path / "other") / "agent-transcripts" / "e5.jsonl",
        [user("hi")],
    )
    write_records(folder.parent / "agent-tools" / "f6.jsonl", [user("hi")])
    assert sorted(cursor.discover(root)) == sorted([flat, nested, sub, below])


def test_discover_since_filters_by_mtime(tmp_path: Path) -> None:
    folder = _projects() / cursor.encode_project(tmp_path / "p") / "agent-transcripts"
    old = write_records(folder / "old.jsonl", [user("old")])
    new = write_records(folder / "new.jsonl", [user("new")])
    os.utime(old, (1_600_000_000, 1_600_000_000))
    assert list(cursor.discover(tmp_path / "p", since=datetime(2021, 1, 1, tzinfo=timezone.utc))) == [new]


def test_discover_without_cursor_folder_finds_nothing(tmp_path: Path) -> None:
    assert list(cursor.discover(tmp_path)) == []


def test_subagent_file_gets_parent_and_workspace_from_layout(tmp_path: Path) -> None:
    folder = _projects() / cursor.encode_project(WORKSPACE) / "agent-transcripts"
    real = corpus(SIMPLE).read_text(encoding="utf-8")
    main = folder / "0a1b" / "0a1b.jsonl"
    main.parent.mkdir(parents=True)
    main.write_text(real, encoding="utf-8")
    sub = write_records(folder / "0a1b" / "subagents" / "9f8e.jsonl", [user("<user_query>x</user_query>")])
    session = cursor.read(main)[0]
    assert (session.session_id, session.parent_session_id, session.cwd) == ("0a1b", None, WORKSPACE)
    child = cursor.read(sub)[0]
    assert (child.session_id, child.parent_session_id, child.cwd) == ("9f8e", "0a1b", None)
    assert cursor.read(corpus(SIMPLE))[0].cwd is None  # outside Cursor's layout, the folder name is unknown


def test_apply_patch_move_and_shell_mv_are_move_edits(tmp_path: Path) -> None:
    """A moved file keeps the credit of its earlier edits, so the move itself is an edit:
    ApplyPatch's `*** Move to:` and the Shell tool's `mv` (no result is recorded, as for every Cursor
    tool)."""
    patch = "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-x\n+y\n*** End Patch\n"
    path = write_records(
        tmp_path / "t.jsonl",
        [
            user("<user_query>\nrename it\n</user_query>"),
            call("ApplyPatch", {"patch": patch}),
            call("Shell", {"command": "mv src/b.py lib/", "working_directory": "/w", "description": "Move"}),
            call("Shell", {"command": "ls -la /tmp", "description": "List"}),
        ],
    )
    edits = cursor.read(path)[0].edits
    assert [(e.tool, e.kind, e.source, e.path, e.message_id, [a.text for a in e.added]) for e in edits] == [
        ("ApplyPatch", "move", "src/a.py", "src/b.py", "r2", []),
        ("ApplyPatch", "update", None, "src/b.py", "r2", ["y"]),
        ("Shell", "move", "/w/src/b.py", "/w/lib", "r3", []),
    ]
