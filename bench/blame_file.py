"""Whole-file blame on the largest file of the linked corpus, against `git blame --porcelain` of the same
file.

The repositories are the ones bench/record_corpus.py builds (each real Entire checkpoint in fixtures/linked
replayed from its transcript into a fresh repository and recorded with `record_commit`). Of every file in
those repositories, the one with the most lines is blamed whole:

  a. git blame       `git blame --porcelain -- FILE` (subprocess) b. cli blame       `git-intent blame FILE`
  (subprocess; the gutter text) c. cli blame json  `git-intent blame FILE --json` (subprocess; one entry per
  line, plus ranges) d. library blame   `git_intent.explain.blame.blame_lines(repo, FILE)` in this process,
  modules already imported z. `git-intent --version` (subprocess; Python start-up plus the CLI's imports, a
  reference) e, f.              (b) and (d) again once the session index is built (`git_intent.index.ingest`):
  the
                     lines of commits without a note are then looked up in it instead of scanned
  g, h.              (b) and (d) again once every commit is recorded (the baseline's lines become a
                     person's, as where the hook saw every commit): no line needs the content fallback

Wall time, median and p95 (nearest rank) of N rounds (default 10) after 2 warm-ups, each round running
every benchmark once in a fixed order; ratios are of the medians against (a). HOME, git config and the
agents' folders point into a temporary folder, removed at the end (see _common.isolate).

Run from the repository root (standard library plus git_intent only):

    .venv/bin/python bench/blame_file.py              # table
    .venv/bin/python bench/blame_file.py --runs 30    # more rounds
    .venv/bin/python bench/blame_file.py --json       # figures as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _common import isolate
from blame_latency import find_cli, summarize
from record_corpus import CASES, DEFAULT_CORPUS, run_case

WARMUPS = 2


def largest_file(repos: list[Path]) -> tuple[Path, str, int]:
    """(repository, path, lines) of the tracked file with the most lines."""
    best: tuple[Path, str, int] | None = None
    for repo in repos:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True).stdout
        for name in filter(None, out.decode().split("\0")):
            lines = (repo / name).read_bytes().count(b"\n")
            if best is None or lines > best[2]:
                best = (repo, name, lines)
    if best is None:
        sys.exit("error: the linked corpus built no files.")
    return best


def measure(
    benches: list[tuple[str, str, Callable[[], None]]], samples: dict[str, list[int]], runs: int
) -> None:
    """Run every benchmark once per round, in order, `WARMUPS` unmeasured rounds first."""
    for round_no in range(WARMUPS + runs):
        for key, _, call in benches:
            started = time.perf_counter_ns()
            call()
            if round_no >= WARMUPS:
                samples[key].append(time.perf_counter_ns() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"default {DEFAULT_CORPUS}")
    parser.add_argument("--runs", type=int, default=10, help="measured rounds (default 10)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="git-intent-blame-file-"))
    try:
        isolate(root)
        from git_intent.explain.blame import blame_lines
        from git_intent.git.repo import Repository

        repos = []
        for i, case in enumerate(CASES):
            run_case(case, args.corpus, root / f"repo{i}")
            repos.append(root / f"repo{i}")
        folder, path, count = largest_file(repos)
        repo = Repository(folder)
        answer = blame_lines(repo, path, cwd=folder)
        statuses = Counter(line.status for line in answer.lines)
        cli = find_cli()

        def run(argv: list[str]) -> Callable[[], None]:
            def call() -> None:
                proc = subprocess.run(argv, cwd=folder, capture_output=True)
                if proc.returncode != 0:
                    raise RuntimeError(f"{argv} exited {proc.returncode}: {proc.stderr.decode()}")

            return call

        benches: list[tuple[str, str, Callable[[], None]]] = [
            (
                "git_blame",
                f"git blame --porcelain -- {path}",
                run(["git", "blame", "--porcelain", "--", path]),
            ),
            ("cli_blame", f"git-intent blame {path}", run([cli, "blame", path])),
            ("cli_blame_json", f"git-intent blame {path} --json", run([cli, "blame", path, "--json"])),
            (
                "library_blame",
                f"blame_lines(repo, {path!r})",
                lambda: blame_lines(repo, path, cwd=folder) and None,
            ),
            ("cli_version", "git-intent --version (start-up alone, reference)", run([cli, "--version"])),
        ]
        samples: dict[str, list[int]] = {key: [] for key, _, _ in benches}
        measure(benches, samples, args.runs)
        # Then with the session index built: the content fallback (for the lines of commits without a
        # note) becomes FTS lookups instead of a scan of the transcripts.
        from git_intent.index import ingest

        ingest(repo)
        indexed: list[tuple[str, str, Callable[[], None]]] = [
            ("cli_blame_indexed", f"git-intent blame {path}, session index built", run([cli, "blame", path])),
            (
                "library_blame_indexed",
                f"blame_lines(repo, {path!r}), session index built",
                lambda: blame_lines(repo, path, cwd=folder) and None,
            ),
        ]
        samples.update({key: [] for key, _, _ in indexed})
        measure(indexed, samples, args.runs)
        benches += indexed
        # Last, as in a repository where the hook saw every commit: the baseline recorded too (its lines
        # become a person's), so no line needs the content fallback.
        from git_intent.capture.record import record_commit
        from git_intent.notes import read_note

        for sha in repo.git("rev-list", "HEAD").split():
            if read_note(repo, sha) is None:
                record_commit(repo, sha)
        recorded: list[tuple[str, str, Callable[[], None]]] = [
            (
                "cli_blame_recorded",
                f"git-intent blame {path}, every commit recorded",
                run([cli, "blame", path]),
            ),
            (
                "library_blame_recorded",
                f"blame_lines(repo, {path!r}), every commit recorded",
                lambda: blame_lines(repo, path, cwd=folder) and None,
            ),
        ]
        samples.update({key: [] for key, _, _ in recorded})
        measure(recorded, samples, args.runs)
        benches += recorded
        final = Counter(line.status for line in blame_lines(repo, path, cwd=folder).lines)
        json_bytes = len(
            subprocess.run([cli, "blame", path, "--json"], cwd=folder, capture_output=True).stdout
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)

    figures = {key: summarize(values) for key, values in samples.items()}
    base = figures["git_blame"]["median_ms"]
    result: dict[str, Any] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "file": path,
        "lines": count,
        "ranges": len(answer.ranges),
        "statuses": dict(statuses),
        "statuses_recorded": dict(final),
        "json_bytes": json_bytes,
        "runs": args.runs,
        "figures": figures,
        "ratios": {key: figures[key]["median_ms"] / base for key in figures},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"whole-file blame of {path} ({count} lines, {len(answer.ranges)} ranges, "
        f"{', '.join(f'{n} {s}' for s, n in statuses.items())}; --json is {json_bytes:,} bytes)"
    )
    print(f"every commit recorded: {', '.join(f'{n} {s}' for s, n in final.items())}")
    print(f"{result['machine']}, {args.runs} rounds after {WARMUPS} warm-ups\n")
    print(f"{'':<2}{'benchmark':<75}{'median ms':>10}{'p95 ms':>9}{'× git':>8}")
    for letter, (key, label, _) in zip("abcdzefgh", benches, strict=True):
        row = figures[key]
        print(
            f"{letter} {label:<75}{row['median_ms']:>10.1f}{row['p95_ms']:>9.1f}{result['ratios'][key]:>8.1f}"
        )


if __name__ == "__main__":
    main()
