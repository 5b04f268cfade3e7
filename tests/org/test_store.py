"""The organisation store on SQLite and on PostgreSQL: migrations, whole-repository replacement, and every
query's exact answer for the hand-written organisation of organisation.py."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.organisation import ALL, CLAUDE, T0, WEEK, api, docs, web

from git_intent.core.errors import IntentError
from git_intent.org.rows import RepoSnapshot
from git_intent.org.schema import MIGRATIONS, schema_version
from git_intent.org.store import OrgStore, open_store


def load(store: OrgStore) -> None:
    for snapshot in ALL:
        store.replace_repository(snapshot())


def counts(store: OrgStore) -> tuple[int, int, int, int]:
    return tuple(  # type: ignore[return-value]
        store.db.query(f"SELECT COUNT(*) FROM {table}")[0][0]
        for table in ("repositories", "commits", "credits", "messages")
    )


def test_opening_applies_each_migration_once(store_target: str) -> None:
    for _ in range(2):
        with open_store(store_target) as store:
            assert schema_version(store.db) == MIGRATIONS[-1].version == 1
            assert store.db.query("SELECT COUNT(*) FROM org_schema")[0][0] == 1
            assert counts(store) == (0, 0, 0, 0)


def test_replacing_a_repository_keeps_only_its_last_snapshot(store: OrgStore) -> None:
    load(store)
    load(store)  # idempotent: the same rows, not twice as many
    assert counts(store) == (3, 4, 5, 4)
    assert store.last_head(api().key) == "api-1"
    assert store.last_head(docs().key) is None
    assert store.last_head("https://example.com/org/unknown.git") is None

    old = api()
    store.replace_repository(
        RepoSnapshot(old.key, "api", "api-2", old.commits[1:], old.credits[2:], old.messages[2:])
    )
    assert counts(store) == (3, 3, 3, 2)
    assert store.last_head(old.key) == "api-2"
    # The full-text index follows: api's retry messages are gone, web's stays.
    assert [(hit["repository"], hit["message_id"]) for hit in store.search("retry")] == [("web", "m3")]


def test_a_message_or_commit_repeated_in_a_snapshot_is_stored_once(store: OrgStore) -> None:
    snapshot = web()
    store.replace_repository(
        RepoSnapshot(
            snapshot.key,
            snapshot.name,
            snapshot.head,
            snapshot.commits * 2,
            snapshot.credits,
            snapshot.messages * 3,
        )
    )
    assert counts(store) == (1, 1, 1, 1)


def test_removing_a_repository_deletes_its_rows(store: OrgStore) -> None:
    load(store)
    assert store.remove_repository(api().key) is True
    assert store.remove_repository(api().key) is False
    assert counts(store) == (2, 2, 2, 1)
    assert [(hit["repository"], hit["message_id"]) for hit in store.search("budget")] == [("web", "m3")]


def test_stats_by_repository(store: OrgStore) -> None:
    load(store)
    assert store.stats("repo") == [
        {
            "key": "api",
            "repositories": 1,
            "commits": 2,
            "sessions": 2,
            "lines": 42,
            "lines_by_class": {"agent_with_evidence": 20, "agent_without_evidence": 12, "human": 10},
            "agent_lines": 32,
            "agent_share": 0.7619,
            "evidence_lines": 20,
            "evidence_share": 0.625,
        },
        {
            "key": "web",
            "repositories": 1,
            "commits": 1,
            "sessions": 1,
            "lines": 8,
            "lines_by_class": {"agent_with_evidence": 8},
            "agent_lines": 8,
            "agent_share": 1.0,
            "evidence_lines": 8,
            "evidence_share": 1.0,
        },
        {
            "key": "docs",
            "repositories": 1,
            "commits": 1,
            "sessions": 0,
            "lines": 5,
            "lines_by_class": {"human": 5},
            "agent_lines": 0,
            "agent_share": 0.0,
            "evidence_lines": 0,
            "evidence_share": 0.0,
        },
    ]


def test_stats_by_agent_model_and_week(store: OrgStore) -> None:
    load(store)
    by_agent = [(r["key"], r["repositories"], r["commits"], r["lines"]) for r in store.stats("agent")]
    assert by_agent == [(CLAUDE, 2, 2, 28), (None, 2, 2, 15), ("codex", 1, 1, 12)]
    by_model = [(r["key"], r["lines"], r["agent_share"]) for r in store.stats("model")]
    assert by_model == [("claude-opus-4", 28, 1.0), (None, 15, 0.0), ("gpt-5", 12, 1.0)]
    by_week = [(r["key"], r["commits"], r["lines"], r["agent_share"]) for r in store.stats("week")]
    assert by_week == [("2023-11-13", 2, 38, 0.7368), ("2023-11-20", 1, 12, 1.0), ("2023-11-27", 1, 5, 0.0)]


def test_stats_since_counts_only_later_commits(store: OrgStore) -> None:
    load(store)
    rows = [(r["key"], r["commits"], r["lines"]) for r in store.stats("repo", since=T0 + WEEK)]
    assert rows == [("api", 1, 12), ("docs", 1, 5)]
    assert store.stats("week", since=T0 + 10 * WEEK) == []


def test_stats_refuses_an_unknown_grouping(store: OrgStore) -> None:
    with pytest.raises(IntentError, match="repo, agent, model, week, not 'author'"):
        store.stats("author")


def test_search_finds_every_word_newest_first(store: OrgStore) -> None:
    load(store)
    hits = store.search("Retry BUDGET")
    assert [(h["repository"], h["session_id"], h["message_id"], h["at"]) for h in hits] == [
        ("web", "s-shared", "m3", T0 + 3000),
        ("api", "s-shared", "m2", T0 - 30),
        ("api", "s-shared", "m1", T0 - 60),
    ]
    assert hits[0]["repository_key"] == "https://example.com/org/web.git"
    assert hits[0]["agent"] == CLAUDE and hits[0]["role"] == "user"
    assert "[retry]" in hits[0]["snippet"] and "[budget]" in hits[0]["snippet"]
    assert [h["message_id"] for h in store.search("retry", limit=1)] == ["m3"]
    assert store.search("retry pagination") == []


def test_search_prefixes_case_and_accents(store: OrgStore) -> None:
    load(store)
    assert [h["session_id"] for h in store.search("pagin*")] == ["s-api"]
    assert [h["session_id"] for h in store.search("CAFÉ")] == ["s-api"]
    assert store.search("cafe") == []  # accents are kept, on both back ends
    assert store.search('budget" OR "x') == []  # query syntax is not passed through: three plain words


def test_search_without_a_word_is_refused(store: OrgStore) -> None:
    with pytest.raises(IntentError, match="has no word"):
        store.search("*** --")


def test_sessions_spanning_repositories(store: OrgStore) -> None:
    load(store)
    assert store.spanning_sessions() == [
        {
            "session_id": "s-shared",
            "agent": CLAUDE,
            "repositories": ["api", "web"],
            "commits": 2,
            "lines": 28,
            "has_evidence": True,
            "first_at": T0,
            "last_at": T0 + 3600,
        }
    ]
    store.remove_repository(web().key)
    assert store.spanning_sessions() == []


def test_repositories_list_what_each_holds(store: OrgStore) -> None:
    before = int(time.time())
    load(store)
    rows = store.repositories()
    assert [(r["name"], r["head"], r["commits"], r["credits"], r["messages"]) for r in rows] == [
        ("api", "api-1", 2, 3, 3),
        ("docs", None, 1, 1, 0),
        ("web", "web-1", 1, 1, 1),
    ]
    assert all(before <= r["synced_at"] <= int(time.time()) for r in rows)


def test_a_sqlite_store_that_cannot_be_opened_says_so(tmp_path: Path) -> None:
    (tmp_path / "org.db").mkdir()
    with pytest.raises(IntentError, match="cannot be opened"):
        open_store(tmp_path / "org.db")


def test_an_unreachable_server_is_named_without_its_password(tmp_path: Path) -> None:
    with pytest.raises(IntentError) as caught:
        open_store(f"postgresql://ada:s3cret@/nowhere?host={tmp_path}")
    assert "cannot be reached" in str(caught.value)
    assert "s3cret" not in str(caught.value) and "ada:***@" in str(caught.value)


def test_a_sqlite_store_locked_past_the_timeout_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("git_intent.org.backends.BUSY_TIMEOUT_S", 0.1)
    with open_store(tmp_path / "org.db") as holder, open_store(tmp_path / "org.db") as waiter:
        with holder.db.write("another writer"):
            with pytest.raises(IntentError, match=r"cannot be written: database is locked \(another writer"):
                waiter.replace_repository(web())
        waiter.replace_repository(web())  # free again
        assert waiter.last_head(web().key) == "web-1"
