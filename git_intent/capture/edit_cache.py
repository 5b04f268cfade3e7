"""The record cache: each transcript's sessions and edits, parsed once per version of the file, in
`<git common dir>/intent/record-cache.db`, so recording a commit reads only what changed.

Before it, `record` parsed every transcript written in the look-back (7 days) on every commit and diffed
every edit: ~25 ms CPU and ~0.26 MB peak memory per transcript, 25 s and 489 MB with 1,000 on disk
(bench/record_scale.py). A file is known by (path, size, mtime_ns, inode): any change, a grown JSONL or a
replaced file alike, drops its rows and the next lookup parses it whole again (old sessions do not change,
so only the live ones are re-read); another parser (`parse_cache.parser_fingerprint`: an upgrade, or an
edit of an adapter) drops every row. A cache, like index.db: deleting it loses nothing; a damaged one is
deleted and rebuilt (`CacheDamaged`). Kept apart from index.db (docs/design.md, "Record cache").
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

from ..core.state_files import private_database, private_dir
from ..core.values import Edit, Session, adapter, parse_timestamp, utc_stamp, validate_json
from ..git.repo import Repository
from ..sessions.parse_cache import parser_fingerprint
from .moves import MOVE_KINDS, NO_TIME, Move, Moves, move_of

CACHE_NAME = "record-cache.db"
# Bump when what is stored changes shape; with the package version (an adapter fix changes what a file
# parses to), a mismatch empties the cache.
# 4: sessions keep their first and last message times and their edit messages' models
# 5: edits keep the source of a move or copy (`capture.moves`), so a commit's filter can follow moved files
SCHEMA = 5
COMMIT_EVERY = 50  # parsed files per transaction: a crash loses little, and 1,000 commits cost no fsyncs

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, inode INTEGER,
    mentions INTEGER, readable INTEGER);
CREATE TABLE IF NOT EXISTS sessions (path TEXT, idx INTEGER, agent TEXT, session_id TEXT, messages INTEGER,
    low TEXT, high TEXT, untimed INTEGER, header TEXT, started TEXT, ended TEXT, models TEXT,
    PRIMARY KEY (path, idx));
CREATE TABLE IF NOT EXISTS edits (path TEXT, idx INTEGER, ordinal INTEGER, stamp TEXT, file TEXT,
    message_id TEXT,
    data TEXT, source TEXT, PRIMARY KEY (path, idx, ordinal));
CREATE INDEX IF NOT EXISTS edits_moves ON edits (stamp) WHERE source IS NOT NULL;
"""


class CacheDamaged(Exception):
    """SQLite called the cache file corrupt or not a database."""


@dataclass(frozen=True)
class Summary:
    """One cached session, without its messages or edits: enough to pick the longest copy of a session and
    to tell whether any of its edits can fall in a window. `low`/`high`: its earliest and latest edit time
    (`values.utc_stamp` format), None when it has no timed edit; `untimed`: it has an edit without a time."""

    path: str
    idx: int
    agent: str
    session_id: str
    messages: int
    low: str | None
    high: str | None
    untimed: bool


@dataclass(frozen=True)
class Listed:
    """One cached session as `git intent sessions` lists it: no message or edit decoded."""

    summary: Summary
    cwd: str | None
    started_at: datetime | None
    ended_at: datetime | None
    files: list[str]
    message_models: dict[str, str | None]


def edit_message_models(session: Session) -> dict[str, str | None]:
    """message id → the model it was written with (None when unrecorded), for the messages that made an
    edit: what `stats` reads of a credited message."""
    edited = {e.message_id for e in session.edits}
    return {m.message_id: m.model for m in session.messages if m.message_id in edited}


