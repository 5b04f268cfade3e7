"""Entire checkpoints: trailers on code commits and checkpoint trees, in real repositories built in tmp from
the checkpoint folders of fixtures/linked/{entire-cli,git-sync} and the commits their links.json describe.

The expected figures are the corpus's own: session ids and agents from each session's metadata.json,
transcript sizes from links.json and from the files, hashes from content_hash.txt.
"""

from __future__ import annotations

import json
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from support import corpus, corpus_files, git, set_ref, write_tree

from git_intent.core.values import ParseStats
from git_intent.git.repo import Repository
from git_intent.peers.entire import (
    Checkpoint,
    agent_for_label,
    checkpoint_refs,
    checkpoint_trailers,
    read_checkpoints,
)

SOURCES = ("entire-cli", "git-sync")
BRANCH_REF = "refs/heads/entire/checkpoints/v1"

# (checkpoint id, session index, Entire session id, agent, Entire label, created_at, transcript bytes)
SESSIONS = [
    (
        "8ece5fc12e98",
        0,
        "2026-01-28-cc432c40-914a-4c1a-a972-0103199a736a",
        "claude-code",
        "Claude Code",
        "2026-01-28T02:49:17.325371+00:00",
        88665,
    ),
    (
        "8feaf84a600f",
        0,
        "019ddd6f-3680-7fb3-8f93-e567af97d303",
        "codex",
        "Codex",
        "2026-04-30T08:21:45.233108+00:00",
        143619,
    ),
    (
        "ab2b9748b105",
        0,
        "2026-01-15-f7633853-6663-4dbb-bbf4-6159afa29df8",
        "gemini-cli",
        None,
        "2026-01-15T12:52:56.484206-08:00",
        33347,
    ),
    (
        "ac3f02a3c337",
        0,
        "2026-01-22-0a0314fb-b206-450f-b895-cd5181a28ae5",
        "claude-code",
        "Claude Code",
        "2026-01-22T21:00:24.075805+01:00",
        88938,
    ),
    (
        "ac3f02a3c337",
        2,
        "2026-01-22-1ed1f046-f456-4f14-9c74-bb83179cf809",
        "claude-code",
        "Claude Code",
        "2026-01-22T20:44:04.904145+01:00",
        136733,
    ),
]


def links(source: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(corpus("linked", source, "links.json").read_text())
    return data


@pytest.fixture
def entire_repo(repo: Path) -> tuple[Path, dict[str, str]]:
    """The test repo with the corpus checkpoints on `entire/checkpoints/v1`, and one code commit per
    links.json commit (message: subject and trailers): the commits reachable from the source's default
    branch on main, the pre-rebase copies on branch `pre-rebase`. Returns the repo and {source sha: our
    sha}."""
    commits = [c for source in SOURCES for link in links(source)["links"] for c in link["commits"]]
    commits.sort(key=lambda c: datetime.fromisoformat(c["author_date"]))
    ours: dict[str, str] = {}
    root = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "branch", "pre-rebase", root)
    for reachable, branch in ((True, "main"), (False, "pre-rebase")):
        git(repo, "checkout", "-q", branch)
        for commit in (c for c in commits if c["reachable_from_default_branch_HEAD"] is reachable):
            message = commit["subject"] + "\n\n" + "\n".join(commit["trailers"]) + "\n"
            git(repo, "commit", "-q", "--allow-empty", "-m", message)
            ours[commit["sha"]] = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    # Entire's own commit on the checkpoints branch must not count as a code commit, trailer or not.
    set_ref(
        repo,
        BRANCH_REF,
        write_tree(repo, corpus_files()),
        "Checkpoint: 8ece5fc12e98\n\nEntire-Checkpoint: 8ece5fc12e98\n",
    )
    return repo, ours


def expected_trailers(ours: dict[str, str], reachable_only: bool = False) -> dict[str, list[str]]:
    return {
        ours[c["sha"]]: [t.split(": ", 1)[1] for t in c["trailers"]]
        for source in SOURCES
        for link in links(source)["links"]
        for c in link["commits"]
        if c["reachable_from_default_branch_HEAD"] or not reachable_only
    }


