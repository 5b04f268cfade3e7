"""Searching the session index: FTS5 candidates ranked by bm25 and capped, re-ranked with rapidfuzz.

Query text is user input and never reaches FTS5 as syntax: every word becomes a double-quoted phrase of
its letters and digits only, so `"`, `-`, `:`, `*`, `^`, `NEAR(`, `AND`/`OR`/`NOT` are searched as plain
words or dropped.

Hits are capped twice (docs/design.md: "ranked FTS slows with hit count, so cap hits"): bm25 is computed for
the newest `SCAN` matching rows only (so a word in most messages ranks the recent ones), and the best
`CANDIDATES` of those are re-ranked with rapidfuzz.
"""

from __future__ import annotations

import heapq
import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rapidfuzz import fuzz, process
from sqlite_utils import Database

from ..git.repo import Repository
from . import damaged, open_index, repair, stamp
from .terms import prefix_terms

__all__ = ["CANDIDATES", "SCAN", "Hit", "fts_query", "query_words", "search"]

# newest matching rows bm25-ranked per query and table (1M messages: common word ~1 s uncapped, 75 ms)
SCAN = 10000
CANDIDATES = 500  # best-ranked rows per query and table re-ranked with rapidfuzz
WINDOW = 3000  # characters of a long text scored by rapidfuzz, around the first query word found
BM25_WEIGHT = 0.5  # the rest of the score is rapidfuzz's (partial_ratio and token_set_ratio)
RELAXED = 0.5  # bm25 share kept by candidates that match only the relaxed (any word, near spelling) query
NEAR_LOOKUPS = 8  # query tokens (of 4+ letters) looked up for near spellings; each costs a term-range scan
_WORD = re.compile(r"[^\W_]+")
_NON_WORD = re.compile(r"[\W_]")


class Hit(BaseModel):
    """One message matching a search; `show` is its `git intent show SESSION:MESSAGE` reference.

    `score` is in 0..1: bm25 (relative to the best candidate) blended with rapidfuzz similarity of the
    query to the text around the match; `snippet` is that text, whitespace collapsed, about 200 chars."""

    agent: str
    session_id: str
    message_id: str
    role: str | None
    timestamp: datetime | None
    snippet: str
    score: float
    show: str


def query_words(query: str) -> list[list[str]]:
    """The query's whitespace-separated words, each as its runs of letters and digits (the characters
    FTS5's unicode61 tokenizer keeps); words with none are dropped."""
    words = [[token.lower() for token in _WORD.findall(chunk)] for chunk in query.split()]
    return [w for w in words if w]


def fts_query(words: list[list[str]], operator: str = "AND") -> str:
    """An FTS5 query matching every word (`operator` AND) or any (OR), each word a quoted phrase.

    Tokens hold only letters and digits, so the quotes cannot be closed early: no FTS5 syntax survives."""
    return f" {operator} ".join('"' + " ".join(tokens) + '"' for tokens in words)


def search(
    repo: Repository,
    query: str,
    *,
    agent: str | None = None,
    since: datetime | None = None,
    file: str | None = None,
    limit: int = 20,
    problems: list[str] | None = None,
) -> list[Hit]:
    """The `limit` best messages of the index for `query`, best first.

    Filters: `agent` (e.g. "claude-code"); `since`, messages at or after it (naive means UTC; messages
    without a timestamp are then excluded); `file`, messages whose edits or tool calls name a path ending
    with it at a '/' boundary. Edits' added text is searched too: a hit there names the message that made
    the edit. When fewer than `limit` messages hold every word, messages holding any word, or an indexed
    term spelled close to one (rapidfuzz ratio >= 75, same first two letters: typos), follow with a lower
    score. Searches what `index.ingest` stored (run it first); never raises on query content. An index
    found damaged is set aside and rebuilt (`index.repair`), the sentences saying so appended to `problems`.
    """
    words = query_words(query)
    if not words or limit <= 0:
        return []
    try:
        scored = _hits(repo, words, agent, since, file, limit)
    except sqlite3.Error as exc:
        if not damaged(exc):
            raise
        # A page damaged past what opening reads: the index is a cache, set aside and built again.
        notes = repair(repo, exc)
        if problems is not None:
            problems += notes
        scored = _hits(repo, words, agent, since, file, limit)
    ranked = sorted(
        scored,
        key=lambda h: (
            -h.score,
            -(h.timestamp.timestamp() if h.timestamp else 0),
            h.session_id,
            h.message_id,
        ),
    )
    return [hit.hit() for hit in ranked[:limit]]


def _hits(
    repo: Repository,
    words: list[list[str]],
    agent: str | None,
    since: datetime | None,
    file: str | None,
    limit: int,
) -> list[_Scored]:
    db = open_index(repo)
    try:
        run = _Search(
            db, " ".join(" ".join(w) for w in words), _Filters.make(repo, agent, since, file), limit
        )
        run.collect(fts_query(words), relaxed=False)
        # Scoring stops early only once `limit` hits are in, so fewer hits means every candidate was one.
        if len(run.best) < limit:
            run.collect(_relaxed_query(db, words), relaxed=True)
    finally:
        db.close()
    return list(run.best.values())


