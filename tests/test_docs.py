"""Docs are contracts: the CLI reference is generated and every command documents itself."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from git_intent.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def _generator() -> object:
    spec = importlib.util.spec_from_file_location("gen_cli", ROOT / "docs" / "gen_cli.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_current() -> None:
    expected = _generator().render()  # type: ignore[attr-defined]
    assert (ROOT / "docs" / "cli.md").read_text(encoding="utf-8") == expected, (
        "docs/cli.md is stale: run .venv/bin/python docs/gen_cli.py")


def test_every_command_has_help_and_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, command in cli.commands.items():  # type: ignore[attr-defined]
        assert command.help and len(command.help) > 20, f"{name} lacks a help text"
        assert f"git intent {name}" in readme, f"README does not mention `git intent {name}`"
