"""Latency of `git intent blame` on the demo repository, against plain `git blame` and start-up costs.

What it measures (wall time, `time.perf_counter_ns`, each timed call runs to completion with its
output captured through pipes):

  a. git blame       `git blame --porcelain -L 85,85 -- cmd/entire/cli/agent/chunking.go` (subprocess) b. cli
  blame       `git-intent blame cmd/entire/cli/agent/chunking.go:85` (subprocess; what a user waits for) c.
  cli blame json  `git-intent blame cmd/entire/cli/agent/chunking.go:85 --json` (subprocess) d. library blame
  `git_intent.explain.blame.blame_lines(repo, "cmd/entire/cli/agent/chunking.go:85", cwd=...)`
                     in this process, modules already imported, `Repository` built once outside the timing
  e. library blame, in-process reads   (d) on `objects.InProcessRepository`: the note and the file at the
                     commit read through pygit2 (imported and opened outside the timing) instead of `git`
  f. cli --version   `git-intent --version` (subprocess; interpreter + click + CLI module start-up alone) g.
  import cli      `python -c "import git_intent.cli"` (subprocess) h. import pygit2   `python -c "import
  pygit2"` (subprocess; what (e) would add to a command's start-up) i. python -c pass  `python -c pass`
  (subprocess; reference only: the bare interpreter start-up) j. resident floor  a `python -I -S` client
  sending its argv over a unix socket to a server that answers at once k. cli, resident   (b) with
  GIT_INTENT_RESIDENT=1: the resident process (git_intent/resident.py) answers,
                     started by the warm-up rounds; its own CPU is not the caller's and is not counted

The repository is the one `git intent demo` builds: `git_intent.demo.run_demo(keep=DIR)` replays the bundled
real Claude Code session into a fresh repository in a temporary folder and records its commit. HOME,
GIT_CONFIG_GLOBAL, CLAUDE_CONFIG_DIR and CODEX_HOME point into that temporary folder (with
GIT_CONFIG_NOSYSTEM=1 and a placeholder GIT_AUTHOR_*/GIT_COMMITTER_* identity, which the note write needs once
no config supplies one), so the developer's git config and agent folders are neither read nor touched; the
folder is removed at the end.

After 3 warm-up rounds, each of the N rounds (default 30) runs every benchmark once, in a fixed order,
so slow drift on a busy machine affects all of them alike. The table gives median, p95 (nearest rank)
and minimum in milliseconds, and the ratio of the medians of (b) and (a).

Run from the repository root:

    .venv/bin/python bench/blame_latency.py            # table
    .venv/bin/python bench/blame_latency.py --runs 100 # more rounds
    .venv/bin/python bench/blame_latency.py --json     # figures as JSON (with every sample)

Standard library plus git_intent only. The `git-intent` console script is looked for next to the
running interpreter (the venv's bin/), then on PATH.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _common import isolate

TARGET = "cmd/entire/cli/agent/chunking.go"
LINE = 85
WARMUPS = 3


def find_cli() -> str:
    beside = Path(sys.executable).parent / "git-intent"
    if beside.is_file():
        return str(beside)
    found = shutil.which("git-intent")
    if found is None:
        sys.exit("error: the git-intent console script is neither next to this Python nor on PATH.")
    return found


def subprocess_bench(argv: list[str], cwd: Path) -> Callable[[], None]:
    def run() -> None:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True)
        if proc.returncode != 0:
            raise RuntimeError(
                f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode('utf-8', 'replace').strip()}"
            )

    return run


def cpu_now() -> float:
    """CPU seconds (user + system) of this process and its waited-for children so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


# What a resident process's client would cost (measured before deciding to build one): a Python
# started with -I -S (no site, no venv packages) that sends its argv and working directory over a unix
# socket and prints the reply. The server here answers at once, so this is the floor of that design.
CLIENT = """import json, os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(json.dumps({"argv": sys.argv[2:], "cwd": os.getcwd()}).encode() + b"\\n")
sys.stdout.write(s.makefile().readline())
"""


def echo_server(path: Path) -> None:
    """A unix-socket server on `path` that answers each line with a line, in a daemon thread."""
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(8)

    def serve() -> None:
        while True:
            conn, _ = server.accept()
            with conn, conn.makefile("rb") as lines:
                conn.sendall(b'{"exit": 0, "stdout": ""}\n' if lines.readline() else b"")

    threading.Thread(target=serve, daemon=True).start()


