"""Answering lines of commits no hook saw (a squash-merge made on a forge, a clone's history): the line is
matched, exactly, against the edits of this repository's sessions still on this machine.

Two bounded ways (issue 14: a scan of every transcript took 40-68 s per call on a real history):
- the session index when it exists (`git intent index`): FTS5 on the line's words among edits of a path
  ending with the line's path, made in the commit's window, newest first, at most `INDEX_CANDIDATES`
  rows, each verified by exact text;
- without an index, the transcripts written in the window that hold the lines' text as bytes (a byte
  search, then one parse of those files per commit), for at most `SCAN_LINES` lines per blame.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..config import lookback, window_start
from ..errors import IntentError
from ..git.repo import Repository
from ..models import AgentName, Edit, Session
from ..sessions.discovery import candidate_sessions, find_session
from .evidence import find_edit

if TYPE_CHECKING:
    from sqlite_utils import Database

CONTENT_CONFIDENCE = 0.7  # exact text, but no note saw the commit being made
INDEX_CANDIDATES = 200  # FTS rows verified per line, newest first
SCAN_LINES = 20  # lines per blame call searched by scanning transcripts when there is no index
SLACK = timedelta(seconds=2)  # commit times have one-second resolution, edit timestamps milliseconds


@dataclass(frozen=True)
class ContentMatch:
    """The edit that wrote a line, found by its text. `session` is None when the index names the session
    but its transcript is no longer on this machine (then `edit` is None too)."""

    agent: AgentName
    session_id: str
    message_id: str
    tool: str
    call_id: str | None
    session: Session | None
    edit: Edit | None
    how: str  # "index" or "scan"


class ContentMatcher:
    """Finds the last edit, made in a commit's window, that wrote exactly a given non-trivial line."""

    def __init__(self, repo: Repository, load: Callable[[str, str], Session | None] | None = None) -> None:
        """`load(agent, session_id)`: the caller's session reader (so one blame reads each session once)."""
        self.repo = repo
        self._load = load
        self.scanned = 0  # lines searched by scanning (bounded by SCAN_LINES)
        self._windows: dict[str, tuple[datetime, datetime]] = {}
        self._scans: dict[str, tuple[set[tuple[str, str]], dict[tuple[str, str], ContentMatch]]] = {}
        self._sessions: dict[tuple[str, str], Session | None] = {}
        self._db: Database | None = None
        self._has_index: bool | None = None

    @property
    def uses_index(self) -> bool:
        """Whether lines are looked up in the session index (it exists) rather than scanned."""
        if self._has_index is None:
            # index.index_path, without importing sqlite-utils (~100 ms) for a blame that needs no index
            self._has_index = (self.repo.state_dir / "index.db").is_file()
        return self._has_index

    def match(self, commit: str, path: str, text: str) -> ContentMatch | None:
        """The edit that wrote `text` into `path` before `commit`, or None (then nobody knows: no guess)."""
        norm = text.strip()
        if not self._searchable(norm):
            return None
        earliest, latest = self._window(commit)
        if self.uses_index:
            return self._from_index(path, norm, earliest, latest)
        if commit not in self._scans:
            self.prepare(commit, [(path, text)])
        return self._scans[commit][1].get((path, norm))

    def searched(self, commit: str, path: str, text: str) -> bool:
        """Whether `match` searched this line (False: the scan's bound left it out)."""
        return self.uses_index or (path, text.strip()) in self._scans.get(commit, (set(), {}))[0]

    def prepare(self, commit: str, lines: Iterable[tuple[str, str]]) -> None:
        """Search at once the (path, text) lines of `commit` that will be asked for: without an index, one
        byte search and one parse of the transcripts that hold any of them (at most `SCAN_LINES` lines per
        blame; the rest stay unsearched, see `searched`). A no-op with an index."""
        if self.uses_index or commit in self._scans:
            return
        keys: dict[tuple[str, str], None] = {}
        for path, text in lines:
            norm = text.strip()
            if self._searchable(norm) and self.scanned + len(keys) < SCAN_LINES:
                keys[(path, norm)] = None
        self.scanned += len(keys)
        self._scans[commit] = (set(keys), self._scan(commit, set(keys)) if keys else {})

    def close(self) -> None:
        """Close the index, if it was opened."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def _from_index(self, path: str, norm: str, earliest: datetime, latest: datetime) -> ContentMatch | None:
        from ..index import open_index, stamp
        from ..index.search import fts_query, query_words

        words = query_words(norm)
        if not words:
            return None
        if self._db is None:
            self._db = open_index(self.repo)
        slashed = "/" + path
        rows = self._db.execute(
            "SELECT e.agent, e.session_id, e.ordinal, e.message_id, e.call_id, e.tool, e.added "
            "FROM edits_fts JOIN edits e ON e.id = edits_fts.rowid "
            "WHERE edits_fts MATCH ? AND (e.timestamp IS NULL OR e.timestamp BETWEEN ? AND ?) "
            "AND (replace(e.path, '\\', '/') = ? OR substr(replace(e.path, '\\', '/'), -?) = ?) "
            "ORDER BY e.timestamp DESC, e.id DESC LIMIT ?",
            [fts_query(words), stamp(earliest), stamp(latest), path, len(slashed), slashed, INDEX_CANDIDATES],
        ).fetchall()
        for agent, session_id, ordinal, message_id, call_id, tool, added in rows:
            if norm not in {line.strip() for line in (added or "").split("\n")}:
                continue  # FTS matched the words; only the exact line counts
            session = self._session(agent, session_id)
            edit = None
            if session is not None:
                edit = session.edits[ordinal] if 0 <= ordinal < len(session.edits) and \
                    session.edits[ordinal].message_id == message_id else find_edit(session, message_id, call_id, path)
            return ContentMatch(agent=agent, session_id=session_id, message_id=message_id or "", tool=tool or "",
                                call_id=call_id, session=session, edit=edit, how="index")
        return None

    def _session(self, agent: str, session_id: str) -> Session | None:
        key = (agent, session_id)
        if self._load is not None:
            return self._load(agent, session_id)
        if key not in self._sessions:
            try:
                self._sessions[key] = find_session(self.repo, session_id, agent, exact=True)
            except IntentError:
                self._sessions[key] = None
        return self._sessions[key]

    def _searchable(self, norm: str) -> bool:
        from ..capture.attribute import is_trivial  # rapidfuzz: imported only when a line needs the fallback

        return not is_trivial(norm)

    def _window(self, commit: str) -> tuple[datetime, datetime]:
        if commit not in self._windows:
            # From the author date when it is the earlier (a rebase keeps the work's date and moves the commit
            # on: issue 20), as recording's window does.
            committed, authored = self.repo.commit_times(commit)
            earliest = window_start(None, committed, authored, lookback(self.repo))
            self._windows[commit] = (earliest - SLACK, committed + SLACK)
        return self._windows[commit]

    def _scan(self, commit: str, keys: set[tuple[str, str]]) -> dict[tuple[str, str], ContentMatch]:
        from ..capture.record import mapped_edits

        # As transcripts store text: raw, or JSON-escaped (with and without \uXXXX for non-ASCII).
        needles = sorted({form.encode("utf-8") for _, norm in keys for form in
                          (norm, json.dumps(norm)[1:-1], json.dumps(norm, ensure_ascii=False)[1:-1])})
        earliest, latest = self._window(commit)
        sessions = candidate_sessions(self.repo, earliest, containing=needles, keep=True)
        found: dict[tuple[str, str], ContentMatch] = {}
        for mapped in mapped_edits(self.repo, commit, sessions, earliest + SLACK, None, latest - SLACK):
            edit = mapped.edit
            for added in edit.added:
                key = (mapped.path, added.text.strip())
                if key in keys:  # in order: the last edit wins
                    found[key] = ContentMatch(agent=mapped.session.agent, session_id=mapped.session.session_id,
                                              message_id=edit.message_id, tool=edit.tool, call_id=edit.call_id,
                                              session=mapped.session, edit=edit, how="scan")
        return found
