"""The click group and the helpers every command module shares (JSON printing, opening the repository)."""

from __future__ import annotations

import importlib
from collections.abc import MutableMapping

import click

from ..core.version import __version__
from .printing import echo, open_repo, print_json

__all__ = ["cli", "echo", "open_repo", "print_json"]


EXIT_CODES = """\b
Exit codes (every command, with or without --json; git blame's rule):
  0    answered, whatever the answer says: unrecorded, human and uncommitted lines are answers
  1    not answered: a bad path, range or revision, not a repository, state that cannot be read
       (blame still prints the lines it could answer), or queued work left undone (record --pending);
       one sentence on stderr
  2    bad usage (click)
  3    a bug: a paste-ready report in <git common dir>/intent/error.log
  130  interrupted"""


# The module that registers each command, imported when that command runs (importing all eight command modules
# cost every command ~5 ms). tests/cli/test_cli.py holds this table to what the modules register.
COMMAND_MODULES = {
    "mcp": "agents",
    "schema": "agents",
    "stats": "agents",
    "attest": "attest",
    "verify": "attest",
    "why": "answer",
    "ask": "answer",
    "lsp": "editors",
    "memory": "memory",
    "install": "capture",
    "hook": "capture",
    "uninstall": "capture",
    "record": "capture",
    "backfill": "capture",
    "import": "capture",
    "export": "capture",
    "status": "capture",
    "doctor": "capture",
    "carry": "capture",
    "path": "capture",
    "blame": "explain",
    "show": "explain",
    "log": "explain",
    "demo": "explain",
    "review": "review",
    "serve": "review",
    "sessions": "sessions",
    "agents": "sessions",
    "index": "sessions",
    "search": "sessions",
    "context": "sessions",
    "fidelity": "sessions",
    "annotate": "answer",
    "push": "share",
    "fetch": "share",
    "share": "share",
    "redact": "share",
    "audit": "share",
    "org": "org",
}


class LazyGroup(click.Group):
    """A group whose commands' modules are imported when a command is looked up by name (`COMMAND_MODULES`),
    and all of them when the whole list is read (`--help`, the docs, click-man)."""

    _loaded = False
    _commands: MutableMapping[str, click.Command]

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        if not self._loaded:
            self._loaded = True  # first: the modules register through add_command while they load
            for module in dict.fromkeys(COMMAND_MODULES.values()):
                importlib.import_module(f".{module}", __package__)
            # by name: the same order whichever command was looked up first (click-man lists them in this
            # order)
            self._commands = dict(sorted(self._commands.items()))
        return self._commands

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        self._commands = value

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._commands[name] = cmd

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self._commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(f".{COMMAND_MODULES[cmd_name]}", __package__)
        return self._commands.get(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES)
@click.version_option(__version__, prog_name="git-intent")
def cli() -> None:
    """Why is this line here? Links commits to the coding-agent sessions and messages that wrote them.

    \b
    Start with:  git intent install          (in your repository)
    Then:        git intent blame src/app.py:42
    Try it:      git intent demo
    """
