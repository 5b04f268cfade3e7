"""Recording the four linked-corpus commits: lines credited, sessions credited, and `record_commit` time.

For each real Entire checkpoint in fixtures/linked (see its README.md), the script rebuilds the files before
and after the session with the tests' `transcript_replay` (rebuild_claude / rebuild_codex), commits the
pre-image as a person's baseline (dated 1 h before the session's first edit) and the post-image as the commit
under test (dated 1 min after its last edit) in a fresh temporary repository, then times

    git_intent.capture.record.record_commit(Repository(path), "HEAD", transcripts=[<checkpoint>/full.jsonl])

and prints, per commit: non-blank added lines, lines credited, sessions credited, and record time (ms).

The cases:

  entire-cli 8ece5fc12e98   session 0 (cc432c40..., Claude Code)                 -> one commit
  entire-cli ac3f02a3c337   session 2 (1ed1f046..., gemini.go), then session 0
                            (0a0314fb..., chunking.go + chunking_test.go)       -> two commits in one repo
                            (the baseline holds both sessions' pre-images; each commit is recorded with
                            its own session's transcript, and the second also sees the first session
                            through the backup copy the first record made)
  git-sync   8feaf84a600f   session 0 (019ddd6f..., Codex)                        -> one commit

Recorded absolute paths are made relative by stripping the session's recorded cwd. The transcripts are
read in place and never modified. HOME, GIT_CONFIG_GLOBAL, CLAUDE_CONFIG_DIR and CODEX_HOME point into
the temporary folder (GIT_CONFIG_NOSYSTEM=1, placeholder identity), which is removed at the end.

Run from the repository root (standard library plus git_intent only):

    .venv/bin/python bench/record_corpus.py                  # table
    .venv/bin/python bench/record_corpus.py --json           # the same figures as JSON
    .venv/bin/python bench/record_corpus.py --corpus DIR     # another copy of corpus/linked
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from _common import isolate

DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "linked"
# The tests' independent transcript reader rebuilds the commits (tests/support/transcript_replay.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

VICTOR = "/Users/gtrrz-victor/wks/gtrrz-victor/improve-status-cmd-output/"
SOPH_CLI = "/Users/soph/Work/entire/devenv/cli/"
SOPH_GITSYNC = "/Users/soph/Work/entire/devenv/gitsync/"


@dataclass(frozen=True)
class Session:
    label: str
    transcript: str  # relative to the corpus
    agent: str  # "claude" or "codex": which rebuild to use
    cwd: str  # recorded cwd, stripped from recorded paths


@dataclass(frozen=True)
class Case:
    name: str
    sessions: tuple[Session, ...]  # one commit per session, in this order, on one shared baseline


CASES = (
    Case(
        "entire-cli 8ece5fc12e98",
        (
            Session(
                "session 0 cc432c40", "entire-cli/checkpoints/8e/ce5fc12e98/0/full.jsonl", "claude", VICTOR
            ),
        ),
    ),
    Case(
        "entire-cli ac3f02a3c337",
        (
            Session(
                "session 2 1ed1f046", "entire-cli/checkpoints/ac/3f02a3c337/2/full.jsonl", "claude", SOPH_CLI
            ),
            Session(
                "session 0 0a0314fb", "entire-cli/checkpoints/ac/3f02a3c337/0/full.jsonl", "claude", SOPH_CLI
            ),
        ),
    ),
    Case(
        "git-sync 8feaf84a600f",
        (
            Session(
                "session 0 019ddd6f", "git-sync/checkpoints/8f/eaf84a600f/0/full.jsonl", "codex", SOPH_GITSYNC
            ),
        ),
    ),
)


def git(repo: Path, *args: str, when: datetime | None = None) -> str:
    env = dict(os.environ)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
    quiet = ["-c", "commit.gpgsign=false", "-c", f"core.hooksPath={repo / '.git' / 'no-hooks'}"]
    proc = subprocess.run(["git", *quiet, *args], cwd=repo, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: {proc.stderr.strip()}")
    return proc.stdout


def run_case(case: Case, corpus: Path, folder: Path) -> list[dict[str, Any]]:
    from support.transcript_replay import commit_replayed, rebuild_claude, rebuild_codex, write_replayed

    from git_intent.capture.record import record_commit
    from git_intent.git.repo import Repository

    rebuilds = [
        (s, (rebuild_claude if s.agent == "claude" else rebuild_codex)(corpus / s.transcript))
        for s in case.sessions
    ]
    folder.mkdir(parents=True)
    git(folder, "init", "-q", "-b", "main")
    # The baseline: every file's text before the first session that edited it.
    seen: set[str] = set()
    for session, rebuild in rebuilds:
        write_replayed(folder, {p: t for p, t in rebuild.pre.items() if p not in seen}, session.cwd)
        seen.update(rebuild.post)
    first = min(datetime.fromisoformat(r.first_edit_at) for _, r in rebuilds)
    commit_replayed(folder, "baseline before the agent session", first - timedelta(hours=1))
    rows = []
    for session, rebuild in rebuilds:
        files = write_replayed(folder, rebuild.post, session.cwd)
        sha = commit_replayed(
            folder,
            f"{case.name} {session.label}",
            datetime.fromisoformat(rebuild.last_edit_at) + timedelta(minutes=1),
        )
        repo = Repository(folder)
        t0 = time.perf_counter_ns()
        result = record_commit(repo, "HEAD", transcripts=[corpus / session.transcript])
        record_ms = (time.perf_counter_ns() - t0) / 1e6
        rows.append(
            {
                "case": case.name,
                "session": session.label,
                "commit": sha,
                "files": sorted(files),
                "edits_replayed": rebuild.edits_applied,
                "lines_added": result.lines_added,
                "lines_credited": result.lines_attributed,
                "sessions": result.sessions,
                "note_written": result.note_written,
                "record_ms": record_ms,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"default {DEFAULT_CORPUS}")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"error: the linked corpus is not at {args.corpus}; pass --corpus DIR.")

    root = Path(tempfile.mkdtemp(prefix="git-intent-corpus-"))
    try:
        isolate(root)
        rows = [row for i, case in enumerate(CASES) for row in run_case(case, args.corpus, root / f"repo{i}")]
    finally:
        shutil.rmtree(root, ignore_errors=True)

    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    machine = f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    if args.json:
        print(json.dumps({"date": when, "machine": machine, "commits": rows}, indent=2))
        return
    print(f"git-intent record on the linked corpus, {when}\n{machine}\n")
    header = (
        f"{'checkpoint':<24} {'session':<19} {'commit':<12} {'added':>6} {'credited':>9} {'record ms':>10} "
        f" sessions credited"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        sessions = ", ".join(f"{key} ({n})" for key, n in row["sessions"].items()) or "none"
        print(
            f"{row['case']:<24} {row['session']:<19} {row['commit'][:12]:<12} {row['lines_added']:>6} "
            f"{row['lines_credited']:>9} {row['record_ms']:>10.1f}  {sessions}"
        )
    print("\nadded = non-blank lines the commit added; credited = those attributed to a session.")


if __name__ == "__main__":
    main()
