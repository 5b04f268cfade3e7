"""The Factory Droid adapter on a real session (git-ai's fixture) and hand-built ones: counts, what the
user typed, ApplyPatch/Create/Edit/MultiEdit/Execute edits, failed calls, discovery under `$FACTORY_HOME`,
and a line Droid wrote blamed to its message through a real commit."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, agent_commit, blamed, corpus, make_repo, write_records

from git_intent.adapters import ADAPTERS, droid

DR = "transcripts/droid"
REAL = f"{DR}/git-ai__droid-session.jsonl"
SYNTHETIC = f"{DR}/agent-sessions__session_store_small.jsonl"
SESSION = "052cb8d0-4616-488a-99fe-bfbbbe9429b3"
TREE = "/Users/testuser/projects/testing-git"
PATCH_MESSAGE = "fb0e4cfc-cef8-4f6e-9175-946cb2759264"
PROMPT = "2e651873-0881-4fbe-80b0-92d59a21074e"

# Computed with the adapter, then checked by `test_counts_match_an_independent_reading` (json only).
TABLE: dict[str, tuple[str, int, int, int, int, int]] = {
    # rel: (session_id, records, messages, edits, prompts, added)
    REAL: (SESSION, 13, 10, 1, 1, 1),
    SYNTHETIC: ("droid_s1", 4, 3, 0, 1, 0),
}


@pytest.mark.parametrize("rel", sorted(TABLE))
def test_session_counts(rel: str) -> None:
    path = corpus(rel)
    assert droid.sniff(path)
    [session] = droid.read(path)
    assert (
        session.session_id,
        session.stats.records,
        len(session.messages),
        len(session.edits),
        sum(m.is_prompt for m in session.messages),
        sum(len(e.added) for e in session.edits),
    ) == TABLE[rel]
    assert session.stats.unreadable == 0 and session.stats.unknown_types == {}
    assert droid.read(path) == [session]


def test_table_covers_every_session() -> None:
    assert {str(p.relative_to(CORPUS)) for p in corpus(DR).glob("*.jsonl")} == set(TABLE)


def test_counts_match_an_independent_reading() -> None:
    records = [json.loads(line) for line in corpus(REAL).read_text(encoding="utf-8").splitlines()]
    messages = [r for r in records if r["type"] == "message"]
    patches = [b for r in messages for b in r["message"]["content"] if b.get("name") == "ApplyPatch"]
    assert (len(records), len(messages), len(patches)) == (13, 10, 1)
    assert [line for line in patches[0]["input"]["input"].splitlines() if line.startswith("+")] == [
        "+// DROID3"
    ]


def test_apply_patch_edit_and_what_the_user_typed() -> None:
    [session] = droid.read(corpus(REAL))
    [edit] = session.edits
    assert (edit.path, edit.tool, edit.kind, edit.message_id, [a.text for a in edit.added]) == (
        f"{TREE}/index.ts",
        "ApplyPatch",
        "update",
        PATCH_MESSAGE,
        ["// DROID3"],
    )
    prompt = session.messages[0]
    assert (prompt.message_id, prompt.is_prompt) == (PROMPT, True)
    assert prompt.text.startswith('Update the first comment in @index.ts to "DROID3"')
    assert [m.role for m in session.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert (session.cwd, session.messages[0].timestamp) == (
        TREE,
        datetime(2026, 1, 28, 16, 57, 1, 391000, tzinfo=timezone.utc),
    )


def test_other_agents_do_not_take_droid_files_and_droid_takes_none_of_theirs() -> None:
    for rel in TABLE:
        assert [name for name, a in ADAPTERS.items() if a.sniff(corpus(rel))] == ["droid"]
    for other in (
        "transcripts/claude-code/git-ai__example-claude-code.jsonl",
        "transcripts/cursor/git-ai__cursor-session-simple.jsonl",
        "transcripts/pi/git-ai__pi-session-tool.jsonl",
    ):
        assert not droid.sniff(corpus(other))


# --------------------------------------------------------------------------------------------------
# Hand-built sessions
# --------------------------------------------------------------------------------------------------


def message(n: int, role: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"m{n}",
        "timestamp": f"2026-01-28T16:57:0{n}.000Z",
        "message": {"role": role, "content": content},
    }


def use(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def result(call_id: str, text: str, error: bool = False) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": text,
        **({"is_error": True} if error else {}),
    }


def test_create_edit_multiedit_execute_and_failed_calls(tmp_path: Path) -> None:
    path = write_records(
        tmp_path / "s.jsonl",
        [
            {"type": "session_start", "id": "s", "title": "t", "cwd": "/w"},
            message(
                1, "user", [{"type": "text", "text": "<system-reminder>\nBe brief.\n</system-reminder>"}]
            ),
            message(
                2, "user", [{"type": "text", "text": "<system-reminder>x</system-reminder>\n\nrename it"}]
            ),
            message(
                3,
                "assistant",
                [
                    use("a", "Create", {"file_path": "/w/new.py", "content": "one\ntwo\n"}),
                    use(
                        "b", "Edit", {"file_path": "/w/old.py", "old_str": "x = 1", "new_str": "x = 1\ny = 2"}
                    ),
                    use(
                        "c",
                        "MultiEdit",
                        {"file_path": "/w/m.py", "edits": [{"old_string": "a", "new_string": "b"}]},
                    ),
                    use("d", "Execute", {"command": "echo hi > /w/out.txt"}),
                    use("e", "Edit", {"file_path": "/w/bad.py", "old_str": "p", "new_str": "q"}),
                    use("f", "Create", {"file_path": "/w/refused.py", "content": "z\n"}),
                ],
            ),
            message(4, "user", [result("e", "Error: old_str not found"), result("f", "denied", error=True)]),
            {"type": "future_kind", "id": "f1"},
        ],
    )
    [session] = droid.read(path)
    assert [(e.path, e.tool, e.kind, [(a.line, a.text) for a in e.added]) for e in session.edits] == [
        ("/w/new.py", "Create", "create", [(1, "one"), (2, "two")]),
        ("/w/old.py", "Edit", "update", [(None, "y = 2")]),
        ("/w/m.py", "MultiEdit", "update", [(None, "b")]),
        ("/w/out.txt", "Execute", "create", [(1, "hi")]),
    ]
    assert [(m.message_id, m.is_prompt) for m in session.messages[:2]] == [("m1", False), ("m2", True)]
    assert session.stats.unknown_types == {"future_kind": 1}


# --------------------------------------------------------------------------------------------------
# Where Droid keeps sessions
# --------------------------------------------------------------------------------------------------


def test_discover_takes_the_work_tree_folder_and_flat_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "work" / "proj"
    sessions = Path.home() / ".factory" / "sessions"
    mine = write_records(sessions / droid.encode_project(root) / "a.jsonl", [{"type": "session_start"}])
    below = write_records(
        sessions / droid.encode_project(root / "pkg") / "b.jsonl", [{"type": "session_start"}]
    )
    flat = write_records(sessions / "c.jsonl", [{"type": "session_start"}])
    write_records(
        sessions / droid.encode_project(tmp_path / "other") / "d.jsonl", [{"type": "session_start"}]
    )
    (sessions / droid.encode_project(root) / "a.settings.json").write_text("{}", encoding="utf-8")
    assert droid.encode_project("/Users/a/proj") == "-Users-a-proj"
    assert sorted(droid.discover(root)) == sorted([mine, below, flat])
    monkeypatch.setenv("FACTORY_HOME", str(tmp_path / "factory"))
    elsewhere = write_records(
        tmp_path / "factory" / "sessions" / droid.encode_project(root) / "e.jsonl", [{}]
    )
    assert list(droid.discover(root)) == [elsewhere]


# --------------------------------------------------------------------------------------------------
# A line Droid wrote, blamed through a real commit
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_line_droid_wrote_is_blamed_to_its_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    text = corpus(REAL).read_text(encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines()]
    pasted = records[1]["message"]["content"][1]["text"]  # "Contents of …index.ts (lines 1-25 of 25):\n…"
    before = pasted.split("\n", 1)[1]
    target = droid.factory_dir() / "sessions" / droid.encode_project(repo) / f"{SESSION}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(text.replace(TREE, str(repo)), encoding="utf-8")
    sha = agent_commit(
        repo,
        {"index.ts": before},
        {"index.ts": before.replace("// DROID2", "// DROID3")},
        datetime(2026, 1, 28, 16, 57, 1, tzinfo=timezone.utc),
        datetime(2026, 1, 28, 16, 57, 29, tzinfo=timezone.utc),
    )
    assert blamed(repo, "index.ts", "// DROID3") == (
        sha,
        "agent",
        "droid",
        SESSION,
        PATCH_MESSAGE,
        "ApplyPatch",
        "user",
        PROMPT,
    )
    assert blamed(repo, "index.ts", "console.log('Hello');")[1:3] == ("unrecorded", None)
