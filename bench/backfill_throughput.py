"""Backfill throughput and the worker's time per commit on a generated history.

Builds a repository of N commits (default 1,000), each adding lines to one of 50 files, and T Claude Code
transcripts on disk (default 200) whose Write/Edit calls produced most of those lines just before each
commit. Then measures `git intent backfill` (commits/s, recall = credited / agent-written lines) and
`record_commit` on single commits with all transcripts on disk (the worker's time per commit).

Run: .venv/bin/python bench/backfill_throughput.py [--commits N] [--transcripts T]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from _common import isolate


def iso(when: datetime) -> str:
    return when.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def build(root: Path, commits: int, transcripts: int) -> tuple[Path, int]:
    """The repository and how many of its added lines an agent wrote."""
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "config", "commit.gpgsign", "false"], cwd=repo, check=True)
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(repo))
    projects.mkdir(parents=True)
    start = datetime.now(timezone.utc) - timedelta(days=3)
    per_transcript = max(1, commits // transcripts)
    files: dict[str, list[str]] = {}
    agent_lines = 0
    session_records: list[dict[str, object]] = []
    session_id = ""
    for i in range(commits):
        when = start + timedelta(minutes=i)
        if i % per_transcript == 0:
            if session_records:
                (projects / f"{session_id}.jsonl").write_text(
                    "".join(json.dumps(r) + "\n" for r in session_records), encoding="utf-8")
            session_id, session_records = str(uuid.uuid4()), []
            session_records.append({"type": "user", "uuid": str(uuid.uuid4()), "sessionId": session_id,
                                    "cwd": str(repo), "timestamp": iso(when - timedelta(seconds=50)),
                                    "message": {"role": "user", "content": f"Work on batch {i}"}})
        name = f"src/module_{i % 50}.py"
        before = "".join(line + "\n" for line in files.get(name, []))
        new_lines = [f"def function_{i}_{k}(value):  # step {i}" if k == 0 else f"    return value * {i} + {k}"
                     for k in range(4)]
        human = i % 10 == 0  # every tenth commit is a person's
        files.setdefault(name, []).extend(new_lines)
        after = "".join(line + "\n" for line in files[name])
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(after, encoding="utf-8")
        if not human:
            agent_lines += len(new_lines)
            call = f"toolu_{uuid.uuid4().hex[:20]}"
            message = str(uuid.uuid4())
            session_records.append({"type": "assistant", "uuid": message, "sessionId": session_id, "cwd": str(repo),
                                    "timestamp": iso(when - timedelta(seconds=20)), "message": {
                                        "role": "assistant", "content": [{"type": "tool_use", "id": call,
                                                                          "name": "Write", "input": {
                                                                              "file_path": str(path),
                                                                              "content": after}}]}})
            session_records.append({"type": "user", "uuid": str(uuid.uuid4()), "sessionId": session_id,
                                    "cwd": str(repo), "timestamp": iso(when - timedelta(seconds=19)),
                                    "toolUseResult": {"type": "update", "filePath": str(path), "content": after,
                                                      "originalFile": before or None},
                                    "message": {"role": "user", "content": [
                                        {"type": "tool_result", "tool_use_id": call, "content": "ok"}]}})
        env = {**os.environ, "GIT_AUTHOR_DATE": when.isoformat(), "GIT_COMMITTER_DATE": when.isoformat()}
        subprocess.run(["git", "add", name], cwd=repo, check=True, env=env)
        subprocess.run(["git", "commit", "-q", "-m", f"step {i}"], cwd=repo, check=True, env=env)
    if session_records:
        (projects / f"{session_id}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in session_records),
                                                      encoding="utf-8")
    return repo, agent_lines


def cpu_seconds() -> tuple[float, float]:
    """(user + system CPU seconds of this process, of its finished child processes)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--transcripts", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        isolate(Path(tmp))
        from git_intent.backfill import backfill
        from git_intent.record import record_commit
        from git_intent.repo import Repository

        t0 = time.perf_counter()
        path, agent_lines = build(Path(tmp), args.commits, args.transcripts)
        print(f"generated {args.commits} commits and {args.transcripts} transcripts in "
              f"{time.perf_counter() - t0:.1f} s")
        repo = Repository(path)
        before = cpu_seconds()
        result = backfill(repo, "HEAD")
        used = [after - start for after, start in zip(cpu_seconds(), before, strict=True)]
        print(f"backfill: {result.recorded} commits in {result.seconds:.1f} s = "
              f"{result.recorded / result.seconds:.1f} commits/s; credited {result.lines_attributed} of "
              f"{agent_lines} agent-written lines ({100 * result.lines_attributed / agent_lines:.1f}% recall), "
              f"{result.lines_added} added lines in all")
        # CPU time holds still on a busy machine where wall time does not.
        print(f"backfill CPU: {used[0]:.1f} s in this process, {used[1]:.1f} s in the git processes it started")
        again = backfill(repo, "HEAD")
        print(f"second run: {again.recorded} recorded, {again.skipped} skipped in {again.seconds:.2f} s")
        shas = subprocess.run(["git", "rev-list", "--max-count=20", "HEAD"], cwd=path, capture_output=True,
                              text=True, check=True).stdout.split()
        times = []
        for sha in shas:
            start = time.perf_counter()
            record_commit(repo, sha)
            times.append((time.perf_counter() - start) * 1000)
        print(f"worker time per commit (record_commit with {args.transcripts} transcripts on disk, 20 commits): "
              f"median {statistics.median(times):.0f} ms, max {max(times):.0f} ms")


if __name__ == "__main__":
    main()
