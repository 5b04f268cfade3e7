"""Session index throughput: ingest of generated sessions, index size, and search latency.

Generates N sessions (default 1,000) of M messages each (default 1,000: about a million messages) as
`Session` objects in memory, streamed into `git_intent.index.ingest` one session at a time, so the figures
are the index's own (adapters' parse time is not included; generating the sessions is timed apart and
subtracted). Messages mix user prompts, assistant prose, tool calls (Edit with a file path, Bash) and tool
results; one assistant message in 20 carries an Edit (an `edits` row). Text is built from a Zipf-weighted
vocabulary of pronounceable words plus marker words of known frequency, so queries have known selectivity:

  rare    a marker word in ~10 messages          common  one of the 20 most frequent words
  medium  a marker word in ~1,000 messages        phrase  two adjacent words of one generated sentence
  typo    a medium marker with one letter changed (the relaxed, near-spelling path)
  filter  a medium marker with --agent, --since or --file

Then prints ingest throughput (MB/s of message and edit text, rows/s), the index size, one incremental
ingest (one session that grew by one message), and search latency p50/p95 over 200 queries (40 per kind
for rare, medium, common, phrase, typo; filters folded into 40 of them).

`--keep DIR` builds the index in DIR and keeps it with the queries (`queries.json`); run again with the same
DIR, the bench skips generating and ingesting and searches the kept index (1M messages take minutes to build).
`--answers FILE` writes each query's hits (session, message, score, in order); `--compare FILE` checks them
against a file an earlier run (another build) wrote and exits 1 when any query's answer differs.

Run: .venv/bin/python bench/index_throughput.py [--sessions N] [--messages-per-session M] [--queries Q]
     [--seed S] [--json] [--keep DIR] [--answers FILE] [--compare FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from _common import isolate

from git_intent.core.values import AddedLine, Edit, Message, Part, Session
from git_intent.git.repo import Repository
from git_intent.index import index_path, ingest
from git_intent.index.search import search

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "to",
    "vi",
    "zu",
    "ber",
    "dan",
    "fel",
    "gor",
    "hin",
    "jat",
    "kol",
    "lum",
    "mor",
    "nix",
    "pel",
    "quo",
    "ras",
    "sil",
    "tam",
    "ul",
    "ven",
    "wex",
    "yor",
    "zan",
    "bri",
]
FILES = [f"src/pkg_{i // 20}/module_{i}.py" for i in range(200)]


class Corpus:
    """Deterministic synthetic text: a Zipf vocabulary, a pool of sentences, and marker words."""

    def __init__(self, rng: random.Random, total_messages: int) -> None:
        self.rng = rng
        words = sorted({"".join(rng.choices(SYLLABLES, k=rng.randint(2, 4))) for _ in range(40000)})
        rng.shuffle(words)
        self.vocab = words[:20000]
        self.markers = words[20000:20600]
        weights = [1 / (rank + 1) for rank in range(len(self.vocab))]
        self.sentences = [
            " ".join(rng.choices(self.vocab, weights=weights, k=rng.randint(6, 16))).capitalize() + "."
            for _ in range(20000)
        ]
        # rare markers: ~10 messages each; medium: ~1,000 each (scaled to the corpus size)
        self.rare = self.markers[:300]
        self.medium = self.markers[300:]
        self.p_rare = min(1.0, 10 * len(self.rare) / max(1, total_messages))
        self.p_medium = min(1.0, 1000 * len(self.medium) / max(1, total_messages))

    def text(self, sentences: int) -> str:
        body = self.rng.sample(self.sentences, sentences)
        if self.rng.random() < self.p_rare:
            body.append(self.rng.choice(self.rare) + ".")
        if self.rng.random() < self.p_medium:
            body.insert(self.rng.randrange(len(body) + 1), self.rng.choice(self.medium) + ".")
        return " ".join(body)


def sessions(
    corpus: Corpus, count: int, per_session: int, start: datetime, timer: list[float]
) -> Iterator[Session]:
    """`count` sessions, generated lazily; time spent generating is added to timer[0] (wall) and timer[1]
    (CPU)."""
    rng = corpus.rng
    agents = ["claude-code", "codex", "opencode", "gemini-cli"]
    for s in range(count):
        began, cpu_began = time.perf_counter(), time.process_time()
        session_id = f"{s:08d}-bench-{rng.getrandbits(48):012x}"
        agent = agents[s % len(agents)]
        when = start + timedelta(hours=s)
        messages: list[Message] = []
        edits: list[Edit] = []
        for m in range(per_session):
            message_id = f"m{m:06d}"
            when += timedelta(seconds=3)
            kind = m % 10
            if kind == 0:
                messages.append(
                    Message(
                        message_id=message_id,
                        role="user",
                        timestamp=when,
                        is_prompt=True,
                        parts=(Part(kind="text", text=corpus.text(2)),),
                    )
                )
            elif kind in (2, 6):
                path = f"/home/dev/project/{rng.choice(FILES)}"
                new = corpus.text(1)
                call = json.dumps({"file_path": path, "old_string": corpus.text(1), "new_string": new})
                messages.append(
                    Message(
                        message_id=message_id,
                        role="assistant",
                        timestamp=when,
                        parts=(
                            Part(kind="text", text=corpus.text(1)),
                            Part(kind="tool_call", tool="Edit", call_id=f"c{m}", text=call),
                        ),
                    )
                )
                if kind == 2:
                    edits.append(
                        Edit(
                            path=path,
                            tool="Edit",
                            message_id=message_id,
                            call_id=f"c{m}",
                            timestamp=when,
                            new_text=new,
                            added=(AddedLine(text=new, line=rng.randint(1, 400)),),
                        )
                    )
            elif kind in (3, 7):
                messages.append(
                    Message(
                        message_id=message_id,
                        role="tool",
                        timestamp=when,
                        parts=(Part(kind="tool_result", call_id=f"c{m - 1}", text=corpus.text(3)),),
                    )
                )
            else:
                messages.append(
                    Message(
                        message_id=message_id,
                        role="assistant",
                        timestamp=when,
                        parts=(Part(kind="text", text=corpus.text(3)),),
                    )
                )
        session = Session(
            agent=agent,
            session_id=session_id,
            transcript=Path(f"/nonexistent/{session_id}.jsonl"),
            cwd="/home/dev/project",
            messages=messages,
            edits=edits,
        )
        timer[0] += time.perf_counter() - began
        timer[1] += time.process_time() - cpu_began
        yield session


def keep_last(items: Iterator[Session], holder: list[Session]) -> Iterator[Session]:
    """Yield `items`, keeping only the latest in `holder` (the stream is never held in memory)."""
    for item in items:
        holder[:] = [item]
        yield item


def typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(2, len(word))  # keep the first two letters (the near-term lookup's range)
    return word[:i] + rng.choice([c for c in "aeiourstln" if c != word[i]]) + word[i + 1 :]


def queries(
    corpus: Corpus, total: int, start: datetime, span: timedelta, rng: random.Random
) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, query, filters) triples, `total` of them, cycling through the kinds."""
    kinds = ["rare", "medium", "common", "phrase", "typo"]
    out: list[tuple[str, str, dict[str, Any]]] = []
    for i in range(total):
        kind = kinds[i % len(kinds)]
        filters: dict[str, Any] = {}
        if kind == "rare":
            query = rng.choice(corpus.rare)
        elif kind == "medium":
            query = rng.choice(corpus.medium)
        elif kind == "common":
            query = corpus.vocab[rng.randrange(20)]
        elif kind == "phrase":
            words = rng.choice(corpus.sentences).rstrip(".").lower().split()
            j = rng.randrange(len(words) - 1)
            query = " ".join(words[j : j + 2])
        else:
            query = typo(rng.choice(corpus.medium), rng)
        if i % 5 == 1 and i % 3 == 0:
            kind, filters = "filter", {"agent": "codex"}
        elif i % 5 == 1 and i % 3 == 1:
            kind, filters = "filter", {"since": start + span / 2}
        elif i % 5 == 1:
            kind, filters = "filter", {"file": rng.choice(FILES)}
        out.append((kind, query, filters))
    return out


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--messages-per-session", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--keep", type=Path, help="build the index in DIR and keep it; reuse it when DIR has one"
    )
    parser.add_argument("--answers", type=Path, help="write every query's hits to FILE (JSON)")
    parser.add_argument("--compare", type=Path, help="compare every query's hits with FILE (from --answers)")
    args = parser.parse_args()
    root = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="index-bench-"))
    try:
        figures, answers = run(args, root)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    if args.answers:
        args.answers.write_text(json.dumps(answers, indent=1) + "\n")
    differing = compare(answers, json.loads(args.compare.read_text())) if args.compare else []
    if args.json:
        print(json.dumps({**figures, "differing_answers": differing}, indent=2))
    else:
        report(figures)
        if args.compare:
            moved = sum("other messages" in line for line in differing)
            print(
                f"answers compared with {args.compare}: {len(differing)} of {len(answers)} queries differ, "
                f"{moved} of them in which messages are found or their order"
                + "".join(f"\n  {line}" for line in differing[:10])
            )
    return 1 if differing else 0


