"""Transcript adapters against the real corpus and hand-built records: ids, counts, edits, discovery."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, corpus, write_records

from git_intent.adapters import ADAPTERS, claude_code, codex, sniff
from git_intent.core.values import Session

# --------------------------------------------------------------------------------------------------
# The corpus table. Every number was computed with the adapters and then checked against the files
# with an independent script (json + difflib, no git_intent code): records = JSON objects decoded;
# messages = Claude user/assistant records with content, Codex user_message events + assistant text
# items + reasoning items with a summary + calls + call outputs + non-empty compacted records;
# edits = Edit/MultiEdit/Write tool_use blocks whose tool_result is not is_error (Claude), apply_patch
# calls not reported failed (Codex); added = '+' lines of new_string vs old_string or of the
# patch_apply_end unified_diff (or of the envelope when there is none).
# --------------------------------------------------------------------------------------------------

FIELDS = ("adapter", "session_id", "records", "messages", "edits", "prompts", "unreadable", "added")


@dataclass(frozen=True)
class Expected:
    adapter: str
    session_id: str
    records: int
    messages: int
    edits: int
    prompts: int
    unreadable: int
    added: int


CC = "transcripts/claude-code"
CX = "transcripts/codex"
SUBAGENT_PARENT = "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"
TORN_CC = f"{CC}/entire-cli__37995ebed6e4-2__torn-line__two-cwds.jsonl"
TWO_IDS = f"{CC}/entire-cli__8cfa910f8ef9-5__two-sessionids.jsonl"
COMPACTION_CC = f"{CC}/entire-cli__a6e4c2a0fbd1__compaction.jsonl"
GIT_AI = f"{CC}/git-ai__example-claude-code.jsonl"
SUBAGENT_CC = f"{CC}/synthetic_subagent_layout/{SUBAGENT_PARENT}/subagents/agent-a0ad4f44468bdf20d.jsonl"
CHILD_CX = f"{CX}/git-sync__3456387d7a8a-14__subagent-child.jsonl"
COMPACTED_CX = f"{CX}/git-sync__4cea5c699ef8-2__compacted.jsonl"
APPLY_PATCH_CX = f"{CX}/git-sync__8feaf84a600f__apply-patch.jsonl"
SANITIZED_CX = f"{CX}/sanitized__schema-coverage-0.146.jsonl"
GEMINI_LEGACY = "linked/entire-cli/checkpoints/ab/2b9748b105/0/full.jsonl"
GEMINI_GO_RUN = "linked/entire-cli/checkpoints/ac/3f02a3c337/2/full.jsonl"

TABLE: dict[str, Expected] = {
    # prompts exclude the "[Request interrupted by user…]" markers Claude Code writes as user text
    # (torn-line has 1, two-sessionids 1, git-ai 1).
    # 151 message records, one written twice (same uuid): 150 messages, the duplicate counted and skipped.
    TORN_CC: Expected("claude-code", "130d7b7e-5801-4345-9bd6-f32fd9b8429b", 171, 150, 14, 5, 0, 64),
    TWO_IDS: Expected("claude-code", "4931d45a-d447-44b4-8475-1e6fcfcc28bf", 221, 188, 15, 3, 0, 120),
    COMPACTION_CC: Expected("claude-code", "198393f2-22db-477b-ac77-1825bea883ae", 54, 48, 3, 2, 0, 18),
    f"{CC}/entire-cli__c9883595c929__queue-operation.jsonl": Expected(
        "claude-code", "1b3e6441-62e3-4b41-8a0c-9d252f531f7a", 9, 6, 1, 1, 0, 2
    ),
    GIT_AI: Expected("claude-code", "cb947e5b-246e-4253-a953-631f7e464c6b", 38, 38, 3, 1, 0, 25),
    f"{CC}/synthetic_subagent_layout/{SUBAGENT_PARENT}.jsonl": Expected(
        "claude-code", SUBAGENT_PARENT, 3, 2, 0, 1, 0, 0
    ),
    SUBAGENT_CC: Expected("claude-code", "agent-a0ad4f44468bdf20d", 4, 3, 0, 1, 0, 0),
    CHILD_CX: Expected("codex", "019ed628-d563-7e40-bbb1-93a6a302d688", 28, 10, 0, 1, 0, 0),
    # 22 apply_patch calls, 2 of which answered "apply_patch verification failed": 20 edits, 1447 lines.
    COMPACTED_CX: Expected("codex", "019d7e3d-0164-79d1-af76-e4ee6689b94f", 955, 527, 20, 15, 0, 1447),
    APPLY_PATCH_CX: Expected("codex", "019ddd6f-3680-7fb3-8f93-e567af97d303", 127, 54, 4, 3, 0, 52),
    f"{CX}/git-sync__a42e22b7f6bc__torn-line-excerpt.jsonl": Expected(
        "codex", "git-sync__a42e22b7f6bc__torn-line-excerpt", 6, 1, 0, 0, 0, 0
    ),
    SANITIZED_CX: Expected("codex", "019fc8be-3658-7ca3-9e29-000000000000", 118, 19, 0, 3, 0, 0),
    # The newest-format excerpts: Claude Code 2.1.143 opening with `last-prompt`/`permission-mode` (8 records:
    # 3 head records, a prompt, 2 Edits and their 2 results), codex 0.130 (one apply_patch over 12 files).
    f"{CC}/git-sync__ae52adb63cec__2.1.143-excerpt.jsonl": Expected(
        "claude-code", "ff0a7d3f-e73b-48cc-a5d1-49b930a82fdf", 8, 5, 2, 1, 0, 9
    ),
    f"{CC}/git-sync__74fd06e0aef8__2.1.143-later-copy-excerpt.jsonl": Expected(
        "claude-code", "ff0a7d3f-e73b-48cc-a5d1-49b930a82fdf", 8, 5, 2, 1, 0, 6
    ),
    # The rebased excerpt: Claude Code 2.1.91, 3 head records, 2 prompts, 3 Edits (one per file) and their
    # results.
    f"{CC}/git-sync__32bf11bd8793-1__rebased-excerpt.jsonl": Expected(
        "claude-code", "c7d001b2-f56b-4999-82ed-3af83b6837b6", 10, 8, 3, 2, 0, 101
    ),
    # The quote excerpts: a numbered list; "yes, fix it"; a prompt typed while the agent worked (in
    # a tool result's record: a prompt); `/goal` with arguments (a prompt) after `/model` without (not one);
    # "yep do it".
    f"{CC}/entire-cli__d51bd3632c2d__numbered-list-excerpt.jsonl": Expected(
        "claude-code", "4a364c97-9dde-4a98-a973-26edea2c0e8b", 11, 11, 1, 2, 0, 6
    ),
    f"{CC}/entire-cli__ada8171575ce__yes-fix-it-excerpt.jsonl": Expected(
        "claude-code", "e8106766-ab6a-43ed-8849-77d5114eaff1", 8, 8, 1, 1, 0, 1
    ),
    f"{CC}/entire-cli__db3f4ae57df0__typed-while-working-excerpt.jsonl": Expected(
        "claude-code", "b6b20c21-d3cb-42a4-9a55-bb2dbb2212e4", 9, 9, 2, 2, 0, 6
    ),
    f"{CC}/git-sync__f27edbb5033d__goal-command-excerpt.jsonl": Expected(
        "claude-code", "1e0a84da-d36b-4e8a-925c-b32310479358", 10, 10, 1, 1, 0, 97
    ),
    f"{CC}/entire-cli__d65f53d0e8e2__yep-do-it-excerpt.jsonl": Expected(
        "claude-code", "2956cee6-6153-4ba6-ba24-3b7f3257549c", 8, 8, 2, 2, 0, 7
    ),
    f"{CX}/git-sync__6857343fdac4__0.130-excerpt.jsonl": Expected(
        "codex", "019e27f2-b7de-71c3-a0f9-70d6539231ba", 7, 3, 12, 1, 0, 12
    ),
    # The moved-file excerpt: Claude Code 2.1.17, 2 prompts, a Write (338 lines), the Bash mv (a move edit, no
    # line) and 3 Edits (92 + 2 + 9 lines against their originalFile), with their results.
    f"{CC}/entire-cli__7e72a8d8fdb8__moved-file-excerpt.jsonl": Expected(
        "claude-code", "f4237e82-ca7b-48a3-bfed-36548f3e4f6b", 13, 13, 5, 2, 0, 441
    ),
    "linked/entire-cli/checkpoints/8e/ce5fc12e98/0/full.jsonl": Expected(
        "claude-code", "cc432c40-914a-4c1a-a972-0103199a736a", 45, 31, 2, 2, 0, 62
    ),
    "linked/entire-cli/checkpoints/ac/3f02a3c337/0/full.jsonl": Expected(
        "claude-code", "0a0314fb-b206-450f-b895-cd5181a28ae5", 39, 33, 2, 1, 0, 38
    ),
    GEMINI_GO_RUN: Expected("claude-code", "1ed1f046-f456-4f14-9c74-bb83179cf809", 56, 54, 2, 1, 0, 8),
    "linked/git-sync/checkpoints/8f/eaf84a600f/0/full.jsonl": Expected(
        "codex", "019ddd6f-3680-7fb3-8f93-e567af97d303", 127, 54, 4, 3, 0, 52
    ),
}


@cache
def _read(rel: str) -> tuple[str | None, Session]:
    path = CORPUS / rel
    adapter = sniff(path)
    assert adapter is not None, f"no adapter sniffs {rel}"
    sessions = adapter.read(path)
    assert len(sessions) == 1, f"{rel}: {len(sessions)} sessions"
    return adapter.NAME, sessions[0]


def _actual(rel: str, field: str) -> object:
    name, session = _read(rel)
    values: dict[str, object] = {
        "adapter": name,
        "session_id": session.session_id,
        "records": session.stats.records,
        "messages": len(session.messages),
        "edits": len(session.edits),
        "prompts": sum(m.is_prompt for m in session.messages),
        "unreadable": session.stats.unreadable,
        "added": sum(len(e.added) for e in session.edits),
    }
    return values[field]


def _cases() -> list[Any]:
    cases = []
    for rel in TABLE:
        short = rel.replace("transcripts/", "").replace("/checkpoints/", "/").removesuffix(".jsonl")
        for field in FIELDS:
            marks: list[pytest.MarkDecorator] = []
            cases.append(pytest.param(rel, field, id=f"{short}:{field}", marks=marks))
    return cases


@pytest.mark.parametrize(("rel", "field"), _cases())
def test_corpus_transcript(rel: str, field: str) -> None:
    corpus(rel)
    assert _actual(rel, field) == getattr(TABLE[rel], field)


def test_table_covers_every_corpus_transcript() -> None:
    root = corpus("transcripts")
    found = {
        str(p.relative_to(CORPUS)) for sub in ("claude-code", "codex") for p in (root / sub).rglob("*.jsonl")
    }
    found |= {str(p.relative_to(CORPUS)) for p in (CORPUS / "linked").glob("*/checkpoints/*/*/*/full.jsonl")}
    assert found == set(TABLE) | {GEMINI_LEGACY}


def test_gemini_legacy_json_is_read_by_the_gemini_adapter() -> None:
    adapter = sniff(corpus(GEMINI_LEGACY))
    assert adapter is not None and adapter.NAME == "gemini-cli"


def test_every_builtin_adapter_is_listed() -> None:
    assert {name: module.NAME for name, module in ADAPTERS.items()} == {
        name: name
        for name in (
            "claude-code",
            "codex",
            "opencode",
            "gemini-cli",
            "cursor",
            "aider",
            "qwen-code",
            "amp",
            "droid",
            "pi",
            "crush",
            "goose",
            "specstory",
            "copilot-cli",
            "copilot-chat",
            "cline",
            "roo-code",
            "continue",
        )
    }


# --------------------------------------------------------------------------------------------------
# Real-file details
# --------------------------------------------------------------------------------------------------


def test_glued_records_of_real_claude_file_are_both_read() -> None:
    path = corpus(TORN_CC)
    lines = path.read_text(encoding="utf-8").splitlines()
    first, end = json.JSONDecoder().raw_decode(lines[127])  # line 128: an assistant record + a summary
    second = json.loads(lines[127][end:])
    assert (first["type"], second["type"]) == ("assistant", "summary")
    session = claude_code.read(path)[0]
    assert session.stats.records == len(lines) + 1
    assert session.stats.unknown_types == {}
    assert first["uuid"] == "3252495b-f5ee-4004-9370-21c6d432eb59"
    assert session.message(first["uuid"]) is not None
    assert session.message(first["uuid"]).role == "assistant"  # type: ignore[union-attr]


def test_two_session_ids_in_one_file() -> None:
    session = claude_code.read(corpus(TWO_IDS))[0]
    assert session.session_id == "4931d45a-d447-44b4-8475-1e6fcfcc28bf"
    assert session.aliases == ["2a8af1a8-f8cc-4816-a463-12df7a999930"]
    assert session.parent_session_id is None


def test_two_cwds_are_both_kept_in_order() -> None:
    session = claude_code.read(corpus(TORN_CC))[0]
    assert len(session.cwds) == 2
    assert session.cwd == session.cwds[0]


def test_claude_subagent_file_gets_parent_session_id() -> None:
    session = claude_code.read(corpus(SUBAGENT_CC))[0]
    assert session.session_id == "agent-a0ad4f44468bdf20d"
    assert session.parent_session_id == SUBAGENT_PARENT
    parent = claude_code.read(corpus(f"{CC}/synthetic_subagent_layout/{SUBAGENT_PARENT}.jsonl"))[0]
    assert parent.parent_session_id is None


def test_codex_review_subagent_child_gets_parent_session_id() -> None:
    session = codex.read(corpus(CHILD_CX))[0]
    assert session.parent_session_id == "019ed628-d519-7dc0-89a8-67c8c823ceaf"


def test_codex_thread_spawn_child_gets_parent_session_id() -> None:
    session = codex.read(corpus(COMPACTED_CX))[0]
    assert session.session_id == "019d7e3d-0164-79d1-af76-e4ee6689b94f"
    assert session.parent_session_id == "019d7d08-46c9-7f73-affe-4e6ca9852d56"
    assert session.aliases == ["019d7d08-46c9-7f73-affe-4e6ca9852d56"]
    assert session.agent_version == "0.118.0"


def test_codex_compacted_records_with_text_become_summaries() -> None:
    session = codex.read(corpus(SANITIZED_CX))[0]
    summaries = [m for m in session.messages if m.is_summary]
    # 6 compacted records, one with an empty `message` (replacement_history only)
    assert len(summaries) == 5
    assert all(
        m.role == "system" and not m.is_prompt and m.text == "[trimmed for fixture]" for m in summaries
    )


def test_claude_compact_summary_is_a_summary_not_a_prompt() -> None:
    session = claude_code.read(corpus(COMPACTION_CC))[0]
    summaries = [m for m in session.messages if m.is_summary]
    assert len(summaries) == 1
    assert summaries[0].role == "user" and not summaries[0].is_prompt
    assert summaries[0].text.startswith("This session is being continued from a previous conversation")


def test_claude_failed_edit_in_real_file_yields_no_edit() -> None:
    path = corpus(TORN_CC)
    failed: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        for rec in _all_objects(line):
            content = rec.get("message", {}).get("content") if isinstance(rec.get("message"), dict) else None
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_result" and block.get("is_error"):
                    failed.add(block["tool_use_id"])
    session = claude_code.read(path)[0]
    edit_calls = {e.call_id for e in session.edits}
    failed_edits = failed & {p.call_id for m in session.messages for p in m.parts if p.tool == "Edit"}
    assert len(failed_edits) == 1
    assert not failed_edits & edit_calls


def test_claude_edit_lines_are_exact_with_original_file() -> None:
    session = claude_code.read(corpus(GEMINI_GO_RUN))[0]
    first = session.edits[0]
    assert first.path == "/Users/soph/Work/entire/devenv/cli/cmd/entire/cli/agent/geminicli/gemini.go"
    assert first.tool == "Edit"
    assert first.call_id == "toolu_01BsnqFmfbEULurURTC346UZ"
    assert first.message_id == "c31f89f9-37c2-48ea-8fdb-af1519adf217"
    assert [(a.line, a.text) for a in first.added] == [
        (5, '\t"context"'),
        (10, '\t"log/slog"'),
        (17, '\t"entire.io/cli/cmd/entire/cli/logging"'),
    ]
    assert [a.line for a in session.edits[1].added] == [387, 391, 392, 393, 394]


def test_codex_unified_diff_gives_exact_lines() -> None:
    session = codex.read(corpus(APPLY_PATCH_CX))[0]
    first = session.edits[0]
    assert first.path == "/Users/soph/Work/entire/devenv/gitsync/internal/validation/validation.go"
    assert (first.tool, first.kind, first.message_id, first.call_id) == (
        "apply_patch",
        "update",
        "r35",
        "call_lbcMd1Z79fdEWPgYzleIr8dQ",
    )
    assert [a.line for a in first.added] == [32, 33, 43, 44, 45, 46]
    assert first.added[0].text == "\tsrc := normalizeEndpointURL(sourceURL)"
    assert [len(e.added) for e in session.edits] == [6, 2, 39, 5]


def _all_objects(line: str) -> list[dict[str, Any]]:
    decoder, found, i = json.JSONDecoder(), [], 0
    while i < len(line):
        value, i = decoder.raw_decode(line, i)
        found.append(value)
        while i < len(line) and line[i].isspace():
            i += 1
    return found


# --------------------------------------------------------------------------------------------------
# Hand-built Claude Code transcripts
# --------------------------------------------------------------------------------------------------

SID = "11111111-2222-4333-8444-555555555555"
STAMP = "2026-01-02T03:04:05.000Z"


def cc(kind: str, uuid: str, content: Any, **extra: Any) -> dict[str, Any]:
    role = "assistant" if kind == "assistant" else "user"
    return {
        "type": kind,
        "uuid": uuid,
        "sessionId": SID,
        "cwd": "/w",
        "timestamp": STAMP,
        "message": {"role": role, "content": content},
        **extra,
    }


def tool_use(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def tool_result(call_id: str, *, error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "done", "is_error": error}


def write_lines(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_claude_glued_torn_and_non_json_lines(tmp_path: Path) -> None:
    u1 = cc("user", "u1", "please add logging")
    a1 = cc("assistant", "a1", [{"type": "text", "text": "first"}])
    a2 = cc("assistant", "a2", [{"type": "text", "text": "second"}])
    torn = json.dumps({"type": "system", "uuid": "s1", "sessionId": SID, "content": "cut short here"})[:-12]
    u2 = cc("user", "u2", "thanks")
    path = write_lines(
        tmp_path / f"{SID}.jsonl",
        [json.dumps(u1), json.dumps(a1) + json.dumps(a2), torn, "this is not json", json.dumps(u2)],
    )
    assert sniff(path) is ADAPTERS["claude-code"]
    session = claude_code.read(path)[0]
    assert [m.message_id for m in session.messages] == ["u1", "a1", "a2", "u2"]
    assert [m.is_prompt for m in session.messages] == [True, False, False, True]
    assert (session.stats.records, session.stats.unreadable, session.stats.unknown_types) == (4, 2, {})
    assert session.session_id == SID


def test_torn_record_never_yields_its_nested_objects(tmp_path: Path) -> None:
    # Claude Code progress records nest a whole message in `data`, before their own trailing fields
    # (parentToolUseID, toolUseID, timestamp, uuid); a record torn in those fields must not leak it.
    nested = cc("assistant", "phantom", [{"type": "text", "text": "from inside a torn record"}])
    progress = {
        "sessionId": SID,
        "type": "progress",
        "data": {"message": nested, "type": "agent_progress"},
        "parentToolUseID": "toolu_1",
        "toolUseID": "agent_1",
        "timestamp": STAMP,
        "uuid": "p1",
    }
    torn = json.dumps(progress)[:-20]
    u1 = cc("user", "u1", "hello")
    path = write_lines(tmp_path / f"{SID}.jsonl", [json.dumps(u1), torn])
    session = claude_code.read(path)[0]
    assert [m.message_id for m in session.messages] == ["u1"]
    assert (session.stats.records, session.stats.unreadable) == (1, 1)


def test_claude_one_megabyte_line_parses(tmp_path: Path) -> None:
    big = "x" * 1_100_000
    path = write_records(
        tmp_path / f"{SID}.jsonl",
        [
            cc("assistant", "a1", [{"type": "text", "text": big}]),
            cc("user", "u1", "next"),
        ],
    )
    assert path.stat().st_size > 1 << 20
    assert sniff(path) is ADAPTERS["claude-code"]
    session = claude_code.read(path)[0]
    assert [m.message_id for m in session.messages] == ["a1", "u1"]
    assert len(session.messages[0].text) == 1_100_000
    assert session.stats.unreadable == 0


def test_claude_unknown_record_types_are_counted(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / f"{SID}.jsonl",
        [
            cc("user", "u1", "hi"),
            {"type": "hologram", "sessionId": SID, "uuid": "h1"},
            {"type": "hologram", "sessionId": SID, "uuid": "h2"},
            {"sessionId": SID, "uuid": "n1"},
            cc("assistant", "a1", [{"type": "text", "text": "ok"}]),
        ],
    )
    session = claude_code.read(path)[0]
    assert session.stats.unknown_types == {"hologram": 2, "None": 1}
    assert [m.message_id for m in session.messages] == ["u1", "a1"]
    assert session.stats.records == 5


def test_claude_failed_edit_yields_no_edit(tmp_path: Path) -> None:
    args = {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"}
    path = write_records(
        tmp_path / f"{SID}.jsonl",
        [
            cc("user", "u1", "change x"),
            cc("assistant", "a1", [tool_use("t1", "Edit", args)]),
            cc(
                "user",
                "r1",
                [tool_result("t1", error=True)],
                toolUseResult="Error: String to replace not found",
            ),
            cc("assistant", "a2", [tool_use("t2", "Edit", args)]),
            cc(
                "user",
                "r2",
                [tool_result("t2")],
                toolUseResult={"filePath": "/w/a.py", "originalFile": "import os\nx = 1\n"},
            ),
        ],
    )
    session = claude_code.read(path)[0]
    assert [(e.call_id, e.message_id) for e in session.edits] == [("t2", "a2")]
    assert [(a.line, a.text) for a in session.edits[0].added] == [(2, "x = 2")]
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert session.messages[2].parts[0].is_error is True


def test_claude_error_string_result_yields_no_edit(tmp_path: Path) -> None:
    args = {"file_path": "/w/a.py", "old_string": "x", "new_string": "y"}
    path = write_records(
        tmp_path / f"{SID}.jsonl",
        [
            cc("assistant", "a1", [tool_use("t1", "Edit", args)]),
            cc("user", "r1", [tool_result("t1")], toolUseResult="Error: file has been modified since read"),
        ],
    )
    assert claude_code.read(path)[0].edits == []


def test_claude_multiedit_and_write_lines(tmp_path: Path) -> None:
    original = "a\nb\nc\nd\n"
    multi = {
        "file_path": "/w/m.txt",
        "edits": [{"old_string": "b", "new_string": "B1\nB2"}, {"old_string": "d", "new_string": "D"}],
    }
    write = {"file_path": "/w/new.txt", "content": "one\ntwo\n"}
    path = write_records(
        tmp_path / f"{SID}.jsonl",
        [
            cc("assistant", "a1", [tool_use("t1", "MultiEdit", multi), tool_use("t2", "Write", write)]),
            cc(
                "user",
                "r1",
                [tool_result("t1")],
                toolUseResult={"filePath": "/w/m.txt", "originalFile": original},
            ),
            cc("user", "r2", [tool_result("t2")], toolUseResult={"type": "create", "filePath": "/w/new.txt"}),
        ],
    )
    session = claude_code.read(path)[0]
    multi_edit, write_edit = session.edits
    assert (multi_edit.tool, multi_edit.kind) == ("MultiEdit", "update")
    assert [(a.line, a.text) for a in multi_edit.added] == [(2, "B1"), (3, "B2"), (5, "D")]
    assert (write_edit.tool, write_edit.kind, write_edit.new_text) == ("Write", "create", "one\ntwo\n")
    assert [(a.line, a.text) for a in write_edit.added] == [(1, "one"), (2, "two")]


def test_claude_edit_without_original_file_uses_patch_hint(tmp_path: Path) -> None:
    args = {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 1\ny = 2"}
    path = write_records(
        tmp_path / f"{SID}.jsonl",
        [
            cc("assistant", "a1", [tool_use("t1", "Edit", args)]),
            cc(
                "user",
                "r1",
                [tool_result("t1")],
                toolUseResult={"filePath": "/w/a.py", "structuredPatch": [{"newStart": 40, "lines": []}]},
            ),
        ],
    )
    assert [(a.line, a.text) for a in claude_code.read(path)[0].edits[0].added] == [(40, "y = 2")]


def test_claude_session_id_is_file_name_when_it_is_one_of_the_ids(tmp_path: Path) -> None:
    other = "99999999-8888-4777-8666-555555555555"
    records = [
        cc("user", "u1", "resumed here"),
        cc("assistant", "a1", [{"type": "text", "text": "ok"}]),
        {**cc("user", "u2", "from before"), "sessionId": other},
    ]
    path = write_records(tmp_path / f"{other}.jsonl", records)
    session = claude_code.read(path)[0]
    assert session.session_id == other
    assert session.aliases == [SID]


def test_claude_interruption_marker_is_not_a_prompt(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / f"{SID}.jsonl",
        [
            cc("user", "u1", "refactor the parser"),
            cc("user", "u2", [{"type": "text", "text": "[Request interrupted by user for tool use]"}]),
            cc("user", "u3", [{"type": "text", "text": "[Request interrupted by user]"}]),
        ],
    )
    assert [m.message_id for m in claude_code.read(path)[0].messages if m.is_prompt] == ["u1"]


def test_claude_meta_and_command_records_are_not_prompts(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / f"{SID}.jsonl",
        [
            cc("user", "u1", "Caveat: The messages below were generated by the user", isMeta=True),
            cc("user", "u2", "<command-name>/exit</command-name>"),
            cc("user", "u3", "<local-command-stdout>Bye</local-command-stdout>"),
            cc("user", "u4", "fix the bug"),
        ],
    )
    assert [m.message_id for m in claude_code.read(path)[0].messages if m.is_prompt] == ["u4"]


def test_codex_file_is_not_claude_and_claude_file_is_not_codex() -> None:
    assert claude_code.sniff(corpus(APPLY_PATCH_CX)) is False
    assert codex.sniff(corpus(GIT_AI)) is False


# --------------------------------------------------------------------------------------------------
# Hand-built Codex rollouts
# --------------------------------------------------------------------------------------------------


def cx(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": STAMP, "type": kind, "payload": payload}


META = cx("session_meta", {"id": "sess-1", "cwd": "/w", "cli_version": "0.99.0"})
PATCH = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch"


def call(call_id: str, patch: str = PATCH) -> dict[str, Any]:
    return cx(
        "response_item",
        {"type": "custom_tool_call", "name": "apply_patch", "call_id": call_id, "input": patch},
    )


def output(call_id: str, text: str, kind: str = "custom_tool_call_output") -> dict[str, Any]:
    return cx("response_item", {"type": kind, "call_id": call_id, "output": text})


def applied(call_id: str, success: bool, changes: dict[str, Any] | None = None) -> dict[str, Any]:
    return cx(
        "event_msg",
        {"type": "patch_apply_end", "call_id": call_id, "success": success, "changes": changes or {}},
    )


def test_codex_glued_torn_and_non_json_lines(tmp_path: Path) -> None:
    user = cx("event_msg", {"type": "user_message", "message": "add y"})
    reply = cx(
        "response_item",
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
    )
    # torn before its payload object: no complete object is nested in the torn part
    torn = json.dumps(cx("event_msg", {"type": "token_count"})).split('"payload"')[0] + '"payl'
    path = write_lines(
        tmp_path / "rollout-1.jsonl",
        [json.dumps(META), json.dumps(user) + json.dumps(reply), torn + json.dumps(reply), "not json", "42"],
    )
    assert sniff(path) is ADAPTERS["codex"]
    session = codex.read(path)[0]
    assert [m.message_id for m in session.messages] == ["r2", "r3", "r4"]
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]
    assert (session.stats.records, session.stats.unreadable) == (4, 3)


def test_codex_unknown_record_types_are_counted(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            cx("hologram", {}),
            cx("hologram", {"x": 1}),
            cx("event_msg", {"type": "user_message", "message": "q"}),
        ],
    )
    session = codex.read(path)[0]
    assert session.stats.unknown_types == {"hologram": 2}
    assert [m.text for m in session.messages] == ["q"]


def test_codex_compacted_record_becomes_summary(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            cx("compacted", {"message": "Earlier: we added y to a.py.", "replacement_history": []}),
        ],
    )
    (summary,) = codex.read(path)[0].messages
    assert (summary.is_summary, summary.is_prompt, summary.role) == (True, False, "system")
    assert summary.text == "Earlier: we added y to a.py."
    assert summary.message_id == "r2"


def test_codex_typed_prompt_logged_twice_is_kept_once(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            cx(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "<environment_context>x</environment_context>"}
                    ],
                },
            ),
            cx(
                "response_item",
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "add y"}]},
            ),
            cx("event_msg", {"type": "user_message", "message": "add y"}),
        ],
    )
    session = codex.read(path)[0]
    assert [(m.message_id, m.is_prompt) for m in session.messages] == [("r4", True)]


def test_codex_subagent_thread_spawn_parent(tmp_path: Path) -> None:
    meta = cx(
        "session_meta", {"id": "child", "source": {"subagent": {"thread_spawn": {"parent_thread_id": "dad"}}}}
    )
    path = write_records(tmp_path / "rollout-1.jsonl", [meta])
    session = codex.read(path)[0]
    assert (session.session_id, session.parent_session_id, session.aliases) == ("child", "dad", [])


def test_codex_successful_patch_uses_unified_diff_lines(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            call("c1"),
            applied("c1", True, {"a.py": {"type": "update", "unified_diff": "@@ -3 +3 @@\n-x\n+y\n"}}),
            output("c1", '{"output":"Success.","metadata":{"exit_code":0}}'),
        ],
    )
    (edit,) = codex.read(path)[0].edits
    assert (edit.path, edit.tool, edit.kind, edit.message_id, edit.call_id) == (
        "a.py",
        "apply_patch",
        "update",
        "r2",
        "c1",
    )
    assert (edit.old_text, edit.new_text) == ("x", "y")
    assert [(a.line, a.text) for a in edit.added] == [(3, "y")]
    assert edit.timestamp == datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def test_codex_patch_without_apply_end_uses_envelope_lines(tmp_path: Path) -> None:
    path = write_records(tmp_path / "rollout-1.jsonl", [META, call("c1")])
    (edit,) = codex.read(path)[0].edits
    assert [(a.line, a.text) for a in edit.added] == [(None, "y")]


def test_codex_absolute_envelope_path_matches_changes(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Update File: /w/a.py\n@@\n-x\n+y\n*** End Patch"
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            call("c1", patch),
            applied("c1", True, {"/w/a.py": {"unified_diff": "@@ -3 +3 @@\n-x\n+y\n"}}),
        ],
    )
    (edit,) = codex.read(path)[0].edits
    assert edit.path == "/w/a.py"
    assert [(a.line, a.text) for a in edit.added] == [(3, "y")]


def test_codex_patch_apply_end_failure_yields_no_edit(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            call("c1"),
            applied("c1", False),
            output("c1", "error: patch did not apply"),
            call("c2"),
            applied("c2", True),
        ],
    )
    assert [e.call_id for e in codex.read(path)[0].edits] == ["c2"]


def test_codex_nonzero_exit_code_yields_no_edit(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            call("c1"),
            output("c1", '{"output":"failed","metadata":{"exit_code":1}}'),
        ],
    )
    session = codex.read(path)[0]
    assert session.edits == []
    assert session.messages[-1].parts[0].is_error is True


def test_codex_verification_failed_output_yields_no_edit(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            call("c1"),
            output("c1", "apply_patch verification failed: Failed to find expected lines in /w/a.py:\nx"),
        ],
    )
    assert codex.read(path)[0].edits == []


def test_codex_older_shell_form_yields_edit(tmp_path: Path) -> None:
    arguments = json.dumps({"command": ["apply_patch", PATCH]})
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            cx(
                "response_item",
                {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": "s1"},
            ),
            output("s1", '{"output":"Done!","metadata":{"exit_code":0}}', kind="function_call_output"),
        ],
    )
    (edit,) = codex.read(path)[0].edits
    assert (edit.path, edit.tool, edit.kind, edit.call_id, edit.message_id) == (
        "a.py",
        "shell:apply_patch",
        "update",
        "s1",
        "r2",
    )
    assert [(a.line, a.text) for a in edit.added] == [(None, "y")]


def test_codex_older_apply_patch_function_yields_edit(tmp_path: Path) -> None:
    arguments = json.dumps({"input": "*** Begin Patch\n*** Add File: b.py\n+hello\n+world\n*** End Patch"})
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            cx(
                "response_item",
                {"type": "function_call", "name": "apply_patch", "arguments": arguments, "call_id": "p1"},
            ),
        ],
    )
    (edit,) = codex.read(path)[0].edits
    assert (edit.path, edit.tool, edit.kind) == ("b.py", "apply_patch", "create")
    assert [(a.line, a.text) for a in edit.added] == [(1, "hello"), (2, "world")]


def test_codex_without_session_meta_uses_file_stem(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "rollout-2026-01-02-abc.jsonl",
        [cx("event_msg", {"type": "user_message", "message": "hi"})],
    )
    assert codex.read(path)[0].session_id == "rollout-2026-01-02-abc"


# --------------------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------------------


def _encoded(root: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(root))


def test_claude_discover_finds_the_work_trees_transcripts(tmp_path: Path) -> None:
    config = Path(os.environ["CLAUDE_CONFIG_DIR"])
    root = tmp_path / "work" / "my.proj"
    mine = write_records(config / "projects" / _encoded(root) / f"{SID}.jsonl", [cc("user", "u1", "hi")])
    sub = write_records(
        config / "projects" / _encoded(root) / SID / "subagents" / "agent-1.jsonl", [cc("user", "u1", "hi")]
    )
    write_records(
        config / "projects" / _encoded(tmp_path / "elsewhere" / "other") / f"{SID}.jsonl",
        [cc("user", "u1", "hi")],
    )
    assert sorted(claude_code.discover(root)) == sorted([mine, sub])


def test_claude_discover_honours_claude_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "custom-claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    root = tmp_path / "proj"
    mine = write_records(config / "projects" / _encoded(root) / f"{SID}.jsonl", [cc("user", "u1", "hi")])
    assert list(claude_code.discover(root)) == [mine]


def test_claude_discover_since_filters_by_mtime(tmp_path: Path) -> None:
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / _encoded(tmp_path / "proj")
    old = write_records(folder / "00000000-0000-4000-8000-000000000001.jsonl", [cc("user", "u1", "old")])
    new = write_records(folder / "00000000-0000-4000-8000-000000000002.jsonl", [cc("user", "u1", "new")])
    os.utime(old, (1_600_000_000, 1_600_000_000))
    since = datetime(2021, 1, 1, tzinfo=timezone.utc)
    assert list(claude_code.discover(tmp_path / "proj", since=since)) == [new]
    assert sorted(claude_code.discover(tmp_path / "proj")) == sorted([old, new])


def test_codex_discover_honours_codex_home_and_since(tmp_path: Path) -> None:
    sessions = Path(os.environ["CODEX_HOME"]) / "sessions"
    found = write_records(sessions / "2026" / "01" / "02" / "rollout-x.jsonl", [META])
    old = write_records(sessions / "2020" / "09" / "13" / "rollout-old.jsonl", [META])
    write_records(sessions / "2026" / "01" / "02" / "notes.jsonl", [META])
    write_records(sessions / "rollout-top.jsonl", [META])
    os.utime(old, (1_600_000_000, 1_600_000_000))
    assert list(codex.discover(tmp_path)) == [old, found]
    assert list(codex.discover(tmp_path, since=datetime(2021, 1, 1, tzinfo=timezone.utc))) == [found]


def test_discover_without_agent_folders_finds_nothing(tmp_path: Path) -> None:
    assert list(claude_code.discover(tmp_path)) == []
    assert list(codex.discover(tmp_path)) == []


def test_codex_patch_move_to_is_a_move_then_the_update(tmp_path: Path) -> None:
    """`*** Move to:` takes the file and the credit of its earlier edits to the new path."""
    patch = "*** Begin Patch\n*** Update File: a.py\n*** Move to: pkg/a.py\n@@\n-x\n+y\n*** End Patch"
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            META,
            call("c1", patch),
            applied(
                "c1",
                True,
                {
                    "a.py": {
                        "type": "update",
                        "unified_diff": "@@ -3 +3 @@\n-x\n+y\n",
                        "move_path": "pkg/a.py",
                    }
                },
            ),
            output("c1", '{"output":"Success.","metadata":{"exit_code":0}}'),
        ],
    )
    edits = codex.read(path)[0].edits
    assert [
        (e.kind, e.source, e.path, e.message_id, e.call_id, [(a.line, a.text) for a in e.added])
        for e in edits
    ] == [("move", "a.py", "pkg/a.py", "r2", "c1", []), ("update", None, "pkg/a.py", "r2", "c1", [(3, "y")])]
