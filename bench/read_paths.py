"""The answers people wait on that read what is recorded: `stats`, `sessions`, `search`, the MCP
handshake and the web view's `/sessions` and `/search` pages, each by this checkout's code and by a baseline
revision's code, side by side in one run, on the same repository and state.

The repository is one `bench/real_history.py --keep DIR` left (DIR/work, with its notes, backups and
DIR/home): for entireio/git-sync, `.venv/bin/python bench/real_history.py --repo
/work/.mirror/entireio+git-sync/repo --keep /tmp/gs`. Each version's `git_intent` package runs from a copy
(`git archive REV git_intent`; the checkout's own for `HEAD`) in a child `python -m git_intent`, with this
venv's dependencies. Figures: median over `--runs` of the child's CPU (user + system, its git processes
included) and wall time, after one warm-up run (caches filled, as a user's second call finds them); the
outputs of both versions are compared and said to be identical or not.

Run:  .venv/bin/python bench/read_paths.py --keep /tmp/gs [--against 44b1d1b] [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
    )
    + "\n"
)


def code_tree(root: Path, revision: str) -> Path:
    """The git_intent package of `revision` (HEAD: this checkout's files as they are), under `root`."""
    target = root / f"code-{re.sub(r'[^A-Za-z0-9]', '-', revision)}"
    target.mkdir()
    if revision == "HEAD":
        shutil.copytree(HERE.parent / "git_intent", target / "git_intent")
        return target
    archive = subprocess.run(
        ["git", "archive", revision, "git_intent"], cwd=HERE.parent, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def environment(keep: Path, code: Path) -> dict[str, str]:
    home = keep / "home"
    inherited = {
        k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"
    }  # as installed: bytecode
    return {
        **inherited,
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "PYTHONPATH": str(code),
        "GIT_INTENT_RESIDENT": "0",
    }


def command(keep: Path, code: Path, args: list[str]) -> tuple[float, float, bytes]:
    """CPU seconds (the child and its git processes), wall seconds and stdout of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "git_intent", *args],
        cwd=keep / "work",
        capture_output=True,
        env=environment(keep, code),
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"git intent {' '.join(args)} failed with {code}:\n{proc.stderr.decode()}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall, proc.stdout


def handshake(keep: Path, code: Path) -> tuple[float, float, bytes]:
    """Wall seconds from starting `git intent mcp` to its answer to `initialize` (CPU is not separable from
    the SDK loading after it, so it is reported as the wall time too)."""
    began = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "git_intent", "mcp"],
        cwd=keep / "work",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=environment(keep, code),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INITIALIZE.encode())
    proc.stdin.flush()
    line = proc.stdout.readline()
    wall = time.perf_counter() - began
    proc.stdin.close()
    proc.wait(timeout=60)
    answer = json.loads(line)
    answer["result"].pop("serverInfo", None)
    return wall, wall, json.dumps(answer, sort_keys=True).encode()


class Server:
    """`git intent serve --port 0` by one version, for timing its pages."""

    def __init__(self, keep: Path, code: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "git_intent", "serve", "--port", "0"],
            cwd=keep / "work",
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=environment(keep, code),
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 60
        self.url = ""
        self.headers: dict[str, str] = {}  # a version that prints a key gets it as a script sends it
        while not self.url and time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 1)
            if ready:
                found = re.search(
                    rb"(http://127\.0\.0\.1:\d+/)(?:\?token=([\w-]+))?", self.proc.stdout.readline()
                )
                self.url = found.group(1).decode() if found else ""
                if found and found.group(2):
                    self.headers = {"Authorization": f"Bearer {found.group(2).decode()}"}
        if not self.url:
            self.proc.kill()
            raise SystemExit(f"git intent serve with {code} did not start")

    def page(self, path: str) -> tuple[float, float, bytes]:
        began = time.perf_counter()
        with urllib.request.urlopen(
            urllib.request.Request(self.url + path.lstrip("/"), headers=self.headers), timeout=120
        ) as response:
            body = response.read()
        wall = time.perf_counter() - began
        return wall, wall, body

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def measure(run: Any, runs: int) -> dict[str, Any]:
    run()  # warm-up: caches filled as a user's second call finds them
    cpu, wall, outputs = [], [], set()
    for _ in range(runs):
        c, w, out = run()
        cpu.append(c)
        wall.append(w)
        outputs.add(out)
    return {
        "cpu_ms": round(statistics.median(cpu) * 1000),
        "wall_ms": round(statistics.median(wall) * 1000),
        "output": outputs.pop() if len(outputs) == 1 else None,
    }


ROWS: list[tuple[str, str, list[str]]] = [
    ("stats", "cli", ["stats", "--json"]),
    ("sessions", "cli", ["sessions", "--json"]),
    ("search", "cli", ["search", "retry", "--json"]),
    ("MCP initialize", "mcp", []),
    ("serve /sessions", "page", ["/sessions"]),
    ("serve /search?q=retry", "page", ["/search?q=retry"]),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--keep", type=Path, required=True, help="the folder bench/real_history.py --keep made"
    )
    parser.add_argument(
        "--against", default="44b1d1b", help="the baseline revision (default: before the read-path work)"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (args.keep / "work" / ".git").is_dir():
        sys.exit(f"error: {args.keep}/work is not a repository; make one with bench/real_history.py --keep")
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="git-intent-read-paths-") as tmp:
        versions = {"before": code_tree(Path(tmp), args.against), "now": code_tree(Path(tmp), "HEAD")}
        for label, code in versions.items():
            server = Server(args.keep, code)
            try:
                for name, kind, argv in ROWS:
                    if kind == "cli":
                        run: Any = lambda a=argv, c=code: command(args.keep, c, a)  # noqa: E731
                    elif kind == "mcp":
                        run = lambda c=code: handshake(args.keep, c)  # noqa: E731
                    else:
                        run = lambda p=argv[0], s=server: s.page(p)  # noqa: E731
                    results.setdefault(name, {})[label] = measure(run, args.runs)
            finally:
                server.close()
    table = []
    for name, row in results.items():
        same = row["before"]["output"] is not None and row["before"]["output"] == row["now"]["output"]
        table.append(
            {
                "row": name,
                "before_cpu_ms": row["before"]["cpu_ms"],
                "now_cpu_ms": row["now"]["cpu_ms"],
                "before_wall_ms": row["before"]["wall_ms"],
                "now_wall_ms": row["now"]["wall_ms"],
                "same_output": same,
            }
        )
    if args.json:
        print(json.dumps({"against": args.against, "load_average": os.getloadavg(), "rows": table}, indent=2))
        return
    print(f"{'row':<24} {'before CPU':>11} {'now CPU':>9} {'before wall':>12} {'now wall':>9}  output")
    for r in table:
        print(
            f"{r['row']:<24} {r['before_cpu_ms']:>8} ms {r['now_cpu_ms']:>6} ms {r['before_wall_ms']:>9} "
            f"ms {r['now_wall_ms']:>6} ms  {'identical' if r['same_output'] else 'differs'}"
        )
    print(
        f"(baseline {args.against}; median of {args.runs} after a warm-up; pages and the MCP handshake are "
        f"wall time; load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
