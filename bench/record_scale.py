"""`git intent record` (what the hook's worker runs per commit) against N Claude Code transcripts on disk.

Recording cost grew linearly with the transcripts written in the look-back window (~25 ms CPU and
~0.26 MB peak memory each), since every one was parsed, and every edit in it diffed, on every commit. This
builds one small repository per N, writes N transcripts for it (copies of a 288 KB fixture with new session
ids, the cwd moved into the repository and the files each edited into a folder of its own, or with
--same-files all into the same files, ending evenly over the last 6 days: `_common.claude_transcripts`),
commits lines the newest transcript's last edit wrote, and runs `python -m git_intent record HEAD --json`
in a child process: cold (nothing cached), then warm (the cache the first run left; the median of --runs,
alternating between the counts). CPU time (user +
system, with the git processes it waited for) and peak RSS come from `os.wait4`'s rusage of that child.

Run: .venv/bin/python bench/record_scale.py [--counts 0,1000] [--fixtures K] [--same-files]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import CLAUDE_FIXTURES, claude_transcripts, isolate


def build(root: Path, count: int, fixtures: tuple[str, ...], same_files: bool = False) -> Path:
    """A repository with two commits, the second adding lines the newest of `count` transcripts wrote
    (a line of its own when there are none)."""
    repo = root / f"repo{count}"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "config", "commit.gpgsign", "false"], cwd=repo, check=True)
    (repo / "README.md").write_text("scale bench\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "base"], cwd=repo, check=True)
    paths = claude_transcripts(repo, count, fixtures=fixtures, same_files=same_files)
    target, lines = "notes.txt", ["a line a person wrote"]
    if paths:
        from git_intent.adapters import claude_code

        edits = [e for e in claude_code.read(paths[-1])[0].edits if e.added and e.path.startswith(str(repo))]
        if edits:
            target = edits[-1].path[len(str(repo)) + 1 :]
            lines = [a.text for a in edits[-1].added]
    file = repo / target
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "work"], cwd=repo, check=True)
    return repo


def measure(repo: Path) -> tuple[float, float, dict[str, object]]:
    """Run `record HEAD --json` in a child and read its own rusage with wait4 (CPU s, peak RSS MB, answer)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: become the recorder
        os.close(read_fd)
        os.dup2(write_fd, 1)
        os.chdir(repo)
        os.execv(sys.executable, [sys.executable, "-m", "git_intent", "record", "HEAD", "--json"])
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        out = pipe.read()
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"record failed in {repo}: {out.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--counts", default="0,1000", help="comma-separated transcript counts (default 0,1000)"
    )
    parser.add_argument(
        "--fixtures",
        type=int,
        default=1,
        help=f"how many Claude Code fixtures to copy in turn (1-{len(CLAUDE_FIXTURES)}; default 1, "
        "the 288 KB one)",
    )
    parser.add_argument(
        "--same-files",
        action="store_true",
        help="every copy edits the same files, the committed one included (the worst case: each "
        "session's edits of that file are decoded); default: each copy its own folder",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="warm runs per count, the median reported (default 3: the machine may be busy)",
    )
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        isolate(Path(tmp))
        rows = []
        repos = [
            build(Path(tmp), count, CLAUDE_FIXTURES[: args.fixtures], args.same_files) for count in counts
        ]
        colds = [measure(repo) for repo in repos]
        # Warm runs alternate between the counts, so a burst of load on the machine hits all of them alike.
        warms: list[list[tuple[float, float, dict[str, object]]]] = [[] for _ in repos]
        for _ in range(args.runs):
            for runs, repo in zip(warms, repos, strict=True):
                runs.append(measure(repo))
        for count, cold, runs in zip(counts, colds, warms, strict=True):
            rows.append((count, cold, sorted(runs, key=lambda r: r[0])[len(runs) // 2]))
        base = rows[0][2][0]
        print(
            f"{'transcripts':>11}  {'cold CPU s':>10}  {'cold MB':>8}  {'warm CPU s':>10}  {'warm MB':>8}  "
            f"{'warm / first':>12}  credited"
        )
        for count, cold, warm in rows:
            answer = warm[2]
            print(
                f"{count:>11}  {cold[0]:>10.2f}  {cold[1]:>8.0f}  {warm[0]:>10.2f}  {warm[1]:>8.0f}  "
                f"{warm[0] / base:>11.2f}×  {answer.get('lines_attributed')}/{answer.get('lines_added')}"
            )


if __name__ == "__main__":
    main()
