"""Backfill throughput, before and after a change, on a generated history or on real sessions replayed.

Two histories:

- generated (default): N commits (default 1,000), each adding lines to one of 50 files, and T Claude Code
  transcripts on disk (default 200) whose Write calls produced most of those lines just before each commit;
- `--real K`: the real Claude Code sessions of fixtures/ (seven entire-cli sessions by four authors, 2.2 MB
  of transcripts) replayed K times (default 22: ~1,000 commits): one commit per edit that carries whole-file
  texts, at the edit's time plus 20 s, after a person's commit of the files as they were before the session;
  each copy of a session gets its own id and is shifted to start one day after the previous one, so a
  commit's 7-day look-back holds several sessions, as in a busy repository. The transcripts are passed as
  `--transcript` files (their cwds are the authors' machines, so discovery would not find them).

Backfill runs in a child process once per code version: the revision `--against` (default `main`, extracted
with `git archive`) and this work tree, on the same history, notes and backup removed in between; each
prints commits/s, CPU (its own and its git processes') and git processes per commit, and the two runs' notes
are compared (they must be identical). Then a second run (all skipped) and, for the generated history,
`record_commit` on single commits with all transcripts on disk (the worker's time per commit).

Run: .venv/bin/python bench/backfill_throughput.py [--commits N] [--transcripts T] [--real K]
     [--against REV | --against none]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from _common import COUNT_GIT, iso, isolate

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"
# Runs one backfill in a child process with the code on PYTHONPATH: counts the git processes it starts and
# prints its figures as JSON.
CHILD = (
    """
import json, resource, subprocess, sys
from pathlib import Path
# The code under test comes first, also before an editable install's finder (which would win over PYTHONPATH).
sys.path.insert(0, sys.argv[3])
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
"""
    + COUNT_GIT
    + """
import git_intent.capture.backfill
from git_intent.git.repo import Repository
repo, transcripts = Path(sys.argv[1]), [Path(p) for p in json.loads(sys.argv[2])]
me0, ch0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
result = git_intent.capture.backfill.backfill(Repository(repo), "HEAD", transcripts=transcripts)
me, ch = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": git_intent.capture.backfill.__file__, "recorded": result.recorded,
                  "skipped": result.skipped,
                  "seconds": result.seconds, "lines_added": result.lines_added,
                  "lines_attributed": result.lines_attributed, "sessions": len(result.sessions),
                  "git_processes": started[0],
                  "cpu_self": me.ru_utime + me.ru_stime - me0.ru_utime - me0.ru_stime,
                  "cpu_git": ch.ru_utime + ch.ru_stime - ch0.ru_utime - ch0.ru_stime}))
"""
)


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
                    "".join(json.dumps(r) + "\n" for r in session_records), encoding="utf-8"
                )
            session_id, session_records = str(uuid.uuid4()), []
            session_records.append(
                {
                    "type": "user",
                    "uuid": str(uuid.uuid4()),
                    "sessionId": session_id,
                    "cwd": str(repo),
                    "timestamp": iso(when - timedelta(seconds=50)),
                    "message": {"role": "user", "content": f"Work on batch {i}"},
                }
            )
        name = f"src/module_{i % 50}.py"
        before = "".join(line + "\n" for line in files.get(name, []))
        new_lines = [
            f"def function_{i}_{k}(value):  # step {i}" if k == 0 else f"    return value * {i} + {k}"
            for k in range(4)
        ]
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
            session_records.append(
                {
                    "type": "assistant",
                    "uuid": message,
                    "sessionId": session_id,
                    "cwd": str(repo),
                    "timestamp": iso(when - timedelta(seconds=20)),
                    "message": {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": call,
                                "name": "Write",
                                "input": {"file_path": str(path), "content": after},
                            }
                        ],
                    },
                }
            )
            session_records.append(
                {
                    "type": "user",
                    "uuid": str(uuid.uuid4()),
                    "sessionId": session_id,
                    "cwd": str(repo),
                    "timestamp": iso(when - timedelta(seconds=19)),
                    "toolUseResult": {
                        "type": "update",
                        "filePath": str(path),
                        "content": after,
                        "originalFile": before or None,
                    },
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": call, "content": "ok"}],
                    },
                }
            )
        env = {**os.environ, "GIT_AUTHOR_DATE": when.isoformat(), "GIT_COMMITTER_DATE": when.isoformat()}
        subprocess.run(["git", "add", name], cwd=repo, check=True, env=env)
        subprocess.run(["git", "commit", "-q", "-m", f"step {i}"], cwd=repo, check=True, env=env)
    if session_records:
        (projects / f"{session_id}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in session_records), encoding="utf-8"
        )
    return repo, agent_lines


def real_sessions() -> list[tuple[Path, Any]]:
    """(transcript, session) for the real Claude Code sessions of the entire-cli fixtures."""
    from git_intent.sessions.discovery import read_transcript

    files = sorted((FIXTURES / "transcripts" / "claude-code").glob("entire-cli__*.jsonl"))
    files += sorted((FIXTURES / "linked" / "entire-cli").glob("checkpoints/*/*/*/full.jsonl"))
    found = []
    for path in files:
        for session in read_transcript(path):
            if session.agent == "claude-code" and any(
                e.before is not None and e.after is not None for e in session.edits
            ):
                found.append((path, session))
    return found


def shifted_copy(source: Path, target: Path, shift: timedelta) -> None:
    """The transcript with every record's timestamp moved by `shift` and each session id replaced."""
    ids: dict[str, str] = {}
    out = []
    with source.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                out.append(line)  # a torn line stays torn
                continue
            if isinstance(record, dict):
                if isinstance(record.get("timestamp"), str):
                    when = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00")) + shift
                    record["timestamp"] = iso(when)
                if isinstance(record.get("sessionId"), str):
                    record["sessionId"] = ids.setdefault(record["sessionId"], str(uuid.uuid4()))
            out.append(json.dumps(record) + "\n")
    target.write_text("".join(out), encoding="utf-8")


