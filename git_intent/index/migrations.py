"""The index schema: migrations as an append-only list of functions (after simonw/llm); never edit
a shipped one."""

from __future__ import annotations

from collections.abc import Callable

from sqlite_utils import Database

from .base import now, stamp, transaction

__all__ = ["FTS_TABLES", "MIGRATIONS", "TOKENIZE", "Migration", "create_migrations_table", "migrate"]

FTS_TABLES = {"messages": "text", "edits": "added"}
TOKENIZE = "porter unicode61 remove_diacritics 2"

Migration = Callable[[Database], None]


def m001_tables(db: Database) -> None:
    # transcripts.offset: bytes of the file the index reflects (its size at the last ingest), kept for a
    # reader that parses JSON Lines from there; today a changed file is re-parsed whole (see `ingest`).
    db.table("transcripts").create(
        {"path": str, "agent": str, "size": int, "mtime_ns": int, "offset": int, "ingested_at": str},
        pk="path",
    )
    db.table("sessions").create(
        {
            "agent": str,
            "session_id": str,
            "cwd": str,
            "started_at": str,
            "ended_at": str,
            "messages": int,
            "edits": int,
            "transcript": str,
            "parent_session_id": str,
            "agent_version": str,
        },
        pk=("agent", "session_id"),
    )
    # AUTOINCREMENT (not expressible through Table.create): ids never repeat, which the FTS mark relies on.
    db.execute("""CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT, agent TEXT NOT NULL, session_id TEXT NOT NULL,
        message_id TEXT NOT NULL, ordinal INTEGER, role TEXT, timestamp TEXT, is_prompt INTEGER,
        is_summary INTEGER, tools TEXT, text TEXT, digest TEXT)""")
    db.execute("""CREATE TABLE edits (
        id INTEGER PRIMARY KEY AUTOINCREMENT, agent TEXT NOT NULL, session_id TEXT NOT NULL,
        ordinal INTEGER NOT NULL, message_id TEXT, call_id TEXT, path TEXT, tool TEXT, kind TEXT,
        timestamp TEXT, added TEXT, digest TEXT)""")
    # Paths a message touched (edit paths and path-like tool-call arguments), '/'-separated. `rpath` is
    # the path reversed, so "ends with PATH" becomes an indexed prefix range.
    db.table("touches").create(
        {"agent": str, "session_id": str, "message_id": str, "path": str, "rpath": str}
    )
    db.table("messages").create_index(["agent", "session_id", "message_id"], unique=True)
    db.table("messages").create_index(["timestamp"])
    db.table("edits").create_index(["agent", "session_id", "ordinal"], unique=True)
    db.table("edits").create_index(["agent", "session_id", "message_id"])
    db.table("touches").create_index(["rpath"])
    db.table("touches").create_index(["agent", "session_id", "message_id"])
    db.table("fts_state").create({"name": str, "indexed_id": int}, pk="name")


def m002_fts(db: Database) -> None:
    for table, column in FTS_TABLES.items():
        db.table(table).enable_fts([column], tokenize=TOKENIZE, create_triggers=False)
        db.table("fts_state").insert({"name": table, "indexed_id": 0})
    # The term list, for typo-tolerant search (search.py looks up terms near a query word).
    db.execute("CREATE VIRTUAL TABLE messages_fts_vocab USING fts5vocab(messages_fts, 'row')")


def m003_terms(db: Database) -> None:
    # Message terms by their first two letters, for typo-tolerant search (index/terms.py):
    # each range is kept with the FTS5 structure record it was read under, and read again once that changed.
    db.execute(
        "CREATE TABLE fts_terms (prefix TEXT NOT NULL, term TEXT NOT NULL, PRIMARY KEY (prefix, term)) "
        "WITHOUT ROWID"
    )
    db.execute("CREATE TABLE fts_terms_state (prefix TEXT PRIMARY KEY, structure BLOB)")


def m004_annotations(db: Database) -> None:
    # Per-turn annotations (`values.TurnAnnotation`), keyed by the turn's content digest in its session: a
    # turn is annotated once for its content. `model` is the model that wrote it, or whose replies could not
    # be read when `source` is "offline" (that model is not asked again for the same content).
    db.execute("""CREATE TABLE annotations (
        agent TEXT NOT NULL, session_id TEXT NOT NULL, digest TEXT NOT NULL, turn_id TEXT,
        source TEXT NOT NULL,
        model TEXT, tokens INTEGER, body TEXT NOT NULL, created_at TEXT,
        PRIMARY KEY (agent, session_id, digest))""")


MIGRATIONS: list[Migration] = [m001_tables, m002_fts, m003_terms, m004_annotations]


def create_migrations_table(db: Database) -> None:
    """The table recording which migrations were applied (created when absent)."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT)")


def migrate(db: Database) -> list[str]:
    """Apply the migrations not yet recorded in `_migrations`, in list order; returns the names applied.

    Idempotent. Each migration and its record are committed together; concurrent openers serialise on
    `BEGIN IMMEDIATE` and re-check what is applied inside the transaction.
    """
    if not db.table("_migrations").exists():
        with transaction(db):
            create_migrations_table(db)
    applied: list[str] = []
    for migration in MIGRATIONS:
        name = migration.__name__
        if db.execute("SELECT 1 FROM _migrations WHERE name = ?", [name]).fetchone():
            continue
        with transaction(db):
            if db.execute("SELECT 1 FROM _migrations WHERE name = ?", [name]).fetchone():
                continue  # another process applied it while this one waited for the lock
            migration(db)
            db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", [name, stamp(now())])
            applied.append(name)
    return applied
