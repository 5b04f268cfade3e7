"""The session index: `<git common dir>/intent/index.db`, a rebuildable SQLite cache of every session's
messages and edits with FTS5 over their text, kept current by incremental ingest.

Notes and the backup stay the truth (STYLE.md habit 5): deleting index.db loses nothing, the next
`ingest` rebuilds it. Settings follow DESIGN.md's measured SQLite row: WAL, `synchronous=NORMAL`, rows
written in batches of at least 1,000, and the full-text index built after the rows are loaded.

Full-text maintenance (why no triggers): `messages_fts` and `edits_fts` are external-content FTS5 tables
(sqlite-utils `enable_fts`, porter stemming) without triggers. Rows get ids from AUTOINCREMENT, so ids only
grow; `fts_state` records the highest id already indexed per table, and after each ingest one
`INSERT INTO x_fts SELECT … WHERE id > mark` indexes everything newer in a single bulk pass (the measured
~10 s per 1M rows instead of per-row trigger work). A row that changes or disappears is first removed from
the FTS index with FTS5's 'delete' command (only if its id is at or below the mark), then deleted; its
replacement gets a fresh id above the mark. A crash between loading rows and indexing them is repaired by
the next ingest, since the mark only moves in the same transaction as the indexing.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sized
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from sqlite_utils import Database

from .models import Message, Session
from .repo import Repository

__all__ = ["BATCH_SIZE", "INDEX_NAME", "MIGRATIONS", "IngestResult", "index_path", "ingest", "migrate",
           "open_index", "stamp"]

INDEX_NAME = "index.db"
BATCH_SIZE = 5000  # rows per insert_all flush (DESIGN.md: batches of at least 1,000)
FTS_TABLES = {"messages": "text", "edits": "added"}
TOKENIZE = "porter unicode61 remove_diacritics 2"
_PATH_KEYS = frozenset({"file_path", "filepath", "path", "file", "filename", "notebook_path", "target_file",
                        "absolute_path", "relative_workspace_path"})

Migration = Callable[[Database], None]


# --- migrations: an append-only list of functions (STYLE.md, after simonw/llm); never edit a shipped one ---


def m001_tables(db: Database) -> None:
    # transcripts.offset: bytes of the file the index reflects (its size at the last ingest), kept for a
    # reader that parses JSON Lines from there; today a changed file is re-parsed whole (see `ingest`).
    db.table("transcripts").create({"path": str, "agent": str, "size": int, "mtime_ns": int, "offset": int,
                                    "ingested_at": str}, pk="path")
    db.table("sessions").create({"agent": str, "session_id": str, "cwd": str, "started_at": str, "ended_at": str,
                                 "messages": int, "edits": int, "transcript": str, "parent_session_id": str,
                                 "agent_version": str}, pk=("agent", "session_id"))
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
    db.table("touches").create({"agent": str, "session_id": str, "message_id": str, "path": str, "rpath": str})
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


MIGRATIONS: list[Migration] = [m001_tables, m002_fts]


def migrate(db: Database) -> list[str]:
    """Apply the migrations not yet recorded in `_migrations`, in list order; returns the names applied.

    Idempotent. Each migration and its record are committed together; concurrent openers serialise on
    `BEGIN IMMEDIATE` and re-check what is applied inside the transaction.
    """
    if not db.table("_migrations").exists():
        with _transaction(db):
            db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    applied: list[str] = []
    for migration in MIGRATIONS:
        name = migration.__name__
        if db.execute("SELECT 1 FROM _migrations WHERE name = ?", [name]).fetchone():
            continue
        with _transaction(db):
            if db.execute("SELECT 1 FROM _migrations WHERE name = ?", [name]).fetchone():
                continue  # another process applied it while this one waited for the lock
            migration(db)
            db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", [name, stamp(_now())])
            applied.append(name)
    return applied


def index_path(repo: Repository) -> Path:
    """`<git common dir>/intent/index.db`: shared by linked worktrees, never committed."""
    return repo.state_dir / INDEX_NAME


def open_index(repo: Repository) -> Database:
    """The repository's index, created and migrated as needed, in WAL mode with `synchronous=NORMAL`.

    Readers never block the writer (WAL); a writer waits up to 10 s for another (busy timeout).
    """
    path = index_path(repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = Database(path)
    db.conn.execute("PRAGMA busy_timeout = 10000")
    db.enable_wal()
    db.conn.execute("PRAGMA synchronous = NORMAL")
    migrate(db)
    return db


# --- ingest ---------------------------------------------------------------------------------------------


class IngestResult(BaseModel):
    """What one `ingest` did. `text_bytes` is the UTF-8 size of the message and edit text written."""

    transcripts: int = 0
    transcripts_skipped: int = 0
    sessions: int = 0
    sessions_skipped: int = 0
    sessions_removed: int = 0
    messages_added: int = 0
    messages_removed: int = 0
    edits_added: int = 0
    edits_removed: int = 0
    text_bytes: int = 0
    seconds: float = 0.0
    fts_seconds: float = 0.0  # of `seconds`, spent indexing new rows into FTS5 after the load

    @property
    def rows_written(self) -> int:
        """Message and edit rows inserted."""
        return self.messages_added + self.edits_added


def ingest(repo: Repository, sessions: Iterable[Session] | None = None, *, rebuild: bool = False,
           progress: Callable[[int, int], None] | None = None) -> IngestResult:
    """Bring the index up to date with `sessions` (default: `catalog.candidate_sessions(repo, None)`).

    Incremental: a session whose transcript's (size, mtime) is unchanged since the last ingest is skipped.
    A transcript that changed (grew) is re-parsed in full by its adapter, but only the rows that differ
    are written: messages are keyed by (agent, session_id, message_id) and edits by their ordinal in the
    session, each with a content digest, so an appended message is one new row and an unchanged one
    costs a digest comparison, not a write. (Parsing from a stored byte offset is not done: adapters
    carry state across records — a tool result completes an edit called many lines earlier — and
    `candidate_sessions` has parsed every file before ingest sees it.) When `sessions` is None, sessions
    the catalog no longer finds are removed too, so an incremental index equals a rebuilt one. Of two
    copies of one (agent, session_id) the one with more messages is indexed (the first of equals; from a
    one-pass iterable, a later copy replaces an earlier one only when longer).

    `rebuild` empties every table first. `progress(done, total)` is called after each session (`total`
    is 0 when `sessions` has no length). Serialised by a lock file beside the index.
    """
    started = time.perf_counter()
    prune = sessions is None
    if sessions is None:
        from .catalog import candidate_sessions  # catalog reads every agent's files; only load it here

        sessions = candidate_sessions(repo, None)
    db = open_index(repo)
    try:
        with _lock(repo.state_dir / "index.lock"):
            result = _Ingest(db).run(sessions, rebuild=rebuild, prune=prune, progress=progress)
    finally:
        db.close()
    result.seconds = time.perf_counter() - started
    return result


class _Ingest:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.result = IngestResult()
        self.buffers: dict[str, list[dict[str, Any]]] = {"sessions": [], "messages": [], "edits": [],
                                                         "touches": []}

    def run(self, sessions: Iterable[Session], *, rebuild: bool, prune: bool,
            progress: Callable[[int, int], None] | None) -> IngestResult:
        if rebuild:
            self._clear()
        known_files = {r[0]: (r[1], r[2]) for r in self.db.execute("SELECT path, size, mtime_ns FROM transcripts")}
        known = {(r[0], r[1]): r[2] for r in self.db.execute("SELECT agent, session_id, transcript FROM sessions")}
        files: dict[str, tuple[str, tuple[int, int] | None]] = {}
        seen: dict[tuple[str, str], int] = {}  # messages of the copy written in this run
        total = len(sessions) if isinstance(sessions, Sized) else 0
        winners = _longest(sessions) if isinstance(sessions, Collection) else None
        for done, session in enumerate(sessions, 1):
            path = str(session.transcript)
            if path not in files:
                files[path] = (session.agent, _stat(session.transcript))
            stat = files[path][1]
            key = (session.agent, session.session_id)
            # One session in two files (a backup copy, a resumed run): the longest copy wins, as in the
            # catalog; deciding before writing keeps repeated runs from flipping between the copies.
            if (winners is not None and winners[key] is not session) or seen.get(key, -1) >= len(session.messages):
                self.result.sessions_skipped += 1
            elif stat is not None and known_files.get(path) == stat and known.get(key) == path:
                self.result.sessions_skipped += 1
            elif key in known or key in seen:
                self._flush()  # a copy written earlier in this run may still be in the buffers
                self._sync(session)
            else:
                self._add(session)
            seen[key] = max(seen.get(key, -1), len(session.messages))
            if progress is not None:
                progress(done, total)
        self._flush()
        if prune:
            self._prune(set(known) - set(seen))
            with _transaction(self.db):
                self.db.execute("DELETE FROM transcripts WHERE path NOT IN (SELECT value FROM json_each(?))",
                                [json.dumps(list(files))])
        began = time.perf_counter()
        self._index_fts()
        self.result.fts_seconds = time.perf_counter() - began
        self._record_files(files, known_files)
        return self.result

    def _add(self, session: Session) -> None:
        """A session not in the index: its rows go to the batch buffers."""
        messages, edits, touches = _rows(session)
        # The session row is flushed with (before) its messages: a message row never lacks its session,
        # so a crash mid-ingest leaves a session the next run syncs rather than re-adds.
        self.buffers["sessions"].append(_session_row(session))
        self.buffers["messages"] += messages
        self.buffers["edits"] += edits
        self.buffers["touches"] += touches
        self._count(messages, edits)
        if max(len(rows) for rows in self.buffers.values()) >= BATCH_SIZE:
            self._flush()

    def _sync(self, session: Session) -> None:
        """A session already in the index whose transcript changed: write only the rows that differ."""
        messages, edits, touches = _rows(session)
        key = [session.agent, session.session_id]
        with _transaction(self.db):
            new_messages, gone = self._diff("messages", "message_id", key, messages)
            self.result.messages_removed += gone
            new_edits, gone = self._diff("edits", "ordinal", key, edits)
            self.result.edits_removed += gone
            self.db.execute("DELETE FROM touches WHERE agent = ? AND session_id = ?", key)
            self._insert("sessions", [_session_row(session)])
            self._insert("messages", new_messages)
            self._insert("edits", new_edits)
            self._insert("touches", touches)
        self._count(new_messages, new_edits)

    def _diff(self, table: str, column: str, key: list[str], rows: list[dict[str, Any]]) -> tuple[
            list[dict[str, Any]], int]:
        """The rows to insert, after deleting stored rows that changed or vanished; returns (rows, deleted)."""
        stored = {r[1]: (r[0], r[2]) for r in self.db.execute(
            f"SELECT id, {column}, digest FROM {table} WHERE agent = ? AND session_id = ?", key)}
        fresh: list[dict[str, Any]] = []
        stale: list[int] = []
        for row in rows:
            old = stored.pop(row[column], None)
            if old is None or old[1] != row["digest"]:
                fresh.append(row)
                if old is not None:
                    stale.append(old[0])
        stale += [rowid for rowid, _ in stored.values()]  # rows the transcript no longer holds
        self._delete(table, stale)
        return fresh, len(stale)

    def _delete(self, table: str, ids: list[int]) -> None:
        if not ids:
            return
        column = FTS_TABLES[table]
        mark = self._mark(table)
        ids_json = json.dumps(ids)
        # External-content FTS5 needs the old values to remove a row; only rows it indexed (id <= mark).
        self.db.execute(f"INSERT INTO {table}_fts ({table}_fts, rowid, {column}) SELECT 'delete', id, {column} "
                        f"FROM {table} WHERE id IN (SELECT value FROM json_each(?)) AND id <= ?", [ids_json, mark])
        self.db.execute(f"DELETE FROM {table} WHERE id IN (SELECT value FROM json_each(?))", [ids_json])

    def _mark(self, table: str) -> int:
        row = self.db.execute("SELECT indexed_id FROM fts_state WHERE name = ?", [table]).fetchone()
        return int(row[0]) if row else 0

    def _flush(self) -> None:
        if not any(self.buffers.values()):
            return
        with _transaction(self.db):
            for table, rows in self.buffers.items():
                self._insert(table, rows)
                rows.clear()

    def _insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        if table == "sessions":
            self.db.table("sessions").insert_all(rows, batch_size=BATCH_SIZE, replace=True)
        else:  # ignore: a duplicate key in a malformed transcript must not abort the whole ingest
            self.db.table(table).insert_all(rows, batch_size=BATCH_SIZE, ignore=True)

    def _count(self, messages: list[dict[str, Any]], edits: list[dict[str, Any]]) -> None:
        self.result.sessions += 1
        self.result.messages_added += len(messages)
        self.result.edits_added += len(edits)
        self.result.text_bytes += sum(len(m["text"].encode("utf-8")) for m in messages)
        self.result.text_bytes += sum(len(e["added"].encode("utf-8")) for e in edits)

    def _prune(self, gone: set[tuple[str, str]]) -> None:
        for agent, session_id in sorted(gone):
            key = [agent, session_id]
            with _transaction(self.db):
                for table in FTS_TABLES:
                    ids = [r[0] for r in self.db.execute(
                        f"SELECT id FROM {table} WHERE agent = ? AND session_id = ?", key)]
                    self._delete(table, ids)
                self.db.execute("DELETE FROM touches WHERE agent = ? AND session_id = ?", key)
                self.db.execute("DELETE FROM sessions WHERE agent = ? AND session_id = ?", key)
            self.result.sessions_removed += 1

    def _index_fts(self) -> None:
        """Index every row above the mark in one pass, and move the mark, in one transaction."""
        for table, column in FTS_TABLES.items():
            with _transaction(self.db):
                mark = self._mark(table)
                top = self.db.execute(f"SELECT max(id) FROM {table}").fetchone()[0]
                if top is None or top <= mark:
                    continue
                self.db.execute(f"INSERT INTO {table}_fts (rowid, {column}) SELECT id, {column} FROM {table} "
                                f"WHERE id > ? AND id <= ?", [mark, top])
                self.db.execute("UPDATE fts_state SET indexed_id = ? WHERE name = ?", [top, table])

    def _record_files(self, files: dict[str, tuple[str, tuple[int, int] | None]],
                      known: dict[str, tuple[int, int]]) -> None:
        rows = []
        for path, (agent, stat) in files.items():
            self.result.transcripts += 1
            if stat is not None and known.get(path) == stat:
                self.result.transcripts_skipped += 1
                continue
            if stat is not None:
                rows.append({"path": path, "agent": agent, "size": stat[0], "mtime_ns": stat[1], "offset": stat[0],
                             "ingested_at": stamp(_now())})
        if rows:
            with _transaction(self.db):
                self.db.table("transcripts").insert_all(rows, batch_size=BATCH_SIZE, replace=True)

    def _clear(self) -> None:
        with _transaction(self.db):
            for table in FTS_TABLES:
                # Ids keep growing (AUTOINCREMENT), so the mark stays valid for an emptied index.
                self.db.execute(f"INSERT INTO {table}_fts ({table}_fts) VALUES ('delete-all')")
            for table in ("messages", "edits", "touches", "sessions", "transcripts"):
                self.db.execute(f"DELETE FROM {table}")


# --- rows -----------------------------------------------------------------------------------------------


def _longest(sessions: Iterable[Session]) -> dict[tuple[str, str], Session]:
    """The copy of each (agent, session_id) with the most messages (the first of equals)."""
    found: dict[tuple[str, str], Session] = {}
    for session in sessions:
        key = (session.agent, session.session_id)
        if key not in found or len(session.messages) > len(found[key].messages):
            found[key] = session
    return found


def _rows(session: Session) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Message, edit and touch rows of one session (first copy of a repeated message id kept)."""
    agent, session_id = session.agent, session.session_id
    messages: list[dict[str, Any]] = []
    touched: dict[tuple[str, str], None] = {}
    ids: set[str] = set()
    for ordinal, message in enumerate(session.messages):
        if message.message_id in ids:
            continue
        ids.add(message.message_id)
        text, tools, paths = _message_text(message)
        row = {"agent": agent, "session_id": session_id, "message_id": message.message_id, "ordinal": ordinal,
               "role": message.role, "timestamp": stamp(message.timestamp), "is_prompt": int(message.is_prompt),
               "is_summary": int(message.is_summary), "tools": " ".join(tools), "text": text}
        row["digest"] = _digest(row)
        messages.append(row)
        touched.update(((message.message_id, p), None) for p in paths)
    edits: list[dict[str, Any]] = []
    for ordinal, edit in enumerate(session.edits):
        added = "\n".join(line.text for line in edit.added) if edit.added else edit.new_text
        row = {"agent": agent, "session_id": session_id, "ordinal": ordinal, "message_id": edit.message_id,
               "call_id": edit.call_id, "path": edit.path, "tool": edit.tool, "kind": edit.kind,
               "timestamp": stamp(edit.timestamp), "added": added}
        row["digest"] = _digest(row)
        edits.append(row)
        touched[(edit.message_id, _slashed(edit.path))] = None
    touches = [{"agent": agent, "session_id": session_id, "message_id": message_id, "path": path,
                "rpath": path[::-1]} for message_id, path in touched if path]
    return messages, edits, touches


