"""Imports on hostile records stay linear and bounded: a git-ai note of 40,000 blocks, an Entire checkpoint
whose 400 transcript chunks name one 1 MiB blob, and 400 session folders naming that blob, each built in a
real repository and imported by the installed `git-intent`, its wall time and peak memory (the child's own
rusage) held to a stated bound.

Bounds and figures (2 shared cores): the 40,000-block note took minutes (each block joined the rest of the
note again; 54 s for 40,000 small blocks) and takes about 1 s; the 400 chunks took 29 s and 860 MB (and left a
400 MiB transcript in the backup), and are refused in 0.6 s and 40 MB; the 400 folders took 17 s and 862 MB
and take 1 s and 43 MB.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from conftest import git

SECONDS = 8.0  # each import, with the CLI's start-up, on a loaded machine
PEAK_BYTES = 200 * 1024 * 1024  # the CLI itself peaks near 45 MB; a 400 MiB transcript in memory cannot fit
CLAUDE_LINE = (
    json.dumps(
        {
            "type": "user",
            "sessionId": "s-1",
            "uuid": "u-1",
            "timestamp": "2026-01-01T00:00:00Z",
            "cwd": "/x",
            "message": {"role": "user", "content": "pad"},
        }
    ).encode()
    + b"\n"
)
MIB_BLOB = CLAUDE_LINE * ((1 << 20) // len(CLAUDE_LINE))  # a 1 MiB Claude Code transcript


# Linux keeps a process's peak resident size across exec, and a forked child starts from its parent's: a
# command forked from a pytest that has grown to 400 MiB reports 400 MiB. It is started from this small
# launcher instead, which reports the command's own peak (wait4) to the file named by its first argument.
_LAUNCH = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def measured(argv: list[str], cwd: Path, limit: float = 3 * SECONDS) -> tuple[int, float, int, str]:
    """Run `argv`: (exit code, wall seconds, peak resident bytes of the process, its output). Killed past
    `limit` (exit code -9), so a build that is still quadratic fails in seconds, not minutes."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryDirectory() as folder:
        peak = Path(folder) / "peak"
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, str(peak), *argv],
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        timer = threading.Timer(limit, lambda: os.killpg(proc.pid, signal.SIGKILL))
        timer.start()
        code = proc.wait()
        timer.cancel()
        elapsed = time.perf_counter() - start
        out.seek(0)
        rss = int(peak.read_text()) * 1024 if peak.exists() else 0  # ru_maxrss is in KiB on Linux
        return code, elapsed, rss, out.read().decode("utf-8", "replace")


def hash_object(repo: Path, data: bytes) -> str:
    return (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"], cwd=repo, input=data, capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )


def checkpoint_branch(repo: Path, rows: list[tuple[str, str]]) -> None:
    """Point entire/checkpoints/v1 at a commit of a tree of `(path, blob id)` rows (one `update-index`)."""
    index = repo / ".git" / "scratch-index"
    env = {"GIT_INDEX_FILE": str(index)}
    listing = "".join(f"100644 blob {oid}\t{path}\n" for path, oid in rows)
    subprocess.run(
        ["git", "update-index", "--add", "--index-info"],
        cwd=repo,
        input=listing.encode(),
        check=True,
        env={**os.environ, **env},
    )
    tree = git(repo, "write-tree", env=env).strip()
    index.unlink()
    git(
        repo,
        "update-ref",
        "refs/heads/entire/checkpoints/v1",
        git(repo, "commit-tree", tree, "-m", "cp").strip(),
    )


def test_a_git_ai_note_of_40000_blocks_imports_in_linear_time(repo: Path) -> None:
    # Notes merged again and again hold one `attestations --- json` block per merge; every block names one
    # session.
    block = (
        "app.py\n  s_0123456789abcd 1\n---\n"
        '{"sessions": {"s_0123456789abcd": {"agent_id": {"tool": "claude", "id": "gone-session"}}}}\n'
    )
    note = repo / "note.txt"
    note.write_text(block * 40_000)
    git(repo, "notes", "--ref", "refs/notes/ai", "add", "-F", str(note), "HEAD")
    code, seconds, peak, output = measured(["git-intent", "import", "--from", "git-ai"], repo)
    assert code == 0, output
    assert "the claude-code session gone-session is not on this machine" in output
    assert seconds < SECONDS, f"40,000 blocks took {seconds:.1f} s"
    assert peak < PEAK_BYTES, f"peak {peak / 2**20:.0f} MiB"


def test_transcript_chunks_naming_one_blob_are_refused_without_reading_them(repo: Path) -> None:
    blob = hash_object(repo, MIB_BLOB)
    folder = "ab/cdef012345"
    rows = [
        (f"{folder}/metadata.json", hash_object(repo, b'{"checkpoint_id": "abcdef012345"}')),
        (f"{folder}/0/metadata.json", hash_object(repo, b'{"session_id": "s-1", "agent": "Claude Code"}')),
        (f"{folder}/0/full.jsonl", blob),
        *((f"{folder}/0/full.jsonl.{n:03d}", blob) for n in range(1, 400)),
    ]
    checkpoint_branch(repo, rows)
    code, seconds, peak, output = measured(["git-intent", "import", "--from", "entire"], repo)
    assert code == 0, output
    assert (
        "skipped checkpoint abcdef012345 session 0: The transcript of session s-1 in checkpoint "
        "abcdef012345 names one object as several of its 400 chunks."
    ) in output
    assert seconds < SECONDS, f"took {seconds:.1f} s"
    assert peak < PEAK_BYTES, f"peak {peak / 2**20:.0f} MiB"
    assert not (repo / ".opencode" / "intent" / "sessions").exists()  # no 400 MiB copy in the backup


def test_session_folders_naming_one_transcript_read_it_once(repo: Path) -> None:
    blob = hash_object(repo, MIB_BLOB)
    session = hash_object(repo, b'{"session_id": "s-1"}')  # no agent label: the transcript's head is sniffed
    rows = [("ab/cdef012345/metadata.json", hash_object(repo, b'{"checkpoint_id": "abcdef012345"}'))]
    for n in range(400):
        rows += [(f"ab/cdef012345/{n}/metadata.json", session), (f"ab/cdef012345/{n}/full.jsonl", blob)]
    checkpoint_branch(repo, rows)
    code, seconds, peak, output = measured(["git-intent", "import", "--from", "entire"], repo)
    assert code == 0, output
    assert output.startswith("entire: 1 session(s), 0 commit(s) recorded"), output
    assert seconds < SECONDS, f"took {seconds:.1f} s"
    assert peak < PEAK_BYTES, f"peak {peak / 2**20:.0f} MiB"
    copies = list((repo / ".opencode" / "intent" / "sessions" / "claude-code").iterdir())
    assert [(p.name, p.stat().st_size) for p in copies] == [("s-1.jsonl", len(MIB_BLOB))]
