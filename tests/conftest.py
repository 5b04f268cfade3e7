"""Shared fixtures: real git repositories in tmp dirs with an isolated HOME and git config."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# Real transcripts and links, kept in the repository (fixtures/README.md) so a fresh clone runs every test.
CORPUS = Path(__file__).resolve().parents[1] / "fixtures"
PYTHON_BIN = Path(sys.executable).parent


def corpus(*parts: str) -> Path:
    """A path inside fixtures/; a missing fixture fails the test (never a silent skip)."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"fixture {path} is missing")
    return path


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the developer's home, git config or agent folders."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Person")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "person@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Person")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "person@example.com")
    monkeypatch.setenv("PATH", f"{PYTHON_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_INTENT", "GIT_INTENT_HOOK_SYNC", "GEMINI_CLI_HOME",
                 "XDG_DATA_HOME", "OPENCODE_DB"):
        monkeypatch.delenv(name, raising=False)
    return home


def git(repo: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    """Run git in `repo` and return stdout."""
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """An empty repository on branch main with one root commit."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "commit.gpgsign", "false")
    (path / "README.md").write_text("# test repo\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "initial")
    yield path


def wait_for_note(repo: Path, rev: str = "HEAD", timeout: float = 20) -> str:
    """The git-intent note on `rev`, waiting for the hook's background worker to write it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        note = git(repo, "notes", "--ref", "refs/notes/intent", "show", rev, check=False)
        if note:
            return note
        time.sleep(0.1)
    raise AssertionError(f"no note was written on {rev} within {timeout:.0f} s")


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed `git intent` (through git, as users do) and return the completed process."""
    return subprocess.run(["git", "intent", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})

