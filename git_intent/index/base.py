"""What every part of the index shares: write transactions, the ingest lock, and the stored time format."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from sqlite_utils import Database

from ..core.state_files import locked, private_dir
from ..core.values import utc_stamp


def stamp(when: datetime | None) -> str | None:
    """`values.utc_stamp`, None kept as None (a message without a time)."""
    return None if when is None else utc_stamp(when)


def now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(timezone.utc)


@contextmanager
def transaction(db: Database) -> Iterator[None]:
    """One write transaction (BEGIN IMMEDIATE), or a part of the one already open.

    sqlite-utils 3.x commits inside `insert_all`; then the rest runs in autocommit, which stays correct
    because every step here is idempotent on re-run."""
    conn = db.conn
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if conn.in_transaction:
        conn.execute("COMMIT")


@contextmanager
def lock(path: Path) -> Iterator[None]:
    """An exclusive flock on `path`, so two ingests never interleave their writes."""
    with locked(private_dir(path.parent) / path.name):
        yield
