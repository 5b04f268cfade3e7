"""The organisation store at scale: a generated organisation (200 repositories, 1,000,000 messages by default)
loaded repository by repository into SQLite and into a private PostgreSQL server, then `stats` and `search`
timed.

No git is involved: the repositories are generated directly as RepoSnapshots (what `org sync` hands the
store), so the figures are the store's own. Prints, per back end: load throughput (messages/s, counting only
`replace_repository`), the time to replace one loaded repository again, the p50/p95 of every stats grouping
and of three kinds of search (a mid-frequency word, a frequent word, two words), the store's size, and this
process's peak RSS after each quarter of the repositories (flat: one repository is in memory at a time).
Goals: search p95 <= 100 ms, stats p95 <= 1 s.

Run:  .venv/bin/python bench/org_scale.py [--repos 200] [--messages 1000000] [--store sqlite|postgresql|both]
The PostgreSQL server is Debian's (scripts/ensure-postgresql), started in a temporary directory with its
default settings (fsync on) and stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # tests/support/postgres.py starts the private server

from git_intent.org.rows import CommitRow, CreditRow, MessageRow, RepoSnapshot  # noqa: E402
from git_intent.org.store import OrgStore, open_store  # noqa: E402

T0 = 1_735_689_600  # 2025-01-01 UTC: a year of history
YEAR_S = 365 * 86400
VOCABULARY = 20_000
POOL = 20_000  # distinct message texts the messages are drawn from
AGENTS = (
    ("claude-code", "claude-opus-4"),
    ("codex", "gpt-5"),
    ("cursor", "claude-sonnet-4"),
    ("gemini-cli", "gemini-2.5-pro"),
)
CLASSES = ("agent_with_evidence", "agent_without_evidence", "human", "unrecorded")


def vocabulary(rng: random.Random) -> list[str]:
    """VOCABULARY distinct pronounceable words; rank 0 the most frequent (Zipf's law, s = 1)."""
    consonants, vowels = "bcdfghklmnprstvz", "aeiou"
    words: dict[str, None] = {}
    while len(words) < VOCABULARY:
        length = rng.randint(2, 4)
        words["".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(length))] = None
    return list(words)


def text_pool(rng: random.Random, words: list[str]) -> list[str]:
    weights = [1 / (rank + 1) for rank in range(len(words))]
    return [" ".join(rng.choices(words, weights, k=rng.randint(8, 40))) for _ in range(POOL)]


