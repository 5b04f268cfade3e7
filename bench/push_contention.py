"""Many pushers at once: N clones (default 20) of one bare remote, each with its own agent commit recorded and
shared at `intent.share evidence`, run `git intent push --json` together. Prints the wall time from the
first start to the last exit, each push's retries (sum, max) and exit codes, and the records lost: commits
whose note, or whose entry in refs/intent/evidence, the remote does not hold afterwards.

Each clone: a Claude Code session (the transcript writer in tests/support) writes `mod_<i>.py`, the commit is
recorded with `git intent record`, and its branch is pushed (so its evidence is published); only then do
the N pushes start, as close together as Popen allows.

Run from the repository root:

    .venv/bin/python bench/push_contention.py              # 20 clones
    .venv/bin/python bench/push_contention.py --clones 40 --json
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
from pathlib import Path
from typing import Any

from _common import isolate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from support import claude_session  # noqa: E402

NOTES = "refs/notes/git-intent"
EVIDENCE = "refs/intent/evidence"


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    if proc.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed in {repo}: {proc.stderr}")
    return proc.stdout


def intent(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "intent", *args], cwd=repo, capture_output=True, text=True)


def build(root: Path, count: int) -> tuple[Path, list[Path], list[str]]:
    """The bare remote, `count` clones each with one recorded agent commit on its own published branch,
    and those commits."""
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    seed = root / "seed"
    git(root, "clone", "-q", str(remote), str(seed))
    (seed / "README.md").write_text("# contention\n", encoding="utf-8")
    git(seed, "add", "README.md")
    git(seed, "commit", "-q", "-m", "base")
    git(seed, "push", "-q", "origin", "main")
    clones, commits = [], []
    for i in range(count):
        clone = (root / f"clone-{i:02d}").resolve()
        git(root, "clone", "-q", str(remote), str(clone))
        git(clone, "config", "intent.share", "evidence")
        agent = claude_session(clone)
        agent.prompt(f"Write module {i}.")
        agent.write(f"Writing mod_{i}.py.", clone / f"mod_{i}.py", f"def value_{i}():\n    return {i} * 7\n")
        agent.save()
        git(clone, "add", "-A")
        git(clone, "commit", "-q", "-m", f"module {i}")
        done = intent(clone, "record")
        if done.returncode != 0:
            raise SystemExit(f"record failed in {clone}: {done.stderr}")
        git(clone, "push", "-q", "origin", f"HEAD:refs/heads/clone-{i:02d}")
        clones.append(clone)
        commits.append(git(clone, "rev-parse", "HEAD").strip())
    return remote, clones, commits


def race(clones: list[Path]) -> tuple[float, list[tuple[int, dict[str, Any] | None, str]]]:
    """Every clone's `git intent push --json` started together; (wall seconds, [(exit, result, stderr)])."""
    started = time.perf_counter()
    procs = [
        subprocess.Popen(
            ["git", "intent", "push", "--json"],
            cwd=clone,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for clone in clones
    ]
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        try:
            result = json.loads(out) if out.strip() else None
        except ValueError:
            result = None
        outcomes.append((proc.returncode, result, err))
    return time.perf_counter() - started, outcomes


def lost(remote: Path, commits: list[str]) -> tuple[list[str], list[str]]:
    """(commits without a note on the remote, commits without an entry in its evidence store)."""
    noted = {line.split()[1] for line in git(remote, "notes", "--ref", NOTES, "list").splitlines()}
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", EVIDENCE, "commits/"],
        cwd=remote,
        capture_output=True,
        text=True,
    ).stdout
    shared = {path.removeprefix("commits/").replace("/", "") for path in listing.splitlines()}
    return [c for c in commits if c not in noted], [c for c in commits if c not in shared]


def _error_line(stderr: str) -> str:
    """The `error: …` line of a failed push, else its last line."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return next((line for line in lines if line.startswith("error:")), lines[-1] if lines else "")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clones", type=int, default=20, help="how many clones push at once (default 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="push-contention-"))
    try:
        isolate(root)
        # `git intent` is the console script beside this interpreter (the venv's bin/).
        os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        setup_started = time.perf_counter()
        remote, clones, commits = build(root, args.clones)
        setup = time.perf_counter() - setup_started
        wall, outcomes = race(clones)
        no_note, no_evidence = lost(remote, commits)
        retries = [r["retries"] for _, r, _ in outcomes if r is not None]
        figures = {
            "clones": args.clones,
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "setup_seconds": round(setup, 2),
            "wall_seconds": round(wall, 2),
            "retries_total": sum(retries),
            "retries_max": max(retries, default=0),
            "exit_codes": sorted({code for code, _, _ in outcomes}),
            "failed": len([code for code, _, _ in outcomes if code != 0]),
            "errors": sorted({_error_line(err) for code, _, err in outcomes if code != 0}),
            "notes_lost": len(no_note),
            "evidence_lost": len(no_evidence),
        }
        if args.json:
            print(json.dumps(figures, indent=2))
        else:
            print(f"{args.clones} clones pushing notes and evidence to one bare remote at once")
            rows = [
                ("wall time, first start to last exit", f"{figures['wall_seconds']:.2f} s"),
                (
                    "retries (fetch, merge, push again)",
                    f"{figures['retries_total']} total, {figures['retries_max']} at most for one clone",
                ),
                ("exit codes", f"{figures['exit_codes']} ({figures['failed']} failed)"),
                *(("", error) for error in figures["errors"]),
                ("records lost", f"{len(no_note)} notes, {len(no_evidence)} evidence"),
            ]
            for label, value in rows:
                print(f"  {label:<38}{value}")
            print(f"  (setup: {setup:.1f} s; {os.cpu_count()} CPUs; Python {platform.python_version()})")
        return 0 if not no_note and not no_evidence and figures["exit_codes"] == [0] else 1
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
