"""What looking for forge merges costs: `carry_landed` on a real history, entireio/cli's `main`.

Every non-merge commit but the newest `--new` gets a note (a commit record, as the hook writes for each
commit), `--recorded` of them at most; the newest `--new` arrive unrecorded, as after a `git pull`, plus one
cherry-pick of a recorded commit (a rebase-merge's copy). `carry_landed` then runs cold (no landed.json:
every patch id computed, every unrecorded commit examined), warm (nothing new since), and after one more
recorded commit (its patch computed, the recent commits examined again). Prints wall and CPU seconds (this
process and its git children) and the counts.

    .venv/bin/python bench/landed_carry.py [--repo PATH] [--recorded 1000] [--new 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import isolate  # noqa: E402

from git_intent.capture.landed import carry_landed  # noqa: E402
from git_intent.git.repo import Repository  # noqa: E402
from git_intent.notes import CommitRecord, write_notes  # noqa: E402


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(repo: Repository) -> tuple[float, float, int]:
    wall, used = time.perf_counter(), cpu()
    landed = carry_landed(repo)
    return time.perf_counter() - wall, cpu() - used, len(landed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default="/work/.mirror/entireio+cli/repo")
    parser.add_argument("--recorded", type=int, default=1000)
    parser.add_argument("--new", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="landed-bench-"))
    try:
        isolate(root)
        work = root / "cli"
        subprocess.run(
            ["git", "clone", "-q", "--single-branch", "--branch", "main", args.repo, str(work)], check=True
        )
        commits = git(work, "rev-list", "--no-merges", "main").split()
        recorded = commits[args.new : args.new + args.recorded]
        repo = Repository(work)
        write_notes(
            repo,
            {
                c: [CommitRecord(commit=c, lines_added=0, lines_attributed=0, recorded_by="bench")]
                for c in recorded
            },
        )
        # A rebase-merge's copy of a recorded commit: its tree change re-made on top of main.
        subprocess.run(
            [
                "git",
                "cherry-pick",
                "--allow-empty",
                "--keep-redundant-commits",
                "-X",
                "theirs",
                recorded[len(recorded) // 2],
            ],
            cwd=work,
            capture_output=True,
            check=True,
        )
        cold = timed(repo)
        warm = timed(repo)
        # The person commits (the hook records it): one new source, so recent commits are examined again.
        (work / "BENCH.txt").write_text("one more line\n", encoding="utf-8")
        git(work, "add", "BENCH.txt")
        git(work, "commit", "-q", "-m", "bench")
        head = git(work, "rev-parse", "HEAD").strip()
        write_notes(
            repo, {head: [CommitRecord(commit=head, lines_added=1, lines_attributed=0, recorded_by="bench")]}
        )
        after = timed(repo)
        figures = {
            "repo": args.repo,
            "recorded": len(recorded),
            "unrecorded_new": args.new + 1,
            "cold_wall_s": round(cold[0], 3),
            "cold_cpu_s": round(cold[1], 3),
            "warm_wall_s": round(warm[0], 3),
            "warm_cpu_s": round(warm[1], 3),
            "one_more_wall_s": round(after[0], 3),
            "one_more_cpu_s": round(after[1], 3),
        }
        if args.json:
            print(json.dumps(figures, indent=1))
        else:
            for key, value in figures.items():
                print(f"{key:<16} {value}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
