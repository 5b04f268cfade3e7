"""Docs are contracts: the CLI reference and the layout in docs/design.md are generated, and every command
documents itself."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from git_intent.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def _generator(name: str = "gen_cli") -> object:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / f"{name}.py")
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


def test_design_layout_is_current() -> None:
    """docs/design.md's layer diagram is the import-linter contract, and its module list every module's docstring."""
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    assert design == _generator("gen_layout").updated(design), (  # type: ignore[attr-defined]
        "docs/design.md's layout is stale: run .venv/bin/python docs/gen_layout.py")


def test_every_module_says_what_it_holds_and_no_two_say_the_same() -> None:
    rows = [line for line in _generator("gen_layout").modules()[2:]]  # type: ignore[attr-defined]
    described = [row.split("|")[2].strip() for row in rows]
    assert all(described), [row for row in rows if not row.split("|")[2].strip()]
    assert len(set(described)) == len(described)


def test_the_top_level_keeps_only_the_core_and_the_entry_points() -> None:
    top = sorted(p.stem for p in (ROOT / "git_intent").glob("*.py"))
    assert len(top) <= 14, top
    assert max(len(p.read_text(encoding="utf-8").splitlines()) for p in (ROOT / "git_intent").rglob("*.py")) <= 450
