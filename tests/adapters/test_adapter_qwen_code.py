"""The Qwen Code adapter on its samples (a documented sample of 0.24.4's writer, agent-sessions' fixture)
and on hand-built recordings: counts, prompts, exact edits from `FileDiff` displays, failed calls,
discovery under `$QWEN_RUNTIME_DIR`/`$QWEN_HOME`, and a line it wrote blamed to its message through a real
commit."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, agent_commit, blamed, corpus, make_repo, write_records

from git_intent.adapters import ADAPTERS, qwen_code

QW = "transcripts/qwen-code"
DOCUMENTED = f"{QW}/documented__0.24.4-edit-session.jsonl"
SYNTHETIC = f"{QW}/agent-sessions__019f0000-0000-7000-8000-000000000001.jsonl"
SESSION = "4f1c2a9e-7d3b-4e8a-9c61-2b5d8f0a7e13"
ROOT = "/home/dev/todo-cli"


def uuid(n: int) -> str:
    return f"8b0f6c3e-1a2d-4c5e-9f70-{n:012x}"


# Computed with the adapter, then checked by `test_counts_match_an_independent_reading` (json only).
TABLE: dict[str, tuple[str, int, int, int, int, int]] = {
    # rel: (session_id, records, messages, edits, prompts, added)
    DOCUMENTED: (SESSION, 14, 12, 3, 1, 15),
    SYNTHETIC: ("019f0000-0000-7000-8000-000000000001", 6, 5, 0, 1, 0),
}


@pytest.mark.parametrize("rel", sorted(TABLE))
def test_sample_counts(rel: str) -> None:
    path = corpus(rel)
    assert qwen_code.sniff(path)
    [session] = qwen_code.read(path)
    assert (
        session.session_id,
        session.stats.records,
        len(session.messages),
        len(session.edits),
        sum(m.is_prompt for m in session.messages),
        sum(len(e.added) for e in session.edits),
    ) == TABLE[rel]
    assert session.stats.unreadable == 0 and session.stats.unknown_types == {}
    assert qwen_code.read(path) == [session]


def test_table_covers_every_sample() -> None:
    assert {str(p.relative_to(CORPUS)) for p in corpus(QW).glob("*.jsonl")} == set(TABLE)


def test_counts_match_an_independent_reading() -> None:
    records = [json.loads(line) for line in corpus(DOCUMENTED).read_text(encoding="utf-8").splitlines()]
    calls = [
        p["functionCall"]
        for r in records
        if r["type"] == "assistant"
        for p in r["message"]["parts"]
        if "functionCall" in p and p["functionCall"]["name"] in ("edit", "write_file")
    ]
    diffs = [
        r["toolCallResult"]["resultDisplay"]["fileDiff"]
        for r in records
        if r["type"] == "tool_result" and isinstance(r["toolCallResult"]["resultDisplay"], dict)
    ]
    added = [
        line
        for diff in diffs
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    assert (len(records), len(calls), len(added)) == (14, 3, 15)


def test_edits_have_the_file_diff_lines_and_numbers() -> None:
    [session] = qwen_code.read(corpus(DOCUMENTED))
    first, second, test = session.edits
    assert (first.path, first.tool, first.kind, first.message_id) == (
        f"{ROOT}/todo.py",
        "edit",
        "update",
        uuid(5),
    )
    assert [(a.line, a.text) for a in first.added] == [
        (6, 'PRIORITIES = ("high", "normal", "low")'),
        (7, ""),
        (8, ""),
        (9, 'def add(text, priority="normal"):'),
        (11, '        handle.write(f"[{priority}] {text}\\n")'),
    ]
    assert [(a.line, a.text) for a in second.added] == [
        (19, '    adding.add_argument("--priority", choices=PRIORITIES, default="normal")'),
        (22, "        add(args.text, args.priority)"),
    ]
    assert (test.path, test.tool, test.kind, test.message_id) == (
        f"{ROOT}/test_todo.py",
        "write_file",
        "create",
        uuid(9),
    )
    assert [a.line for a in test.added] == list(range(1, 9))
    message = session.message(uuid(5))
    assert message is not None and first.call_id == "call_02" in {p.call_id for p in message.parts}


def test_prompt_message_ids_and_shell_call() -> None:
    [session] = qwen_code.read(corpus(DOCUMENTED))
    assert [m.message_id for m in session.messages] == [uuid(n) for n in (1, *range(3, 14))]
    prompt = session.messages[0]
    assert prompt.is_prompt and prompt.role == "user" and prompt.text.startswith("Add a --priority option")
    assert [(m.role, m.model) for m in session.messages[1:3]] == [
        ("assistant", "qwen3-coder-plus"),
        ("tool", None),
    ]
    assert [p.kind for p in session.messages[1].parts] == ["reasoning", "text", "tool_call"]
    assert (session.cwd, session.agent_version) == (ROOT, "0.24.4")
    assert session.messages[0].timestamp == datetime(2026, 7, 14, 9, 12, 3, 418000, tzinfo=timezone.utc)


def test_typed_text_is_the_display_text_not_the_hook_context() -> None:
    [session] = qwen_code.read(corpus(SYNTHETIC))
    assert session.messages[0].text == "Inspect the synthetic fixture."
    notice = session.messages[-1]
    assert (notice.role, notice.is_prompt, notice.text) == (
        "system",
        False,
        "Synthetic background notification.",
    )


def test_other_agents_do_not_take_qwen_files_and_qwen_takes_none_of_theirs() -> None:
    for rel in TABLE:
        assert [name for name, a in ADAPTERS.items() if a.sniff(corpus(rel))] == ["qwen-code"]
    for other in (
        "transcripts/claude-code/git-ai__example-claude-code.jsonl",
        "transcripts/gemini/git-ai__gemini-session-simple.jsonl",
        "transcripts/codex/git-sync__8feaf84a600f__apply-patch.jsonl",
    ):
        assert not qwen_code.sniff(corpus(other))


# --------------------------------------------------------------------------------------------------
# Hand-built recordings
# --------------------------------------------------------------------------------------------------


def record(n: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}" if n > 1 else None,
        "sessionId": "s1",
        "timestamp": f"2026-07-01T10:00:0{n}.000Z",
        "type": kind,
        "cwd": "/w",
        "version": "0.24.4",
        **fields,
    }


def call(n: int, name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return record(
        n,
        "assistant",
        message={"role": "model", "parts": [{"functionCall": {"id": call_id, "name": name, "args": args}}]},
    )


def result(n: int, call_id: str, name: str, **info: Any) -> dict[str, Any]:
    part = {"functionResponse": {"id": call_id, "name": name, "response": {"output": "ok"}}}
    return record(
        n,
        "tool_result",
        message={"role": "user", "parts": [part]},
        toolCallResult={"callId": call_id, "responseParts": [part], **info},
    )


def test_failed_calls_write_nothing_and_calls_without_result_use_their_arguments(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "s1.jsonl",
        [
            record(1, "user", message={"role": "user", "parts": [{"text": "fix it"}]}),
            call(2, "edit", {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"}, "c1"),
            result(
                3,
                "c1",
                "edit",
                error={"message": "old_string not found"},
                errorType="edit_no_occurrence_found",
            ),
            call(4, "write_file", {"file_path": "/w/b.py", "content": "one\ntwo\n"}, "c2"),
            call(5, "replace", {"file_path": "/w/c.py", "old_string": "a", "new_string": "a\nb"}, "c3"),
            call(6, "run_shell_command", {"command": "echo hi > /w/d.txt"}, "c4"),
        ],
    )
    edits = qwen_code.read(path)[0].edits
    assert [(e.path, e.tool, e.kind, [(a.line, a.text) for a in e.added]) for e in edits] == [
        ("/w/b.py", "write_file", "create", [(1, "one"), (2, "two")]),
        ("/w/c.py", "replace", "update", [(None, "b")]),
    ]  # the shell command has no result: not known to have run


def test_a_record_written_again_replaces_it_and_unknown_types_are_counted(tmp_path: Path) -> None:
    first = record(2, "assistant", message={"role": "model", "parts": [{"text": "draft", "thought": True}]})
    path = write_records(
        tmp_path / "s1.jsonl",
        [
            {"type": "future_kind", "uuid": "f0", "sessionId": "s1"},
            record(1, "user", message={"role": "user", "parts": [{"text": "go"}]}),
            first,
            record(3, "system", subtype="ui_telemetry", systemPayload={}),
            {**first, "message": {"role": "model", "parts": [{"text": "final"}]}},
            '{"uuid": "u9", "type": "user", "mess',
        ],
    )
    [session] = qwen_code.read(path)
    assert [(m.message_id, m.text) for m in session.messages] == [("u1", "go"), ("u2", "final")]
    assert session.stats.unknown_types == {"future_kind": 1} and session.stats.unreadable == 1


def test_subagent_transcript_names_its_parent(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "subagents" / "s1" / "agent-a7.jsonl",
        [record(1, "user", sessionId="s1-sub", message={"role": "user", "parts": [{"text": "look"}]})],
    )
    assert (qwen_code.read(path)[0].session_id, qwen_code.read(path)[0].parent_session_id) == ("s1-sub", "s1")


# --------------------------------------------------------------------------------------------------
# Where Qwen Code keeps recordings
# --------------------------------------------------------------------------------------------------


def test_encode_project_matches_sanitize_cwd() -> None:
    assert qwen_code.encode_project("/home/dev/todo-cli") == "-home-dev-todo-cli"
    assert qwen_code.encode_project("/a/b.c_d") == "-a-b-c-d"


def test_discover_honours_runtime_dir_then_qwen_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "work" / "my.proj"
    home_chat = write_records(
        Path.home() / ".qwen" / "projects" / qwen_code.encode_project(root) / "chats" / "a.jsonl",
        [record(1, "user")],
    )
    assert list(qwen_code.discover(root)) == [home_chat]
    monkeypatch.setenv("QWEN_HOME", str(tmp_path / "qh"))
    folder = tmp_path / "qh" / "projects" / qwen_code.encode_project(root).upper()  # Windows lower-cases it
    chat = write_records(folder / "chats" / "b.jsonl", [record(1, "user")])
    sub = write_records(folder / "subagents" / "b" / "agent-1.jsonl", [record(1, "user")])
    below = write_records(
        tmp_path / "qh" / "projects" / qwen_code.encode_project(root / "pkg") / "chats" / "c.jsonl",
        [record(1, "user")],
    )
    write_records(
        tmp_path / "qh" / "projects" / qwen_code.encode_project(tmp_path / "other") / "chats" / "d.jsonl",
        [record(1, "user")],
    )
    assert sorted(qwen_code.discover(root)) == sorted([chat, sub, below])
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(tmp_path / "rt"))
    assert list(qwen_code.discover(root)) == []


# --------------------------------------------------------------------------------------------------
# A line Qwen Code wrote, blamed through a real commit
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_line_qwen_code_wrote_is_blamed_to_its_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    source = corpus(DOCUMENTED)
    text = source.read_text(encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines()]
    shown = {
        r["toolCallResult"]["callId"]: r["toolCallResult"]["resultDisplay"]
        for r in records
        if r["type"] == "tool_result"
    }
    target = (
        qwen_code.runtime_dir() / "projects" / qwen_code.encode_project(repo) / "chats" / f"{SESSION}.jsonl"
    )
    target.parent.mkdir(parents=True)
    target.write_text(text.replace(ROOT, str(repo)), encoding="utf-8")
    started, ended = (datetime.fromisoformat(records[i]["timestamp"]) for i in (0, -1))
    sha = agent_commit(
        repo,
        {"todo.py": shown["call_02"]["originalContent"]},
        {"todo.py": shown["call_03"]["newContent"], "test_todo.py": shown["call_04"]["newContent"]},
        started,
        ended,
    )
    for path, text, message, tool in (
        (
            "todo.py",
            '    adding.add_argument("--priority", choices=PRIORITIES, default="normal")',
            uuid(7),
            "edit",
        ),
        ("todo.py", 'PRIORITIES = ("high", "normal", "low")', uuid(5), "edit"),
        ("test_todo.py", '    add("water the plants", priority="high")', uuid(9), "write_file"),
    ):
        assert blamed(repo, path, text) == (
            sha,
            "agent",
            "qwen-code",
            SESSION,
            message,
            tool,
            "user",
            uuid(1),
        )
    assert blamed(repo, "todo.py", "import argparse")[1:3] == ("unrecorded", None)
