"""The questions asked across an organisation's repositories: line stats grouped by repository, agent,
model or week; full-text search over every shared message; sessions whose commits span repositories; the
repositories loaded. The same SQL runs on SQLite and PostgreSQL (search differs only in its match clause).

Each answer is a list of pydantic models (their JSON Schemas are `docs/schemas/org-*.json`).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import BaseModel

from ..core.errors import IntentError
from .backends import Database, Param

__all__ = [
    "GROUPINGS",
    "Grouping",
    "OrgRepository",
    "OrgSearchHit",
    "OrgStats",
    "SpanningSession",
    "repositories",
    "search",
    "spanning_sessions",
    "stats",
]

Grouping = Literal["repo", "agent", "model", "week"]
GROUPINGS: tuple[Grouping, ...] = ("repo", "agent", "model", "week")
WEEK_S = 7 * 86400
# Unix time 0 was a Thursday; weeks start on Monday 1970-01-05 (345,600 s later), as ISO weeks do.
FIRST_MONDAY_S = 4 * 86400
_GROUP_SQL = {
    "repo": "c.repo_id",
    "agent": "c.agent",
    "model": "c.model",
    "week": f"(c.committed_at - {FIRST_MONDAY_S}) / {WEEK_S}",
}


class OrgStats(BaseModel):
    """Credited lines of one group. `key` is the repository's name (by repo), the agent or model (null: lines
    no agent wrote), or the Monday starting the UTC week, YYYY-MM-DD (null: a commit without a time).
    `agent_lines` counts the classes starting "agent"; `agent_share` is agent_lines / lines and
    `evidence_share` evidence_lines / agent_lines (0 when the divisor is 0), rounded to 4 places. `commits`
    counts distinct commit ids: a commit present in two forks counts once."""

    key: str | None
    repositories: int
    commits: int
    sessions: int
    lines: int
    lines_by_class: dict[str, int]
    agent_lines: int
    agent_share: float
    evidence_lines: int
    evidence_share: float


class OrgSearchHit(BaseModel):
    """One message matching a search: where it lives and a snippet with the matched words in [brackets].
    `at` is unix seconds (null when the transcript has no time)."""

    repository: str
    repository_key: str
    agent: str
    session_id: str
    message_id: str
    role: str
    at: int | None
    snippet: str


class SpanningSession(BaseModel):
    """A session with commits in more than one repository: the repositories' names (sorted), the commits
    and credited lines in all of them, and the first and last commit times (unix seconds)."""

    session_id: str
    agent: str | None
    repositories: list[str]
    commits: int
    lines: int
    has_evidence: bool
    first_at: int | None
    last_at: int | None


class OrgRepository(BaseModel):
    """One repository in the store: its key and name, the refs state last loaded (`head`), when (unix
    seconds) and how many commits, credit rows and messages it holds."""

    key: str
    name: str
    head: str | None
    synced_at: int
    commits: int
    credits: int
    messages: int


def stats(db: Database, by: str = "repo", since: int | None = None) -> list[OrgStats]:
    """Credited lines per group (`by`: repo, agent, model or week), of commits made at or after `since`
    (unix seconds) when given. Ordered by lines, most first (by week: oldest week first).
    Raises IntentError for another `by`."""
    if by not in _GROUP_SQL:
        raise IntentError(f"Stats group by one of {', '.join(GROUPINGS)}, not {by!r}.")
    group = _GROUP_SQL[by]
    where, params = ("WHERE c.committed_at >= ?", [since]) if since is not None else ("", [])
    totals = db.query(
        f"""SELECT {group} AS g, COUNT(DISTINCT c.repo_id),
            COUNT(DISTINCT c.sha),
            COUNT(DISTINCT c.session_id), SUM(c.lines),
            SUM(CASE WHEN c.line_class LIKE 'agent%' THEN c.lines ELSE 0 END),
            SUM(CASE WHEN c.has_evidence = 1 THEN c.lines ELSE 0 END)
        FROM credits c {where} GROUP BY g""",
        params,
    )
    classes: dict[object, dict[str, int]] = {}
    for g, line_class, lines in db.query(
        f"SELECT {group} AS g, c.line_class, SUM(c.lines) FROM credits c {where} GROUP BY g, c.line_class",
        params,
    ):
        classes.setdefault(g, {})[line_class] = int(lines)
    names: dict[object, str] = dict(db.query("SELECT id, name FROM repositories")) if by == "repo" else {}
    rows = [
        OrgStats(
            key=_key(by, g, names),
            repositories=repos,
            commits=commits,
            sessions=sessions,
            lines=int(lines),
            lines_by_class=dict(sorted(classes.get(g, {}).items())),
            agent_lines=int(agent),
            agent_share=_share(int(agent), int(lines)),
            evidence_lines=int(evidence),
            evidence_share=_share(int(evidence), int(agent)),
        )
        for g, repos, commits, sessions, lines, agent, evidence in totals
    ]
    if by == "week":
        return sorted(rows, key=lambda row: (row.key is None, row.key or ""))
    return sorted(rows, key=lambda row: (-row.lines, row.key is None, row.key or ""))


def _key(by: str, group: object, names: dict[object, str]) -> str | None:
    if group is None:
        return None
    if by == "repo":
        return names.get(group, str(group))
    if by == "week":
        monday = dt.date(1970, 1, 5) + dt.timedelta(weeks=int(str(group)))
        return monday.isoformat()
    return str(group)


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


_WORD = re.compile(r"\w+\*?")


def search(db: Database, query: str, limit: int = 20) -> list[OrgSearchHit]:
    """Messages containing every word of `query` (case-insensitive, accents kept, no stemming; `word*`
    matches a prefix), newest first, at most `limit`. Raises IntentError when the query has no word."""
    words = _WORD.findall(query)
    if not words:
        raise IntentError(f"The search {query!r} has no word to look for.")
    # Newest first, messages of one second in load order: on SQLite a message's id is its time (schema.py).
    order = "ORDER BY m.at DESC NULLS LAST, m.id DESC LIMIT ?"
    columns = "r.name, r.key, m.agent, m.session_id, m.message_id, m.role, m.at"
    params: list[Param]
    if db.dialect == "sqlite":
        match = " ".join(f'"{w.rstrip("*")}"' + ("*" if w.endswith("*") else "") for w in words)
        rows = db.query(
            f"""SELECT {columns}, snippet(messages_fts, 0, '[', ']', '…', 16)
            FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
            JOIN repositories r ON r.id = m.repo_id
            WHERE messages_fts MATCH ? ORDER BY messages_fts.rowid DESC LIMIT ?""",
            [match, limit],
        )
    else:
        tsquery = " & ".join(_lexeme(w) for w in words)
        params = [tsquery, limit]
        rows = db.query(
            f"""SELECT {columns}, ts_headline('simple', m.text, q,
                'StartSel=[, StopSel=], MaxWords=24, MinWords=12')
            FROM messages m JOIN repositories r ON r.id = m.repo_id, to_tsquery('simple', ?) q
            WHERE m.tsv @@ q {order}""",
            params,
        )
    return [
        OrgSearchHit(
            repository=name,
            repository_key=key,
            agent=agent,
            session_id=session_id,
            message_id=message_id,
            role=role,
            at=at,
            snippet=snippet,
        )
        for name, key, agent, session_id, message_id, role, at, snippet in rows
    ]


def _lexeme(word: str) -> str:
    """One word as a to_tsquery operand: quoted (no operator inside survives), lower-cased as `simple`
    does."""
    prefix = word.endswith("*")
    text = word.rstrip("*").lower().replace("'", "")
    return f"'{text}'" + (":*" if prefix else "")


def spanning_sessions(db: Database) -> list[SpanningSession]:
    """Sessions credited in commits of two or more repositories, most repositories first, then the latest
    commit first."""
    rows = db.query(
        """SELECT c.session_id, MAX(c.agent), r.name, COUNT(DISTINCT c.sha), SUM(c.lines),
            MAX(c.has_evidence), MIN(c.committed_at), MAX(c.committed_at)
        FROM credits c JOIN repositories r ON r.id = c.repo_id
        WHERE c.session_id IN (SELECT session_id FROM credits WHERE session_id IS NOT NULL
                               GROUP BY session_id HAVING COUNT(DISTINCT repo_id) > 1)
        GROUP BY c.session_id, r.id, r.name"""
    )
    merged: dict[str, SpanningSession] = {}
    for session_id, agent, name, commits, lines, evidence, first, last in rows:
        seen = merged.get(session_id)
        if seen is None:
            merged[session_id] = SpanningSession(
                session_id=session_id,
                agent=agent,
                repositories=[name],
                commits=commits,
                lines=int(lines),
                has_evidence=bool(evidence),
                first_at=first,
                last_at=last,
            )
            continue
        seen.repositories.append(name)
        seen.agent = seen.agent or agent
        seen.commits += commits
        seen.lines += int(lines)
        seen.has_evidence = seen.has_evidence or bool(evidence)
        seen.first_at = min((t for t in (seen.first_at, first) if t is not None), default=None)
        seen.last_at = max((t for t in (seen.last_at, last) if t is not None), default=None)
    for session in merged.values():
        session.repositories.sort()
    return sorted(merged.values(), key=lambda s: (-len(s.repositories), -(s.last_at or 0), s.session_id))


def repositories(db: Database) -> list[OrgRepository]:
    """Every repository in the store, by name then key."""
    rows = db.query(
        "SELECT key, name, head, synced_at, commits, credits, messages FROM repositories ORDER BY name, key"
    )
    return [
        OrgRepository(
            key=key,
            name=name,
            head=head,
            synced_at=synced,
            commits=commits,
            credits=credits,
            messages=messages,
        )
        for key, name, head, synced, commits, credits, messages in rows
    ]
