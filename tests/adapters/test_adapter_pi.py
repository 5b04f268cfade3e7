"""The Pi adapter on an excerpt of a real session (format version 1, from pi-mono's own fixtures), on format 3
samples and on hand-built sessions: counts, the exact lines of pi's numbered edit diffs, failed calls,
discovery under `$PI_CODING_AGENT_DIR`, and lines Pi wrote blamed to their messages through a real commit."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, agent_commit, blamed, corpus, make_repo, write_records

from git_intent.adapters import ADAPTERS, pi

PI = "transcripts/pi"
REAL = f"{PI}/pi-mono__before-compaction-excerpt.jsonl"
TOOL = f"{PI}/git-ai__pi-session-tool.jsonl"
SMALL = f"{PI}/agent-sessions__small.jsonl"
SESSION = "ffae836b-9420-4060-ac13-7745215f90ff"
CWD = "/Users/badlogic/workspaces/pi-mono"
DOC = "packages/coding-agent/docs/refactor.md"
EDITED = "  get messages(): AppMessage[];  // Includes custom types like BashExecutionMessage"

# Computed with the adapter, then checked by `test_counts_match_an_independent_reading` (json only).
TABLE: dict[str, tuple[str, int, int, int, int, int]] = {
    # rel: (session_id, records, messages, edits, prompts, added)
    REAL: (SESSION, 12, 11, 4, 2, 1672),
    TOOL: ("pi-session-456", 4, 3, 1, 1, 1),
    SMALL: ("019e19b4-eb48-746a-aa6b-8dfcfa37954b", 9, 4, 0, 2, 0),
}


@pytest.mark.parametrize("rel", sorted(TABLE))
def test_session_counts(rel: str) -> None:
    path = corpus(rel)
    assert pi.sniff(path)
    [session] = pi.read(path)
    assert (
        session.session_id,
        session.stats.records,
        len(session.messages),
        len(session.edits),
        sum(m.is_prompt for m in session.messages),
        sum(len(e.added) for e in session.edits),
    ) == TABLE[rel]
    assert session.stats.unreadable == 0 and session.stats.unknown_types == {}
    assert pi.read(path) == [session]


def test_table_covers_every_session() -> None:
    assert {str(p.relative_to(CORPUS)) for p in corpus(PI).glob("*.jsonl")} == set(TABLE)


def test_counts_match_an_independent_reading() -> None:
    records = [json.loads(line) for line in corpus(REAL).read_text(encoding="utf-8").splitlines()]
    calls = [
        b
        for r in records
        if r["type"] == "message"
        for b in r["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "toolCall" and b["name"] in ("edit", "write")
    ]
    written = calls[0]["arguments"]["content"]
    diffs = [r["message"]["details"]["diff"] for r in records[1:] if r["message"].get("toolName") == "edit"]
    added = [line for diff in diffs for line in diff.splitlines() if line.startswith("+")]
    assert (len(records), len(calls), len(written.splitlines()), len(added)) == (12, 4, 1668, 4)


def test_edits_take_the_numbered_diff_and_the_whole_written_file() -> None:
    [session] = pi.read(corpus(REAL))
    write, *edits = session.edits
    assert (write.path, write.tool, write.kind, write.message_id) == (f"{CWD}/{DOC}", "write", "create", "r3")
    assert (write.added[0].line, write.added[0].text) == (1, "# Coding Agent Refactoring Plan")
    assert [(e.message_id, [(a.line, a.text) for a in e.added]) for e in edits] == [
        ("r7", [(87, EDITED)]),
        ("r7", [(232, "  get messages(): AppMessage[] { return this.agent.state.messages; }")]),
        (
            "r7",
            [
                (
                    198,
                    "import type { Agent, AgentEvent, AgentState, AppMessage, ThinkingLevel } from "
                    '"@mariozechner/pi-agent-core";',
                ),
                (199, 'import type { Model } from "@mariozechner/pi-ai";'),
            ],
        ),
    ]
    prompt = session.message("r5")
    assert prompt is not None and prompt.is_prompt
    assert prompt.text == "get messages(): Message[]; not AppMessage with our extension?"
    assert {m.model for m in session.messages if m.role == "assistant"} == {"claude-opus-4-5"}


def test_format_3_ids_and_edits_array() -> None:
    [session] = pi.read(corpus(TOOL))
    assert [(m.message_id, m.role) for m in session.messages] == [
        ("aaaa1111", "user"),
        ("bbbb2222", "assistant"),
        ("cccc3333", "tool"),
    ]
    [edit] = session.edits
    assert (edit.path, edit.message_id, [a.text for a in edit.added]) == (
        "src/main.rs",
        "bbbb2222",
        ["after"],
    )


def test_other_agents_do_not_take_pi_files_and_pi_takes_none_of_theirs() -> None:
    for rel in TABLE:
        assert [name for name, a in ADAPTERS.items() if a.sniff(corpus(rel))] == ["pi"]
    for other in (
        "transcripts/droid/git-ai__droid-session.jsonl",
        "transcripts/claude-code/git-ai__example-claude-code.jsonl",
        "transcripts/cursor/git-ai__cursor-session-simple.jsonl",
    ):
        assert not pi.sniff(corpus(other))


# --------------------------------------------------------------------------------------------------
# Hand-built sessions
# --------------------------------------------------------------------------------------------------


def entry(n: int, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"e{n}",
        "parentId": f"e{n - 1}" if n > 1 else None,
        "timestamp": f"2026-03-31T10:10:0{n}.000Z",
        "message": {"timestamp": 1774951800000 + n, **message},
    }


def test_failed_calls_write_nothing_and_other_messages_are_told_apart(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "2026-03-31T10-10-00-000Z_s.jsonl",
        [
            {
                "type": "session",
                "version": 3,
                "id": "s",
                "timestamp": "2026-03-31T10:10:00.000Z",
                "cwd": "/w",
                "parentSession": "/home/me/.pi/agent/sessions/--w--/2026-03-30T09-00-00-000Z_p0.jsonl",
            },
            entry(1, {"role": "user", "content": "fix it"}),
            entry(
                2,
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "toolCall",
                            "id": "a",
                            "name": "write",
                            "arguments": {"path": "new.txt", "content": "x\ny\n"},
                        },
                        {
                            "type": "toolCall",
                            "id": "b",
                            "name": "edit",
                            "arguments": {"path": "old.txt", "oldText": "p", "newText": "p\nq"},
                        },
                        {
                            "type": "toolCall",
                            "id": "c",
                            "name": "bash",
                            "arguments": {"command": "echo z > z.txt"},
                        },
                    ],
                },
            ),
            entry(
                3,
                {
                    "role": "toolResult",
                    "toolCallId": "a",
                    "toolName": "write",
                    "content": [],
                    "isError": True,
                },
            ),
            entry(4, {"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0}),
            entry(5, {"role": "compactionSummary", "summary": "earlier work", "tokensBefore": 10}),
            {"type": "label", "id": "l1", "targetId": "e1", "label": "start"},
            {"type": "future_kind", "id": "f1"},
        ],
    )
    [session] = pi.read(path)
    assert [(e.path, e.tool, [(a.line, a.text) for a in e.added]) for e in session.edits] == [
        ("old.txt", "edit", [(None, "q")]),
        ("z.txt", "bash", [(1, "z")]),
    ]
    assert [(m.message_id, m.role, m.is_summary) for m in session.messages] == [
        ("e1", "user", False),
        ("e2", "assistant", False),
        ("e3", "tool", False),
        ("e5", "user", True),
    ]
    assert session.stats.unknown_types == {"role:bashExecution": 1, "future_kind": 1}
    assert (session.parent_session_id, session.cwd) == ("p0", "/w")


# --------------------------------------------------------------------------------------------------
# Where Pi keeps sessions
# --------------------------------------------------------------------------------------------------


def test_discover_honours_the_agent_and_session_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "work" / "proj"
    assert pi.encode_project("/Users/a/proj") == "--Users-a-proj--"
    assert pi.encode_project("C:\\Users\\a\\proj") == "--C--Users-a-proj--"
    sessions = Path.home() / ".pi" / "agent" / "sessions"
    mine = write_records(sessions / pi.encode_project(root) / "t_a.jsonl", [{"type": "session"}])
    below = write_records(sessions / pi.encode_project(root / "pkg") / "t_b.jsonl", [{"type": "session"}])
    write_records(sessions / pi.encode_project(tmp_path / "other") / "t_c.jsonl", [{"type": "session"}])
    assert sorted(pi.discover(root)) == sorted([mine, below])
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    moved = write_records(tmp_path / "agent" / "sessions" / pi.encode_project(root) / "t_d.jsonl", [{}])
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(tmp_path / "flat"))
    flat = write_records(tmp_path / "flat" / "t_e.jsonl", [{}])
    assert sorted(pi.discover(root)) == sorted([moved, flat])


# --------------------------------------------------------------------------------------------------
# Lines Pi wrote, blamed through a real commit
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_lines_pi_wrote_are_blamed_to_their_messages(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    text = corpus(REAL).read_text(encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines()]
    calls = [
        b["arguments"]
        for r in records
        if r["type"] == "message"
        for b in r["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "toolCall" and b["name"] in ("edit", "write")
    ]
    document = calls[0]["content"]
    for change in calls[1:]:
        document = document.replace(change["oldText"], change["newText"], 1)
    target = pi.agent_dir() / "sessions" / pi.encode_project(repo) / "2025-12-09T00-53-29-825Z_ffae836b.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(text.replace(CWD, str(repo)), encoding="utf-8")
    started, ended = (datetime.fromisoformat(records[i]["timestamp"]) for i in (1, -1))
    sha = agent_commit(repo, {"README.md": "# pi-mono\n"}, {DOC: document}, started, ended)
    assert blamed(repo, DOC, EDITED) == (sha, "agent", "pi", SESSION, "r7", "edit", "user", "r5")
    assert blamed(repo, DOC, "# Coding Agent Refactoring Plan") == (
        sha,
        "agent",
        "pi",
        SESSION,
        "r3",
        "write",
        "user",
        "r2",
    )
