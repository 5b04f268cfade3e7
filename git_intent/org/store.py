"""The organisation store: one database (a SQLite file by default, PostgreSQL for a `postgresql://` URL)
holding every synced repository's commits, credited lines and shared messages, replaced repository by
repository.

A repository's rows are keyed by its id in `repositories`, and `replace_repository` deletes and inserts them
in one transaction under that repository's lock: writers of different repositories never touch each other's
rows, writers of one repository queue and the last one's snapshot is what stays, whole.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import TracebackType

from .backends import Database, Param, connect
from .queries import (
    OrgRepository,
    OrgSearchHit,
    OrgStats,
    SpanningSession,
    repositories,
    search,
    spanning_sessions,
    stats,
)
from .rows import CommitRow, CreditRow, MessageRow, RepoSnapshot
from .schema import migrate

__all__ = ["OrgStore", "open_store"]

_COMMIT_COLUMNS = ("repo_id", "sha", "committed_at", "author", "lines_added")
_CREDIT_COLUMNS = (
    "repo_id", "sha", "committed_at", "agent", "model", "session_id", "line_class", "lines", "has_evidence",
)  # fmt: skip
# SQLite message ids: unix seconds in the high bits, a sequence number in the low 24. Two messages of the same
# second collide only when 16,777,216 messages were loaded between them (the load then fails and is retried
# whole, nothing half-written).
SEQUENCE_BITS = 24
SEQUENCE_MASK = (1 << SEQUENCE_BITS) - 1
_MESSAGE_COLUMNS = ("repo_id", "agent", "session_id", "message_id", "role", "at", "text")


class OrgStore:
    """An open organisation store. Use as a context manager, or call `close`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def dialect(self) -> str:
        """ "sqlite" or "postgresql"."""
        return self.db.dialect

    def last_head(self, key: str) -> str | None:
        """The `head` of the snapshot last loaded for repository `key`, None when it was never loaded (or
        loaded without one): sync skips a repository whose refs still read the same."""
        rows = self.db.query("SELECT head FROM repositories WHERE key = ?", [key])
        return rows[0][0] if rows else None

    def replace_repository(self, snapshot: RepoSnapshot) -> None:
        """Make the store hold exactly `snapshot` for its repository, in one transaction: its previous rows
        are deleted and the snapshot's inserted (a message id or commit sha repeated within the snapshot is
        kept once, the first time). Idempotent. Concurrent calls for other repositories proceed at once; for
        the same repository they queue and the last to commit wins whole."""
        commits = _unique_commits(snapshot.commits)
        committed_at = {c.sha: c.committed_at for c in commits}
        messages = _unique_messages(snapshot.messages)
        with self.db.write(f"git-intent org repository {snapshot.key}"):
            repo_id = self._upsert_repository(snapshot, len(commits), len(snapshot.credits), len(messages))
            for table in ("messages", "credits", "commits"):
                self.db.execute(f"DELETE FROM {table} WHERE repo_id = ?", [repo_id])
            self.db.insert_many(
                "commits",
                _COMMIT_COLUMNS,
                ((repo_id, c.sha, c.committed_at, c.author, c.lines_added) for c in commits),
            )
            self.db.insert_many(
                "credits", _CREDIT_COLUMNS, (_credit(repo_id, c, committed_at) for c in snapshot.credits)
            )
            rows = ((repo_id, m.agent, m.session_id, m.message_id, m.role, m.at, m.text) for m in messages)
            if self.db.dialect == "sqlite":
                first = self._take_sequence(len(messages))
                numbered = sorted(  # in id order: each page of the table and of FTS5 is written once
                    ((row[5] or 0) << SEQUENCE_BITS | (first + n) & SEQUENCE_MASK, *row)
                    for n, row in enumerate(rows)
                )
                self.db.insert_many("messages", ("id", *_MESSAGE_COLUMNS), numbered)
            else:
                self.db.insert_many("messages", _MESSAGE_COLUMNS, rows)

    def _take_sequence(self, count: int) -> int:
        """The first of `count` message sequence numbers reserved (SQLite, inside the write transaction)."""
        first = int(self.db.query("SELECT next FROM message_sequence")[0][0])
        self.db.execute("UPDATE message_sequence SET next = ?", [first + count])
        return first

    def _upsert_repository(self, snapshot: RepoSnapshot, commits: int, credits: int, messages: int) -> int:
        rows = self.db.query(
            """INSERT INTO repositories (key, name, head, synced_at, commits, credits, messages)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (key) DO UPDATE SET name = excluded.name, head = excluded.head,
                synced_at = excluded.synced_at, commits = excluded.commits, credits = excluded.credits,
                messages = excluded.messages
            RETURNING id""",
            [snapshot.key, snapshot.name, snapshot.head, int(time.time()), commits, credits, messages],
        )
        return int(rows[0][0])

    def remove_repository(self, key: str) -> bool:
        """Delete repository `key` and all its rows; False when the store does not hold it."""
        with self.db.write(f"git-intent org repository {key}"):
            rows = self.db.query("SELECT id FROM repositories WHERE key = ?", [key])
            if not rows:
                return False
            for table in ("messages", "credits", "commits"):
                self.db.execute(f"DELETE FROM {table} WHERE repo_id = ?", [rows[0][0]])
            self.db.execute("DELETE FROM repositories WHERE id = ?", [rows[0][0]])
        return True

    def stats(self, by: str = "repo", since: int | None = None) -> list[dict[str, object]]:
        """`queries.stats` as JSON-ready dicts (schema `org-stats`)."""
        return [row.model_dump(mode="json") for row in self.stats_rows(by, since)]

    def stats_rows(self, by: str = "repo", since: int | None = None) -> list[OrgStats]:
        """Credited lines grouped by repo, agent, model or week (see `queries.stats`)."""
        return stats(self.db, by, since)

    def search(self, query: str, limit: int = 20) -> list[dict[str, object]]:
        """`queries.search` as JSON-ready dicts (schema `org-search`)."""
        return [hit.model_dump(mode="json") for hit in self.search_hits(query, limit)]

    def search_hits(self, query: str, limit: int = 20) -> list[OrgSearchHit]:
        """Messages of every repository containing every word of `query`, newest first."""
        return search(self.db, query, limit)

    def spanning_sessions(self) -> list[dict[str, object]]:
        """`queries.spanning_sessions` as JSON-ready dicts (schema `org-sessions`)."""
        return [row.model_dump(mode="json") for row in self.spanning_session_rows()]

    def spanning_session_rows(self) -> list[SpanningSession]:
        """Sessions with commits in two or more repositories."""
        return spanning_sessions(self.db)

    def repositories(self) -> list[dict[str, object]]:
        """`queries.repositories` as JSON-ready dicts."""
        return [row.model_dump(mode="json") for row in self.repository_rows()]

    def repository_rows(self) -> list[OrgRepository]:
        """Every repository in the store."""
        return repositories(self.db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> OrgStore:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def open_store(target: str | Path) -> OrgStore:
    """Open (creating and migrating when needed) the store at `target`: a `postgresql://` URL, or the path of
    a SQLite file. Raises IntentError when the database cannot be opened or reached."""
    db = connect(target)
    try:
        migrate(db)
    except BaseException:
        db.close()
        raise
    return OrgStore(db)


def _unique_commits(commits: tuple[CommitRow, ...]) -> list[CommitRow]:
    seen: dict[str, CommitRow] = {}
    for commit in commits:
        seen.setdefault(commit.sha, commit)
    return list(seen.values())


def _unique_messages(messages: tuple[MessageRow, ...]) -> list[MessageRow]:
    seen: dict[tuple[str, str, str], MessageRow] = {}
    for message in messages:
        seen.setdefault((message.agent, message.session_id, message.message_id), message)
    return list(seen.values())


def _credit(repo_id: int, credit: CreditRow, committed_at: dict[str, int]) -> tuple[Param, ...]:
    return (
        repo_id,
        credit.sha,
        committed_at.get(credit.sha),
        credit.agent,
        credit.model,
        credit.session_id,
        credit.line_class,
        credit.lines,
        int(credit.has_evidence),
    )
