"""Opening the index database: its place, SQLite settings, and what happens when the file is damaged (it is
a cache: moved aside and rebuilt)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlite_utils import Database

from ..git.repo import Repository
from ..private import private_database, private_dir
from .base import now
from .migrations import migrate

INDEX_NAME = "index.db"


def index_path(repo: Repository) -> Path:
    """`<git common dir>/intent/index.db`: shared by linked worktrees, never committed."""
    return repo.state_dir / INDEX_NAME


def open_index(repo: Repository, problems: list[str] | None = None) -> Database:
    """The repository's index, created and migrated as needed, in WAL mode with `synchronous=NORMAL`.

    Readers never block the writer (WAL); a writer waits up to 10 s for another (busy timeout). A file
    SQLite calls corrupt or not a database is moved aside (`set_aside`) and a new index is created; the
    sentence saying so is appended to `problems`. Raises sqlite3.Error for anything else (a locked or
    unwritable file).
    """
    path = index_path(repo)
    private_dir(path.parent)
    try:
        return _open(path)
    except sqlite3.Error as exc:
        if not damaged(exc):
            raise
        note = set_aside(path, exc)
        if problems is not None:
            problems.append(note)
    return _open(path)


def damaged(exc: BaseException) -> bool:
    """Whether SQLite said the file is corrupt or is not a database (not merely busy or unwritable)."""
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def set_aside(path: Path, exc: BaseException) -> str:
    """Move a damaged index (and its `-wal`/`-shm`) to `index.db.damaged-<UTC time>`; returns the warning.

    Kept, not deleted, so the damage can be examined; nothing in it is lost (it is rebuilt from the
    transcripts and the backup).
    """
    aside = path.with_name(f"{path.name}.damaged-{now().strftime('%Y%m%dT%H%M%S%fZ')}")
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            os.replace(companion, aside.with_name(aside.name + suffix))
    return f"The index {path} was damaged ({exc}); it was moved to {aside.name} and is being rebuilt."


def _open(path: Path) -> Database:
    _make_private(path)
    db = Database(path)
    try:
        db.conn.execute("PRAGMA busy_timeout = 10000")
        db.enable_wal()
        db.conn.execute("PRAGMA synchronous = NORMAL")
        migrate(db)
    except BaseException:
        db.close()
        raise
    return db


def _make_private(path: Path) -> None:
    """`private_database`, best effort: a file SQLite cannot write is SQLite's to report."""
    try:
        private_database(path)
    except OSError:
        pass
