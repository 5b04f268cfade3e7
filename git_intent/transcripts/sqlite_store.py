"""Reading an agent's SQLite store without ever writing to it or blocking the agent: read-only connections,
the tables' columns, and telling a damaged store from a busy one."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from ..core.errors import DamagedTranscriptError

SQLITE_MAGIC = b"SQLite format 3\x00"


def is_sqlite(path: Path) -> bool:
    """Whether `path` is a file that starts as a SQLite database does; False when it cannot be read."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def open_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection (URI `mode=ro`: SQLite refuses to write) that has read the schema; raises
    sqlite3.Error. Text that is not UTF-8 is decoded with replacement characters.

    The agent may be writing at the same moment: in WAL mode a reader never blocks the writer, and a busy
    store is waited on for one second at most. A WAL store in a folder this user may not write has no `-shm`
    to share: its main file is then read as it is (`immutable`), without the newest rows of the `-wal`.
    """
    conn = None
    try:
        conn = _connect(path)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError:
        if conn is not None:
            conn.close()
        return _connect(path, immutable=True)


def _connect(path: Path, immutable: bool = False) -> sqlite3.Connection:
    uri = path.resolve().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")
    conn = sqlite3.connect(uri, uri=True, timeout=1.0)
    conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
    return conn


def table_columns(conn: sqlite3.Connection, *tables: str) -> dict[str, set[str]]:
    """The column names of each of `tables` (an empty set for a table the store lacks). Raises
    sqlite3.Error."""
    return {table: {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")} for table in tables}


def damaged(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file is corrupt or not a database (not merely locked or unreadable)."""
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def sniff_store(path: Path, schema: Callable[[sqlite3.Connection], Any], name: str) -> bool:
    """Whether `path` is a SQLite store whose tables `schema` recognises (returns non-None), or a damaged
    database named `name` (a damaged store shows no tables: its name says whose it is to report). Never
    raises."""
    if not is_sqlite(path):
        return False
    try:
        with closing(open_read_only(path)) as conn:
            return schema(conn) is not None
    except sqlite3.Error as exc:
        return damaged(exc) and path.name == name


@contextmanager
def reading(path: Path, agent: str) -> Iterator[None]:
    """Read a store inside this block: when SQLite says it is damaged, DamagedTranscriptError (said once,
    never a crash: the caller skips the store); when it is locked or unreadable just now, the block ends
    quietly and what was read so far stands."""
    try:
        yield
    except sqlite3.Error as exc:
        if damaged(exc):
            raise DamagedTranscriptError(
                f"The {agent} store {path} is damaged ({exc}); its sessions are skipped.",
                hint="`sqlite3 FILE .recover` may save what it holds.",
            ) from exc
