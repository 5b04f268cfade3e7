"""What every part of the index shares: write transactions, the ingest lock, and the stored time format."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from sqlite_utils import Database

from ..private import open_private, private_dir


def stamp(when: datetime | None) -> str | None:
    """A datetime as fixed-width ISO-8601 UTC with microseconds (so stored stamps compare as text);
    a naive datetime is taken as UTC."""
    if when is None:
        return None
    if when.tzinfo is timezone.utc:  # the usual case (adapters parse to UTC): skips a conversion per row
        return when.isoformat(timespec="microseconds")
    when = when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).isoformat(timespec="microseconds")


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
    fd = open_private(private_dir(path.parent) / path.name, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
