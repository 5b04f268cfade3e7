"""The click group and the helpers every command module shares (JSON printing, opening the repository)."""

from __future__ import annotations

import json
from typing import Any

import click

from .. import __version__


def print_json(value: Any) -> None:
    """Print `value` as indented JSON (non-ASCII kept, unknown types through str)."""
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def open_repo() -> Any:
    """The repository of the current directory (raises NotARepositoryError outside one)."""
    from ..repo import Repository

    return Repository()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="git-intent")
def cli() -> None:
    """Why is this line here? Links commits to the coding-agent sessions and messages that wrote them.

    \b
    Start with:  git intent install          (in your repository)
    Then:        git intent blame src/app.py:42
    Try it:      git intent demo
    """


