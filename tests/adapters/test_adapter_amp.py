"""The Amp adapter on two real threads (git-ai's fixtures, Amp CLI 0.0.1772237000) and hand-built ones:
counts, times, the exact lines of an `edit_file` diff, unfinished calls, discovery, and a line Amp wrote
blamed to its message through a real commit."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, agent_commit, blamed, corpus, line_of, make_repo

from git_intent.adapters import ADAPTERS, amp
from git_intent.core.errors import DamagedTranscriptError

AM = "transcripts/amp"
EDIT = f"{AM}/git-ai__T-019ca1f6-7f21-77b5-a308-65416ebbdf48.json"
PLAN = f"{AM}/git-ai__T-019ca1ce-3ae2-7686-a41e-ccc078837f8a.json"
TREE = "/Users/svarlamov/projects/testing-git-amp"
NEW_ROW = "14,Why do programmers hate nature?,It has too many bugs and no documentation."

# Computed with the adapter, then checked by `test_counts_match_an_independent_reading` (json only).
TABLE: dict[str, tuple[str, int, int, int, int, int]] = {
    # rel: (session_id, records, messages, edits, prompts, added)
    EDIT: ("T-019ca1f6-7f21-77b5-a308-65416ebbdf48", 6, 6, 1, 1, 1),
    PLAN: ("T-019ca1ce-3ae2-7686-a41e-ccc078837f8a", 6, 6, 0, 1, 0),
}


@pytest.mark.parametrize("rel", sorted(TABLE))
def test_thread_counts(rel: str) -> None:
    path = corpus(rel)
    assert amp.sniff(path)
    [session] = amp.read(path)
    assert (
        session.session_id,
        session.stats.records,
        len(session.messages),
        len(session.edits),
        sum(m.is_prompt for m in session.messages),
        sum(len(e.added) for e in session.edits),
    ) == TABLE[rel]
    assert session.stats.unreadable == 0 and session.stats.unknown_types == {}
    assert (session.cwd, session.agent_version) == (TREE, "0.0.1772237000-g924883")
    assert amp.read(path) == [session]


def test_table_covers_every_thread() -> None:
    assert {str(p.relative_to(CORPUS)) for p in corpus(AM).glob("*.json")} == set(TABLE)


def test_counts_match_an_independent_reading() -> None:
    thread = json.loads(corpus(EDIT).read_text(encoding="utf-8"))
    calls = [b for m in thread["messages"] for b in m["content"] if b["type"] == "tool_use"]
    assert [c["name"] for c in calls] == ["Read", "edit_file"]
    results = [b for m in thread["messages"] for b in m["content"] if b["type"] == "tool_result"]
    diff = results[1]["run"]["result"]["diff"]
    assert [
        line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")
    ] == [NEW_ROW]


def test_edit_file_takes_the_lines_and_numbers_of_its_diff() -> None:
    [session] = amp.read(corpus(EDIT))
    [edit] = session.edits
    assert (edit.path, edit.tool, edit.kind, edit.message_id, edit.call_id) == (
        f"{TREE}/jokes.csv",
        "edit_file",
        "update",
        "3",
        "toolu_vrtx_01TJD3myjs6gdrDRVn6ZbNME",
    )
    assert [(a.line, a.text) for a in edit.added] == [(15, NEW_ROW)]


def test_messages_roles_times_and_models() -> None:
    [session] = amp.read(corpus(EDIT))
    assert [(m.message_id, m.role) for m in session.messages] == [
        ("0", "user"),
        ("1", "assistant"),
        ("2", "tool"),
        ("3", "assistant"),
        ("4", "tool"),
        ("5", "assistant"),
    ]
    assert session.messages[0].text == "Read jokes.csv and append one new joke row"
    assert session.messages[0].timestamp == datetime(2026, 2, 28, 1, 56, 52, 139000, tzinfo=timezone.utc)
    # A tool result records no time: it takes its call's.
    assert (
        session.messages[3].timestamp
        == session.messages[4].timestamp
        == datetime(2026, 2, 28, 1, 56, 58, 208000, tzinfo=timezone.utc)
    )
    assert {m.model for m in session.messages if m.role == "assistant"} == {"claude-opus-4-6"}


def test_other_agents_do_not_take_amp_threads_and_amp_takes_none_of_theirs() -> None:
    for rel in TABLE:
        assert [name for name, a in ADAPTERS.items() if a.sniff(corpus(rel))] == ["amp"]
    for other in (
        "transcripts/gemini/entire-cli__ab2b9748b105__legacy-session.json",
        "transcripts/cursor/git-ai__cursor-session-simple.jsonl",
    ):
        assert not amp.sniff(corpus(other))


# --------------------------------------------------------------------------------------------------
# Hand-built threads
# --------------------------------------------------------------------------------------------------


def thread(tmp_path: Path, messages: list[Any]) -> Path:
    path = tmp_path / "T-0000aaaa-0000-4000-8000-000000000001.json"
    path.write_text(
        json.dumps(
            {
                "v": 9,
                "id": path.stem,
                "created": 1772243812131,
                "messages": messages,
                "env": {"initial": {"trees": [{"uri": "file:///w/proj"}]}},
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    return path


def use(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "complete": True, "id": call_id, "name": name, "input": args}


def ran(call_id: str, status: str, result: Any = None) -> dict[str, Any]:
    return {"type": "tool_result", "toolUseID": call_id, "run": {"status": status, "result": result}}


def test_unfinished_runs_write_nothing_and_create_file_and_bash_write(tmp_path: Path) -> None:
    path = thread(
        tmp_path,
        [
            {
                "role": "user",
                "messageId": 0,
                "content": [{"type": "text", "text": "go"}],
                "meta": {"sentAt": 1772243812139},
            },
            {
                "role": "assistant",
                "messageId": 1,
                "content": [
                    use("a", "edit_file", {"path": "/w/proj/a.py", "old_str": "x = 1", "new_str": "x = 2"}),
                    use("b", "create_file", {"path": "/w/proj/b.py", "content": "one\ntwo\n"}),
                    use("c", "Bash", {"cmd": "printf 'hi\\n' > c.txt", "cwd": "/w/proj"}),
                    use("d", "edit_file", {"path": "/w/proj/d.py", "old_str": "p", "new_str": "p\nq"}),
                ],
            },
            {
                "role": "user",
                "messageId": 2,
                "content": [
                    ran("a", "error", None),
                    ran("b", "done", "ok"),
                    ran("c", "done", {"output": "", "exitCode": 0}),
                    ran("d", "cancelled"),
                ],
            },
        ],
    )
    [session] = amp.read(path)
    assert [(e.path, e.tool, e.kind, [(a.line, a.text) for a in e.added]) for e in session.edits] == [
        ("/w/proj/b.py", "create_file", "create", [(1, "one"), (2, "two")]),
        ("/w/proj/c.txt", "Bash", "create", [(1, "hi")]),
    ]
    assert [p.is_error for p in session.messages[-1].parts] == [True, False, False, True]
    assert session.cwd == "/w/proj"


def test_a_torn_thread_is_damaged_and_odd_records_are_counted(tmp_path: Path) -> None:
    path = thread(
        tmp_path,
        [
            {"role": "narrator", "messageId": 0, "content": []},
            "junk",
            {
                "role": "user",
                "messageId": 1,
                "content": [{"type": "image", "source": {}}, {"type": "text", "text": "hi"}],
            },
        ],
    )
    [session] = amp.read(path)
    assert (
        session.stats.unknown_types == {"role:narrator": 1, "block:image": 1}
        and session.stats.unreadable == 1
    )
    assert [m.message_id for m in session.messages] == ["1"]
    torn = tmp_path / "T-0000aaaa-0000-4000-8000-000000000002.json"
    torn.write_text(path.read_text(encoding="utf-8")[:200], encoding="utf-8")
    assert amp.sniff(torn)
    with pytest.raises(DamagedTranscriptError, match=r"^The Amp thread .* is not a whole JSON object"):
        amp.read(torn)


# --------------------------------------------------------------------------------------------------
# Where Amp keeps threads
# --------------------------------------------------------------------------------------------------


def test_discover_reads_the_data_folder_of_each_platform(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = Path.home() / ".local" / "share" / "amp" / "threads" / "T-1.json"
    default.parent.mkdir(parents=True)
    default.write_text("{}", encoding="utf-8")
    (default.parent / "notes.json").write_text("{}", encoding="utf-8")
    assert list(amp.discover(tmp_path)) == [default]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    found = []
    for base in (tmp_path / "xdg", tmp_path / "local"):
        (base / "amp" / "threads").mkdir(parents=True)
        found.append(base / "amp" / "threads" / "T-2.json")
        found[-1].write_text("{}", encoding="utf-8")
    assert sorted(amp.discover(tmp_path)) == sorted(found)


# --------------------------------------------------------------------------------------------------
# A line Amp wrote, blamed through a real commit
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_line_amp_wrote_is_blamed_to_its_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    text = corpus(EDIT).read_text(encoding="utf-8")
    source = json.loads(text)
    read = source["messages"][2]["content"][0]["run"]["result"]["content"]
    before = "\n".join(re.sub(r"^\d+: ", "", line) for line in read.splitlines()) + "\n"
    args = source["messages"][3]["content"][0]["input"]
    target = amp.threads_dir()[-1] / f"{source['id']}.json"
    target.parent.mkdir(parents=True)
    target.write_text(text.replace(TREE, str(repo)), encoding="utf-8")
    sha = agent_commit(
        repo,
        {"jokes.csv": before},
        {"jokes.csv": before.replace(args["old_str"], args["new_str"])},
        datetime(2026, 2, 28, 1, 56, 52, tzinfo=timezone.utc),
        datetime(2026, 2, 28, 1, 57, 0, tzinfo=timezone.utc),
    )
    assert blamed(repo, "jokes.csv", NEW_ROW) == (
        sha,
        "agent",
        "amp",
        source["id"],
        "3",
        "edit_file",
        "user",
        "0",
    )
    assert line_of(repo / "jokes.csv", NEW_ROW) == 15
    assert blamed(repo, "jokes.csv", "id,setup,punchline")[1:3] == ("unrecorded", None)