@dataclass(frozen=True)
class _Filters:
    agent: str | None
    since: str | None
    rfile: str | None  # the file suffix, reversed

    @classmethod
    def make(cls, repo: Repository, agent: str | None, since: datetime | None, file: str | None) -> _Filters:
        rfile = None
        if file:
            path = Path(file)
            if path.is_absolute() and path.is_relative_to(repo.root):
                file = path.relative_to(repo.root).as_posix()
            file = file.replace("\\", "/").removeprefix("./").strip("/")
            rfile = file[::-1] if file else None
        return cls(agent, stamp(since), rfile)

    def candidates(self, table: str) -> tuple[str, list[Any]]:
        """SQL for (id, rank) of the newest `SCAN` rows of `table` ("messages" or "edits") that match the
        FTS query (its one parameter comes first) and pass the filters, and the filters' parameters.

        Newest first, then capped: bm25 is computed only for the rows kept, which bounds the cost of a
        query matching most of the index (docs/design.md: ranked FTS slows with hit count)."""
        fts = f"{table}_fts"
        join, where, params = "", "", []
        if self.agent or self.since:
            join = f" JOIN {table} r ON r.id = {fts}.rowid"
            if self.agent:
                where += " AND r.agent = ?"
                params.append(self.agent)
            if self.since:
                where += " AND r.timestamp >= ?"
                params.append(self.since)
        if self.rfile:
            # touches.rpath is the path reversed: "ends with FILE after a '/'" is the prefix range
            # [FILE/, FILE0). The unary + keeps FTS5 from being asked for each id in turn (per-id MATCH
            # runs were 100x slower); the id list is built once and probed per match.
            where += (
                f" AND +{fts}.rowid IN (SELECT x.id FROM touches t JOIN {table} x ON x.agent = t.agent "
                "AND x.session_id = t.session_id AND x.message_id = t.message_id WHERE t.rpath = ? OR "
                "(t.rpath >= ? AND t.rpath < ?))"
            )
            params += [self.rfile, self.rfile + "/", self.rfile + "0"]
        return (
            f"SELECT {fts}.rowid AS id, {fts}.rank AS rank FROM {fts}{join} WHERE {fts} MATCH ?{where} "
            f"ORDER BY {fts}.rowid DESC LIMIT {SCAN}"
        ), params


@dataclass
class _Scored:
    """A candidate's score and what its `Hit` needs; the snippet and the model are made for the few shown."""

    agent: str
    session_id: str
    message_id: str
    role: str | None
    timestamp: datetime | None
    text: str
    found: tuple[int, int]  # where the query aligns in `text`
    score: float

    def hit(self) -> Hit:
        return Hit(
            agent=self.agent,
            session_id=self.session_id,
            message_id=self.message_id,
            role=self.role,
            timestamp=self.timestamp,
            snippet=_snippet(self.text, *self.found),
            score=self.score,
            show=f"{self.session_id}:{self.message_id}",
        )


