"""The record cache: each transcript parsed once per version, the same credits as parsing every
file, invalidation on change, growth and replacement, and a damaged or unusable cache never stopping a
record. Also: the local diff of an edit gives exactly the whole-file diff's lines on every fixture."""

from __future__ import annotations

import difflib
import os
import stat
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS
from support import A_PY, B_PY, ClaudeSession, Clock, commit_at, fixture_transcripts

from git_intent.adapters import claude_code
from git_intent.capture.attribute import LineCredit
from git_intent.capture.edit_cache import CACHE_NAME, RecordCache
from git_intent.capture.record import attribute_commit, record_commit
from git_intent.core.values import AddedLine
from git_intent.git.repo import Repository
from git_intent.sessions.discovery import candidate_sessions, read_transcript
from git_intent.transcripts import patches

# Every module that imported text_diff_added by name (they call it as a global of their own).
_DIFF_USERS = (
    "git_intent.adapters.claude_code",
    "git_intent.transcripts.edits",
    "git_intent.transcripts.genai",
    "git_intent.adapters.gemini_cli.messages",
    "git_intent.adapters.aider.replies",
    "git_intent.adapters.opencode.messages",
)


def whole_file_diff(before: str, after: str, *, numbered: bool = True) -> list[AddedLine]:
    """text_diff_added as it was before its trimming: difflib over the whole texts."""
    old, new = before.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    return [
        AddedLine(text=new[j], line=j + 1 if numbered else None)
        for tag, _a, _b, j1, j2 in matcher.get_opcodes()
        if tag in ("insert", "replace")
        for j in range(j1, j2)
    ]


def edits_of(path: Path) -> list[tuple[Any, ...]]:
    return [
        (s.session_id, e.path, e.message_id, e.call_id, e.tool, e.added)
        for s in read_transcript(path)
        for e in s.edits
    ]


