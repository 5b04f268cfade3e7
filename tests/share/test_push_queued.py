"""`git intent push` right after `git commit` sends that commit's note: it records what the hooks queued, or
waits (bounded) for the worker recording it, and says how many commits it shared and which it could not.

The hooks are installed; the commits go through them without GIT_INTENT_HOOK_SYNC, so the worker is never
run in the foreground. A worker.pid naming this (live) test process keeps the post-commit shim from
starting one, so nothing but `push` records the commit: without the recording step, push sends no note.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from support import NOTES_REF, claude_session, commit_all, git, install, note_text, run_cli

from git_intent.core.state_files import locked


def team_repo(tmp: Path) -> tuple[Path, Path]:
    """A bare remote with main, and a clone of it with git-intent installed."""
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    repo = tmp / "work"
    git(tmp, "clone", "-q", str(remote), str(repo))
    git(repo, "config", "commit.gpgsign", "false")
    (repo / "README.md").write_text("# ledger\n", encoding="utf-8")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "push", "-q", "origin", "main")
    install(repo)
    return remote, repo.resolve()


def no_worker_starts(repo: Path) -> None:
    """The post-commit shim starts no worker while worker.pid names a live process: this one."""
    state = repo / ".git" / "intent"
    state.mkdir(exist_ok=True)
    (state / "worker.pid").write_text(str(os.getpid()), encoding="utf-8")


def agent_commit(repo: Path) -> str:
    """A Claude Code session writes parse.py; committed through the hooks (worker in the background)."""
    agent = claude_session(repo)
    agent.prompt("Write the ledger parser.")
    agent.write("Writing parse.py.", repo / "parse.py", "def parse(text):\n    return text.split(',')\n")
    agent.save()
    return commit_all(repo, "parser")


def queued(repo: Path) -> list[str]:
    return sorted(p.name for p in (repo / ".git" / "intent" / "queue").glob("*.job"))


def remote_note(remote: Path, commit: str) -> str | None:
    return note_text(remote, commit)


@contextmanager
def worker_running(repo: Path, seconds: float) -> Iterator[None]:
    """Another worker holds worker.lock for `seconds` (recording nothing), as the hooks' worker would."""
    taken = threading.Event()

    def hold() -> None:
        with locked(repo / ".git" / "intent" / "worker.lock") as held:
            assert held
            taken.set()
            time.sleep(seconds)

    thread = threading.Thread(target=hold)
    thread.start()
    taken.wait(10)
    try:
        yield
    finally:
        thread.join()


def push_json(repo: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    proc = run_cli("push", "--json", *args, cwd=repo)
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def test_push_right_after_a_commit_records_the_queued_commit_and_sends_its_note(tmp_path: Path) -> None:
    remote, repo = team_repo(tmp_path)
    no_worker_starts(repo)
    commit = agent_commit(repo)
    assert len(queued(repo)) == 1 and note_text(repo, commit) is None  # queued, not recorded

    proc = run_cli("push", cwd=repo)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "Recorded 1 queued commit(s) first.\n"
        "Pushed refs/notes/git-intent to origin: the notes of 1 commit(s) new or changed there.\n"
        "Sharing level: notes (ids, line ranges and hashes; no transcript text).\n"
    )
    assert queued(repo) == []
    shared = remote_note(remote, commit)
    assert shared is not None and shared == note_text(repo, commit)
    assert '"agent":"claude-code"' in shared.replace(" ", "")
    # Nothing new the second time: nothing recorded, no note new on the remote.
    code, again, _ = push_json(repo)
    assert code == 0
    assert (again["recorded_first"], again["notes_shared"], again["not_shared"]) == (0, 0, [])


def test_push_waits_for_a_running_worker_then_records_what_it_left(tmp_path: Path) -> None:
    remote, repo = team_repo(tmp_path)
    no_worker_starts(repo)
    commit = agent_commit(repo)

    with worker_running(repo, 2.0):
        code, result, stderr = push_json(repo)

    assert code == 0, stderr
    assert stderr == "Waiting up to 30 s for git-intent's worker to record 1 queued commit(s)…\n"
    assert (result["recorded_first"], result["notes_shared"], result["not_shared"]) == (1, 1, [])
    assert result["pushed"] == [NOTES_REF]
    assert remote_note(remote, commit) is not None


def test_a_worker_busy_past_the_bound_leaves_the_commit_unshared_and_says_why(tmp_path: Path) -> None:
    remote, repo = team_repo(tmp_path)
    no_worker_starts(repo)
    git(repo, "commit", "-q", "--allow-empty", "-m", "recorded earlier", env={"GIT_INTENT_HOOK_SYNC": "1"})
    earlier = git(repo, "rev-parse", "HEAD").strip()
    assert note_text(repo, earlier) is not None
    no_worker_starts(repo)
    commit = agent_commit(repo)

    with worker_running(repo, 4.0):
        started = time.monotonic()
        code, result, stderr = push_json(repo, "--wait", "1")
        took = time.monotonic() - started

    assert code == 1  # a commit made here was not shared: scripts must see it
    assert took < 3.5  # bounded: it did not wait for the worker to finish
    assert result["not_shared"] == [
        {
            "commit": commit,
            "state": "queued",
            "reason": "the worker was still recording after 1 s; `git intent push` again sends them",
        }
    ]
    assert (result["recorded_first"], result["notes_shared"]) == (0, 1)  # what was recorded went out
    assert remote_note(remote, earlier) is not None and remote_note(remote, commit) is None
    assert "Waiting up to 1 s" in stderr

    # Once the worker let go, the next push records and sends it.
    proc = run_cli("push", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Recorded 1 queued commit(s) first.\n")
    assert remote_note(remote, commit) is not None


def test_a_job_that_fails_is_named_with_its_reason_in_text_and_json(tmp_path: Path) -> None:
    remote, repo = team_repo(tmp_path)
    queue = repo / ".git" / "intent" / "queue"
    queue.mkdir(parents=True, exist_ok=True)
    (queue / "1-bogus.job").write_text("hook pre-historic\nend\n", encoding="utf-8")
    missing = "0123456789abcdef0123456789abcdef01234567"
    (queue / f"2-{missing}.job").write_text(
        f"hook post-commit\nworktree {repo}\ncherry-pick \nreflog\n{missing} commit: gone\nend\n",
        encoding="utf-8",
    )

    proc = run_cli("push", cwd=repo)

    assert proc.returncode == 1
    assert proc.stdout.startswith("Pushed refs/notes/git-intent to origin")  # the rest was pushed
    assert proc.stderr.startswith(
        "warning: 2 queued commit(s) could not be recorded, so their notes were not shared: 1-bogus.job "
        "(failed: the job 1-bogus.job is not a git-intent job); "
        f"{missing[:12]} (queued: record {missing} failed (queued again, attempt 1): "
    ), proc.stderr
    assert proc.stderr.endswith(". `git intent status` lists them; `git intent record --pending` retries.\n")
    assert git(remote, "for-each-ref", "--format=%(refname)") == "refs/heads/main\nrefs/notes/git-intent\n"


def test_push_racing_the_hooks_own_background_worker_sends_the_note(tmp_path: Path) -> None:
    """No stand-in: the post-commit shim starts its worker in the background and push runs at once."""
    remote, repo = team_repo(tmp_path)
    commit = agent_commit(repo)
    code, result, stderr = push_json(repo)
    assert code == 0, stderr
    assert result["not_shared"] == [] and result["notes_shared"] == 1
    assert remote_note(remote, commit) == note_text(repo, commit)
