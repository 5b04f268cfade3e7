"""Repositories for the org tests: the demo repository (a real Claude Code session from the packaged demo
data) pushed with its evidence to a bare remote, and a repository whose note the hook wrote from a Claude
Code session written in its own format, with nothing shared."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from git_intent.demo import run_demo
from support import SYNC, claude_session, commit_all, git, install, make_repo, run_cli

DEMO_SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"
DEMO_MODEL = "claude-opus-4-5-20251101"
STEPS = "def step_one():\n    return 'first step'\n\n\ndef step_two():\n    return 'second step'\n"


@dataclass(frozen=True)
class Shared:
    """The demo's clone (`work`, its transcripts on this machine) and the bare remote it pushed its notes
    and evidence to."""

    work: Path
    remote: Path


def shared_demo(root: Path) -> Shared:
    """The demo repository, pushed with `git intent push` at sharing level `evidence` to `root/demo.git`."""
    work = root / "demo"
    run_demo(work)
    git(work, "config", "commit.gpgsign", "false")
    remote = root / "demo.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    git(work, "remote", "add", "origin", str(remote))
    git(work, "push", "-q", "origin", "main")
    ok(work, "share", "evidence")
    ok(work, "push")
    return Shared(work=work, remote=remote)


def hooked_repo(path: Path) -> tuple[Path, str]:
    """A repository where a person commits notes.txt and a Claude Code session then writes steps.py, both
    recorded by the installed hook; (repository, session id). Nothing is shared."""
    repo = make_repo(path)
    install(repo)
    (repo / "notes.txt").write_text("a person's notes\nsecond line\n", encoding="utf-8")
    commit_all(repo, "notes", env=SYNC)
    agent = claude_session(repo)
    agent.prompt("Write steps.py with two steps.")
    agent.write("Writing steps.py.", repo / "steps.py", STEPS)
    agent.save()
    commit_all(repo, "agent writes steps.py", env=SYNC)
    return repo, agent.session_id


def ok(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`git intent ARGS` in `repo`; it must succeed."""
    proc = run_cli(*args, cwd=repo)
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc
