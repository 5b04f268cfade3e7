"""An index.db git-intent did not write (another program's tables, a table of git-intent's name with other
columns, a `user_version` or migrations from elsewhere) is moved aside as found and rebuilt, as a corrupt one
is: `search` and `index --rebuild` answer (exit 0) with one warning, and the old file is kept."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_cli

from git_intent.adapters.claude_code import encode_project

SID = "7f00c0de-1111-4222-8333-444455556666"


def another_programs_tables(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, data BLOB)")
    db.execute("INSERT INTO photos VALUES (1, x'00ff')")


def messages_with_other_columns(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    db.execute("CREATE TABLE messages (x TEXT)")


def a_future_user_version(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA user_version = 7")
    db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, text TEXT)")


def a_newer_releases_migrations(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    db.executemany(
        "INSERT INTO _migrations VALUES (?, 'then')",
        [("m001_tables",), ("m002_fts",), ("m003_terms",), ("m004_from_the_future",)],
    )
    db.execute("CREATE TABLE sessions (agent TEXT, session_id TEXT, started INTEGER)")


FOREIGN: dict[str, tuple[Callable[[sqlite3.Connection], None], str]] = {
    "other-tables": (another_programs_tables, "it holds a table photos git-intent does not write"),
    "same-name": (messages_with_other_columns, "its table messages is not the one git-intent writes"),
    "user-version": (a_future_user_version, "its user_version is 7, which git-intent never sets"),
    "newer-migrations": (
        a_newer_releases_migrations,
        "it records migrations this release does not know (m004_from_the_future)",
    ),
}


def claude_session(home: Path, repo: Path) -> None:
    folder = home / ".claude" / "projects" / encode_project(repo)
    folder.mkdir(parents=True)
    common = {"sessionId": SID, "cwd": str(repo), "version": "2.1.0"}
    records = [
        {
            **common,
            "type": "user",
            "uuid": "u1",
            "timestamp": "2025-01-01T10:00:00Z",
            "message": {"role": "user", "content": "rename the tokenizer"},
        },
        {
            **common,
            "type": "assistant",
            "uuid": "a1",
            "timestamp": "2025-01-01T10:00:05Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "tokenizer renamed"}]},
        },
    ]
    (folder / f"{SID}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


@pytest.mark.parametrize(
    "command", [("search", "tokenizer"), ("index", "--rebuild")], ids=["search", "rebuild"]
)
@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_a_foreign_index_is_kept_aside_and_rebuilt(
    repo: Path, isolated_env: Path, case: str, command: tuple[str, ...]
) -> None:
    claude_session(isolated_env, repo)
    state = repo / ".git" / "intent"
    state.mkdir()
    make, reason = FOREIGN[case]
    db = sqlite3.connect(state / "index.db")
    make(db)
    db.commit()
    db.close()
    original = (state / "index.db").read_bytes()
    proc = run_cli(*command, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    (warning,) = proc.stderr.splitlines()
    aside = [p for p in state.glob("index.db.damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1
    assert warning == (
        f"warning: The index {state / 'index.db'} is not git-intent's ({reason}); it was moved to "
        f"{aside[0].name} and is being rebuilt."
    )
    assert aside[0].read_bytes() == original  # set aside as it was found
    again = run_cli(*command, cwd=repo)
    assert (again.returncode, again.stderr) == (0, "")
    hits = json.loads(run_cli("search", "tokenizer", "--json", cwd=repo).stdout)
    assert [h["session_id"] for h in hits][:1] == [SID]


def test_an_index_with_a_column_added_is_kept_aside(repo: Path, isolated_env: Path) -> None:
    claude_session(isolated_env, repo)
    assert run_cli("index", cwd=repo).returncode == 0
    db = sqlite3.connect(repo / ".git" / "intent" / "index.db")
    db.execute("ALTER TABLE sessions ADD COLUMN colour TEXT")
    db.commit()
    db.close()
    proc = run_cli("search", "tokenizer", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "(its table sessions is not the one git-intent writes)" in proc.stderr
    assert [h["session_id"] for h in json.loads(proc.stdout)][:1] == [SID]


def test_an_index_git_intent_wrote_is_not_foreign(repo: Path, isolated_env: Path) -> None:
    claude_session(isolated_env, repo)
    assert run_cli("index", cwd=repo).returncode == 0
    for command in (("search", "tokenizer"), ("index", "--rebuild"), ("index",)):
        proc = run_cli(*command, cwd=repo)
        assert (proc.returncode, proc.stderr) == (0, ""), command
    assert list((repo / ".git" / "intent").glob("index.db.damaged-*")) == []