def nearest_rank(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[max(0, math.ceil(fraction * len(sorted_values)) - 1)]


def summarize(samples_ns: list[int]) -> dict[str, float]:
    ms = sorted(s / 1e6 for s in samples_ns)
    return {
        "median_ms": statistics.median(ms),
        "p95_ms": nearest_rank(ms, 0.95),
        "min_ms": ms[0],
        "max_ms": ms[-1],
    }


def git_version() -> str:
    return subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="measured rounds (default 30)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    root = Path(tempfile.mkdtemp(prefix="git-intent-bench-"))
    try:
        isolate(root)
        # Imported only after the environment is isolated.
        from git_intent import __version__
        from git_intent.demo import run_demo
        from git_intent.explain.blame import blame_lines
        from git_intent.git.objects import InProcessRepository
        from git_intent.git.repo import Repository

        folder = root / "demo"
        started = time.perf_counter_ns()
        demo = run_demo(keep=folder)
        build_ms = (time.perf_counter_ns() - started) / 1e6
        if not demo.answer.lines or demo.answer.lines[0].status != "agent":
            sys.exit(f"error: the demo repository's line was not credited to the session: {demo.answer}")

        cli = find_cli()
        location = f"{TARGET}:{LINE}"
        repo = Repository(folder)
        fast = InProcessRepository.of(Repository(folder))
        fast.objects  # noqa: B018  (pygit2 imported and the repository opened outside the timing)
        socket_path = root / "s.sock"
        echo_server(socket_path)
        runtime = root / "run"
        runtime.mkdir(mode=0o700)
        os.environ["XDG_RUNTIME_DIR"] = str(
            runtime
        )  # the resident process of row k lives here, and goes with it

        def library(on: Repository = repo) -> None:
            answer = blame_lines(on, location, cwd=folder)
            if answer.lines[0].status != "agent":
                raise RuntimeError(f"library blame answered {answer.lines[0].status}")

        benches: list[tuple[str, str, Callable[[], None]]] = [
            (
                "git_blame",
                f"git blame --porcelain -L {LINE},{LINE} -- {TARGET}",
                subprocess_bench(
                    ["git", "blame", "--porcelain", "-L", f"{LINE},{LINE}", "--", TARGET], folder
                ),
            ),
            ("cli_blame", f"git-intent blame {location}", subprocess_bench([cli, "blame", location], folder)),
            (
                "cli_blame_json",
                f"git-intent blame {location} --json",
                subprocess_bench([cli, "blame", location, "--json"], folder),
            ),
            ("library_blame", f"blame_lines(repo, {location!r}, cwd=...)", library),
            (
                "library_blame_in_process",
                "the same on InProcessRepository (pygit2 reads)",
                lambda: library(fast),
            ),
            ("cli_version", "git-intent --version", subprocess_bench([cli, "--version"], folder)),
            (
                "import_cli",
                'python -c "import git_intent.cli"',
                subprocess_bench([sys.executable, "-c", "import git_intent.cli"], folder),
            ),
            (
                "import_pygit2",
                'python -c "import pygit2"',
                subprocess_bench([sys.executable, "-c", "import pygit2"], folder),
            ),
            (
                "python_pass",
                "python -c pass (reference)",
                subprocess_bench([sys.executable, "-c", "pass"], folder),
            ),
            (
                "resident_client",
                "python -I -S client over a unix socket (a resident process's floor)",
                subprocess_bench(
                    [sys.executable, "-I", "-S", "-c", CLIENT, str(socket_path), "blame", location], folder
                ),
            ),
            (
                "cli_blame_resident",
                f"GIT_INTENT_RESIDENT=1 git-intent blame {location} (warm)",
                subprocess_bench(["env", "GIT_INTENT_RESIDENT=1", cli, "blame", location], folder),
            ),
        ]
        samples: dict[str, list[int]] = {key: [] for key, _, _ in benches}
        cpu: dict[str, list[int]] = {key: [] for key, _, _ in benches}
        for round_no in range(WARMUPS + args.runs):
            for key, _, call in benches:
                c0, t0 = cpu_now(), time.perf_counter_ns()
                call()
                elapsed, used = time.perf_counter_ns() - t0, cpu_now() - c0
                if round_no >= WARMUPS:
                    samples[key].append(elapsed)
                    cpu[key].append(int(used * 1e9))
    finally:
        for pid_file in (root / "run" / "git-intent").glob("*.pid"):
            try:
                os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGTERM)
            except (OSError, ValueError):
                pass
        shutil.rmtree(root, ignore_errors=True)

    results: dict[str, dict[str, Any]] = {
        key: {"command": label, **summarize(samples[key]), "cpu_median_ms": statistics.median(cpu[key]) / 1e6}
        for key, label, _ in benches
    }
    ratio = results["cli_blame"]["median_ms"] / results["git_blame"]["median_ms"]
    cpu_over = results["cli_blame"]["cpu_median_ms"] - results["git_blame"]["cpu_median_ms"]
    machine = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "git": git_version(),
        "git_intent": __version__,
    }
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")

    if args.json:
        for key in results:
            results[key]["samples_ms"] = [round(s / 1e6, 3) for s in samples[key]]
        print(
            json.dumps(
                {
                    "date": when,
                    "machine": machine,
                    "runs": args.runs,
                    "warmups": WARMUPS,
                    "demo_build_ms": round(build_ms, 1),
                    "results": results,
                    "ratio_cli_blame_to_git_blame": ratio,
                    "cli_blame_cpu_over_git_blame_ms": cpu_over,
                },
                indent=2,
            )
        )
        return

    print(f"git-intent blame latency, {when}")
    print(
        f"{machine['platform']}, {machine['cpus']} CPUs, Python {machine['python']}, {machine['git']}, "
        f"git-intent {machine['git_intent']}"
    )
    print(
        f"demo repository built and recorded in {build_ms:.0f} ms; {args.runs} runs after {WARMUPS} "
        "warm-ups\n"
    )
    width = max(len(r["command"]) for r in results.values())
    print(f"    {'benchmark':<{width}}  {'median':>8}  {'p95':>8}  {'min':>8}  {'CPU':>8}")
    for letter, result in zip("abcdefghijk", results.values(), strict=True):
        print(
            f"{letter}.  {result['command']:<{width}}  {result['median_ms']:>8.1f}  "
            f"{result['p95_ms']:>8.1f}  {result['min_ms']:>8.1f}  {result['cpu_median_ms']:>8.1f}"
        )
    print(
        f"\n(all in ms; CPU: median user+system of the process and its children)  b/a, cli blame over git "
        f"blame (wall medians): {ratio:.1f}x; CPU over git blame: +{cpu_over:.0f} ms"
    )


if __name__ == "__main__":
    main()
