"""The hooks' fallback queue: when `<git common dir>/intent` cannot be written, a real
`git commit` through the installed hooks still succeeds and queues its job in
`$XDG_STATE_HOME/git-intent/repos/<absolute git common dir>/queue/` (default `~/.local/state`); with no
writable queue at all, or while the state folder itself is read-only (no worker can run), the hook
prints one line naming `git intent record <sha>`. Status reports both.

Tests may run as root, where chmod does not stop writes: there the folder is made unwritable by putting a
regular file where it should be, so no test skips.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from support import SYNC, commit_file, git, install, note_text, run_cli


def make_unwritable(state: Path) -> None:
    """`.git/intent` read-only (chmod 0500), or, for root, a regular file in its place."""
    if os.geteuid() == 0:
        shutil.rmtree(state, ignore_errors=True)
        state.write_text("not a folder\n", encoding="utf-8")
    else:
        state.mkdir(exist_ok=True)
        shutil.rmtree(state / "queue", ignore_errors=True)
        state.chmod(0o500)


def make_writable(state: Path) -> None:
    if state.is_file():
        state.unlink()
    state.mkdir(exist_ok=True)
    state.chmod(0o700)


def fallback_queue(repo: Path) -> Path:
    common = (repo / ".git").resolve()
    return (
        Path(os.environ["HOME"])
        / ".local"
        / "state"
        / "git-intent"
        / "repos"
        / str(common).lstrip("/")
        / "queue"
    )


def status(repo: Path) -> dict[str, Any]:
    proc = run_cli("status", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def test_commit_with_an_unwritable_state_folder_is_queued_in_the_fallback_queue(repo: Path) -> None:
    install(repo)
    state = repo / ".git" / "intent"
    make_unwritable(state)
    try:
        (repo / "a.txt").write_text("first line\n", encoding="utf-8")
        git(repo, "add", "a.txt")
        first = subprocess.run(
            ["git", "commit", "-q", "-m", "add a.txt"], cwd=repo, capture_output=True, text=True
        )
        sha = git(repo, "rev-parse", "HEAD").strip()
        # No worker can run while .git/intent is read-only: the hook says so, once
        assert (first.returncode, first.stderr) == (
            0,
            (
                f"git-intent: commit {sha[:12]} was not queued (.git/intent is not writable; it waits in "
                f"{fallback_queue(repo)}); record it with: git intent record {sha}\n"
            ),
        )
        amend = subprocess.run(
            ["git", "commit", "--amend", "-q", "-m", "a.txt, amended"],
            cwd=repo,
            capture_output=True,
            text=True,
        )
        amended = git(repo, "rev-parse", "HEAD").strip()
        assert amend.returncode == 0 and amend.stderr.count("\n") == 1 and amended in amend.stderr  # one line
        jobs = sorted(p.name.split("-", 1)[1] for p in fallback_queue(repo).iterdir())
        assert jobs == sorted([f"{amended}.job", f"{sha}.job", "rewrite-amend.job"])

        report = status(repo)
        assert report["state_problem"] is not None and report["fallback_queue"] == str(fallback_queue(repo))
        assert sorted((j["hook"], j["commit"], j["fallback"]) for j in report["pending"]) == sorted(
            [("post-commit", sha, True), ("post-commit", amended, True), ("post-rewrite", amended, True)]
        )
        text = run_cli("status", cwd=repo).stdout
        assert f"commits are queued in the fallback queue {fallback_queue(repo)}" in text
        assert note_text(repo, sha) is None
    finally:
        make_writable(state)

    drained = run_cli("record", "--pending", cwd=repo)
    assert drained.returncode == 0, drained.stderr
    assert drained.stdout.endswith("3 queued job(s) processed, 0 to retry, 0 failed.\n"), drained.stdout
    assert '"kind":"commit"' in (note_text(repo, amended) or "")
    assert list(fallback_queue(repo).iterdir()) == []
    assert status(repo)["pending"] == []


def test_the_worker_drains_the_fallback_queue_when_only_the_queue_is_unwritable(repo: Path) -> None:
    install(repo)
    state = repo / ".git" / "intent"
    state.mkdir(exist_ok=True)  # install keeps install.json there
    (state / "queue").write_text("not a folder\n", encoding="utf-8")  # unwritable as a folder, root or not
    sha = commit_file(repo, "a.txt", "first line\n", env=SYNC)
    assert '"kind":"commit"' in (
        note_text(repo, sha) or ""
    )  # the hook's own worker took it from the fallback
    assert list(fallback_queue(repo).iterdir()) == []
    assert f"\nfallback   {fallback_queue(repo)}  (the hooks' queue" in run_cli("path", cwd=repo).stdout
    report = status(repo)
    assert report["state_problem"] == f"{(state / 'queue').resolve()} is not a folder"
    doctor = run_cli("doctor", cwd=repo)
    assert doctor.returncode == 1
    assert (
        f"PROBLEM  state       {(state / 'queue').resolve()} is not a folder: the hooks queue commits in "
        f"{fallback_queue(repo)} instead (0 waiting)." in doctor.stdout
    )


def test_with_no_writable_queue_the_hook_prints_one_line_and_the_commit_succeeds(
    repo: Path, tmp_path: Path
) -> None:
    install(repo)
    state = repo / ".git" / "intent"
    make_unwritable(state)
    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("", encoding="utf-8")
    env = {**os.environ, "XDG_STATE_HOME": str(blocked)}
    try:
        (repo / "a.txt").write_text("first line\n", encoding="utf-8")
        git(repo, "add", "a.txt")
        proc = subprocess.run(
            ["git", "commit", "-q", "-m", "a"], cwd=repo, capture_output=True, text=True, env=env
        )
        assert proc.returncode == 0
        sha = git(repo, "rev-parse", "HEAD").strip()
        assert proc.stderr == (
            f"git-intent: commit {sha[:12]} was not queued (.git/intent is not writable); record it with: "
            f"git intent record {sha}\n"
        )
        amend = subprocess.run(
            ["git", "commit", "--amend", "-q", "-m", "a, amended"],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
        )
        amended = git(repo, "rev-parse", "HEAD").strip()
        assert amend.returncode == 0 and amend.stderr.count("\n") == 1 and amended in amend.stderr  # one line
        (repo / "b.txt").write_text("second\n", encoding="utf-8")
        git(repo, "add", "b.txt")
        plain = subprocess.run(
            ["git", "commit", "-q", "-m", "b"], cwd=repo, env=env, capture_output=True, text=True
        )
        assert plain.returncode == 0 and plain.stderr.count("\n") == 1
        rebase = subprocess.run(
            ["git", "rebase", "-q", "--force-rebase", "HEAD~1"],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
        )
        assert rebase.returncode == 0
        rebased = git(repo, "rev-parse", "HEAD").strip()
        assert rebase.stderr == (
            f"git-intent: the rebase was not queued (.git/intent is not writable); record it with: git "
            f"intent record {rebased}\n"
        )
    finally:
        make_writable(state)
    recorded = run_cli("record", amended, cwd=repo)
    assert recorded.returncode == 0, recorded.stderr
    assert '"kind":"commit"' in (note_text(repo, amended) or "")
