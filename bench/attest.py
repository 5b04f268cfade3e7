"""`git intent attest` and `git intent verify` on 100, 300 and 1,000 recorded commits: wall seconds and ms per
commit, to show both grow linearly.

Each size gets a fresh repository (`git fast-import`): every commit adds 12 lines to one of 40 files, and its
note (written with `git_intent.notes.write_notes`, the backfill path) credits 10 of them to one of 20 Claude
Code sessions in two ranges, with a commit and a session record, as `record` writes them. An ed25519 key is
made with `ssh-keygen -N ''`; the allowed-signers file names it. The CLI runs as a child process, as a user
runs it: `attest HEAD --key KEY`, `verify HEAD --allowed-signers FILE`, and `attest` again (every statement
unchanged: nothing signed). Under a minute on the development machine.

Run: .venv/bin/python bench/attest.py [--sizes 100,300,1000] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import isolate  # noqa: E402

FILES = 40
SESSIONS = 20


def build(repo: Path, commits: int) -> None:
    """A repository of `commits` commits, each recorded: a note crediting 10 of its 12 new lines."""
    from git_intent.git.repo import Repository
    from git_intent.notes import CommitRecord, LinesRecord, SessionRecord, range_digest, write_notes

    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    contents: dict[str, list[str]] = {}
    stream: list[bytes] = []
    added: list[tuple[str, int, list[str]]] = []
    for i in range(commits):
        path = f"src/module_{i % FILES}.py"
        lines = contents.setdefault(path, [])
        new = [
            f"def step_{i}_{k}(value):  # commit {i}" if k % 6 == 0 else f"    value += {i * 12 + k}"
            for k in range(12)
        ]
        start = len(lines) + 1
        lines.extend(new)
        data = ("\n".join(lines) + "\n").encode()
        message = f"commit {i}".encode()
        stamp = 1_764_000_000 + i * 60
        stream += [
            b"commit refs/heads/main\n",
            f"committer Bench Person <bench@example.com> {stamp} +0000\n".encode(),
            f"data {len(message)}\n".encode() + message + b"\n",
            f"M 100644 inline {path}\n".encode(),
            f"data {len(data)}\n".encode() + data + b"\n",
        ]
        added.append((path, start, new))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    shas = subprocess.run(
        ["git", "rev-list", "--reverse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.split()
    notes = {}
    for i, (sha, (path, start, new)) in enumerate(zip(shas, added, strict=True)):
        session = f"00000000-0000-4000-8000-{i % SESSIONS:012d}"
        credit = {
            "agent": "claude-code",
            "session_id": session,
            "tool": "Edit",
            "match": "exact",
            "confidence": 1.0,
        }
        notes[sha] = [
            CommitRecord(commit=sha, lines_added=12, lines_attributed=10, recorded_by="bench"),
            SessionRecord(agent="claude-code", session_id=session, lines_attributed=10),
            LinesRecord(
                **credit,
                message_id=f"m{i}a",
                path=path,
                start=start,
                end=start + 5,
                sha=range_digest(new[:6]),
            ),
            LinesRecord(
                **credit,
                message_id=f"m{i}b",
                path=path,
                start=start + 8,
                end=start + 11,
                sha=range_digest(new[8:12]),
            ),
        ]
    write_notes(Repository(repo), notes)


def timed(argv: list[str], cwd: Path) -> tuple[float, str]:
    began = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - began
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stdout}{proc.stderr}")
    return elapsed, proc.stdout.strip()


def measure(root: Path, commits: int) -> dict[str, float | int]:
    repo = root / f"repo-{commits}"
    build(repo, commits)
    key = root / f"key-{commits}"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", str(key)], check=True)
    allowed = root / f"allowed-{commits}"
    allowed.write_text("bench@example.com " + " ".join(Path(f"{key}.pub").read_text().split()[:2]) + "\n")
    git_intent = [sys.executable, "-m", "git_intent"]
    attest, said = timed([*git_intent, "attest", "HEAD", "--key", str(key)], repo)
    assert said.startswith(f"Attested {commits} commit(s)"), said
    verify, said = timed([*git_intent, "verify", "HEAD", "--allowed-signers", str(allowed)], repo)
    assert said == f"All attestations hold: {commits} commit(s) verified, 0 without agent lines.", said
    again, said = timed([*git_intent, "attest", "HEAD", "--key", str(key)], repo)
    assert f"{commits} already attested alike" in said, said
    return {
        "commits": commits,
        "attest_s": round(attest, 2),
        "attest_ms_per_commit": round(attest * 1000 / commits, 1),
        "verify_s": round(verify, 2),
        "verify_ms_per_commit": round(verify * 1000 / commits, 1),
        "attest_again_s": round(again, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,300,1000", help="commit counts, comma-separated")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="git-intent-attest-bench-") as folder:
        root = Path(folder)
        isolate(root)
        rows = [measure(root, int(size)) for size in args.sizes.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"{'commits':>8} {'attest s':>9} {'ms/commit':>10} {'verify s':>9} {'ms/commit':>10} {'again s':>8}"
    )
    for row in rows:
        print(
            f"{row['commits']:>8} {row['attest_s']:>9} {row['attest_ms_per_commit']:>10} "
            f"{row['verify_s']:>9} {row['verify_ms_per_commit']:>10} {row['attest_again_s']:>8}"
        )


if __name__ == "__main__":
    main()
