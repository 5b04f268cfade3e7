"""The command line as users meet it: help for every command, --version, path, and the demo."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import click
import pytest
from conftest import run_cli

from git_intent import __version__
from git_intent.cli import cli

DEMO_SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"


def command_paths(group: click.Group = cli, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and subcommand, as the words typed after `git-intent`."""
    found: list[tuple[str, ...]] = []
    for name, command in sorted(group.commands.items()):
        found.append((*prefix, name))
        if isinstance(command, click.Group):
            found += command_paths(command, (*prefix, name))
    return found


def git_intent(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The console script itself (`git intent --help` would open a man page)."""
    return subprocess.run(["git-intent", *args], cwd=cwd, capture_output=True, text=True)


def test_the_expected_commands_exist() -> None:
    names = {path[0] for path in command_paths()}
    assert {"install", "uninstall", "record", "blame", "show", "log", "demo", "path"} <= names


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_top_level_help(flag: str, tmp_path: Path) -> None:
    proc = git_intent(flag, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: git-intent ")
    for name in cli.commands:
        assert name in proc.stdout


@pytest.mark.parametrize("words", command_paths(), ids=lambda words: " ".join(words))
def test_every_command_has_help(words: tuple[str, ...], tmp_path: Path) -> None:
    # outside any repository: help must not need one
    proc = git_intent(*words, "--help", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.startswith(f"Usage: git-intent {' '.join(words)}")
    assert "Options:" in proc.stdout and "--help" in proc.stdout


def test_version(repo: Path) -> None:
    proc = run_cli("--version", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"git-intent, version {__version__}\n"
    assert git_intent("--version", cwd=repo).stdout == proc.stdout


def test_unknown_command_is_a_usage_error(repo: Path) -> None:
    proc = run_cli("frobnicate", cwd=repo)
    assert proc.returncode == 2
    assert "No such command" in proc.stderr and "Traceback" not in proc.stderr


def test_path(repo: Path) -> None:
    proc = run_cli("path", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    root = repo.resolve()
    rows: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        key = "hook log" if line.startswith("hook log") else line.split()[0]
        rows[key] = line[len(key) :].strip()
    assert rows["notes"] == "refs/notes/intent"
    assert rows["backup"] == str(root / ".opencode" / "intent")
    assert rows["state"] == str(root / ".git" / "intent")
    assert rows["hooks"] == str(root / ".git" / "hooks")
    assert rows["hook log"] == str(root / ".git" / "intent" / "hook.log")


def test_demo(tmp_path: Path) -> None:
    start = time.monotonic()
    proc = run_cli("demo", cwd=tmp_path)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    assert elapsed < 10, f"demo took {elapsed:.1f}s"
    assert "claude-code" in proc.stdout
    assert "Handle single lines exceeding MaxChunkSize" in proc.stdout
    assert DEMO_SESSION in proc.stdout
    assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []  # nothing left behind in the cwd


def test_demo_json(tmp_path: Path) -> None:
    start = time.monotonic()
    proc = run_cli("demo", "--json", cwd=tmp_path)
    assert time.monotonic() - start < 10
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)  # nothing but the JSON on stdout
    assert answer["lines"][0]["attribution"]["session_id"] == DEMO_SESSION
    assert answer["lines"][0]["attribution"]["agent"] == "claude-code"
    assert answer["lines"][0]["evidence"][0]["role"] == "user"
    assert "Handle single lines exceeding MaxChunkSize" in answer["lines"][0]["evidence"][0]["text"]
    assert all(line["status"] == "agent" for line in answer["lines"])


def test_demo_keep(tmp_path: Path) -> None:
    keep = tmp_path / "demo"
    proc = run_cli("demo", "--keep", str(keep), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert str(keep) in proc.stdout
    log = run_cli("log", "--json", cwd=keep)
    assert log.returncode == 0, log.stderr
    entries = json.loads(log.stdout)
    assert entries[0]["sessions"][0]["session_id"] == DEMO_SESSION
    assert (entries[0]["lines_added"], entries[0]["lines_attributed"]) == (32, 32)
    blame = run_cli("blame", "cmd/entire/cli/agent/chunking.go:86", "--json", cwd=keep)
    assert blame.returncode == 0, blame.stderr
    assert json.loads(blame.stdout)["lines"][0]["attribution"]["session_id"] == DEMO_SESSION


def test_each_command_is_looked_up_in_the_module_that_registers_it() -> None:
    """The lazy group imports `COMMAND_MODULES[name]` to run `name`: the table must name every
    command, and the module each one's function lives in."""
    from git_intent.cli._base import COMMAND_MODULES

    registered = {
        name: command.callback.__module__.rsplit(".", 1)[1]
        for name, command in cli.commands.items()
        if command.callback is not None
    }
    assert registered == COMMAND_MODULES
