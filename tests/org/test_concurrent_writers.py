"""Several processes write one store at once, as `org sync` jobs from CI do: 8 writers, five for a repository
each and three for one shared repository, each replacing its repository three times, every round started
together behind a barrier. Afterwards every repository holds exactly one writer's snapshot, whole: no row
lost, none doubled, and the full-text index agrees with the table."""

from __future__ import annotations

import multiprocessing
from multiprocessing.synchronize import Barrier

from git_intent.org.rows import CommitRow, CreditRow, MessageRow, RepoSnapshot
from git_intent.org.store import open_store

OWN = 5  # writers with a repository of their own
SHARED = 3  # writers of the one shared repository
ROUNDS = 3
T0 = 1_700_000_000


def snapshot(key: str, writer: int, messages: int) -> RepoSnapshot:
    """A repository as writer `writer` sees it: `messages` messages (each with the writer's own word, so the
    full-text index can be counted per writer), one commit per 10 messages, two credit rows per commit."""
    commits = tuple(
        CommitRow(f"{writer}-{n:05}", T0 + n, "Ada <ada@example.com>", 3) for n in range(messages // 10)
    )
    credits = tuple(
        CreditRow(c.sha, "claude-code", "opus", f"s{writer}", line_class, 1 + (line_class == "human"), False)
        for c in commits
        for line_class in ("agent_without_evidence", "human")
    )
    rows = tuple(
        MessageRow(
            "claude-code", f"s{writer}", f"m{n}", "user", T0 + n, f"message {n} of writer{writer} in {key}"
        )
        for n in range(messages)
    )
    return RepoSnapshot(key, key, f"head-{writer}", commits, credits, rows)


def plan() -> list[tuple[str, int, int]]:
    """(repository key, writer, messages) for every writer; the shared repository's writers differ in size."""
    own = [(f"repo-{writer}", writer, 600 + 100 * writer) for writer in range(OWN)]
    shared = [("repo-shared", OWN + n, 500 + 400 * n) for n in range(SHARED)]
    return own + shared


def write(target: str, key: str, writer: int, messages: int, barrier: Barrier) -> None:
    rows = snapshot(key, writer, messages)
    with open_store(target) as store:
        for _ in range(ROUNDS):
            barrier.wait(timeout=60)  # every round starts together, the last one too
            store.replace_repository(rows)


def test_concurrent_writers_never_lose_or_duplicate_rows(store_target: str) -> None:
    open_store(store_target).close()  # the schema first: writers race on rows, not on the migration
    writers = plan()
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(len(writers))
    processes = [
        context.Process(target=write, args=(store_target, key, writer, messages, barrier))
        for key, writer, messages in writers
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=240)
    assert [process.exitcode for process in processes] == [0] * len(writers)

    with open_store(store_target) as store:
        db = store.db
        repositories = {r["key"]: r for r in store.repositories()}
        assert sorted(repositories) == [f"repo-{n}" for n in range(OWN)] + ["repo-shared"]
        shared = repositories["repo-shared"]
        winner = int(shared["head"].removeprefix("head-"))
        assert winner in range(OWN, OWN + SHARED)
        expected = {key: (writer, messages) for key, writer, messages in writers if key != "repo-shared"}
        expected["repo-shared"] = (winner, 500 + 400 * (winner - OWN))
        for key, (writer, messages) in expected.items():
            (repo_id,) = db.query("SELECT id FROM repositories WHERE key = ?", [key])[0]
            rows = [db.query(f"SELECT COUNT(*) FROM {t} WHERE repo_id = ?", [repo_id])[0][0] for t in TABLES]
            assert rows == [messages // 10, messages // 5, messages], key
            sessions = db.query("SELECT DISTINCT session_id FROM messages WHERE repo_id = ?", [repo_id])
            assert sessions == [(f"s{writer}",)], key  # one writer's snapshot, not a mixture
            assert repositories[key]["head"] == f"head-{writer}"
            assert (repositories[key]["commits"], repositories[key]["messages"]) == (messages // 10, messages)
            assert len(store.search(f"writer{writer}", limit=10_000)) == messages
        total = sum(messages for _, messages in expected.values())
        assert db.query("SELECT COUNT(*) FROM messages")[0][0] == total
        for loser in set(range(OWN, OWN + SHARED)) - {winner}:
            assert store.search(f"writer{loser}") == []


TABLES = ("commits", "credits", "messages")
