"""Commands for editors: lsp (the Language Server), and `--editor` for install and uninstall."""

from __future__ import annotations

import importlib.util

import click

from ..errors import IntentError
from ._base import cli


@cli.command()
def lsp() -> None:
    """Serve hover, code lenses and session documents to an editor over the Language Server Protocol.

    \b
    Speaks LSP on stdin/stdout; the editor starts it (`git intent install --editor NAME` prints or writes the
    configuration for neovim, helix, zed, vscode or emacs). It answers for the repository of each file the
    editor asks about: hover shows who wrote the line and the request that asked for it, code lenses sit
    above each agent's range, unsaved edits are mapped back to the committed lines.
    Needs the lsp extra: pip install 'git-intent[lsp]'.
    """
    if importlib.util.find_spec("pygls") is None:
        raise IntentError("The language server needs the lsp extra, which is not installed.",
                          hint="pip install 'git-intent[lsp]'")
    from ..lsp.server import serve_stdio

    serve_stdio()