def test_trailers_map_commits_to_checkpoints(entire_repo: tuple[Path, dict[str, str]]) -> None:
    path, ours = entire_repo
    repo = Repository(path)
    found = checkpoint_trailers(repo)
    assert found == expected_trailers(ours)
    assert len(found) == 7
    # One checkpoint, four commits: two on main and their pre-rebase copies.
    assert sum(ids == ["ac3f02a3c337"] for ids in found.values()) == 4
    on_main = checkpoint_trailers(repo, "main")
    assert on_main == expected_trailers(ours, reachable_only=True) and len(on_main) == 5
    assert list(on_main) == git(path, "rev-list", "main").split()[:5]  # newest first


def test_trailer_rules(repo: Path) -> None:
    """Only the last paragraph holds trailers; keys are case-insensitive; several values per commit; junk is
    ignored."""
    messages = {
        "two": "two\n\nbody\n\nentire-checkpoint: 8ece5fc12e98\nCo-Authored-By: A <a@b>\nEntire-Checkpoint: "
        "ac3f02a3c337\n",
        "body": "body\n\nEntire-Checkpoint: 8ece5fc12e98\n\nJust text.\n",
        "junk": "junk\n\nEntire-Checkpoint: not-an-id\n",
        "ulid": "ulid\n\nEntire-Checkpoint: 01KVBJCWYA4YW6J5M9GP655HZN\n",
    }
    shas = {}
    for name, message in messages.items():
        git(repo, "commit", "-q", "--allow-empty", "-m", message)
        shas[name] = git(repo, "rev-parse", "HEAD").strip()
    assert checkpoint_trailers(Repository(repo)) == {
        shas["ulid"]: ["01KVBJCWYA4YW6J5M9GP655HZN"],
        shas["two"]: ["8ece5fc12e98", "ac3f02a3c337"],
    }


def own_session_id(transcript: Path) -> str:
    """The agent's session id as its transcript records it (Claude `sessionId`, Codex
    `session_meta.payload.id`, Gemini CLI's legacy JSON `sessionId`)."""
    text = transcript.read_text(encoding="utf-8")
    if text.startswith("{\n"):
        return str(json.loads(text)["sessionId"])
    for line in text.splitlines():
        record = json.loads(line)
        if record.get("type") == "session_meta":
            return str(record["payload"]["id"])
        if "sessionId" in record:
            return str(record["sessionId"])
    raise AssertionError(f"no session id in {transcript}")


def check_corpus_checkpoints(checkpoints: list[Checkpoint], ref: str) -> None:
    by_id = {c.checkpoint_id: c for c in checkpoints}
    assert sorted(by_id) == ["8ece5fc12e98", "8feaf84a600f", "ab2b9748b105", "ac3f02a3c337"]
    got = [
        (
            c.checkpoint_id,
            s.index,
            s.session_id,
            s.agent,
            s.agent_label,
            s.created_at.isoformat() if s.created_at else None,
            s.transcript_size,
        )
        for c in sorted(checkpoints, key=lambda c: c.checkpoint_id)
        for s in c.sessions
    ]
    assert got == SESSIONS
    for checkpoint in checkpoints:
        source = "git-sync" if checkpoint.checkpoint_id == "8feaf84a600f" else "entire-cli"
        link = next(x for x in links(source)["links"] if x["checkpoint_id"] == checkpoint.checkpoint_id)
        folder = corpus("linked", source, link["checkpoint_dir"])
        meta = json.loads((folder / "metadata.json").read_text())
        assert checkpoint.ref == ref and checkpoint.folder == link["checkpoint_dir"].removeprefix(
            "checkpoints/"
        )
        assert (checkpoint.strategy, checkpoint.branch or "") == (meta["strategy"], meta["branch"])
        assert list(checkpoint.files_touched) == meta["files_touched"]
        sizes = dict(map(tuple, link["files"]))
        for session in checkpoint.sessions:
            transcript = folder / str(session.index) / "full.jsonl"
            session_meta = json.loads((folder / str(session.index) / "metadata.json").read_text())
            assert (
                session.transcript_size == sizes[f"{session.folder}/full.jsonl"] == transcript.stat().st_size
            )
            assert session.transcript_bytes() == transcript.read_bytes()
            assert session.session_id == session_meta["session_id"]
            assert session.agent_session_id == own_session_id(transcript)
            assert list(session.files_touched) == (session_meta["files_touched"] or [])
            assert session.supported
            hash_file = folder / str(session.index) / "content_hash.txt"
            assert session.content_hash_matches() is (True if hash_file.exists() else None)


