"""Damaged transcripts and a damaged index never break a command.

Each case reproduces a failure found by probing the build with mutated real transcripts: a lone UTF-16
surrogate, fields of the wrong type, deeply nested lines, a damaged Codex `session_meta`, a corrupt
OpenCode store and a corrupt index.db.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus, git, run_cli

from git_intent.adapters import codex, cursor, gemini_cli, opencode
from git_intent.adapters.claude_code import encode_project
from git_intent.core.values import Session, to_json

CODEX_ROLLOUT = ("transcripts", "codex", "git-sync__8feaf84a600f__apply-patch.jsonl")
CODEX_ID = "019ddd6f-3680-7fb3-8f93-e567af97d303"
SID = "5e55a9e0-1111-4222-8333-444455556666"
OTHER = "5e55a9e0-7777-4888-9999-000011112222"


def claude_transcript(home: Path, repo: Path, session_id: str, prompt: str, reply: str) -> Path:
    """A two-message Claude Code session started in `repo`, where Claude Code keeps it."""
    folder = home / ".claude" / "projects" / encode_project(repo)
    folder.mkdir(parents=True, exist_ok=True)
    common = {"sessionId": session_id, "cwd": str(repo), "version": "2.1.0"}
    records = [
        {
            **common,
            "type": "user",
            "uuid": f"{session_id[:8]}-u1",
            "timestamp": "2025-01-01T10:00:00Z",
            "message": {"role": "user", "content": prompt},
        },
        {
            **common,
            "type": "assistant",
            "uuid": f"{session_id[:8]}-a1",
            "timestamp": "2025-01-01T10:00:05Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]},
        },
    ]
    path = folder / f"{session_id}.jsonl"
    # json.dumps escapes the lone surrogate as `\ud83d`, as Node's JSON.stringify writes it.
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def same_work(got: Session, want: Session) -> None:
    """The session read from a damaged copy keeps every message and edit of the original (Codex message ids
    are record ordinals, so an inserted record shifts them: compared by content)."""
    assert got.session_id == want.session_id
    assert [(m.role, m.parts) for m in got.messages] == [(m.role, m.parts) for m in want.messages]
    assert [(e.path, e.tool, e.added) for e in got.edits] == [(e.path, e.tool, e.added) for e in want.edits]


# --- item 3: a lone surrogate ------------------------------------------------------------------------------


def test_a_lone_surrogate_breaks_no_command(repo: Path, isolated_env: Path) -> None:
    claude_transcript(isolated_env, repo, SID, "please fix the parser \ud83d", "parser fixed \ud83d")
    claude_transcript(isolated_env, repo, OTHER, "rename the tokenizer", "tokenizer renamed")
    outputs = {}
    for args in (
        ("show", SID),
        ("show", f"{SID}:{SID[:8]}-u1", "--json"),
        ("context", SID),
        ("index",),
        ("search", "parser", "--json"),
        ("search", "tokenizer", "--json"),
        ("sessions",),
    ):
        proc = run_cli(*args, cwd=repo)
        assert (proc.returncode, proc.stderr) == (0, ""), args
        outputs[args[0] if args[0] != "search" else args[1]] = outputs.get(args[0], "") + proc.stdout
    assert outputs["show"].count("parser \ufffd") >= 2 and "parser \ufffd" in outputs["context"]
    assert {h["message_id"] for h in json.loads(outputs["parser"])} == {f"{SID[:8]}-u1", f"{SID[:8]}-a1"}
    assert json.loads(outputs["tokenizer"])[0]["session_id"] == OTHER  # one bad file breaks no other's search


def test_surrogate_pairs_stay_whole_and_lone_halves_are_mended(tmp_path: Path) -> None:
    path = claude_transcript(
        tmp_path, tmp_path / "w", SID, "a whole pair \U0001f600 and a cut \ud83d", "a low half \ude00 alone"
    )
    from git_intent.sessions.discovery import read_transcript

    (session,) = read_transcript(path)
    assert [m.text for m in session.messages] == [
        "a whole pair \U0001f600 and a cut \ufffd",
        "a low half \ufffd alone",
    ]
    json.dumps(to_json(session), ensure_ascii=False).encode("utf-8")


# --- item 4: fields of the wrong type ----------------------------------------------------------------------


def codex_with(tmp_path: Path, bad: dict[str, Any]) -> tuple[Session, Session]:
    """The real rollout read as it is, and with `bad` inserted after its fifth record."""
    source = corpus(*CODEX_ROLLOUT)
    lines = lines_of(source)
    path = tmp_path / source.name
    path.write_text("".join([*lines[:5], json.dumps(bad) + "\n", *lines[5:]]), encoding="utf-8")
    return codex.read(path)[0], codex.read(source)[0]


@pytest.mark.parametrize(
    "payload",
    [
        {"type": {}},
        {"type": "function_call", "name": ["replace"], "call_id": {}, "arguments": 5},
        {"type": "message", "role": "assistant", "content": 5},
        {"type": "custom_tool_call", "name": {}, "input": ["*** Begin Patch"]},
        {"type": ["reasoning"], "summary": 5},
    ],
)
def test_codex_record_of_the_wrong_type_is_skipped_not_the_session(
    tmp_path: Path, payload: dict[str, Any]
) -> None:
    got, want = codex_with(
        tmp_path, {"timestamp": "2026-04-30T08:09:20Z", "type": "response_item", "payload": payload}
    )
    assert len(want.edits) == 4
    assert [(e.path, e.tool, e.added) for e in got.edits] == [(e.path, e.tool, e.added) for e in want.edits]
    assert got.session_id == want.session_id and got.stats.records == want.stats.records + 1


def test_codex_event_of_the_wrong_type_is_counted(tmp_path: Path) -> None:
    got, want = codex_with(
        tmp_path,
        {"timestamp": "2026-04-30T08:09:20Z", "type": "event_msg", "payload": {"type": {}, "message": 5}},
    )
    same_work(got, want)
    assert got.stats.unreadable == want.stats.unreadable + 1


GEMINI_BAD = [  # (record, whether it is unreadable as a whole: counted)
    ({"id": "bad-1", "timestamp": "2026-04-29T21:39:40.000Z", "type": {}, "content": "x"}, True),
    (
        {
            "id": "bad-2",
            "timestamp": "2026-04-29T21:39:40.000Z",
            "type": "gemini",
            "content": 5,
            "thoughts": 5,
            "toolCalls": [{"name": ["replace"], "args": {"file_path": 5}, "status": "success"}, 5],
        },
        False,
    ),
    (
        {
            "id": "bad-3",
            "timestamp": "2026-04-29T21:39:40.000Z",
            "type": "user",
            "content": 5,
            "displayContent": {},
        },
        False,
    ),
    ({"$set": 5}, True),
    ({"$rewindTo": {}}, True),
]


@pytest.mark.parametrize(("bad", "counted"), GEMINI_BAD, ids=[str(i) for i in range(len(GEMINI_BAD))])
def test_gemini_record_of_the_wrong_type_is_skipped_not_the_session(
    tmp_path: Path, bad: dict[str, Any], counted: bool
) -> None:
    source = corpus("transcripts", "gemini", "git-ai__gemini-session-simple.jsonl")
    lines = lines_of(source)
    path = tmp_path / source.name
    path.write_text("".join([*lines[:2], json.dumps(bad) + "\n", *lines[2:]]), encoding="utf-8")
    assert gemini_cli.sniff(path)
    (got,), (want,) = gemini_cli.read(path), gemini_cli.read(source)
    assert got.session_id == want.session_id and len(want.edits) == 2
    assert [(e.path, e.added) for e in got.edits] == [(e.path, e.added) for e in want.edits]
    assert {m.message_id for m in want.messages} <= {m.message_id for m in got.messages}
    assert (sum(got.stats.unknown_types.values()) + got.stats.unreadable > 0) is counted


@pytest.mark.parametrize(
    "part",
    [
        {"type": {}, "id": "prt-bad", "messageID": "msg-assistant-001"},
        {
            "type": "tool",
            "id": "prt-bad",
            "tool": ["edit"],
            "state": {"status": "completed", "input": {"content": 5}},
        },
        {
            "type": "tool",
            "id": "prt-bad",
            "tool": "write",
            "state": {"status": "completed", "input": 5, "metadata": 5},
        },
        {"type": "text", "id": "prt-bad", "text": {"a": 1}},
    ],
)
def test_opencode_part_of_the_wrong_type_is_skipped_not_the_session(
    tmp_path: Path, part: dict[str, Any]
) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(corpus("transcripts", "opencode", "synthetic__opencode-storage"), storage)
    (want,) = opencode.read(storage)
    (storage / "part" / "msg-assistant-001" / "prt-999.json").write_text(json.dumps(part), encoding="utf-8")
    (got,) = opencode.read(storage)
    assert [m.message_id for m in got.messages] == [m.message_id for m in want.messages]
    assert all(set(w.parts) <= set(g.parts) for g, w in zip(got.messages, want.messages, strict=True))
    assert [(e.path, e.tool, e.added) for e in got.edits] == [(e.path, e.tool, e.added) for e in want.edits]


def test_cursor_record_of_the_wrong_type_is_skipped_not_the_session(tmp_path: Path) -> None:
    source = corpus("transcripts", "cursor", "git-ai__cursor-session-simple.jsonl")
    lines = lines_of(source)
    path = tmp_path / source.name
    bad = {
        "role": "assistant",
        "message": {
            "content": [
                {"type": "tool_use", "name": "Write", "input": {"path": {}}},
                {"type": "text", "text": 5},
                5,
            ]
        },
    }
    path.write_text("".join([*lines[:3], json.dumps(bad) + "\n", *lines[3:]]), encoding="utf-8")
    (got,), (want,) = cursor.read(path), cursor.read(source)
    assert [(e.path, e.added) for e in got.edits] == [(e.path, e.added) for e in want.edits]

    # Its tool call is still a readable part, so the record adds one message; the others all stand (their ids
    # are record ordinals, so compared by content).
    def content(messages: list[Any]) -> list[Any]:
        return [[(p.kind, p.tool, p.text) for p in m.parts] for m in messages]

    assert content([m for m in got.messages if m.parts[0].tool != "Write"]) == content(want.messages)


@pytest.mark.slow
def test_one_bad_record_does_not_drop_a_discovered_session(repo: Path, isolated_env: Path) -> None:
    """As first found: a real rollout, found by discovery, plus one `"type": {}` record: 45/45 lines, not
    0."""
    from support.transcript_replay import commit_replayed, rebuild_codex, write_replayed

    source = corpus(*CODEX_ROLLOUT)
    recorded = "/Users/soph/Work/entire/devenv/gitsync"
    # Where Codex keeps rollouts, naming this work tree as the session's cwd (discovery looks for it).
    rollout = (
        isolated_env
        / ".codex"
        / "sessions"
        / "2026"
        / "04"
        / "30"
        / f"rollout-2026-04-30T08-09-{CODEX_ID}.jsonl"
    )
    rollout.parent.mkdir(parents=True)
    lines = [line.replace(recorded, str(repo)) for line in lines_of(source)]
    bad = json.dumps({"timestamp": "2026-04-30T08:09:20Z", "type": "response_item", "payload": {"type": {}}})
    rollout.write_text("".join([*lines[:5], bad + "\n", *lines[5:]]), encoding="utf-8")
    rebuild = rebuild_codex(rollout)
    from datetime import datetime, timedelta

    write_replayed(repo, rebuild.pre, str(repo))
    commit_replayed(repo, "baseline", datetime.fromisoformat(rebuild.first_edit_at) - timedelta(hours=1))
    write_replayed(repo, rebuild.post, str(repo))
    commit_replayed(
        repo,
        "even more general url validation",
        datetime.fromisoformat(rebuild.last_edit_at) + timedelta(minutes=1),
    )
    os.utime(rollout)  # written since the parent commit, as a live session's rollout is
    result = json.loads(run_cli("record", "HEAD", "--json", cwd=repo).stdout)
    assert (result["lines_added"], result["lines_attributed"]) == (45, 45)
    assert result["sessions"] == {f"codex:{CODEX_ID}": 45}


# --- item 5: deeply nested and resync-heavy lines ----------------------------------------------------------

NASTY_LINES = {
    "nested objects": '{"a":' * 120_000,
    "nested arrays": '{"a":[' * 100_000,
    "torn record of complete objects": '{"a":{"b":1},' * 50_000,
    "a quote after every brace": '{"' * 300_000,
    "objects in an unterminated string": '{"a":"' + '{"x":1}a' * 80_000,
}


@pytest.mark.parametrize("name", sorted(NASTY_LINES))
def test_a_nasty_line_costs_time_linear_in_its_length(tmp_path: Path, name: str) -> None:
    source = corpus(*CODEX_ROLLOUT)
    lines = lines_of(source)
    path = tmp_path / source.name
    nasty = NASTY_LINES[name] + "\n"
    path.write_text("".join([*lines[:3], nasty, *lines[3:]]), encoding="utf-8")
    started = time.perf_counter()
    (got,) = codex.read(path)
    elapsed = time.perf_counter() - started
    # Before: 33-300 s for these ~600 KB lines. A linear reader takes well under a second; the bound is loose
    # because the test machine is shared.
    assert elapsed < 5, f"{name}: {elapsed:.1f} s for {len(nasty)} characters"
    same_work(got, codex.read(source)[0])
    assert got.stats.unreadable >= 1


# --- item 7: the session id of a damaged session_meta ------------------------------------------------------


def test_a_damaged_session_meta_takes_the_id_from_the_rollout_name(tmp_path: Path) -> None:
    lines = lines_of(corpus(*CODEX_ROLLOUT))
    name = f"rollout-2026-04-30T08-09-06-{CODEX_ID}.jsonl"
    for damaged in (lines[0][:200] + "\n", lines[0].replace(f'"id":"{CODEX_ID}"', '"id":{}')):
        path = tmp_path / name
        path.write_text(damaged + "".join(lines[1:]), encoding="utf-8")
        (session,) = codex.read(path)
        assert session.session_id == CODEX_ID
    plain = tmp_path / "copied-by-hand.jsonl"
    plain.write_text(lines[0][:200] + "\n" + "".join(lines[1:]), encoding="utf-8")
    assert codex.read(plain)[0].session_id == "copied-by-hand"  # no id anywhere: the file's name


# --- item 4: a corrupt OpenCode store ----------------------------------------------------------------------


def test_a_corrupt_opencode_store_is_reported_and_skipped(repo: Path, isolated_env: Path) -> None:
    claude_transcript(isolated_env, repo, SID, "rename the tokenizer", "tokenizer renamed")
    store = isolated_env / ".local" / "share" / "opencode" / "opencode.db"
    store.parent.mkdir(parents=True)
    shutil.copyfile(corpus("transcripts", "opencode", "synthetic__opencode-sqlite", "opencode.db"), store)
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE session SET directory = ?", (str(repo),))
        (page_size,), (root,) = (
            conn.execute("PRAGMA page_size").fetchone(),
            conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'part'").fetchone(),
        )
    data = bytearray(store.read_bytes())
    data[(root - 1) * page_size : root * page_size] = (
        b"\xff" * page_size
    )  # the `part` table's page: "malformed"
    store.write_bytes(bytes(data))
    proc = run_cli("index", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        f"warning: The OpenCode store {store} is damaged (database disk image is malformed); its sessions "
        "are skipped."
    ]
    assert json.loads(proc.stdout)["sessions"] == 1  # the Claude Code session stands
    assert json.loads(run_cli("search", "tokenizer", "--json", cwd=repo).stdout)[0]["session_id"] == SID


# --- item 9: a corrupt index.db ----------------------------------------------------------------------------


def damage_header(path: Path) -> None:
    path.write_bytes(b"this is not a database\n" * 3)


def damage_pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[4096:] = bytes((i * 7) & 0xFF for i in range(4096, len(data)))  # the schema page survives
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("damage", "command"),
    [
        (damage_header, ("index",)),
        (damage_pages, ("index", "--rebuild")),
        (damage_pages, ("search", "tokenizer")),
        (damage_header, ("search", "tokenizer")),
    ],
    ids=["header-index", "pages-rebuild", "pages-search", "header-search"],
)
def test_a_corrupt_index_is_set_aside_and_rebuilt(
    repo: Path, isolated_env: Path, damage: Any, command: tuple[str, ...]
) -> None:
    claude_transcript(isolated_env, repo, SID, "rename the tokenizer", "tokenizer renamed")
    assert run_cli("index", cwd=repo).returncode == 0
    state = repo / ".git" / "intent"
    git(repo, "config", "core.abbrev", "12")  # any change: the index is rebuilt from the transcripts anyway
    for leftover in state.glob("index.db-*"):
        leftover.unlink()  # a checkpointed index: the damage is in index.db itself
    damage(state / "index.db")
    proc = run_cli(*command, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    (warning,) = proc.stderr.splitlines()
    assert warning.startswith(f"warning: The index {state / 'index.db'} was damaged (")
    assert warning.endswith("and is being rebuilt.")
    aside = [p.name for p in state.glob("index.db.damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1 and aside[0] in warning
    hits = json.loads(run_cli("search", "tokenizer", "--json", cwd=repo).stdout)
    assert [h["session_id"] for h in hits][:1] == [SID]
    again = run_cli(*command, cwd=repo)
    assert (again.returncode, again.stderr) == (0, "")