def build_real(root: Path, copies: int) -> tuple[Path, list[Path]]:
    """A history replaying the fixtures' real sessions `copies` times; the repository and its transcripts."""
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    folder = root / "transcripts"
    folder.mkdir()
    sessions = real_sessions()
    start = datetime.now(timezone.utc) - timedelta(days=copies * len(sessions) + 30)
    transcripts = []
    slot = 0
    for copy in range(copies):
        for path, session in sessions:
            cwd = (session.cwd or "").rstrip("/") + "/"
            edits = sorted(
                (
                    e
                    for e in session.edits
                    if e.before is not None and e.after is not None and e.timestamp and e.path.startswith(cwd)
                ),
                key=lambda e: e.timestamp,
            )
            if not edits:
                continue
            shift = start + timedelta(days=slot) - edits[0].timestamp
            slot += 1
            target = (
                folder
                / f"{copy:03d}-{path.parent.parent.name if path.name == 'full.jsonl' else path.stem}.jsonl"
            )
            shifted_copy(path, target, shift)
            transcripts.append(target)
            before: dict[str, str] = {}
            for edit in edits:
                before.setdefault(edit.path[len(cwd) :], edit.before or "")
            write_files(repo, before)
            commit(
                repo,
                f"{session.session_id[:8]} copy {copy}: files before the session",
                edits[0].timestamp + shift - timedelta(minutes=10),
            )
            for edit in edits:
                write_files(repo, {edit.path[len(cwd) :]: edit.after or ""})
                commit(
                    repo,
                    f"{edit.tool} {edit.path[len(cwd) :]}",
                    edit.timestamp + shift + timedelta(seconds=20),
                )
    return repo, transcripts


