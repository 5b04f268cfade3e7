"""Loading sessions into the index: incremental ingest, rows written in batches, FTS5 indexed after the load.

Settings follow the measured SQLite decision (docs/design.md): WAL, `synchronous=NORMAL`, rows written in
batches of at least 1,000, and the full-text index built after the rows are loaded.

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

import json
import sqlite3
import time
from collections.abc import Callable, Collection, Iterable, Sequence, Sized
from pathlib import Path

from pydantic import BaseModel, Field
from sqlite_utils import Database

from ..core.values import Session
from ..git.repo import Repository
from .base import lock, now, stamp, transaction
from .migrations import FTS_TABLES
from .rows import COLUMNS, KEY, TEXT, Row, longest, session_row, session_rows, transcript_stat
from .store import damaged, index_path, open_index, set_aside
from .terms import warm

__all__ = ["BATCH_SIZE", "IngestResult", "ingest", "repair", "unchanged"]

# Message rows indexed by one ingest from which the typo-search vocabulary is read whole at its end (one pass
# over the index, ~0.1 s per 100k messages); after smaller ingests each range is read when first searched.
WARM_ROWS = 10000
BATCH_SIZE = 5000  # rows buffered per flush, one transaction each (docs/design.md: batches of at least 1,000)


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
    # One sentence per thing skipped or repaired: a damaged transcript, a damaged index.db set aside.
    warnings: list[str] = Field(default_factory=list)

    @property
    def rows_written(self) -> int:
        """Message and edit rows inserted."""
        return self.messages_added + self.edits_added


def ingest(
    repo: Repository,
    sessions: Iterable[Session] | None = None,
    *,
    rebuild: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> IngestResult:
    """Bring the index up to date with `sessions` (default: `discovery.candidate_sessions(repo, None)`).

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
    problems: list[str] = []
    read: list[
        tuple[str, Path]
    ] = []  # every file the catalog read, copies of sessions kept elsewhere included
    if sessions is None and not rebuild and unchanged(repo):
        return IngestResult(seconds=time.perf_counter() - started)
    if sessions is None:
        from ..sessions.discovery import (
            candidate_sessions,
        )  # catalog reads every agent's files; only load it here

        sessions = candidate_sessions(repo, None, problems=problems, read=read)
    with lock(repo.state_dir / "index.lock"):
        result = _load(
            repo, sessions, rebuild=rebuild, prune=prune, progress=progress, problems=problems, read=read
        )
    result.warnings = problems
    result.seconds = time.perf_counter() - started
    return result


def unchanged(repo: Repository) -> bool:
    """Whether no transcript of this repository changed since the last ingest: every file the catalog would
    read is in the index with the same (size, mtime), and every indexed file is still found. Costs a stat per
    file and a byte search of the agents' files not yet indexed, no parse: `ask` reads through the index
    rather than parsing every session each time (4.5 s of a 4.6 s `ask` on entireio/git-sync)."""
    from ..sessions.discovery import mentions_repository, repository_needles, session_sources

    path = index_path(repo)
    if not path.is_file():
        return False
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            known = {r[0]: (r[1], r[2]) for r in db.execute("SELECT path, size, mtime_ns FROM transcripts")}
        finally:
            db.close()
    except sqlite3.Error:
        return False
    needles: list[bytes] | None = None
    seen: set[str] = set()
    for source in session_sources(repo, None):
        name = str(source.path)
        if known.get(name) is not None and known.get(name) == transcript_stat(source.path):
            seen.add(name)
            continue
        if not source.copy and source.adapter is not None:
            needles = needles if needles is not None else repository_needles(repo)
            if not mentions_repository(source.path, needles):
                continue  # the catalog would not read it either
        return False
    return set(known) <= seen


def repair(repo: Repository, exc: BaseException) -> list[str]:
    """Set an index that proved damaged while being read (`exc`) aside and build a new one; returns the
    warnings to show (the repair, then anything the new ingest skipped)."""
    with lock(repo.state_dir / "index.lock"):
        notes = [set_aside(index_path(repo), exc)] if index_path(repo).exists() else []
    return notes + ingest(repo).warnings


def _load(
    repo: Repository,
    sessions: Iterable[Session],
    *,
    rebuild: bool,
    prune: bool,
    progress: Callable[[int, int], None] | None,
    problems: list[str],
    read: Sequence[tuple[str, Path]] = (),
) -> IngestResult:
    """One ingest under the lock. Damage found past the file's header (a corrupt page) sets the index
    aside and loads a new one, when `sessions` can be read twice."""
    db = open_index(repo, problems)
    try:
        return _Ingest(db).run(sessions, rebuild=rebuild, prune=prune, progress=progress, read=read)
    except sqlite3.Error as exc:
        if not damaged(exc) or not isinstance(sessions, Collection):
            raise
        db.close()
        problems.append(set_aside(index_path(repo), exc))
        db = open_index(repo, problems)
        return _Ingest(db).run(sessions, rebuild=True, prune=prune, progress=progress, read=read)
    finally:
        db.close()