def repository(n: int, repos: int, messages: int, pool: list[str]) -> RepoSnapshot:
    """Repository `n`: `messages` messages in sessions of 25, a commit per 10 messages with two credit rows;
    every tenth session also has a commit in repository n+1 (a session spanning repositories)."""
    rng = random.Random(n)
    commits, credits, rows = [], [], []
    for s in range(max(1, messages // 25)):
        agent, model = AGENTS[(n + s) % len(AGENTS)]
        session_id = f"r{n}-s{s}"
        start = T0 + rng.randrange(YEAR_S)
        count = min(25, messages - s * 25)
        for m in range(count):
            rows.append(
                MessageRow(
                    agent, session_id, f"m{m}", ("user", "assistant")[m % 2], start + 30 * m, rng.choice(pool)
                )
            )
        for c in range(max(1, count // 10)):
            sha = f"{n:04x}{s:06x}{c:02x}".ljust(40, "0")
            when = start + 600 * (c + 1)
            commits.append(CommitRow(sha, when, "Dev <dev@example.com>", 40))
            line_class = CLASSES[rng.randrange(2)]
            credits.append(CreditRow(sha, agent, model, session_id, line_class, 30, line_class == CLASSES[0]))
            credits.append(CreditRow(sha, None, None, None, CLASSES[2 + rng.randrange(2)], 10, False))
        if s % 10 == 0 and n > 0:  # a commit here of the previous repository's session
            sha = f"{n:04x}{s:06x}ff".ljust(40, "0")
            commits.append(CommitRow(sha, start + 7200, "Dev <dev@example.com>", 5))
            credits.append(CreditRow(sha, agent, model, f"r{n - 1}-s{s}", CLASSES[0], 5, True))
    return RepoSnapshot(
        f"https://git.example.com/org/repo{n:03}.git",
        f"repo{n:03}",
        f"head-{n}",
        tuple(commits),
        tuple(credits),
        tuple(rows),
    )


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load(store: OrgStore, repos: int, messages: int, pool: list[str]) -> dict[str, object]:
    per_repo = messages // repos
    spent = 0.0
    rss: dict[str, float] = {}
    for n in range(repos):
        snapshot = repository(n, repos, per_repo, pool)
        started = time.perf_counter()
        store.replace_repository(snapshot)
        spent += time.perf_counter() - started
        if (n + 1) % max(1, repos // 4) == 0 or n + 1 == repos:
            peak = rss[f"{n + 1} repos"] = round(peak_rss_mb(), 1)
            print(f"  {n + 1}/{repos} repositories, {spent:.1f} s loading, peak RSS {peak} MB", flush=True)
    again = repository(repos // 2, repos, per_repo, pool)
    started = time.perf_counter()
    store.replace_repository(again)
    resync = time.perf_counter() - started
    return {
        "messages": per_repo * repos,
        "load_s": round(spent, 1),
        "messages_per_s": round(per_repo * repos / spent),
        "repositories_per_s": round(repos / spent, 2),
        "replace_one_loaded_repository_ms": round(resync * 1000),
        "peak_rss_mb": rss,
    }


def timed(call: Callable[[], object], rounds: int) -> list[float]:
    call()  # warm
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return times


def percentiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(p95, 1),
        "max_ms": round(ordered[-1], 1),
    }


def queries(store: OrgStore, words: list[str], rounds: int) -> dict[str, dict[str, float]]:
    rng = random.Random(7)
    out: dict[str, dict[str, float]] = {}
    for by in ("repo", "agent", "model", "week"):
        out[f"stats --by {by}"] = percentiles(timed(lambda by=by: store.stats(by), rounds))  # type: ignore[misc]
    since = T0 + YEAR_S - 30 * 86400
    out["stats --by repo --since (last 30 days)"] = percentiles(
        timed(lambda: store.stats("repo", since), rounds)
    )
    out["sessions (spanning)"] = percentiles(timed(store.spanning_sessions, max(3, rounds // 4)))
    kinds = {
        "search: one mid-frequency word (rank 100-5000)": lambda: words[rng.randrange(100, 5000)],
        "search: one frequent word (rank 10-100)": lambda: words[rng.randrange(10, 100)],
        "search: two words (rank 10-2000 each)": lambda: (
            f"{words[rng.randrange(10, 2000)]} {words[rng.randrange(10, 2000)]}"
        ),
    }
    for name, pick in kinds.items():
        times = []
        for _ in range(rounds):
            query = pick()
            started = time.perf_counter()
            store.search(query, 20)
            times.append((time.perf_counter() - started) * 1000)
        out[name] = percentiles(times)
    return out


def size_mb(store: OrgStore, path: Path | None) -> float:
    if path is not None:
        return round(sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6, 1)
    return round(store.db.query("SELECT pg_database_size(current_database())")[0][0] / 1e6, 1)


def targets(kind: str, work: Path) -> Iterator[tuple[str, str, Path | None]]:
    if kind in ("sqlite", "both"):
        yield "sqlite", str(work / "org.db"), work / "org.db"
    if kind in ("postgresql", "both"):
        from support.postgres import start_server

        server = start_server(settings=())
        try:
            yield "postgresql", server.database("org_bench"), None
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repos", type=int, default=200)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--store", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=40, help="timed runs of each query (default 40)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    rng = random.Random(1)
    words = vocabulary(rng)
    pool = text_pool(rng, words)
    work = Path(tempfile.mkdtemp(prefix="git-intent-org-bench-"))
    figures: dict[str, object] = {"repos": args.repos, "messages": args.messages}
    try:
        for name, target, path in targets(args.store, work):
            print(f"{name}: loading {args.repos} repositories, {args.messages:,} messages", flush=True)
            with open_store(target) as store:
                loaded = load(store, args.repos, args.messages, pool)
                loaded["size_mb"] = size_mb(store, path)
                answered = queries(store, words, args.rounds)
            figures[name] = {"load": loaded, "queries": answered}
            print(json.dumps(figures[name], indent=2), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