@pytest.mark.parametrize("path", list(fixture_transcripts()), ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_fixture_edit_adds_the_lines_the_whole_file_diff_adds(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = edits_of(path)
    import importlib

    for name in _DIFF_USERS:
        monkeypatch.setattr(importlib.import_module(name), "text_diff_added", whole_file_diff)
    assert local == edits_of(path)


def test_the_local_diff_is_taken_for_real_claude_edits() -> None:
    """The equality above is not vacuous: most fixture Claude Code edits take the trimmed path."""
    taken = total = 0
    real = patches._common_ends
    for path in (CORPUS / "transcripts" / "claude-code").glob("*.jsonl"):
        for session in claude_code.read(path):
            for edit in session.edits:
                if edit.before and edit.after:
                    old, new = edit.before.splitlines(), edit.after.splitlines()
                    total += 1
                    taken += real(old, new) != (0, len(old), len(new))
    assert total >= 20 and taken >= total * 0.8, (taken, total)


def credits(credited: list[LineCredit]) -> list[tuple[Any, ...]]:
    return [
        (
            c.path,
            c.line,
            c.text,
            c.match,
            c.confidence,
            c.credit and (c.credit.session_id, c.credit.edit.message_id),
        )
        for c in credited
    ]


def two_sessions(repo: Path) -> tuple[ClaudeSession, ClaudeSession, datetime]:
    start = datetime.now(timezone.utc) - timedelta(hours=2)
    first = ClaudeSession(cwd=repo, clock=Clock(start))
    first.prompt("Add alpha")
    first.write("Writing alpha.", repo / "a.py", A_PY)
    first.save()
    second = ClaudeSession(cwd=repo, clock=Clock(start + timedelta(minutes=30)))
    second.prompt("Add beta")
    second.write("Writing beta.", repo / "b.py", B_PY)
    second.save()
    return first, second, start


def test_a_transcript_is_parsed_once_and_credits_equal_parsing_every_file(
    repo: Path, reads: list[Path]
) -> None:
    repo = repo.resolve()
    first, second, start = two_sessions(repo)
    sha = commit_at(repo, "alpha and beta", start + timedelta(hours=1), "a.py", "b.py")
    record_commit(Repository(repo), sha)
    assert len(reads) == 2
    record_commit(Repository(repo), sha)  # also reads the backup copies the first record made, once
    assert len(reads) == 4 and all(".opencode" in str(p) for p in reads[2:])
    record_commit(Repository(repo), sha)
    cached = attribute_commit(Repository(repo), sha)
    assert len(reads) == 4  # nothing changed: the cache answered
    whole = candidate_sessions(Repository(repo), start - timedelta(days=8))
    assert credits(cached) == credits(attribute_commit(Repository(repo), sha, sessions=whole))
    assert {c[-1][0] for c in credits(cached) if c[-1]} == {first.session_id, second.session_id}
    mode = stat.S_IMODE((repo / ".git" / "intent" / CACHE_NAME).stat().st_mode)
    assert mode == 0o600
    with RecordCache(Repository(repo)):  # open: SQLite's side files exist only while a connection does
        for suffix in ("-wal", "-shm"):
            companion = repo / ".git" / "intent" / (CACHE_NAME + suffix)
            assert stat.S_IMODE(companion.stat().st_mode) == 0o600


def alpha_recorded(repo: Path) -> tuple[ClaudeSession, Path, datetime]:
    """A session that wrote a.py two hours ago, its transcript, and the start time; its commit recorded."""
    start = datetime.now(timezone.utc) - timedelta(hours=2)
    session = ClaudeSession(cwd=repo, clock=Clock(start))
    session.write("Writing alpha.", repo / "a.py", A_PY)
    transcript = session.save()
    sha = commit_at(repo, "alpha", start + timedelta(minutes=5), "a.py")
    assert record_commit(Repository(repo), sha).lines_attributed == 2
    return session, transcript, start


def test_a_grown_transcript_is_parsed_again(repo: Path, reads: list[Path]) -> None:
    repo = repo.resolve()
    session, transcript, start = alpha_recorded(repo)
    session.clock.now = start + timedelta(minutes=10)
    session.edit("Tuning alpha.", repo / "a.py", "41 + 1", "41 + 2")
    session.save()
    sha = commit_at(repo, "tune", start + timedelta(minutes=15), "a.py")
    assert record_commit(Repository(repo), sha).lines_attributed == 1
    assert [p for p in reads if p == transcript] == [transcript, transcript]


def test_a_replaced_transcript_of_the_same_size_and_time_is_parsed_again(
    repo: Path, reads: list[Path]
) -> None:
    repo = repo.resolve()
    session, transcript, start = alpha_recorded(repo)
    # The same bytes but for one name, written to a new file moved over the old one: a new inode only.
    before = transcript.stat()
    swapped = transcript.read_text(encoding="utf-8").replace("alpha_feature", "gamma_feature")
    other = transcript.with_suffix(".tmp")
    other.write_text(swapped, encoding="utf-8")
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, transcript)
    assert (transcript.stat().st_size, transcript.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    (repo / "a.py").write_text(A_PY.replace("alpha", "gamma"), encoding="utf-8")
    sha = commit_at(repo, "gamma", start + timedelta(minutes=6), "a.py")
    assert record_commit(Repository(repo), sha).lines_attributed == 1  # `def gamma_feature(x):`
    assert [p for p in reads if p == transcript] == [transcript, transcript]


def test_a_damaged_cache_is_rebuilt_with_one_line_in_the_hook_log(repo: Path, reads: list[Path]) -> None:
    repo = repo.resolve()
    _, _, start = two_sessions(repo)
    sha = commit_at(repo, "alpha and beta", start + timedelta(hours=1), "a.py", "b.py")
    expected = record_commit(Repository(repo), sha).lines_attributed
    record_commit(Repository(repo), sha)  # the backup copies are cached too
    cache = repo / ".git" / "intent" / CACHE_NAME
    for suffix in ("-wal", "-shm"):
        cache.with_name(CACHE_NAME + suffix).unlink(missing_ok=True)
    cache.write_bytes(b"this is no SQLite database, but it is long enough to be read as a header" * 100)
    assert record_commit(Repository(repo), sha).lines_attributed == expected == 4
    log = (repo / ".git" / "intent" / "hook.log").read_text(encoding="utf-8").splitlines()
    assert len(log) == 1 and "record cache" in log[0] and "damaged" in log[0]
    assert len(reads) == 8  # the two transcripts and their backup copies parsed again into a new cache
    assert record_commit(Repository(repo), sha).lines_attributed == expected
    assert len(reads) == 8
    assert len((repo / ".git" / "intent" / "hook.log").read_text(encoding="utf-8").splitlines()) == 1


def test_a_cache_of_the_previous_version_is_replaced_not_left_unusable(repo: Path, reads: list[Path]) -> None:
    """A cache written by the version before moves were stored (its edits have no `source` column): opening it
    must start a new cache, not fail on every open and leave every command parsing every transcript."""
    import sqlite3

    repo = repo.resolve()
    _, _, start = two_sessions(repo)
    sha = commit_at(repo, "alpha and beta", start + timedelta(hours=1), "a.py", "b.py")
    state = repo / ".git" / "intent"
    state.mkdir(parents=True, exist_ok=True)
    old = sqlite3.connect(state / CACHE_NAME)
    old.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, inode INTEGER,
            mentions INTEGER,
            readable INTEGER);
        CREATE TABLE sessions (path TEXT, idx INTEGER, agent TEXT, session_id TEXT, messages INTEGER,
            low TEXT,
            high TEXT, untimed INTEGER, header TEXT, started TEXT, ended TEXT, models TEXT,
            PRIMARY KEY (path, idx));
        CREATE TABLE edits (path TEXT, idx INTEGER, ordinal INTEGER, stamp TEXT, file TEXT, message_id TEXT,
            data TEXT, PRIMARY KEY (path, idx, ordinal));
        INSERT INTO meta VALUES ('version', '4:0000000000000000');""")
    old.close()
    assert record_commit(Repository(repo), sha).lines_attributed == 4
    assert not (state / "hook.log").exists() or "unusable" not in (state / "hook.log").read_text(
        encoding="utf-8"
    )
    count = len(reads)
    record_commit(Repository(repo), sha)
    assert (
        len(reads) == count + 2
    )  # the backup copies the first record made, once; the transcripts are cached


def test_an_unusable_cache_leaves_recording_to_parsing_every_file(repo: Path, reads: list[Path]) -> None:
    repo = repo.resolve()
    _, _, start = two_sessions(repo)
    sha = commit_at(repo, "alpha and beta", start + timedelta(hours=1), "a.py", "b.py")
    (repo / ".git" / "intent" / CACHE_NAME).mkdir(parents=True)  # a directory where the file should be
    assert record_commit(Repository(repo), sha).lines_attributed == 4
    log = (repo / ".git" / "intent" / "hook.log").read_text(encoding="utf-8").splitlines()
    assert len(log) == 1 and "record cache unusable" in log[0]
    assert len(reads) == 2


def test_a_file_stored_half_way_is_stored_again(repo: Path, reads: list[Path]) -> None:
    """A crash between a file's row and its sessions' rows leaves a file the next record parses again,
    without a conflict that would make every later record fall back to parsing everything."""
    import sqlite3

    repo = repo.resolve()
    _, _, start = two_sessions(repo)
    sha = commit_at(repo, "alpha and beta", start + timedelta(hours=1), "a.py", "b.py")
    record_commit(Repository(repo), sha)
    record_commit(Repository(repo), sha)
    parsed = len(reads)
    with sqlite3.connect(repo / ".git" / "intent" / CACHE_NAME) as db:
        db.execute("UPDATE files SET readable = NULL")
    assert record_commit(Repository(repo), sha).lines_attributed == 4
    assert len(reads) == parsed + 4
    assert not (repo / ".git" / "intent" / "hook.log").exists()
