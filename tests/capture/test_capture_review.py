"""Regressions found in review of capture: code in the work tree never runs in the hook, commits in
another worktree are recorded with that worktree's sessions, signature noise in the reflog is not a
commit, a retried record still backs up, and amends print no notes warning."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

from conftest import git, run_cli, wait_for_note
from support import ClaudeSession, Clock

from git_intent.capture.queue import parse_job

SYNC = {"GIT_INTENT_HOOK_SYNC": "1"}


def test_files_in_the_work_tree_never_shadow_python_modules(repo: Path) -> None:
    marker = repo / ".git" / "pwned"
    (repo / "traceback.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (repo / "json").mkdir()
    (repo / "json" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    assert run_cli("install", cwd=repo).returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "shadowing files", env=SYNC)
    assert '"kind":"commit"' in wait_for_note(repo)
    assert not marker.exists()


def test_a_commit_in_a_linked_worktree_is_credited_to_that_worktrees_session(
    repo: Path, tmp_path: Path
) -> None:
    root = repo.resolve()
    assert run_cli("install", cwd=root).returncode == 0
    tree = (tmp_path / "elsewhere" / "feature").resolve()
    git(root, "worktree", "add", "-q", "-b", "feature", str(tree))
    session = ClaudeSession(cwd=tree, clock=Clock(datetime.now(timezone.utc) - timedelta(minutes=5)))
    session.prompt("Add f")
    session.write("Writing f.", tree / "f.py", "def feature_flag_enabled():\n    return True\n")
    session.save()
    git(tree, "add", "f.py")
    git(tree, "commit", "-q", "-m", "f", env={"GIT_INTENT": "0"})  # queue it by hand, drain from main
    sha = git(tree, "rev-parse", "HEAD").strip()
    hook = subprocess.run(
        ["sh", str(root / ".git" / "hooks" / "post-commit")],
        cwd=tree,
        capture_output=True,
        env={**__import__("os").environ, "GIT_INTENT_CRASH_AT": "after-journal", **SYNC},
    )
    assert hook.returncode == 0
    assert run_cli("record", "--pending", cwd=root).returncode == 0
    record = [
        json.loads(line) for line in wait_for_note(root, sha).splitlines() if '"kind":"commit"' in line
    ][0]
    assert record["lines_attributed"] == 2


def test_reflog_noise_is_not_taken_for_a_commit(tmp_path: Path) -> None:
    job = tmp_path / "1-x.job"
    sha = "a" * 40
    job.write_text(
        f'hook post-commit\nworktree /w\ncherry-pick \nreflog\nGood "git" signature for x\n'
        f"{sha} commit: x\nend\n"
    )
    parsed = parse_job(job)
    assert parsed is not None and (parsed.commit, parsed.subject, parsed.worktree) == (sha, "commit: x", "/w")


def test_a_rerun_backs_up_a_session_even_when_the_note_is_already_written(repo: Path) -> None:
    root = repo.resolve()
    session = ClaudeSession(cwd=root, clock=Clock(datetime.now(timezone.utc) - timedelta(minutes=5)))
    session.prompt("Add g")
    session.write("Writing g.", root / "g.py", "def gamma_value():\n    return 42\n")
    session.save()
    git(root, "add", "g.py")
    git(root, "commit", "-q", "-m", "g")
    assert run_cli("record", cwd=root).returncode == 0
    copy = root / ".opencode" / "intent" / "sessions" / "claude-code" / f"{session.session_id}.jsonl"
    copy.unlink()  # as if the first run crashed between the note and the backup
    out = json.loads(run_cli("record", "--json", cwd=root).stdout)
    assert out["note_written"] is False and copy.is_file()


def test_amend_right_after_install_prints_no_notes_warning(repo: Path) -> None:
    assert run_cli("install", cwd=repo).returncode == 0
    proc = subprocess.run(
        ["git", "commit", "-q", "--amend", "-m", "reworded"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "GIT_INTENT": "0"},
    )
    assert proc.returncode == 0 and proc.stderr == ""