def run(args: argparse.Namespace, root: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Build (or reuse) the index under `root`, time the ingest and the searches; returns (figures,
    answers)."""
    kept_queries = root / "queries.json"
    reuse = kept_queries.exists()
    root.mkdir(parents=True, exist_ok=True)
    isolate(root)
    path = root / "repo"
    figures: dict[str, Any] = {"sessions": args.sessions}
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    rng = random.Random(args.seed)
    if reuse:
        stored = json.loads(kept_queries.read_text())
        if stored["args"] != [args.sessions, args.messages_per_session, args.seed]:
            raise SystemExit(
                f"{root} holds an index of other --sessions/--messages-per-session/--seed: {stored['args']}"
            )
        repo = Repository(path)
        planned = [
            (kind, query, {k: datetime.fromisoformat(v) if k == "since" else v for k, v in filters.items()})
            for kind, query, filters in stored["queries"]
        ]
        figures.update(reused=str(root))
    else:
        subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
        repo = Repository(path)
        figures.update(ingest_figures(repo, args, rng, start))
        planned = queries(figures.pop("corpus"), args.queries, start, timedelta(hours=args.sessions), rng)
        if args.keep:
            kept_queries.write_text(
                json.dumps(
                    {
                        "args": [args.sessions, args.messages_per_session, args.seed],
                        "queries": [
                            (
                                kind,
                                query,
                                {
                                    k: v.isoformat() if isinstance(v, datetime) else v
                                    for k, v in filters.items()
                                },
                            )
                            for kind, query, filters in planned
                        ],
                    }
                )
            )
    latencies: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    found: dict[str, list[int]] = {}
    answers: list[dict[str, Any]] = []
    for kind, query, filters in planned:
        t0, c0 = time.perf_counter(), time.process_time()
        hits = search(repo, query, **filters)
        latencies.setdefault(kind, []).append((time.perf_counter() - t0) * 1000)
        cpu.setdefault(kind, []).append((time.process_time() - c0) * 1000)
        found.setdefault(kind, []).append(len(hits))
        answers.append(
            {
                "kind": kind,
                "query": query,
                "filters": {k: str(v) for k, v in filters.items()},
                "hits": [[hit.session_id, hit.message_id, hit.score] for hit in hits],
            }
        )
    every = [v for values in latencies.values() for v in values]
    every_cpu = [v for values in cpu.values() for v in values]
    figures.update(
        {
            "search": {
                kind: {
                    "queries": len(v),
                    "p50_ms": statistics.median(v),
                    "p95_ms": percentile(v, 0.95),
                    "cpu_p50_ms": statistics.median(cpu[kind]),
                    "cpu_p95_ms": percentile(cpu[kind], 0.95),
                    "mean_hits": statistics.mean(found[kind]),
                }
                for kind, v in latencies.items()
            },
            "search_all": {
                "queries": len(every),
                "p50_ms": statistics.median(every),
                "p95_ms": percentile(every, 0.95),
                "cpu_p50_ms": statistics.median(every_cpu),
                "cpu_p95_ms": percentile(every_cpu, 0.95),
            },
        }
    )
    return figures, answers


def ingest_figures(
    repo: Repository, args: argparse.Namespace, rng: random.Random, start: datetime
) -> dict[str, Any]:
    """Generate the sessions, ingest them, and time it; then one incremental ingest. Keeps the corpus under
    "corpus" for the queries."""
    total = args.sessions * args.messages_per_session
    corpus = Corpus(rng, total)
    timer = [0.0, 0.0]
    began, cpu_began = time.perf_counter(), time.process_time()
    kept: list[Session] = []
    stream = sessions(corpus, args.sessions, args.messages_per_session, start, timer)
    result = ingest(repo, keep_last(stream, kept))
    wall = time.perf_counter() - began
    indexing = wall - timer[0]
    # CPU time holds still on a machine shared with other work, where wall time swings 2-4x.
    indexing_cpu = time.process_time() - cpu_began - timer[1]
    db_file = index_path(repo)
    subprocess.run(["sqlite3", str(db_file), "PRAGMA wal_checkpoint(TRUNCATE)"], capture_output=True)
    size = sum(p.stat().st_size for p in db_file.parent.glob(db_file.name + "*"))

    # incremental: the last session again, grown by one message (its 1,000 rows compared, 1 written)
    last = kept[-1]
    more = replace(
        last,
        messages=[
            *last.messages,
            Message(
                message_id="m999999",
                role="user",
                timestamp=start,
                parts=(Part(kind="text", text="one more"),),
            ),
        ],
    )
    t0 = time.perf_counter()
    step = ingest(repo, [more])
    incremental_ms = (time.perf_counter() - t0) * 1000
    return {
        "corpus": corpus,
        "messages": result.messages_added,
        "edits": result.edits_added,
        "text_mb": result.text_bytes / 1e6,
        "generate_s": timer[0],
        "ingest_s": indexing,
        "fts_s": result.fts_seconds,
        "mb_per_s": result.text_bytes / 1e6 / indexing,
        "ingest_cpu_s": indexing_cpu,
        "mb_per_cpu_s": result.text_bytes / 1e6 / indexing_cpu,
        "rows_per_s": result.rows_written / indexing,
        "index_mb": size / 1e6,
        "incremental_ms": incremental_ms,
        "incremental_rows": step.rows_written,
    }


def compare(answers: list[dict[str, Any]], earlier: list[dict[str, Any]]) -> list[str]:
    """One line per query whose hits (ids in order, and scores) differ from `earlier`'s, saying whether the
    messages found (or their order) differ or only their scores."""
    if len(answers) != len(earlier):
        return [f"{len(answers)} queries against {len(earlier)}"]
    lines = []
    for now, then in zip(answers, earlier, strict=True):
        if now != then:
            ids = [hit[:2] for hit in now["hits"]] != [hit[:2] for hit in then["hits"]]
            lines.append(
                f"{now['kind']} {now['query']!r} {now['filters']}: "
                f"{'other messages or order' if ids else 'same messages, other scores'}"
            )
    return lines


def report(figures: dict[str, Any]) -> None:
    if "reused" in figures:
        print(f"index kept in {figures['reused']} (not built in this run)")
    else:
        print(
            f"sessions {figures['sessions']:,}, messages {figures['messages']:,}, edits "
            f"{figures['edits']:,}, text {figures['text_mb']:.1f} MB"
        )
        print(f"generating the sessions (not counted): {figures['generate_s']:.1f} s")
        print(
            f"ingest: {figures['ingest_s']:.1f} s = {figures['mb_per_s']:.2f} MB/s of text, "
            f"{figures['rows_per_s']:,.0f} rows/s (messages + edits; of the time, FTS5 build after the "
            f"load: {figures['fts_s']:.1f} s); CPU {figures['ingest_cpu_s']:.1f} s = "
            f"{figures['mb_per_cpu_s']:.2f} MB per CPU second"
        )
        print(f"index size: {figures['index_mb']:.1f} MB")
        print(
            f"incremental ingest of one grown session: {figures['incremental_ms']:.0f} ms, "
            f"{figures['incremental_rows']} row written"
        )
    print(
        f"{'query kind':<10} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'CPU p50':>8} {'CPU p95':>8} "
        f"{'mean hits':>10}"
    )
    for kind, row in figures["search"].items():
        print(
            f"{kind:<10} {row['queries']:>4} {row['p50_ms']:>8.1f} {row['p95_ms']:>8.1f} "
            f"{row['cpu_p50_ms']:>8.1f} {row['cpu_p95_ms']:>8.1f} {row['mean_hits']:>10.1f}"
        )
    row = figures["search_all"]
    print(
        f"{'all':<10} {row['queries']:>4} {row['p50_ms']:>8.1f} {row['p95_ms']:>8.1f} "
        f"{row['cpu_p50_ms']:>8.1f} {row['cpu_p95_ms']:>8.1f}"
    )


if __name__ == "__main__":
    sys.exit(main())
