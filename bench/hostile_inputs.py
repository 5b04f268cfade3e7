"""Hostile shared evidence: what one huge message and one deeply nested blob on
`refs/intent/evidence` cost the commands that read them.

A scratch repository gets a commit whose one line is credited to a session, and a store holding that
session's blob with one message of `--mb` MB (default 30; first measured with 60 MB: `show` 30 s and 392 MB),
or a blob nested `--depth` deep (default 200,000: every reader exited 3 before). Each command runs once as a
subprocess; printed: exit code, wall time, the child's peak RSS, bytes printed, stderr's first line.

Run from the repository root:

    .venv/bin/python bench/hostile_inputs.py
    .venv/bin/python bench/hostile_inputs.py --mb 10 --depth 50000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from git_intent.git.repo import Repository
from git_intent.notes import CommitRecord, LinesRecord, SessionRecord, range_digest, render_note
from git_intent.notes import evidence_ref as store

INTENT = [
    sys.executable,
    "-c",
    "import sys; from git_intent.cli import main; sys.argv[0] = 'git-intent'; main()",
]


def git(root: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, input=data, capture_output=True, check=True
    ).stdout.decode()


def world(root: Path, blob: bytes) -> None:
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("def a():\n", encoding="utf-8")
    git(root, "add", "app.py")
    git(root, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-q", "-m", "a")
    sha = git(root, "rev-parse", "HEAD").strip()
    records = [
        CommitRecord(commit=sha, lines_added=1, lines_attributed=1, recorded_by="bench"),
        SessionRecord(agent="claude-code", session_id="hostile", lines_attributed=1),
        LinesRecord(
            agent="claude-code",
            session_id="hostile",
            message_id="m1",
            tool="Write",
            path="app.py",
            start=1,
            end=1,
            match="exact",
            confidence=1.0,
            sha=range_digest(["def a():"]),
        ),
    ]
    git(
        root,
        "-c",
        "user.name=b",
        "-c",
        "user.email=b@x",
        "notes",
        "--ref",
        "refs/notes/intent",
        "add",
        "-m",
        render_note(records).strip(),
        sha,
    )
    oid = git(root, "hash-object", "-w", "--stdin", data=blob).strip()
    (root / ".git" / "intent").mkdir(mode=0o700, exist_ok=True)
    store.commit_entries(
        Repository(root), {store.session_path("sessions", "claude-code/hostile"): oid}, None, "bench"
    )


def huge(mb: int) -> bytes:
    return json.dumps(
        {
            "schema": "git-intent-evidence/1",
            "level": "sessions",
            "agent": "claude-code",
            "session_id": "hostile",
            "commits": [],
            "topics": [],
            "edits": [],
            "messages": [
                {
                    "message_id": "m1",
                    "role": "user",
                    "is_prompt": True,
                    "timestamp": "2026-01-01T10:00:00+00:00",
                    "parts": [{"kind": "text", "text": "word " * (mb * 1_000_000 // 5)}],
                }
            ],
        }
    ).encode()


def deep(depth: int) -> bytes:
    return (
        b'{"schema":"git-intent-evidence/1","agent":"claude-code","session_id":"hostile","messages":'
        + b"[" * depth
        + b"]" * depth
        + b"}"
    )


def run(root: Path, *args: str) -> str:
    """One command: exit code, wall time, its own peak RSS (`os.wait4`), bytes printed, stderr's first
    line."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([*INTENT, *args], cwd=root, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        took = time.perf_counter() - start
        size = out.tell()
        err.seek(0)
        first = err.read().decode("utf-8", "replace").strip().splitlines()[:1]
    return (
        f"{' '.join(args):<22} exit {proc.returncode}  {took:6.2f} s  peak RSS "
        f"{usage.ru_maxrss / 1024:5.0f} MB  {size:>11,} bytes out  {first[0][:90] if first else ''}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=30, help="MB of the one huge message (default 30)")
    parser.add_argument(
        "--depth", type=int, default=200_000, help="nesting of the deep blob (default 200,000)"
    )
    args = parser.parse_args()
    cases = ((f"one {args.mb} MB message", huge(args.mb)), (f"nested {args.depth:,} deep", deep(args.depth)))
    for label, blob in cases:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            world(root, blob)
            print(f"{label} ({len(blob):,} bytes):")
            for command in (
                ("show", "hostile"),
                ("blame", "app.py:1"),
                ("why", "app.py:1", "--offline"),
                ("doctor", "--check"),
            ):
                print("  " + run(root, *command))


if __name__ == "__main__":
    main()