def test_checkpoints_on_the_local_branch(entire_repo: tuple[Path, dict[str, str]]) -> None:
    path, _ = entire_repo
    stats = ParseStats()
    checkpoints = read_checkpoints(Repository(path), stats=stats)
    check_corpus_checkpoints(checkpoints, BRANCH_REF)
    assert (stats.records, stats.unreadable) == (4, 0)
    session = next(c for c in checkpoints if c.checkpoint_id == "8ece5fc12e98").sessions[0]
    assert session.agent_session_id == "cc432c40-914a-4c1a-a972-0103199a736a"
    assert (session.transcript_lines_at_start, session.transcript_identifier_at_start) == (
        15,
        "0947f221-56bd-4eaf-99fe-bf7fc0e6d391",
    )
    codex = next(c for c in checkpoints if c.checkpoint_id == "8feaf84a600f").sessions[0]
    assert (codex.model, codex.agent_session_id) == ("gpt-5.4", "019ddd6f-3680-7fb3-8f93-e567af97d303")
    gemini = next(c for c in checkpoints if c.checkpoint_id == "ab2b9748b105")
    assert (gemini.branch, gemini.files_touched, gemini.sessions[0].files_touched) == (None, (), ())


def test_transcripts_read_with_the_adapters(entire_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """The stored transcript parses into the agent's own session, whose id is the date-less Entire id."""
    checkpoints = read_checkpoints(Repository(entire_repo[0]))
    for checkpoint in checkpoints:
        for session in checkpoint.sessions:
            parsed = session.read_sessions(tmp_path / checkpoint.checkpoint_id)
            if session.agent == "gemini-cli" and not parsed:
                continue  # no Gemini CLI adapter registered (yet)
            assert [(s.agent, s.session_id) for s in parsed] == [(session.agent, session.agent_session_id)]


def test_remote_tracking_branch_of_a_clone(entire_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, ours = entire_repo
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", path.as_uri(), str(clone)], check=True)
    repo = Repository(clone)
    assert checkpoint_refs(repo) == ["refs/remotes/origin/entire/checkpoints/v1"]
    check_corpus_checkpoints(read_checkpoints(repo), "refs/remotes/origin/entire/checkpoints/v1")
    assert checkpoint_trailers(repo) == expected_trailers(ours)


def test_per_checkpoint_ref(entire_repo: tuple[Path, dict[str, str]]) -> None:
    """`refs/entire/checkpoints/<shard>/<id>`: a commit whose tree root is the checkpoint folder."""
    path, _ = entire_repo
    tree = git(path, "rev-parse", f"{BRANCH_REF}:8e/ce5fc12e98").strip()
    set_ref(path, "refs/entire/checkpoints/98/8ece5fc12e98", tree, "Checkpoint: 8ece5fc12e98")
    repo = Repository(path)
    assert checkpoint_refs(repo) == ["refs/entire/checkpoints/98/8ece5fc12e98", BRANCH_REF]
    assert len(read_checkpoints(repo)) == 4  # found on both refs, read once
    git(path, "update-ref", "-d", BRANCH_REF)
    (checkpoint,) = read_checkpoints(repo)
    assert (checkpoint.checkpoint_id, checkpoint.ref, checkpoint.folder) == (
        "8ece5fc12e98",
        "refs/entire/checkpoints/98/8ece5fc12e98",
        "",
    )
    (session,) = checkpoint.sessions
    assert (session.folder, session.session_id, session.transcript_size) == (
        "0",
        "2026-01-28-cc432c40-914a-4c1a-a972-0103199a736a",
        88665,
    )
    assert session.content_hash_matches() is True


def test_malformed_checkpoints_are_skipped_and_counted(repo: Path) -> None:
    claude_line = b'{"type":"user","sessionId":"s-1","message":{"role":"user","content":"hi"}}'
    meta = {
        "checkpoint_id": "123456789abc",
        "strategy": "manual-commit",
        "branch": "b",
        "files_touched": ["a.py"],
    }
    files = {
        "README.md": b"# checkpoints\n",
        "zz/notacheckpoint/metadata.json": b"{torn",  # no readable metadata, no id in the path
        "fe/dcba98765432/0/metadata.json": json.dumps({"session_id": "lost", "agent": "Codex"}).encode(),
        "12/3456789abc/metadata.json": json.dumps(meta).encode(),
        "12/3456789abc/0/metadata.json": b"[1, 2]",
        "12/3456789abc/1/metadata.json": json.dumps(
            {"session_id": "2026-02-01-s-1", "agent": "Agent"}
        ).encode(),
        "12/3456789abc/1/full.jsonl": claude_line,
        "12/3456789abc/1/full.jsonl.001": claude_line + b"\n",
        "12/3456789abc/1/full.jsonl.123abcdef0123456.tmp": b"leftover of an interrupted write",
        "12/3456789abc/2/metadata.json": json.dumps(
            {"session_id": "c-2", "agent": "Copilot CLI", "created_at": "2026-02-01T10:00:00"}
        ).encode(),
        "12/3456789abc/2/full.log": b"legacy transcript",
        "12/3456789abc/tasks/toolu_1/checkpoint.json": b"{}",
        "ab/cdef01234567/metadata.json": json.dumps(
            {"strategy": "auto-commit", "files_touched": "x"}
        ).encode(),
    }
    set_ref(repo, BRANCH_REF, write_tree(repo, files), "Checkpoint")
    stats = ParseStats()
    checkpoints = read_checkpoints(Repository(repo), stats=stats)
    # Folders seen: 12/, ab/, fe/, zz/. Skipped: fe/ (no checkpoint metadata) and zz/ (torn metadata, no id in
    # its path), and session 0 of 12/ (metadata not an object).
    assert (stats.records, stats.unreadable) == (4, 3)
    assert [(c.checkpoint_id, c.folder, len(c.sessions)) for c in checkpoints] == [
        ("123456789abc", "12/3456789abc", 2),
        ("cdef01234567", "ab/cdef01234567", 0),
    ]
    assert checkpoints[1].files_touched == ()
    checkpoint = checkpoints[0]
    assert (checkpoint.strategy, checkpoint.branch, checkpoint.files_touched) == (
        "manual-commit",
        "b",
        ("a.py",),
    )
    chunked, copilot = checkpoint.sessions
    assert (chunked.index, chunked.agent, chunked.agent_label, chunked.supported) == (
        1,
        "claude-code",
        "Agent",
        True,
    )
    assert chunked.agent_session_id == "s-1"
    assert chunked.transcript_bytes() == claude_line + b"\n" + claude_line + b"\n"
    assert chunked.transcript_size == len(chunked.transcript_bytes())
    assert chunked.content_hash_matches() is None
    assert (copilot.index, copilot.agent, copilot.supported, copilot.transcript_file) == (
        2,
        "Copilot CLI",
        False,
        "full.log",
    )
    assert copilot.created_at is not None and copilot.created_at.isoformat() == "2026-02-01T10:00:00+00:00"
    assert copilot.transcript_bytes() == b"legacy transcript"


def test_per_checkpoint_ref_without_metadata_is_counted(repo: Path) -> None:
    tree = write_tree(repo, {"0/metadata.json": b'{"session_id": "x"}', "0/full.jsonl": b"{}"})
    set_ref(repo, "refs/entire/checkpoints/bc/0123456789bc", tree, "Checkpoint")
    stats = ParseStats()
    assert read_checkpoints(Repository(repo), stats=stats) == []
    assert (stats.records, stats.unreadable) == (1, 1)


def test_no_checkpoints(repo: Path) -> None:
    stats = ParseStats()
    assert read_checkpoints(Repository(repo), stats=stats) == [] and stats.records == 0
    assert read_checkpoints(Repository(repo), "refs/heads/nothing") == []
    assert checkpoint_trailers(Repository(repo)) == {}


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Claude Code", ("claude-code", True)),
        ("Codex", ("codex", True)),
        ("Gemini CLI", ("gemini-cli", True)),
        ("Cursor", ("cursor", True)),
        ("OpenCode", ("opencode", True)),
        ("claude code", ("claude-code", True)),
        ("Copilot CLI", ("Copilot CLI", False)),
        ("Factory AI Droid", ("Factory AI Droid", False)),
    ],
)
def test_agent_labels(label: str, expected: tuple[str, bool]) -> None:
    assert agent_for_label(label) == expected