class _Ingest:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.result = IngestResult()
        self.buffers: dict[str, list[Row]] = {"sessions": [], "messages": [], "edits": [], "touches": []}

    def run(
        self,
        sessions: Iterable[Session],
        *,
        rebuild: bool,
        prune: bool,
        progress: Callable[[int, int], None] | None,
        read: Sequence[tuple[str, Path]] = (),
    ) -> IngestResult:
        if rebuild:
            self._clear()
        known_files = {
            r[0]: (r[1], r[2]) for r in self.db.execute("SELECT path, size, mtime_ns FROM transcripts")
        }
        known = {
            (r[0], r[1]): r[2] for r in self.db.execute("SELECT agent, session_id, transcript FROM sessions")
        }
        files: dict[str, tuple[str, tuple[int, int] | None]] = {}
        seen: dict[tuple[str, str], int] = {}  # messages of the copy written in this run
        total = len(sessions) if isinstance(sessions, Sized) else 0
        winners = longest(sessions) if isinstance(sessions, Collection) else None
        for done, session in enumerate(sessions, 1):
            path = str(session.transcript)
            if path not in files:
                files[path] = (session.agent, transcript_stat(session.transcript))
            stat = files[path][1]
            key = (session.agent, session.session_id)
            # One session in two files (a backup copy, a resumed run): the longest copy wins, as in the
            # catalog; deciding before writing keeps repeated runs from flipping between the copies.
            if (winners is not None and winners[key] is not session) or seen.get(key, -1) >= len(
                session.messages
            ):
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
        for (
            agent,
            source,
        ) in read:  # files whose sessions merged into a copy recorded above: known unchanged too
            files.setdefault(str(source), (agent, transcript_stat(source)))
        if prune:
            self._prune(set(known) - set(seen))
            with transaction(self.db):
                self.db.execute(
                    "DELETE FROM transcripts WHERE path NOT IN (SELECT value FROM json_each(?))",
                    [json.dumps(list(files))],
                )
        began = time.perf_counter()
        indexed = self._index_fts()
        if indexed >= WARM_ROWS:
            warm(self.db)  # a bulk load: every typo lookup would read its range of the new vocabulary
        self.result.fts_seconds = time.perf_counter() - began
        self._record_files(files, known_files)
        return self.result

    def _add(self, session: Session) -> None:
        """A session not in the index: its rows go to the batch buffers."""
        messages, edits, touches = session_rows(session)
        # The session row is flushed with (before) its messages: a message row never lacks its session,
        # so a crash mid-ingest leaves a session the next run syncs rather than re-adds.
        self.buffers["sessions"].append(session_row(session))
        self.buffers["messages"] += messages
        self.buffers["edits"] += edits
        self.buffers["touches"] += touches
        self._count(messages, edits)
        if max(len(rows) for rows in self.buffers.values()) >= BATCH_SIZE:
            self._flush()

    def _sync(self, session: Session) -> None:
        """A session already in the index whose transcript changed: write only the rows that differ."""
        messages, edits, touches = session_rows(session)
        key = [session.agent, session.session_id]
        with transaction(self.db):
            new_messages, gone = self._diff("messages", key, messages)
            self.result.messages_removed += gone
            new_edits, gone = self._diff("edits", key, edits)
            self.result.edits_removed += gone
            self.db.execute("DELETE FROM touches WHERE agent = ? AND session_id = ?", key)
            self._insert("sessions", [session_row(session)])
            self._insert("messages", new_messages)
            self._insert("edits", new_edits)
            self._insert("touches", touches)
        self._count(new_messages, new_edits)

    def _diff(self, table: str, key: list[str], rows: list[Row]) -> tuple[list[Row], int]:
        """The rows to insert, after deleting stored rows that changed or vanished; returns (rows, deleted).
        Rows are keyed in their session by their `KEY` column (message_id, or an edit's ordinal)."""
        stored = {
            r[1]: (r[0], r[2])
            for r in self.db.execute(
                f"SELECT id, {COLUMNS[table][KEY]}, digest FROM {table} WHERE agent = ? AND session_id = ?",
                key,
            )
        }
        fresh: list[Row] = []
        stale: list[int] = []
        for row in rows:
            old = stored.pop(row[KEY], None)
            if old is None or old[1] != row[-1]:
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
        self.db.execute(
            f"INSERT INTO {table}_fts ({table}_fts, rowid, {column}) SELECT 'delete', id, {column} FROM "
            f"{table} WHERE id IN (SELECT value FROM json_each(?)) AND id <= ?",
            [ids_json, mark],
        )
        self.db.execute(f"DELETE FROM {table} WHERE id IN (SELECT value FROM json_each(?))", [ids_json])

    def _mark(self, table: str) -> int:
        row = self.db.execute("SELECT indexed_id FROM fts_state WHERE name = ?", [table]).fetchone()
        return int(row[0]) if row else 0

    def _flush(self) -> None:
        if not any(self.buffers.values()):
            return
        with transaction(self.db):
            for table, rows in self.buffers.items():
                self._insert(table, rows)
                rows.clear()

    def _insert(self, table: str, rows: list[Row]) -> None:
        """Insert tuple rows in `rows.COLUMNS[table]` order through one prepared statement with positional
        parameters: sqlite-utils' `insert_all` rebuilt a multi-row INSERT and checked every value in Python
        (two thirds of ingest time at 100k messages), and named parameters read from a dict
        per row cost half of what is left. Sessions replace their earlier row; the other tables ignore a
        duplicate key (a malformed transcript must not abort the whole ingest)."""
        if not rows:
            return
        columns = COLUMNS[table]
        verb = "INSERT OR REPLACE" if table == "sessions" else "INSERT OR IGNORE"
        self.db.conn.executemany(
            f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows
        )

    def _count(self, messages: list[Row], edits: list[Row]) -> None:
        self.result.sessions += 1
        self.result.messages_added += len(messages)
        self.result.edits_added += len(edits)
        self.result.text_bytes += sum(len(row[TEXT].encode("utf-8", "surrogatepass")) for row in messages)
        self.result.text_bytes += sum(len(row[TEXT].encode("utf-8", "surrogatepass")) for row in edits)

    def _prune(self, gone: set[tuple[str, str]]) -> None:
        for agent, session_id in sorted(gone):
            key = [agent, session_id]
            with transaction(self.db):
                for table in FTS_TABLES:
                    ids = [
                        r[0]
                        for r in self.db.execute(
                            f"SELECT id FROM {table} WHERE agent = ? AND session_id = ?", key
                        )
                    ]
                    self._delete(table, ids)
                self.db.execute("DELETE FROM touches WHERE agent = ? AND session_id = ?", key)
                self.db.execute("DELETE FROM sessions WHERE agent = ? AND session_id = ?", key)
            self.result.sessions_removed += 1

    def _index_fts(self) -> int:
        """Index every row above the mark in one pass, and move the mark, in one transaction per table;
        returns the number of message rows indexed."""
        indexed = 0
        for table, column in FTS_TABLES.items():
            with transaction(self.db):
                mark = self._mark(table)
                top = self.db.execute(f"SELECT max(id) FROM {table}").fetchone()[0]
                if top is None or top <= mark:
                    continue
                self.db.execute(
                    f"INSERT INTO {table}_fts (rowid, {column}) SELECT id, {column} FROM {table} WHERE id "
                    f"> ? AND id <= ?",
                    [mark, top],
                )
                self.db.execute("UPDATE fts_state SET indexed_id = ? WHERE name = ?", [top, table])
                indexed += (top - mark) if table == "messages" else 0
        return indexed

    def _record_files(
        self, files: dict[str, tuple[str, tuple[int, int] | None]], known: dict[str, tuple[int, int]]
    ) -> None:
        rows = []
        for path, (agent, stat) in files.items():
            self.result.transcripts += 1
            if stat is not None and known.get(path) == stat:
                self.result.transcripts_skipped += 1
                continue
            if stat is not None:
                rows.append(
                    {
                        "path": path,
                        "agent": agent,
                        "size": stat[0],
                        "mtime_ns": stat[1],
                        "offset": stat[0],
                        "ingested_at": stamp(now()),
                    }
                )
        if rows:
            with transaction(self.db):
                self.db.table("transcripts").insert_all(rows, batch_size=BATCH_SIZE, replace=True)

    def _clear(self) -> None:
        with transaction(self.db):
            for table in FTS_TABLES:
                # Ids keep growing (AUTOINCREMENT), so the mark stays valid for an emptied index.
                self.db.execute(f"INSERT INTO {table}_fts ({table}_fts) VALUES ('delete-all')")
            for table in ("messages", "edits", "touches", "sessions", "transcripts"):
                self.db.execute(f"DELETE FROM {table}")