def _message_text(message: Message) -> tuple[str, list[str], list[str]]:
    """The searchable text of a message (text, reasoning, tool calls with readable arguments, tool
    results), its tool names, and the paths its tool calls name."""
    pieces: list[str] = []
    tools: list[str] = []
    paths: list[str] = []
    for part in message.parts:
        if part.tool and part.tool not in tools:
            tools.append(part.tool)
        if part.kind != "tool_call":
            if part.text:
                pieces.append(part.text)
            continue
        args = _json_object(part.text)
        if args is None:
            pieces.append(f"{part.tool or 'tool'} {part.text}".rstrip())
            continue
        # Arguments as `key: value` lines: JSON escapes (\n, \") would glue letters onto words for FTS.
        lines = [part.tool or "tool"]
        for name, value in args.items():
            lines.append(f"{name}: {value if isinstance(value, str) else json.dumps(value)}")
            if isinstance(value, str) and name.lower() in _PATH_KEYS and value and "\n" not in value \
                    and len(value) < 4096:
                paths.append(_slashed(value))
        pieces.append("\n".join(lines))
    return "\n\n".join(pieces), tools, paths


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _session_row(session: Session) -> dict[str, Any]:
    return {"agent": session.agent, "session_id": session.session_id, "cwd": session.cwd,
            "started_at": stamp(session.started_at), "ended_at": stamp(session.ended_at),
            "messages": len(session.messages), "edits": len(session.edits), "transcript": str(session.transcript),
            "parent_session_id": session.parent_session_id, "agent_version": session.agent_version}


