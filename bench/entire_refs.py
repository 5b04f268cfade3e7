"""Reading Entire checkpoints from per-checkpoint refs against reading them from the branch, on a real
history.

A scratch repository borrows the objects of a snapshot with an `entire/checkpoints/v1` branch (alternates: no
copy), and its checkpoints are laid out as refs the way `entire doctor migrate-checkpoints` writes them
(tests/support.migrate_to_refs, from Entire's migrate.go at 002e36a8). Then `read_checkpoints` runs, in this
process, on the branch alone, on the refs alone, and on the refs alone by the reader of `--against` (default
`main`, loaded from git): median wall seconds and git processes, and whether the branch and the refs give
the same checkpoints (ids, sessions, transcript blobs).

    .venv/bin/python bench/entire_refs.py [--repo /work/.mirror/entireio+cli/repo] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from _common import isolate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from support import migrate_to_refs  # noqa: E402

from git_intent.git.repo import Repository  # noqa: E402
from git_intent.peers import entire  # noqa: E402

BRANCH = "refs/heads/entire/checkpoints/v1"


def reader_at(revision: str) -> ModuleType:
    """`git_intent.peers.entire` as it is at `revision`, loaded beside this checkout's package."""
    source = subprocess.run(
        ["git", "show", f"{revision}:git_intent/peers/entire.py"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "entire_then.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("git_intent.peers._entire_then", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def timed(call: Callable[[], list[Any]], runs: int) -> tuple[float, list[Any]]:
    seconds, found = [], []
    for _ in range(runs):
        start = time.perf_counter()
        found = call()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), found


def shape(checkpoints: list[Any]) -> list[tuple[str, list[tuple[int, str, tuple[str, ...]]]]]:
    return sorted(
        (c.checkpoint_id, [(s.index, s.session_id, s.transcript_objects) for s in c.sessions])
        for c in checkpoints
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=Path("/work/.mirror/entireio+cli/repo"))
    parser.add_argument("--against", default="main")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="entire-refs-bench-"))
    try:
        isolate(work)
        repo = work / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / ".git" / "objects" / "info" / "alternates").write_text(f"{args.repo.resolve()}/objects\n")
        tip = subprocess.run(
            ["git", f"--git-dir={args.repo}", "rev-parse", BRANCH], capture_output=True, text=True, check=True
        ).stdout.strip()
        subprocess.run(["git", "update-ref", BRANCH, tip], cwd=repo, check=True)
        start = time.perf_counter()
        refs = migrate_to_refs(repo)
        laid_out = time.perf_counter() - start
        here = Repository(repo)
        then = reader_at(args.against)
        branch_s, from_branch = timed(lambda: entire.read_checkpoints(here, BRANCH), args.runs)
        subprocess.run(["git", "update-ref", "-d", BRANCH], cwd=repo, check=True)  # refs alone from here on
        refs_s, from_refs = timed(lambda: entire.read_checkpoints(here), args.runs)
        then_s, from_then = timed(lambda: then.read_checkpoints(here), args.runs)
        figures = {
            "snapshot": str(args.repo),
            "checkpoints": len(refs),
            "sessions": sum(len(c.sessions) for c in from_refs),
            "seconds_to_lay_out_refs": round(laid_out, 1),
            "read_branch_s": round(branch_s, 3),
            "read_refs_s": round(refs_s, 3),
            f"read_refs_s_at_{args.against}": round(then_s, 3),
            "refs_equal_branch": shape(from_refs) == shape(from_branch),
            f"refs_equal_{args.against}": shape(from_refs) == shape(from_then),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:32} {value}")


if __name__ == "__main__":
    main()