class RecordCache:
    """An open cache; use as a context manager (commits and closes). Raises CacheDamaged for a damaged
    file and sqlite3.Error for anything else SQLite refuses (a locked or unwritable file)."""

    def __init__(self, repo: Repository) -> None:
        self.path = repo.state_dir / CACHE_NAME
        self.conn = _connect(self.path)
        self.pending = 0
        try:
            self._check_version()
            self.files = {
                row[0]: row[1:]
                for row in self.conn.execute(
                    "SELECT path, size, mtime_ns, inode, mentions, readable FROM files"
                )
            }
            self.summaries: dict[str, list[Summary]] = {}
            for row in self.conn.execute(
                "SELECT path, idx, agent, session_id, messages, low, high, untimed FROM sessions ORDER BY "
                "path, idx"
            ):
                self.summaries.setdefault(row[0], []).append(
                    Summary(
                        path=row[0],
                        idx=row[1],
                        agent=row[2],
                        session_id=row[3],
                        messages=row[4],
                        low=row[5],
                        high=row[6],
                        untimed=bool(row[7]),
                    )
                )
        except sqlite3.Error as exc:
            self.conn.close()
            _reraise(exc)
        self.seen: set[str] = set()

    def __enter__(self) -> RecordCache:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        try:
            if self.conn.in_transaction:
                # A failure half way through a file leaves nothing of it (its rows are written in order).
                self.conn.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self.conn.close()

    def sessions_of(
        self, path: Path, read: Callable[[], list[Session]], mentions: Callable[[], bool] | None = None
    ) -> list[Summary]:
        """The sessions of transcript `path`, parsed with `read` only when the file is new or changed since
        it was cached. With `mentions` (whether the file names this work tree, cached with the file), a
        file that does not is skipped unread. A file that vanished, or that `read` fails on, has no
        sessions (the catalog skips such files; a failure is remembered until the file changes).
        """
        key = str(path)
        self.seen.add(key)
        try:
            info = path.stat()
        except OSError:
            return []
        version = (info.st_size, info.st_mtime_ns, info.st_ino)
        known = self.files.get(key)
        try:
            if known is None or tuple(known[:3]) != version:
                self._forget(key)
                known = (*version, None, None)
                self._write("INSERT INTO files VALUES (?, ?, ?, ?, NULL, NULL)", [key, *version])
            said, readable = known[3], known[4]
            if mentions is not None and said is None:
                said = int(mentions())
                self._write("UPDATE files SET mentions = ? WHERE path = ?", [said, key])
            self.files[key] = (*version, said, readable)
            if mentions is not None and not said:
                return []
            if readable is None:
                self._store(key, read)
            return self.summaries.get(key, [])
        except sqlite3.Error as exc:
            _reraise(exc)

    def sessions(
        self,
        summaries: list[Summary],
        low: datetime,
        high: datetime,
        keep: Callable[[str, str, str, str | None], bool] | None = None,
    ) -> list[Session]:
        """The cached sessions, in the order given, each with only its edits made in [low, high] or at no
        recorded time, in order, and no messages; with `keep(session_id, message_id, path, cwd)`, only the
        edits it keeps are decoded: those it keeps under their own path or under a path a move or copy of
        these sessions in the window took their file to (`capture.moves`), and the moves and copies
        themselves. Their edits carry what recording reads (path, tool, ids, time, kind, added lines,
        source); `old_text`/`new_text`/`before`/`after` are left out (a Write's whole file cost more to
        decode than the rest), so `discovery.find_session` reads a session whole."""
        wanted = {(s.path, s.idx): s for s in summaries}
        edits: dict[tuple[str, int], list[Edit]] = {key: [] for key in wanted}
        window = [utc_stamp(low), utc_stamp(high)]
        try:
            headers = {
                (r[0], r[1]): json.loads(r[2])
                for r in self.conn.execute("SELECT path, idx, header FROM sessions")
                if (r[0], r[1]) in wanted
            }
            moves = Moves(self._moves(wanted, headers, window)) if keep is not None else Moves(())
            for path, idx, ordinal, stamp, file, message_id, data, source in self.conn.execute(
                "SELECT path, idx, ordinal, stamp, file, message_id, data, source FROM edits WHERE stamp "
                "IS NULL OR stamp BETWEEN ? AND ? ORDER BY path, idx, ordinal",
                window,
            ):
                summary = wanted.get((path, idx))
                if summary is None:
                    continue
                cwd = headers[(path, idx)]["cwd"]
                if (
                    keep is None
                    or source is not None
                    or keep(summary.session_id, message_id, file, cwd)
                    or (
                        moves
                        and any(
                            keep(summary.session_id, message_id, place, place_cwd)
                            for place, place_cwd in moves.places(
                                file, cwd, _seconds(stamp), (summary.agent, summary.session_id), ordinal
                            )
                        )
                    )
                ):
                    edits[(path, idx)].append(_edit(data))
        except sqlite3.Error as exc:
            _reraise(exc)
        return [
            Session(
                agent=s.agent,
                session_id=s.session_id,
                transcript=Path(s.path),
                edits=edits[(s.path, s.idx)],
                **headers[(s.path, s.idx)],
            )
            for s in summaries
        ]

    def _moves(
        self,
        wanted: dict[tuple[str, int], Summary],
        headers: dict[tuple[str, int], dict[str, Any]],
        window: list[str],
    ) -> list[Move]:
        """The moves and copies the wanted sessions made in the window (or at no recorded time)."""
        found: list[Move] = []
        for path, idx, ordinal, data in self.conn.execute(
            "SELECT path, idx, ordinal, data FROM edits WHERE source IS NOT NULL AND (stamp IS NULL OR "
            "stamp BETWEEN ? AND ?)",
            window,
        ):
            summary = wanted.get((path, idx))
            if summary is not None:
                move = move_of(
                    _edit(data), (summary.agent, summary.session_id), ordinal, headers[(path, idx)]["cwd"]
                )
                if move is not None:
                    found.append(move)
        return found

    def listing(self, summaries: list[Summary]) -> list[Listed]:
        """What `git intent sessions` shows of each cached session, in the order given, without decoding an
        edit: its header fields, first and last message times, edit count and the files it edited (as
        recorded, not yet mapped onto the work tree)."""
        wanted = {(s.path, s.idx) for s in summaries}
        rows: dict[tuple[str, int], tuple[dict[str, Any], str | None, str | None, dict[str, str | None]]] = {}
        files: dict[tuple[str, int], list[str]] = {key: [] for key in wanted}
        try:
            for path, idx, header, started, ended, models in self.conn.execute(
                "SELECT path, idx, header, started, ended, models FROM sessions"
            ):
                if (path, idx) in wanted:
                    rows[(path, idx)] = (json.loads(header), started, ended, json.loads(models))
            for path, idx, file in self.conn.execute(
                "SELECT path, idx, file FROM edits ORDER BY path, idx, ordinal"
            ):
                if (path, idx) in wanted:
                    files[(path, idx)].append(file)
        except sqlite3.Error as exc:
            _reraise(exc)
        return [
            Listed(
                summary=s,
                cwd=rows[(s.path, s.idx)][0].get("cwd"),
                started_at=parse_timestamp(rows[(s.path, s.idx)][1]),
                ended_at=parse_timestamp(rows[(s.path, s.idx)][2]),
                files=files[(s.path, s.idx)],
                message_models=rows[(s.path, s.idx)][3],
            )
            for s in summaries
        ]

    def prune(self) -> None:
        """Forget the files this cache's lookups did not see that are gone from disk (deleted by their agent,
        or by the user). Files out of a commit's look-back are kept: `git intent sessions` and `stats` list
        every session, and forgetting them at every commit made each listing parse them again."""
        try:
            for key in list(self.files):
                if key not in self.seen and not os.path.exists(key):
                    self._forget(key)
        except sqlite3.Error as exc:
            _reraise(exc)

    def _store(self, key: str, read: Callable[[], list[Session]]) -> None:
        try:
            sessions = read()
        except OSError:
            self.files.pop(key, None)  # vanished or unreadable now: not remembered, tried again next time
            self._write("DELETE FROM files WHERE path = ?", [key])
            return
        except (
            Exception
        ):  # the catalog skips a file its adapter fails on; so does the cache, until it changes
            self._write("UPDATE files SET readable = 0 WHERE path = ?", [key])
            self.files[key] = (*self.files[key][:4], 0)
            return
        summaries = []
        for table in ("sessions", "edits"):  # rows of an earlier, unfinished store of this file
            self._write(f"DELETE FROM {table} WHERE path = ?", [key])
        for idx, session in enumerate(sessions):
            stamps = [utc_stamp(e.timestamp) for e in session.edits if e.timestamp is not None]
            summary = Summary(
                path=key,
                idx=idx,
                agent=session.agent,
                session_id=session.session_id,
                messages=len(session.messages),
                low=min(stamps, default=None),
                high=max(stamps, default=None),
                untimed=len(stamps) < len(session.edits),
            )
            header = {
                "cwd": session.cwd,
                "cwds": session.cwds,
                "parent_session_id": session.parent_session_id,
                "aliases": session.aliases,
                "agent_version": session.agent_version,
            }
            started, ended = session.started_at, session.ended_at
            self._write(
                "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    key,
                    idx,
                    summary.agent,
                    summary.session_id,
                    summary.messages,
                    summary.low,
                    summary.high,
                    int(summary.untimed),
                    json.dumps(header),
                    started and utc_stamp(started),
                    ended and utc_stamp(ended),
                    json.dumps(edit_message_models(session)),
                ],
            )
            self.conn.executemany(
                "INSERT INTO edits VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    [
                        key,
                        idx,
                        ordinal,
                        utc_stamp(e.timestamp) if e.timestamp is not None else None,
                        e.path,
                        e.message_id,
                        _edit_data(e),
                        e.source if e.kind in MOVE_KINDS else None,
                    ]
                    for ordinal, e in enumerate(session.edits)
                ),
            )
            summaries.append(summary)
        self._write("UPDATE files SET readable = 1 WHERE path = ?", [key])
        self.files[key] = (*self.files[key][:4], 1)
        self.summaries[key] = summaries
        self.pending += 1
        if self.pending >= COMMIT_EVERY:
            self.conn.execute("COMMIT")
            self.pending = 0

    def _forget(self, key: str) -> None:
        for table in ("files", "sessions", "edits"):
            self._write(f"DELETE FROM {table} WHERE path = ?", [key])
        self.files.pop(key, None)
        self.summaries.pop(key, None)

    def _write(self, sql: str, args: list[object]) -> None:
        if not self.conn.in_transaction:
            self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute(sql, args)

    def _check_version(self) -> None:
        # The version is read before anything else is made: another version's tables may lack a column this
        # one's index names (a cache of version 4 has no `source`), and making them first failed every open.
        self.conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        want = f"{SCHEMA}:{parser_fingerprint()}"  # an edited or upgraded parser: every file parsed again
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        if row is not None and row[0] == want:
            self.conn.executescript(_TABLES)
            return
        # Another version's tables, shapes and all, go: one script, so one transaction.
        drops = "".join(f"DROP TABLE IF EXISTS {table};" for table in ("files", "sessions", "edits", "meta"))
        self.conn.executescript(f"BEGIN IMMEDIATE;{drops}{_TABLES}COMMIT;")
        self.conn.execute("INSERT INTO meta VALUES ('version', ?)", [want])

    def needles_changed(self, digest: str) -> None:
        """Forget which files name the work tree when its paths (`digest`: the root and worktrees) changed."""
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'needles'").fetchone()
            if row is not None and row[0] == digest:
                return
            self._write("INSERT OR REPLACE INTO meta VALUES ('needles', ?)", [digest])
            self._write("UPDATE files SET mentions = NULL", [])
            self.files = {k: (*v[:3], None, v[4]) for k, v in self.files.items()}
        except sqlite3.Error as exc:
            _reraise(exc)


