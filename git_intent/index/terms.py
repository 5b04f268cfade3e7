"""The indexed terms of messages by their first two letters, for typo-tolerant search, cached per version of
the full-text index.

`messages_fts_vocab` (fts5vocab) lists terms, but reads every listed term's whole doclist to count it: one
two-letter range cost 3-9 ms at 100k messages and ~10x that at 1M, paid by every rare or misspelt query. The
terms of a range are kept in `fts_terms` with the FTS5 structure record they were read under
(`messages_fts_data` row 10, which changes with every write to the index); a range read under another
structure is read again. A bulk ingest reads every range in one pass (`warm`).
"""

from __future__ import annotations

import sqlite3
from itertools import groupby

from sqlite_utils import Database

from .base import transaction

__all__ = ["RANGE_LIMIT", "prefix_terms", "warm"]

RANGE_LIMIT = 50000  # terms per two-letter range (bounds the cost on a huge vocabulary)
_STRUCTURE_ROWID = (
    10  # FTS5_STRUCTURE_ROWID: the record listing the index's segments, rewritten on each write
)


def prefix_terms(db: Database, prefix: str) -> list[str]:
    """The first `RANGE_LIMIT` indexed message terms that start with the two characters `prefix`, in the
    index's (binary) order, as `messages_fts_vocab` lists them. Caches what it reads when the database
    lets it write at once (a search never waits for an ingest's lock)."""
    version = _structure(db)
    cached = db.execute("SELECT structure FROM fts_terms_state WHERE prefix = ?", [prefix]).fetchone()
    if cached is not None and cached[0] == version:
        return [
            r[0] for r in db.execute("SELECT term FROM fts_terms WHERE prefix = ? ORDER BY term", [prefix])
        ]
    high = prefix[0] + chr(ord(prefix[1]) + 1)
    terms = [
        r[0]
        for r in db.execute(
            "SELECT term FROM messages_fts_vocab WHERE term >= ? AND term < ? LIMIT ?",
            [prefix, high, RANGE_LIMIT],
        )
    ]
    conn = db.conn
    if conn.in_transaction:
        return terms
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if _structure(db) == version:  # no write since the terms were read
                _store(db, {prefix: terms}, version)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError:
        pass  # busy or read-only: a cache, the answer stands without it
    finally:
        conn.execute("PRAGMA busy_timeout = 10000")
    return terms


def warm(db: Database) -> int:
    """Read every range of the vocabulary in one pass and cache it (after a bulk load, under the ingest lock,
    outside a transaction); returns the number of ranges cached."""
    with transaction(db):
        version = _structure(db)
        ranges: dict[str, list[str]] = {}
        terms = (r[0] for r in db.execute("SELECT term FROM messages_fts_vocab"))
        for prefix, group in groupby((t for t in terms if len(t) >= 2), key=lambda t: t[:2]):
            ranges.setdefault(prefix, []).extend(group)
        _store(db, {p: t[:RANGE_LIMIT] for p, t in ranges.items()}, version, replace_all=True)
    return len(ranges)


def _store(
    db: Database, ranges: dict[str, list[str]], version: bytes | None, replace_all: bool = False
) -> None:
    if replace_all:
        db.execute("DELETE FROM fts_terms")
        db.execute("DELETE FROM fts_terms_state")
    for prefix, terms in ranges.items():
        if not replace_all:
            db.execute("DELETE FROM fts_terms WHERE prefix = ?", [prefix])
        db.conn.executemany(
            "INSERT INTO fts_terms (prefix, term) VALUES (?, ?)", [(prefix, t) for t in terms]
        )
        db.execute(
            "INSERT OR REPLACE INTO fts_terms_state (prefix, structure) VALUES (?, ?)", [prefix, version]
        )


def _structure(db: Database) -> bytes | None:
    row = db.execute("SELECT block FROM messages_fts_data WHERE id = ?", [_STRUCTURE_ROWID]).fetchone()
    return bytes(row[0]) if row and row[0] is not None else None
