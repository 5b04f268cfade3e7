"""What notes cost the commands that count a whole history: `stats`, `audit` and `export` on a scratch history
of `--commits` commits (default 5,000), each adding two lines to one of 50 files, timed with a note on every
commit and again with refs/notes/git-intent deleted. The goal: with notes, within 3x the time without.

Every note credits both added lines to one of 20 sessions that are not on this machine (so every line is an
agent's without evidence, and no transcript is parsed: what is measured is reading and checking the notes).
The history and its notes are written by one `git fast-import`. Each command runs once as a subprocess after
one warm-up run (caches built); printed: wall time with and without notes, and the ratio.

Run from the repository root:

    .venv/bin/python bench/noted_scale.py
    .venv/bin/python bench/noted_scale.py --commits 1000 --keep /tmp/noted
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from git_intent.notes import CommitRecord, LinesRecord, SessionRecord, range_digest, render_note

INTENT = [
    sys.executable,
    "-c",
    "import sys; from git_intent.cli import main; sys.argv[0] = 'git-intent'; main()",
]
COMMANDS = {
    "stats": ["stats", "--json"],
    "audit": ["audit", "--json", "HEAD"],
    "export": ["export", "--format", "agent-trace"],
}
FILES = 50
SESSIONS = 20


def history(commits: int) -> bytes:
    """A `git fast-import` stream: `commits` commits on main, each appending two lines to one file, and a
    note on each crediting both lines (the notes are written by a second stream, once the commit ids are
    known)."""
    out: list[str] = []
    sizes = [0] * FILES
    for n in range(1, commits + 1):
        index = n % FILES
        sizes[index] += 2
        body = "".join(f"def f{index}_{k}():  # line {k}\n" for k in range(sizes[index]))
        out.append(
            f"commit refs/heads/main\nmark :{n}\ncommitter B <b@x> {1_700_000_000 + n * 60} +0000\n"
            f"data {len(f'c{n}')}\nc{n}\n"
            + (f"from :{n - 1}\n" if n > 1 else "")
            + f"M 100644 inline src/m{index}.py\ndata {len(body.encode())}\n{body}\n"
        )
    return "".join(out).encode()


def notes(root: Path) -> bytes:
    shas = subprocess.run(
        ["git", "rev-list", "--reverse", "main"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    out = []
    for n, sha in enumerate(shas, start=1):
        index = n % FILES
        total = 2 * ((n - index) // FILES + 1) if index else 2 * (n // FILES)
        start = total - 1
        lines = [f"def f{index}_{k}():  # line {k}" for k in (start - 1, start)]
        session = f"session-{n % SESSIONS:02d}"
        text = render_note(
            [
                CommitRecord(commit=sha, lines_added=2, lines_attributed=2, recorded_by="bench"),
                SessionRecord(agent="claude-code", session_id=session, lines_attributed=2),
                LinesRecord(
                    agent="claude-code",
                    session_id=session,
                    message_id=f"m{n}",
                    tool="Edit",
                    path=f"src/m{index}.py",
                    start=start,
                    end=start + 1,
                    match="exact",
                    confidence=1.0,
                    sha=range_digest(lines),
                ),
            ]
        )
        out.append(f"N inline {sha}\ndata {len(text.encode())}\n{text}\n")
    head = "commit refs/notes/git-intent\ncommitter B <b@x> 1800000000 +0000\ndata 5\nnotes\n"
    return (head + "".join(out)).encode()


def timed(root: Path, argv: list[str], home: Path) -> tuple[float, int]:
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(home / "gc")}
    start = time.perf_counter()
    proc = subprocess.run([*INTENT, *argv], cwd=root, env=env, capture_output=True)
    return time.perf_counter() - start, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--keep", type=Path, help="build the scratch history here and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="noted-scale-"))
    home = root.parent / (root.name + "-home")
    home.mkdir(parents=True, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=history(args.commits), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=notes(root), check=True)
    noted = subprocess.run(
        ["git", "rev-parse", "refs/notes/git-intent"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    print(f"{args.commits} commits, each noted; {FILES} files, {SESSIONS} sessions (none on this machine)")
    print(f"{'command':8} {'with notes':>11} {'without':>9} {'ratio':>6}")
    for name, argv in COMMANDS.items():
        subprocess.run(["git", "update-ref", "refs/notes/git-intent", noted], cwd=root, check=True)
        timed(root, argv, home)
        with_notes, code = timed(root, argv, home)
        subprocess.run(["git", "update-ref", "-d", "refs/notes/git-intent"], cwd=root, check=True)
        timed(root, argv, home)
        without, code2 = timed(root, argv, home)
        print(
            f"{name:8} {with_notes:10.2f}s {without:8.2f}s {with_notes / without:5.1f}x"
            + (f"  (exit {code}/{code2})" if code or code2 else "")
        )
    subprocess.run(["git", "update-ref", "refs/notes/git-intent", noted], cwd=root, check=True)


if __name__ == "__main__":
    main()