def write_files(repo: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        target = repo / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")


def commit(repo: Path, message: str, when: datetime) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": when.isoformat(), "GIT_COMMITTER_DATE": when.isoformat()}
    subprocess.run(["git", "-c", "commit.gpgsign=false", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", message],
        cwd=repo,
        check=True,
        env=env,
    )


def code_tree(root: Path, revision: str) -> Path:
    """The git_intent package of `revision` of this repository, extracted under `root`."""
    target = root / f"code-{re.sub(r'[^A-Za-z0-9]', '-', revision)}"
    target.mkdir()
    archive = subprocess.run(
        ["git", "archive", revision, "git_intent"], cwd=HERE.parent, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def run_backfill(code: Path, repo: Path, transcripts: list[Path]) -> dict[str, Any]:
    """One backfill of `repo` by the package in `code`, in a child process; its figures and the notes."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(repo), json.dumps([str(p) for p in transcripts]), str(code)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"backfill with {code} failed:\n{proc.stderr}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    if not figures["code"].startswith(str(code)):
        raise SystemExit(f"the child imported {figures['code']}, not the code in {code}")
    listed = subprocess.run(
        ["git", "notes", "--ref", "refs/notes/git-intent", "list"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    figures["notes"] = {line.split()[1]: line.split()[0] for line in listed.splitlines()}
    return figures


def forget(repo: Path) -> None:
    """Remove what a backfill wrote: the notes, the backup and the derived state."""
    subprocess.run(["git", "update-ref", "-d", "refs/notes/git-intent"], cwd=repo, check=True)
    shutil.rmtree(repo / ".opencode" / "intent", ignore_errors=True)
    shutil.rmtree(repo / ".git" / "intent", ignore_errors=True)


def report(label: str, figures: dict[str, Any]) -> None:
    recorded = figures["recorded"]
    print(
        f"{label}: {recorded} commits in {figures['seconds']:.1f} s = {recorded / figures['seconds']:.1f} "
        f"commits/s; CPU {figures['cpu_self']:.1f} s in the backfill process + {figures['cpu_git']:.1f} s "
        f"in git = {recorded / (figures['cpu_self'] + figures['cpu_git']):.1f} commits per CPU second; "
        f"{figures['git_processes'] / max(1, recorded):.2f} git processes per commit; credited "
        f"{figures['lines_attributed']} of {figures['lines_added']} added lines to {figures['sessions']} "
        f"sessions"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--transcripts", type=int, default=200)
    parser.add_argument(
        "--real",
        type=int,
        nargs="?",
        const=22,
        default=0,
        metavar="K",
        help="replay the fixtures' real sessions K times (default 22) instead",
    )
    parser.add_argument("--against", default="main", help="the revision to compare with ('none': skip)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        isolate(Path(tmp))
        from git_intent.capture.record import record_commit
        from git_intent.git.repo import Repository

        t0 = time.perf_counter()
        transcripts: list[Path] = []
        if args.real:
            path, transcripts = build_real(Path(tmp), args.real)
            count = len(
                subprocess.run(
                    ["git", "rev-list", "HEAD"], cwd=path, capture_output=True, text=True, check=True
                ).stdout.split()
            )
            size = sum(p.stat().st_size for p in transcripts) / 1e6
            print(
                f"replayed the fixtures' real sessions {args.real} times: {count} commits, "
                f"{len(transcripts)} transcripts ({size:.1f} MB) in {time.perf_counter() - t0:.1f} s"
            )
        else:
            path, agent_lines = build(Path(tmp), args.commits, args.transcripts)
            print(
                f"generated {args.commits} commits and {args.transcripts} transcripts ({agent_lines} "
                f"agent-written lines) in {time.perf_counter() - t0:.1f} s"
            )
        runs = []
        if args.against != "none":
            before = run_backfill(code_tree(Path(tmp), args.against), path, transcripts)
            report(f"before ({args.against})", before)
            runs.append(before)
            forget(path)
        after = run_backfill(HERE.parent, path, transcripts)
        report("after (this tree)", after)
        runs.append(after)
        if len(runs) == 2:
            same = runs[0]["notes"] == runs[1]["notes"]
            print(
                f"notes identical before and after: {'yes' if same else 'NO'} ({len(runs[1]['notes'])} notes)"
            )
            cpu = [run["cpu_self"] + run["cpu_git"] for run in runs[:2]]
            print(
                f"speed-up: {runs[0]['seconds'] / runs[1]['seconds']:.1f}x wall, {cpu[0] / cpu[1]:.1f}x CPU"
            )
        again = run_backfill(HERE.parent, path, transcripts)
        print(
            f"second run: {again['recorded']} recorded, {again['skipped']} skipped in "
            f"{again['seconds']:.2f} s"
        )
        if args.real:
            return
        repo = Repository(path)
        shas = subprocess.run(
            ["git", "rev-list", "--max-count=20", "HEAD"],
            cwd=path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        times = []
        for sha in shas:
            start = time.perf_counter()
            record_commit(repo, sha)
            times.append((time.perf_counter() - start) * 1000)
        print(
            f"worker time per commit (record_commit with {args.transcripts} transcripts on disk, 20 "
            f"commits): median {statistics.median(times):.0f} ms, max {max(times):.0f} ms"
        )


if __name__ == "__main__":
    main()
