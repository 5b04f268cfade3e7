"""Opening the index database: its place, SQLite settings, and what happens when the file is damaged or holds
a schema git-intent did not write (it is a cache: moved aside and rebuilt)."""

from __future__ import annotations

import os
import sqlite3
from functools import cache
from pathlib import Path

from sqlite_utils import Database

from ..core.state_files import private_database, private_dir
from ..git.repo import Repository
from .base import now
from .migrations import MIGRATIONS, create_migrations_table, migrate

INDEX_NAME = "index.db"
# What a table or other schema object looks like: a table's columns (name, declared type, not null, primary
# key position, hidden), else the table an index or trigger belongs to. Compared by structure, not by SQL
# text, so a sqlite-utils release that spells CREATE TABLE differently does not make a good index foreign.
Schema = dict[tuple[str, str], object]


class ForeignSchemaError(sqlite3.DatabaseError):
    """index.db is a SQLite database whose schema git-intent did not write: another program's tables, a
    table of git-intent's name with other columns, or migrations (or a `user_version`) this release does
    not know."""


def index_path(repo: Repository) -> Path:
    """`<git common dir>/intent/index.db`: shared by linked worktrees, never committed."""
    return repo.state_dir / INDEX_NAME


def open_index(repo: Repository, problems: list[str] | None = None) -> Database:
    """The repository's index, created and migrated as needed, in WAL mode with `synchronous=NORMAL`.

    Readers never block the writer (WAL); a writer waits up to 10 s for another (busy timeout). A file SQLite
    calls corrupt or not a database, or whose schema is not the one git-intent's migrations write
    (`ForeignSchemaError`), is moved aside (`set_aside`) and a new index is created; the sentence saying so is
    appended to `problems`. Without `problems` such a file is not touched: the error is raised for the caller
    to repair and say so (`load.repair`), never a silently emptied index. Raises sqlite3.Error for anything
    else (a locked or unwritable file).
    """
    path = index_path(repo)
    private_dir(path.parent)
    try:
        return _open(path)
    except sqlite3.Error as exc:
        if not damaged(exc) or problems is None:
            raise
        problems.append(set_aside(path, exc))
    return _open(path)


def damaged(exc: BaseException) -> bool:
    """Whether SQLite said the file is corrupt or is not a database, or the schema is foreign (not merely busy
    or unwritable)."""
    return isinstance(exc, ForeignSchemaError) or getattr(exc, "sqlite_errorcode", None) in (
        sqlite3.SQLITE_CORRUPT,
        sqlite3.SQLITE_NOTADB,
    )


def set_aside(path: Path, exc: BaseException) -> str:
    """Move a damaged or foreign index (and its `-wal`/`-shm`) to `index.db.damaged-<UTC time>`; returns the
    warning.

    Kept, not deleted, so the damage can be examined; nothing in it is lost (it is rebuilt from the
    transcripts and the backup).
    """
    aside = path.with_name(f"{path.name}.damaged-{now().strftime('%Y%m%dT%H%M%S%fZ')}")
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            os.replace(companion, aside.with_name(aside.name + suffix))
    what = "is not git-intent's" if isinstance(exc, ForeignSchemaError) else "was damaged"
    return f"The index {path} {what} ({exc}); it was moved to {aside.name} and is being rebuilt."


def _open(path: Path) -> Database:
    _make_private(path)
    db = Database(path)
    try:
        db.conn.execute("PRAGMA busy_timeout = 10000")
        check_schema(db)  # first: a file that is not git-intent's is set aside as it was found
        db.enable_wal()
        db.conn.execute("PRAGMA synchronous = NORMAL")
        migrate(db)
    except BaseException:
        db.close()
        raise
    return db


def check_schema(db: Database) -> None:
    """Raise ForeignSchemaError unless `db` is empty or holds exactly what git-intent's migrations wrote: the
    ones `_migrations` names (all known to this release, applied in order) and nothing else. Before this, a
    same-named table with other columns made every `search` and `index --rebuild` fail until the file was
    deleted by hand."""
    conn = db.conn
    # One read transaction: the schema and the migrations it records are read from one snapshot, so a
    # migration another process commits meanwhile is seen whole or not at all.
    conn.execute("BEGIN")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        found = _schema(conn)
        applied: tuple[str, ...] = ()
        if ("table", "_migrations") in found:
            try:
                applied = tuple(row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid"))
            except sqlite3.Error as exc:
                _raise_unless_foreign(exc)
                raise ForeignSchemaError(f"its _migrations table cannot be read: {exc}") from None
    finally:
        conn.execute("ROLLBACK")
    if version != 0:  # git-intent never sets it
        raise ForeignSchemaError(f"its user_version is {version}, which git-intent never sets")
    if not found:
        return  # a new file
    known = tuple(m.__name__ for m in MIGRATIONS)
    if applied != known[: len(applied)]:
        unknown = [name for name in applied if name not in known]
        raise ForeignSchemaError(
            f"it records migrations this release does not know ({', '.join(unknown)})"
            if unknown
            else "its migrations were not applied in order"
        )
    expected = _expected_schema(applied)
    if found != expected:
        extra = sorted(found.keys() - expected.keys())
        changed = sorted(key for key in found.keys() & expected.keys() if found[key] != expected[key])
        if extra:
            kind, name = extra[0]
            raise ForeignSchemaError(
                f"its {kind} {name} is not the one git-intent writes"
                if (kind, name) in _expected_schema(known)
                else f"it holds a {kind} {name} git-intent does not write"
            )
        if changed:
            raise ForeignSchemaError(f"its {changed[0][0]} {changed[0][1]} is not the one git-intent writes")
        missing = min(expected.keys() - found.keys())
        raise ForeignSchemaError(f"it lacks the {missing[0]} {missing[1]} its migrations write")


def _schema(conn: sqlite3.Connection) -> Schema:
    """The schema objects of `conn` other than SQLite's own."""
    try:
        rows = conn.execute(
            "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        ).fetchall()
        return {
            (kind, name): tuple(
                conn.execute(
                    'SELECT name, upper(type), "notnull", pk, hidden FROM pragma_table_xinfo(?)', [name]
                ).fetchall()
            )
            if kind == "table"
            else table
            for kind, name, table in rows
        }
    except sqlite3.Error as exc:  # a virtual table of a module this SQLite lacks, say
        _raise_unless_foreign(exc)
        raise ForeignSchemaError(f"its schema cannot be read: {exc}") from None


def _raise_unless_foreign(exc: sqlite3.Error) -> None:
    """Re-raise `exc` unless it is SQLite's generic error (SQLITE_ERROR: no such module, malformed schema):
    damage, a busy or locked file and I/O errors are answered as such, not as a foreign schema."""
    if getattr(exc, "sqlite_errorcode", sqlite3.SQLITE_ERROR) & 0xFF != sqlite3.SQLITE_ERROR:
        raise exc


@cache
def _expected_schema(applied: tuple[str, ...]) -> Schema:
    """The schema git-intent's migrations `applied` write, built in memory (a few ms, once per process)."""
    db = Database(sqlite3.connect(":memory:"))
    try:
        create_migrations_table(db)
        for migration in MIGRATIONS:
            if migration.__name__ in applied:
                migration(db)
        return _schema(db.conn)
    finally:
        db.close()


def _make_private(path: Path) -> None:
    """`private_database`, best effort: a file SQLite cannot write is SQLite's to report."""
    try:
        private_database(path)
    except OSError:
        pass
