"""`git intent demo`: replay a bundled real Claude Code session into a new repository and explain a line.

The transcript is a real session from entireio/cli (MIT; see data/demo/README.md). Its edits carry the
whole file before each edit, so the demo reads it like any transcript, commits the files as they were
before the session as a person's baseline, replays the agent's edits (`replay.rebuild`), commits them as
the real author did, records the commit, and blames an added line.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path

from .capture.record import record_commit
from .explain.blame import BlameAnswer, blame_lines
from .git.repo import Repository
from .sessions.discovery import read_transcript
from .sessions.replay import commit_replayed, rebuild, write_replayed

TRANSCRIPT = "claude-code-chunking.jsonl"
RECORDED_CWD = "/Users/soph/Work/entire/devenv/cli"
LINE = "cmd/entire/cli/agent/chunking.go:85-88"
SUBJECT = "handle if a single jsonl line is bigger then chunk size"


@dataclass
class DemoResult:
    """The demo repository, the blame answer for `LINE`, and a closing paragraph for people."""

    repo: Path
    answer: BlameAnswer
    epilogue: str


def run_demo(keep: Path | None = None, echo: Callable[[str], None] | None = None) -> DemoResult:
    """Build the demo repository (in `keep`, or a temporary folder removed afterwards) and explain `LINE`.

    `echo` receives progress sentences. Raises IntentError if a git step fails.
    """
    say = echo or (lambda _text: None)
    folder = Path(tempfile.mkdtemp(prefix="git-intent-demo-")) if keep is None else keep
    folder.mkdir(parents=True, exist_ok=True)
    try:
        # An absolute path: a folder named like `--bare` is never read as an option of git init.
        subprocess.run(
            ["git", "init", "-q", "-b", "main", str(folder.absolute())], check=True, capture_output=True
        )
        # The transcript stands where an agent keeps it: outside the work tree.
        transcript = folder / ".git" / TRANSCRIPT
        with resources.as_file(resources.files("git_intent").joinpath("data", "demo", TRANSCRIPT)) as bundled:
            shutil.copyfile(bundled, transcript)
        (session,) = read_transcript(transcript)
        replayed = rebuild(session)
        say(f"Replaying a real Claude Code session ({replayed.edits_applied} edits) into {folder}")
        write_replayed(folder, replayed.pre, RECORDED_CWD)
        first = datetime.fromisoformat(replayed.first_edit_at)
        commit_replayed(folder, "baseline before the agent session", first - timedelta(hours=1))
        write_replayed(folder, replayed.post, RECORDED_CWD)
        commit_replayed(
            folder,
            SUBJECT,
            datetime.fromisoformat(replayed.last_edit_at) + timedelta(minutes=2),
            "Soph <soph@example.com>",
        )
        repo = Repository(folder)
        record_commit(repo, "HEAD~1")  # the person's baseline: recorded, no agent lines
        result = record_commit(repo, "HEAD", transcripts=[transcript])
        say(
            f"Recorded: {result.lines_attributed} of {result.lines_added} added lines credited to the "
            "session."
        )
        say(f"\n$ git intent blame {LINE}\n")
        answer = blame_lines(repo, LINE, cwd=folder)
    finally:
        if keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    where = (
        f"The demo repository is kept at {folder}; try `git intent log` or `git intent show` there."
        if keep
        else "The demo repository was temporary; pass --keep DIR to keep it."
    )
    return DemoResult(repo=folder, answer=answer, epilogue=where)
