"""What the post-commit hook adds to `git commit`: median wall time of N commits with the hook installed,
against the same commits in a repository without it (figures in ms).

Run: .venv/bin/python bench/hook_latency.py [--commits N] [--pause SECONDS]
With --pause 0 the commits race their own background workers for the 2 cores, which measures CPU
contention rather than the hook.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import isolate


def commit_times(repo: Path, commits: int, pause: float) -> list[float]:
    times = []
    for i in range(commits):
        (repo / "file.txt").write_text(f"line {i}\n" * (i + 1), encoding="utf-8")
        subprocess.run(["git", "add", "file.txt"], cwd=repo, check=True, capture_output=True)
        start = time.perf_counter()
        subprocess.run(
            ["git", "commit", "-q", "-m", f"commit {i}"], cwd=repo, check=True, capture_output=True
        )
        times.append((time.perf_counter() - start) * 1000)
        time.sleep(pause)  # people commit seconds apart; without a pause the workers compete for the CPU
    return times


def make_repo(path: Path, hook: bool) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    subprocess.run(["git", "config", "commit.gpgsign", "false"], cwd=path, check=True)
    if hook:
        cli = Path(sys.executable).parent / "git-intent"
        subprocess.run([str(cli), "install"], cwd=path, check=True, capture_output=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--pause", type=float, default=1.0, help="seconds between commits (default 1)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        isolate(root)
        plain = commit_times(make_repo(root / "plain", hook=False), args.commits, args.pause)
        hooked = commit_times(make_repo(root / "hooked", hook=True), args.commits, args.pause)
        time.sleep(2)  # let the detached workers finish before the folder goes
    print(f"git commit, {args.commits} commits each, {args.pause} s apart, ms:  median  p95")
    for name, values in (("without hook", plain), ("with hook", hooked)):
        ordered = sorted(values)
        print(f"  {name:<13} {statistics.median(values):7.1f} {ordered[int(0.95 * (len(ordered) - 1))]:5.1f}")
    print(f"  added by the hook (median): {statistics.median(hooked) - statistics.median(plain):.1f} ms")


if __name__ == "__main__":
    main()
