"""Shared fixtures: real git repositories in tmp dirs with an isolated HOME and git config.

The helpers tests share live in the support package (tests/support/); the most used ones are re-exported
here for `from conftest import`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, corpus, git, run_cli, wait_for_note

__all__ = ["CORPUS", "corpus", "git", "run_cli", "wait_for_note"]
# The organisation store's fixtures (`store`, `store_target`, `postgres_server`: a private PostgreSQL server).
pytest_plugins = ["support.org_store"]

PYTHON_BIN = Path(sys.executable).parent


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
    for name in (
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_INTENT",
        "GIT_INTENT_HOOK_SYNC",
        "GEMINI_CLI_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "OPENCODE_DB",
        "GIT_INTENT_RESIDENT",
        "QWEN_HOME",
        "QWEN_RUNTIME_DIR",
        "FACTORY_HOME",
        "PI_CODING_AGENT_DIR",
        "PI_CODING_AGENT_SESSION_DIR",
        "GOOSE_PATH_ROOT",
        "LOCALAPPDATA",
        "APPDATA",
    ):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The Claude Code transcripts the adapter parses, in order."""
    from git_intent import adapters
    from git_intent.adapters import claude_code

    seen: list[Path] = []
    real = claude_code.read

    def counting(path: Path) -> Any:
        seen.append(path)
        return real(path)

    monkeypatch.setattr(claude_code, "read", counting)
    adapters.all_adapters.cache_clear()
    return seen


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
