"""The repository's memory: recall and precision of planted items offline, the time of
`git intent memory PATH` and of the edit guard hook, and the log's size per 100 real sessions.

1. The planted repository of tests/support/memory_support.py (two Claude Code sessions, 8 planted items among
   the real prompts of fixtures/ as noise): recall (a planted item found with its kind, its words and exactly
   its citations) and precision (found items that are planted) of the offline observer.
2. Wall time, median and p95 of `--runs`, after warm-ups: `git intent memory PATH --no-update`,
   `memory PATH:LINE --no-update` (blame included), `memory PATH` with its update (nothing new to read),
   and the guard hook as Claude Code runs it (`git-intent memory --hook`, the hook JSON on stdin), with
   `python -c pass` and `git rev-parse` as floors; the hook's output size in tokens.
3. Every Claude Code and Codex session of the real snapshots' Entire checkpoints (entireio/cli and
   entireio/git-sync, `--repo`, repeatable) observed offline: observations and bytes of the log, per 100
   sessions, by kind; and the guard index's bytes for the planted repository.

Run: .venv/bin/python bench/memory.py [--runs 30] [--repo DIR ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _common import isolate  # noqa: E402

SNAPSHOTS = ["/work/.mirror/entireio+cli/repo", "/work/.mirror/entireio+git-sync/repo"]
CHECKPOINTS = "refs/heads/entire/checkpoints/v1"


def timed(command: list[str], cwd: Path, runs: int, stdin: str | None = None) -> dict[str, float]:
    """Median, p95 and min wall ms of `runs` runs after 3 warm-ups."""
    samples = []
    for n in range(runs + 3):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, text=True, check=False)
        if n >= 3:
            samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 1),
        "p95_ms": round(samples[max(0, int(len(samples) * 0.95 + 0.5) - 1)], 1),
        "min_ms": round(samples[0], 1),
    }


def planted_figures(root: Path, runs: int) -> dict[str, object]:
    from support.memory_support import build

    from git_intent.git.repo import Repository
    from git_intent.memory.recall import remembered
    from git_intent.memory.update import update_memory
    from git_intent.sessions.prose import estimate_tokens

    built = build(root)
    repo = Repository(built.root)
    start = time.perf_counter()
    update_memory(repo, use_model=False)
    first_update_ms = (time.perf_counter() - start) * 1000
    found = remembered(repo)
    hits = {
        o.id
        for item in built.planted
        for o in found
        if o.kind == item.kind and item.words in o.text and o.citations == item.cites
    }
    recall = sum(
        any(o.kind == i.kind and i.words in o.text and o.citations == i.cites for o in found)
        for i in built.planted
    )
    script = str(Path(sys.executable).with_name("git-intent"))
    client = built.root / "src" / "http_client.py"
    payload = json.dumps(
        {
            "session_id": "bench",
            "cwd": str(built.root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {
                "file_path": str(client),
                "old_string": "    tries = attempts if method in IDEMPOTENT else 1\n",
                "new_string": "    tries = attempts\n",
            },
        }
    )
    out = subprocess.run(
        [script, "memory", "--hook"],
        cwd=built.root,
        input=payload,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    silent = payload.replace("src/http_client.py", "README.md").replace(
        "    tries = attempts if method in IDEMPOTENT else 1\\n", "# demo"
    )
    memory_dir = built.root / ".git" / "intent" / "memory"
    return {
        "planted": len(built.planted),
        "found": len(found),
        "recall": f"{recall}/{len(built.planted)}",
        "precision": f"{len(hits)}/{len(found)}",
        "not_planted": [f"{o.kind}: {o.text}" for o in found if o.id not in hits],
        "first_update_ms": round(first_update_ms, 1),
        "log_bytes": (memory_dir / "observations.jsonl").stat().st_size,
        "guard_index_bytes": (memory_dir / "guard.json").stat().st_size,
        "hook_context_tokens": estimate_tokens(context),
        "times": {
            "python -c pass": timed([sys.executable, "-c", "pass"], built.root, runs),
            "git rev-parse": timed(["git", "rev-parse", "--show-toplevel"], built.root, runs),
            "memory PATH --no-update": timed(
                [script, "memory", "src/http_client.py", "--no-update"], built.root, runs
            ),
            "memory PATH:LINE --no-update": timed(
                [script, "memory", "src/http_client.py:7", "--no-update"], built.root, runs
            ),
            "memory PATH (update, nothing new)": timed(
                [script, "memory", "src/http_client.py"], built.root, runs
            ),
            "hook (context given)": timed([script, "memory", "--hook"], built.root, runs, payload),
            "hook (silent)": timed([script, "memory", "--hook"], built.root, runs, silent),
        },
    }


def real_figures(root: Path, snapshots: list[str]) -> dict[str, object]:
    from git_intent.git.repo import Repository
    from git_intent.memory.extract import extract
    from git_intent.memory.log import dumps
    from git_intent.peers.entire import read_checkpoints

    by_kind: Counter[str] = Counter()
    sessions = observations = size = 0
    seconds = 0.0
    per_repo = {}
    for n, snapshot in enumerate(snapshots):
        gitdir = Path(snapshot)
        if not gitdir.exists():
            continue
        truth = root / f"truth{n}"
        subprocess.run(["git", "init", "-q", str(truth)], check=True)
        (truth / ".git" / "objects" / "info" / "alternates").write_text(f"{gitdir / 'objects'}\n")
        sha = subprocess.run(
            ["git", "--git-dir", str(gitdir), "rev-parse", CHECKPOINTS],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        subprocess.run(["git", "-C", str(truth), "update-ref", CHECKPOINTS, sha], check=True)
        seen: set[str] = set()
        mine = 0
        for checkpoint in read_checkpoints(Repository(truth), CHECKPOINTS):
            for entire_session in checkpoint.sessions:
                if (
                    entire_session.agent not in ("claude-code", "codex")
                    or entire_session.agent_session_id in seen
                ):
                    continue
                seen.add(entire_session.agent_session_id)
                try:
                    parsed = entire_session.read_sessions(root / f"staging{n}")
                except Exception:
                    continue
                for session in parsed:
                    start = time.perf_counter()
                    found = extract(session, lambda path, cwd: None, frozenset())
                    seconds += time.perf_counter() - start
                    sessions += 1
                    mine += 1
                    observations += len(found)
                    size += len(dumps(found).encode("utf-8"))
                    by_kind.update(o.kind for o in found)
        per_repo[gitdir.parent.name] = mine
    per = 100 / sessions if sessions else 0.0
    return {
        "sessions": sessions,
        "by_snapshot": per_repo,
        "observations": observations,
        "observations_per_100_sessions": round(observations * per, 1),
        "log_bytes_per_100_sessions": round(size * per),
        "by_kind": dict(by_kind.most_common()),
        "extract_ms_per_session": round(seconds * 1000 / sessions, 2) if sessions else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--repo", action="append", help="snapshots with Entire checkpoints (repeatable)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        isolate(root)
        os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        figures = {
            "planted": planted_figures(root, args.runs),
            "real": real_figures(root, args.repo or SNAPSHOTS),
        }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    planted = figures["planted"]
    assert isinstance(planted, dict)
    print(
        f"planted: recall {planted['recall']}, precision {planted['precision']} (not planted: "
        f"{planted['not_planted']})"
    )
    print(
        f"first update {planted['first_update_ms']} ms; log {planted['log_bytes']} B; guard index "
        f"{planted['guard_index_bytes']} B"
    )
    print(f"hook context: {planted['hook_context_tokens']} tokens")
    for name, row in planted["times"].items():  # type: ignore[union-attr]
        print(
            f"  {name:36} median {row['median_ms']:7.1f} ms   p95 {row['p95_ms']:7.1f}   min "
            f"{row['min_ms']:7.1f}"
        )
    print("real sessions:", json.dumps(figures["real"], indent=1))


if __name__ == "__main__":
    main()