class _Search:
    """One search: candidates of the strict and relaxed queries, scored, the best copy of each message kept.

    Re-ranking is the costly part (rapidfuzz over up to 2 x CANDIDATES texts: ~30 ms of a common-word query at
    100k messages). Candidates come best bm25 first, and similarity adds at most
    1 - BM25_WEIGHT, so once a candidate's best possible score falls below the `limit`-th best score found,
    no later one can enter the answer and scoring stops: the same answer, from fewer candidates scored."""

    def __init__(self, db: Database, query: str, filters: _Filters, limit: int) -> None:
        self.db = db
        self.query = query
        self.filters = filters
        self.limit = limit
        self.best: dict[tuple[str, str, str], _Scored] = {}

    def collect(self, match: str, *, relaxed: bool) -> None:
        """Add the candidates of one FTS5 query over messages and edits."""
        if not match:
            return
        # bm25 first, then the text of the best CANDIDATES only (joining the text of all SCAN rows before
        # sorting them took half of a common-word query's SQL time).
        inner, params = self.filters.candidates("messages")
        rows = self.db.execute(
            "SELECT m.agent, m.session_id, m.message_id, m.role, m.timestamp, m.text, c.rank "
            f"FROM (SELECT id, rank FROM ({inner}) ORDER BY rank LIMIT ?) c JOIN messages m ON m.id = c.id "
            "ORDER BY c.rank",
            [match, *params, CANDIDATES],
        ).fetchall()
        # An edit hit names the message that made the edit; its role and time come from that message (the
        # edit's own time is its tool result's: one message, one time on every surface).
        inner, params = self.filters.candidates("edits")
        rows += self.db.execute(
            "SELECT e.agent, e.session_id, e.message_id, m.role, coalesce(m.timestamp, e.timestamp), "
            "e.added, "
            f"c.rank FROM (SELECT id, rank FROM ({inner}) ORDER BY rank LIMIT ?) c JOIN edits e ON e.id = "
            "c.id LEFT JOIN messages m ON m.agent = e.agent AND m.session_id = e.session_id AND "
            "m.message_id = e.message_id ORDER BY c.rank",
            [match, *params, CANDIDATES],
        ).fetchall()
        rows.sort(key=lambda row: row[6])  # best bm25 first (FTS5's rank is bm25 negated)
        best = min((row[6] for row in rows), default=0.0)
        factor = RELAXED if relaxed else 1.0
        floor = float("-inf")
        for done, (agent, session_id, message_id, role, when, text, rank) in enumerate(rows):
            bm25 = (rank / best if best < 0 else 1.0) * factor
            if done % 20 == 0:
                floor = self._floor()
            # Rounded as scores are: round() keeps order, so a bound below the floor cannot tie with it.
            if round(BM25_WEIGHT * bm25 + (1 - BM25_WEIGHT), 4) < floor:
                break  # every later candidate has a lower bm25, so a lower bound
            scored = self._score(agent, session_id, message_id, role, when, text or "", bm25)
            key = (agent, session_id, message_id)
            if key not in self.best or self.best[key].score < scored.score:
                self.best[key] = scored

    def _floor(self) -> float:
        """The `limit`-th best score so far (-inf while fewer are scored); it only rises as hits come in, so
        a floor read a few candidates ago is never above the true one."""
        if len(self.best) < self.limit:
            return float("-inf")
        return heapq.nlargest(self.limit, (hit.score for hit in self.best.values()))[-1]

    def _score(
        self,
        agent: str,
        session_id: str,
        message_id: str,
        role: str | None,
        when: str | None,
        text: str,
        bm25: float,
    ) -> _Scored:
        start = _first_word(text, self.query)
        window = text[start : start + WINDOW]
        # Same-length normalisation (lower case, punctuation to spaces) keeps alignment offsets valid.
        plain = _NON_WORD.sub(" ", window.lower()) if len(window.lower()) == len(window) else window
        alignment = fuzz.partial_ratio_alignment(self.query, plain)  # None only below a score_cutoff
        partial, found, ends = (
            (alignment.score, alignment.dest_start, alignment.dest_end) if alignment else (0, 0, 0)
        )
        similarity = 0.6 * partial + 0.4 * fuzz.token_set_ratio(self.query, plain)
        score = BM25_WEIGHT * bm25 + (1 - BM25_WEIGHT) * similarity / 100
        return _Scored(
            agent=agent,
            session_id=session_id,
            message_id=message_id,
            role=role,
            timestamp=datetime.fromisoformat(when) if when else None,
            text=text,
            found=(start + found, start + ends),
            score=round(score, 4),
        )


def _first_word(text: str, query: str) -> int:
    """Where the rapidfuzz window of a long text starts: a third of a window before the first query word."""
    if len(text) <= WINDOW:
        return 0
    lowered = text.lower()
    found = [i for i in (lowered.find(word) for word in query.split()) if i >= 0]
    return max(0, min(found) - WINDOW // 3) if found else 0


def _snippet(text: str, start: int, end: int, before: int = 80, after: int = 120) -> str:
    """Text around [start, end), cut at spaces, whitespace collapsed, '…' where cut."""
    left, right = max(0, start - before), min(len(text), end + after)
    if left > 0:
        space = text.find(" ", left, start)
        left = space + 1 if space >= 0 else left
    if right < len(text):
        space = text.rfind(" ", end, right)
        right = space if space >= 0 else right
    body = " ".join(text[left:right].split())
    return ("…" if left > 0 else "") + body + ("…" if right < len(text) else "")


def _relaxed_query(db: Database, words: list[list[str]]) -> str:
    """Any word, any of its tokens, or an indexed term spelled close to a token (typos)."""
    terms: dict[str, None] = {}
    lookups = NEAR_LOOKUPS
    for tokens in words:
        terms[" ".join(tokens)] = None
        for token in tokens:
            terms[token] = None
            if lookups > 0 and len(token) >= 4:
                lookups -= 1
                terms.update((near, None) for near in _near_terms(db, token))
    return fts_query([term.split() for term in terms], "OR")


def _near_terms(db: Database, token: str) -> list[str]:
    """Indexed terms (stems) with the same first two letters and rapidfuzz ratio >= 75 to `token`."""
    terms = prefix_terms(db, token[:2])  # fts5vocab's range, cached per index version (index/terms.py)
    found = process.extract(token, terms, scorer=fuzz.ratio, score_cutoff=75, limit=5)
    return [str(term) for term, _, _ in found if term != token and _WORD.fullmatch(str(term))]
