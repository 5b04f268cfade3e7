"""Latency of `git intent mcp` on the demo repository: start-up to the first tool answer, and one `blame` tool
call against the CLI's `git intent blame --json`.

What it measures (wall time, `time.perf_counter`):

  a. start → first answer  spawn `git-intent mcp` over stdio with the SDK's own client, initialize, call
                           `blame(path, line=85)` once: what an agent waits for on its first question
  b. blame tool call       one more `blame` call on the running server (a warm server: modules and caches
  loaded) c. cli blame --json      `git-intent blame cmd/entire/cli/agent/chunking.go:85 --json` (subprocess)

The repository is the one `git intent demo` builds (`git_intent.demo.run_demo`), in a temporary folder with
HOME, git config and agent folders isolated (bench/_common.py). Rounds: (a) `--starts` times (default 5);
(b) and (c) `--runs` times each (default 30) after 3 warm-ups, alternating. Median, p95 (nearest rank), min
in ms, and the ratio of the medians (b)/(c).

Run from the repository root (needs the mcp extra):

    .venv/bin/python bench/mcp_latency.py
    .venv/bin/python bench/mcp_latency.py --json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import anyio
from _common import isolate
from blame_latency import find_cli
from mcp import Client
from mcp.client.stdio import StdioServerParameters

LINE = {"path": "cmd/entire/cli/agent/chunking.go", "line": 85}


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[math.ceil(0.95 * len(ordered)) - 1]
    return {"median_ms": statistics.median(ordered) * 1000, "p95_ms": p95 * 1000, "min_ms": ordered[0] * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    script = find_cli()
    root = Path(tempfile.mkdtemp(prefix="git-intent-bench-"))
    try:
        isolate(root)
        from git_intent.demo import run_demo

        repo = root / "demo"
        run_demo(repo)
        params = StdioServerParameters(command=script, args=["mcp"], cwd=str(repo), env=dict(os.environ))
        starts: list[float] = []
        tool: list[float] = []
        cli: list[float] = []

        async def first_answer() -> None:
            began = time.perf_counter()
            async with Client(params, read_timeout_seconds=120) as client:
                result = await client.call_tool("blame", LINE)
                starts.append(time.perf_counter() - began)
                assert not result.is_error, result.content

        async def warm() -> None:
            async with Client(params, read_timeout_seconds=120) as client:
                for n in range(args.runs + 3):
                    began = time.perf_counter()
                    result = await client.call_tool("blame", LINE)
                    took = time.perf_counter() - began
                    assert not result.is_error, result.content
                    began = time.perf_counter()
                    subprocess.run(
                        [script, "blame", f"{LINE['path']}:{LINE['line']}", "--json"],
                        cwd=repo,
                        capture_output=True,
                        check=True,
                    )
                    if n >= 3:
                        tool.append(took)
                        cli.append(time.perf_counter() - began)

        for _ in range(args.starts):
            anyio.run(first_answer)
        anyio.run(warm)
        figures = {
            "start_to_first_answer": summary(starts),
            "blame_tool_call": summary(tool),
            "cli_blame_json": summary(cli),
        }
        figures["ratio_tool_to_cli"] = {
            "median": figures["blame_tool_call"]["median_ms"] / figures["cli_blame_json"]["median_ms"]
        }
        if args.json:
            print(json.dumps(figures, indent=2))
            return
        print(f"{'benchmark':28} {'median ms':>10} {'p95 ms':>10} {'min ms':>10}")
        for name in ("start_to_first_answer", "blame_tool_call", "cli_blame_json"):
            row = figures[name]
            print(f"{name:28} {row['median_ms']:10.1f} {row['p95_ms']:10.1f} {row['min_ms']:10.1f}")
        print(f"blame tool call / CLI blame --json (medians): {figures['ratio_tool_to_cli']['median']:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
