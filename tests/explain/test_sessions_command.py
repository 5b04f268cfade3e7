"""`git intent sessions` lists this repository's sessions with their commits, and none of another's."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from conftest import git, run_cli
from support import ClaudeSession, Clock


def test_sessions_lists_this_repositorys_sessions_and_their_commits(repo: Path, tmp_path: Path) -> None:
    root = repo.resolve()
    start = datetime.now(timezone.utc) - timedelta(minutes=30)
    mine = ClaudeSession(cwd=root, clock=Clock(start))
    mine.prompt("Add a helper")
    mine.write("Writing it.", root / "helper.py", "def helper_function(value):\n    return value * 3\n")
    mine.save()
    other_root = tmp_path / "other"
    other_root.mkdir()
    theirs = ClaudeSession(cwd=other_root, clock=Clock(start))
    theirs.prompt("Elsewhere")
    theirs.write("Writing there.", other_root / "x.py", "x = 1\n")
    theirs.save()
    git(root, "add", "helper.py")
    git(root, "commit", "-q", "-m", "helper")
    sha = git(root, "rev-parse", "HEAD").strip()
    assert run_cli("record", cwd=root).returncode == 0
    proc = run_cli("sessions", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert [
        (s["agent"], s["session_id"], s["commits"], s["files"], s["messages"], s["edits"]) for s in listed
    ] == [("claude-code", mine.session_id, [sha], ["helper.py"], 3, 1)]
    text = run_cli("sessions", cwd=root).stdout
    assert mine.session_id in text and sha[:12] in text
    assert json.loads(run_cli("sessions", "--agent", "codex", "--json", cwd=root).stdout) == []


def test_sessions_reads_each_transcript_once_per_version_and_lists_what_a_full_parse_would(
    repo: Path, reads: list[Path]
) -> None:
    """The listing comes from the record cache: a second call parses nothing, a grown transcript
    is parsed again, and every field equals what parsing every transcript gives."""
    from git_intent.explain.session_list import list_sessions
    from git_intent.git.repo import Repository
    from git_intent.sessions.discovery import candidate_sessions

    root = repo.resolve()
    start = datetime.now(timezone.utc) - timedelta(minutes=30)
    session = ClaudeSession(cwd=root, clock=Clock(start))
    session.prompt("Add a helper")
    session.write("Writing it.", root / "helper.py", "def helper_function(value):\n    return value * 3\n")
    session.save()
    opened = Repository(root)
    first = list_sessions(opened)
    assert len(reads) == 1
    assert list_sessions(opened) == first and len(reads) == 1
    session.prompt("And a second one")
    session.write("Writing it.", root / "second.py", "def second_function(value):\n    return value * 4\n")
    session.save()
    grown = list_sessions(opened)
    assert len(reads) == 2
    whole = [s for s in candidate_sessions(opened, None) if s.session_id == session.session_id][0]
    [listed] = grown
    assert (listed.messages, listed.edits, listed.files, listed.started_at, listed.ended_at) == (
        len(whole.messages),
        len(whole.edits),
        ["helper.py", "second.py"],
        whole.started_at,
        whole.ended_at,
    )


def test_a_transcript_out_of_the_look_back_stays_cached_across_a_record(
    repo: Path, reads: list[Path]
) -> None:
    """`record` looks only at its look-back; it used to forget every older transcript, so the next `sessions`
    parsed them all again."""
    import os

    from git_intent.capture.record import record_commit
    from git_intent.explain.session_list import list_sessions
    from git_intent.git.repo import Repository

    root = repo.resolve()
    old = ClaudeSession(cwd=root, clock=Clock(datetime.now(timezone.utc) - timedelta(days=40)))
    old.prompt("Add a helper")
    old.write("Writing it.", root / "helper.py", "def helper_function(value):\n    return value * 3\n")
    path = old.save()
    stamp = (datetime.now(timezone.utc) - timedelta(days=40)).timestamp()
    os.utime(path, (stamp, stamp))
    opened = Repository(root)
    assert [s.session_id for s in list_sessions(opened)] == [old.session_id]
    assert len(reads) == 1
    (root / "other.txt").write_text("a person's line\n")
    git(root, "add", "other.txt")
    git(root, "commit", "-q", "-m", "by hand")
    record_commit(opened)
    assert [s.session_id for s in list_sessions(opened)] == [old.session_id]
    assert len(reads) == 1
