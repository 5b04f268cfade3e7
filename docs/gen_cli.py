"""Regenerate docs/cli.md from the commands' own --help, so the reference cannot drift.

Run: .venv/bin/python docs/gen_cli.py   (tests/test_docs.py fails when docs/cli.md is stale)
"""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from git_intent.cli import cli

OUT = Path(__file__).with_name("cli.md")


def render() -> str:
    """The whole reference as Markdown: the group's help, then each command's."""
    runner = CliRunner()
    parts = [
        "# git intent — command reference",
        "",
        "Generated from `--help` by `docs/gen_cli.py`; do not edit by hand.",
        "(`git intent --help` opens a man page through git: use `git intent -h`.)",
        "",
    ]
    names = [""] + sorted(cli.commands) if isinstance(cli, click.Group) else [""]
    for name in names:
        args = [name, "--help"] if name else ["--help"]
        result = runner.invoke(cli, args, prog_name="git intent", terminal_width=100)
        title = f"git intent {name}".strip()
        parts += [f"## {title}", "", "```", result.output.rstrip(), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")