def _digest(row: dict[str, Any]) -> str:
    """A hash of a row's values (rows of one table share their key order); detects changed rows."""
    joined = "\x1f".join("\x00" if value is None else str(value) for value in row.values())
    return hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _slashed(path: str) -> str:
    return path.replace("\\", "/")


def stamp(when: datetime | None) -> str | None:
    """A datetime as fixed-width ISO-8601 UTC with microseconds (so stored stamps compare as text);
    a naive datetime is taken as UTC."""
    if when is None:
        return None
    when = when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _stat(path: Path) -> tuple[int, int] | None:
    """(size, mtime_ns) of a transcript, folding in a SQLite `-wal` beside it (OpenCode's store writes
    its newest rows there while the main file is unchanged); None when the file is gone."""
    try:
        info = path.stat()
    except OSError:
        return None
    size, mtime = info.st_size, info.st_mtime_ns
    try:
        wal = path.with_name(path.name + "-wal").stat()
        size, mtime = size + wal.st_size, max(mtime, wal.st_mtime_ns)
    except OSError:
        pass
    return size, mtime


@contextmanager
def _transaction(db: Database) -> Iterator[None]:
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
def _lock(path: Path) -> Iterator[None]:
    """An exclusive flock on `path`, so two ingests never interleave their writes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
