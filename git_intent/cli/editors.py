"""Commands for editors: lsp (the Language Server), and `--editor` for install and uninstall."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..core.errors import IntentError
from ..lsp import EDITORS
from ._base import cli, echo

_F = TypeVar("_F", bound=Callable[..., Any])


def editor_options(*, install: bool) -> Callable[[_F], _F]:
    """`--editor NAME` (and, for install, `--write`), shared by install and uninstall."""

    def add(command: _F) -> _F:
        if install:
            command = click.option(
                "--write",
                is_flag=True,
                help="With --editor: write the configuration into the editor's user config, "
                "showing the diff.",
            )(command)
        verb = (
            "Print (with --write: add) the language server's configuration for"
            if install
            else "Take the language server's configuration out of"
        )
        return click.option("--editor", type=click.Choice(EDITORS), help=f"{verb} this editor.")(command)

    return add


def configure_editor(editor: str, *, write: bool, install: bool) -> None:
    """Print an editor's configuration for `git intent lsp`, or write it (install), or take it out."""
    from ..lsp.editors import editor_config, install_editor, uninstall_editor

    config = editor_config(editor)
    if not install:
        change = uninstall_editor(editor)
        if change is None:
            echo(f"git-intent was not in {editor}'s configuration; nothing changed.")
            return
        echo(change.diff, nl=False)
        echo(change.sentence)
        return
    if not write:
        where = (
            f"Add this to {config.path} (or run this again with --write)"
            if config.path
            else "Configure this command"
        )
        echo(f"{where}:\n\n{config.text}\n{config.note}")
        return
    change = install_editor(editor)
    echo(change.diff, nl=False)
    echo(change.sentence)
    echo(config.note)


@cli.command()
def lsp() -> None:
    """Serve hover, code lenses and session documents to an editor over the Language Server Protocol.

    \b
    Speaks LSP on stdin/stdout; the editor starts it (`git intent install --editor NAME` prints or writes the
    configuration for neovim, helix, zed, vscode or emacs). It answers for the repository of each file the
    editor asks about: hover shows who wrote the line and the request that asked for it, code lenses sit
    above each agent's range, unsaved edits are mapped back to the committed lines.
    Needs the lsp extra: pip install 'git-intent-provenance[lsp]'.
    """
    if importlib.util.find_spec("pygls") is None:
        raise IntentError(
            "The language server needs the lsp extra, which is not installed.",
            hint="pip install 'git-intent-provenance[lsp]'",
        )
    from ..lsp.server import serve_stdio

    serve_stdio()
