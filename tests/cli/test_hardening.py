"""Hardening found in review: option injection, shared hooks folders, repositories without reflogs,
terminal escapes in transcript text, and user git settings that change git's output."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from conftest import git, run_cli

from git_intent.explain.render import safe


def test_log_range_is_never_an_option(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "pwned.txt"
    proc = run_cli("log", "--", f"--output={target}", cwd=repo)
    assert proc.returncode == 1
    assert not target.exists()
    assert proc.stderr.startswith("error: ")


def test_install_refuses_a_hooks_folder_in_the_work_tree(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", ".husky")
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 1
    assert "husky" in proc.stderr and not (repo / ".husky").exists()


def test_install_refuses_a_global_hooks_folder(repo: Path, tmp_path: Path) -> None:
    shared = tmp_path / "global-hooks"
    git(repo, "config", "core.hooksPath", str(shared))
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 1
    assert "outside this repository" in proc.stderr and not shared.exists()


def test_hook_records_commits_in_a_repository_without_reflogs(repo: Path) -> None:
    git(repo, "config", "core.logAllRefUpdates", "false")
    shutil.rmtree(repo / ".git" / "logs", ignore_errors=True)
    assert run_cli("install", cwd=repo).returncode == 0
    (repo / "x.txt").write_text("hello\n")
    git(repo, "add", "x.txt")
    git(repo, "commit", "-q", "-m", "x", env={"GIT_INTENT_HOOK_SYNC": "1"})
    note = git(repo, "notes", "--ref", "refs/notes/git-intent", "show", "HEAD", check=False)
    deadline = time.monotonic() + 20
    while not note and time.monotonic() < deadline:
        time.sleep(0.1)
        note = git(repo, "notes", "--ref", "refs/notes/git-intent", "show", "HEAD", check=False)
    assert '"kind":"commit"' in note


def test_signed_log_output_and_noprefix_diffs_are_parsed(repo: Path) -> None:
    git(repo, "config", "diff.noprefix", "true")
    git(repo, "config", "log.showSignature", "true")
    (repo / "src").mkdir()
    (repo / "src" / "a.py").write_text("value = 1\n")
    git(repo, "add", "src/a.py")
    git(repo, "commit", "-q", "-m", "a")
    out = json.loads(run_cli("record", "HEAD", "--json", cwd=repo).stdout)
    assert out["lines_added"] == 1
    line = json.loads(run_cli("blame", "src/a.py:1", "--json", cwd=repo).stdout)["lines"][0]
    assert line["path"] == "src/a.py" and line["status"] == "human"


def test_control_characters_from_transcripts_are_escaped() -> None:
    assert safe("a\x1b[2Jb\tc\nd\x07") == "a\\x1b[2Jb\tc\nd\\x07"
