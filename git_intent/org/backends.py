"""The two databases the organisation store runs on, behind one small interface: SQLite (one file, the
default) through the standard library, and PostgreSQL through psycopg 3 (the `org` extra).

SQL is written once with `?` placeholders; the PostgreSQL side rewrites them to psycopg's `%s`. Each write is
one transaction that holds a lock named by a key: SQLite's single writer lock (`BEGIN IMMEDIATE`, waiting
up to `BUSY_TIMEOUT_S`), PostgreSQL's transaction-scoped advisory lock on the key's hash (writers of
other keys run at once).
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..core.errors import IntentError

if TYPE_CHECKING:
    import psycopg

__all__ = ["BUSY_TIMEOUT_S", "Database", "Dialect", "PostgresDatabase", "SqliteDatabase", "connect"]

Dialect = Literal["sqlite", "postgresql"]
# A CI job writing one repository holds the SQLite writer lock for about a second per 5,000 messages
# (bench/org_scale.py); a minute lets a few dozen such jobs queue behind each other.
BUSY_TIMEOUT_S = 60.0
Param = str | int | None
Row = tuple[Any, ...]


class Database(Protocol):
    """What the store and its queries need from a connection."""

    dialect: Dialect

    def query(self, sql: str, params: Sequence[Param] = ()) -> list[Row]: ...

    def execute(self, sql: str, params: Sequence[Param] = ()) -> None: ...

    def insert_many(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Param]]) -> None: ...

    def write(self, lock_key: str) -> Any: ...  # a context manager: one transaction holding the key's lock

    def close(self) -> None: ...


class SqliteDatabase:
    """One SQLite file in WAL mode (readers never wait for the writer), autocommit outside `write`."""

    dialect: Dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            _use_wal(self.connection)
            self.connection.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError as exc:
            raise IntentError(f"The organisation store {path} cannot be opened: {exc}.") from exc
        self.path = path

    def query(self, sql: str, params: Sequence[Param] = ()) -> list[Row]:
        return self.connection.execute(sql, params).fetchall()

    def execute(self, sql: str, params: Sequence[Param] = ()) -> None:
        self.connection.execute(sql, params)

    def insert_many(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Param]]) -> None:
        marks = ", ".join("?" for _ in columns)
        self.connection.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    @contextmanager
    def write(self, lock_key: str) -> Iterator[None]:
        # IMMEDIATE takes the writer lock first, so two writers never both read and then fail to upgrade.
        try:
            self.connection.execute("BEGIN IMMEDIATE")
        except (
            sqlite3.OperationalError
        ) as exc:  # "database is locked" after BUSY_TIMEOUT_S, or a read-only file
            raise IntentError(
                f"The organisation store {self.path} cannot be written: {exc} (another writer held it for "
                f"{BUSY_TIMEOUT_S:.0f} s, or the file is read-only)."
            ) from exc
        try:
            yield
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def close(self) -> None:
        self.connection.close()


class PostgresDatabase:
    """One psycopg 3 connection in autocommit mode outside `write`; bulk rows go in through COPY."""

    dialect: Dialect = "postgresql"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as exc:
            raise IntentError(
                "A PostgreSQL organisation store needs psycopg 3, which is not installed.",
                hint="pip install 'git-intent-provenance[org]'",
            ) from exc
        try:
            self.connection: psycopg.Connection[Row] = psycopg.connect(url, autocommit=True)
        except psycopg.Error as exc:
            raise IntentError(
                f"The PostgreSQL server at {_redacted(url)} cannot be reached: {exc}".strip()
            ) from exc

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s")

    def query(self, sql: str, params: Sequence[Param] = ()) -> list[Row]:
        return self.connection.execute(self._sql(sql), params).fetchall()

    def execute(self, sql: str, params: Sequence[Param] = ()) -> None:
        self.connection.execute(self._sql(sql), params)

    def insert_many(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Param]]) -> None:
        with self.connection.cursor() as cursor:
            with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)

    @contextmanager
    def write(self, lock_key: str) -> Iterator[None]:
        with self.connection.transaction():
            # Held to the end of the transaction: writers of one key queue, writers of others run at once.
            self.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (lock_key,))
            yield

    def close(self) -> None:
        self.connection.close()


def _use_wal(connection: sqlite3.Connection) -> None:
    """Put the file in WAL mode (it stays so). Two syncs opening a new store at once: switching the journal
    needs the file alone, and SQLite answers "database is locked" at once, without the busy timeout; so the
    switch is tried again, paused, until the timeout, and skipped once the other opener has made it."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if not ("locked" in str(exc) or "busy" in str(exc)) or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0.02, 0.2))


def _redacted(url: str) -> str:
    """The URL without a password (`postgresql://user:secret@host/db` -> `postgresql://user:***@host/db`)."""
    head, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    return f"{head}{sep}{credentials.split(':', 1)[0]}:***@{host}"


def connect(target: str | Path) -> Database:
    """A `postgresql://` (or `postgres://`) URL -> PostgreSQL; anything else is the path of a SQLite file,
    created with its parent directories when missing. Raises IntentError when it cannot be opened."""
    text = str(target)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresDatabase(text)
    return SqliteDatabase(Path(text).expanduser())