def _edit_data(edit: Edit) -> str:
    """An edit as stored: what recording reads of it (see `RecordCache.sessions`)."""
    return adapter(Edit).dump_json(edit, exclude={"old_text", "new_text"}).decode()


def _seconds(stamp: str | None) -> float:
    """A stored edit time (`values.utc_stamp` text) as POSIX seconds, `moves.NO_TIME` when there is none."""
    when = parse_timestamp(stamp)
    return when.timestamp() if when is not None else NO_TIME


def _edit(data: str) -> Edit:
    """A stored edit back, validated from JSON by pydantic-core (`model_construct` in Python cost 40 µs per
    added line; 3,000 edits with their whole-file Write texts ~0.25 s)."""
    return validate_json(Edit, data)


def discard(repo: Repository) -> None:
    """Delete the cache file and its SQLite companions (a damaged cache is rebuilt from the transcripts)."""
    base = repo.state_dir / CACHE_NAME
    for path in _family(base):
        try:
            path.unlink()
        except OSError:  # gone already, or not ours to delete: opening it again will say so
            pass


def _family(base: Path) -> Iterator[Path]:
    yield base
    for suffix in ("-wal", "-shm", "-journal"):
        yield base.with_name(base.name + suffix)


def _connect(path: Path) -> sqlite3.Connection:
    """Open (creating it 0600 before SQLite does: SQLite gives its -wal and -shm the database file's mode,
    and all three hold transcript paths and edited lines) in WAL mode."""
    private_dir(path.parent)
    private_database(path)
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=10)
    except sqlite3.Error as exc:
        _reraise(exc)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error as exc:
        conn.close()
        _reraise(exc)
    return conn


def _reraise(exc: sqlite3.Error) -> NoReturn:
    """Raise CacheDamaged for a file SQLite calls corrupt or not a database, else `exc` itself."""
    if getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        raise CacheDamaged(str(exc)) from exc
    raise exc
