"""The click group and the helpers every command module shares (JSON printing, opening the repository)."""

from __future__ import annotations

import json
from typing import Any

import click

from .. import __version__
from ..terminal import json_safe, terminal_safe


def print_json(value: Any) -> None:
    """Print `value` as indented JSON (non-ASCII kept but for characters that could drive a terminal, which
    are `\\u` escapes; unknown types through str)."""
    click.echo(json_safe(json.dumps(value, indent=2, ensure_ascii=False, default=str)))


def echo(message: str, *, err: bool = False, nl: bool = True) -> None:
    """Print text output: every command's text goes through here, so nothing read from a transcript, a note
    or a shared store can drive the terminal (escape sequences, C1 controls, bidi overrides; issue 9)."""
    click.echo(terminal_safe(message), err=err, nl=nl)


def open_repo() -> Any:
    """The repository of the current directory (raises NotARepositoryError outside one)."""
    from ..git.repo import Repository

    return Repository()


EXIT_CODES = """\b
Exit codes (every command, with or without --json; git blame's rule):
  0    answered, whatever the answer says: unrecorded, human and uncommitted lines are answers
  1    not answered: a bad path, range or revision, not a repository, state that cannot be read
       (blame still prints the lines it could answer), or queued work left undone (record --pending);
       one sentence on stderr
  2    bad usage (click)
  3    a bug: a paste-ready report in <git common dir>/intent/error.log
  130  interrupted"""


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES)
@click.version_option(__version__, prog_name="git-intent")
def cli() -> None:
    """Why is this line here? Links commits to the coding-agent sessions and messages that wrote them.

    \b
    Start with:  git intent install          (in your repository)
    Then:        git intent blame src/app.py:42
    Try it:      git intent demo
    """


