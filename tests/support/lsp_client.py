"""Driving `git intent lsp` with pygls's own LanguageClient over a real stdio subprocess."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path


def uri(path: Path) -> str:
    found = from_fs_path(str(path))
    assert found is not None
    return found


class Session:
    """A started and initialized server, with the calls the tests make."""

    def __init__(self, client: LanguageClient, capabilities: types.ServerCapabilities) -> None:
        self.client = client
        self.capabilities = capabilities
        self.logged: list[str] = []
        client.feature(types.WINDOW_LOG_MESSAGE)(lambda params: self.logged.append(params.message))

    def open(self, path: Path, text: str | None = None, version: int = 1) -> str:
        document = uri(path)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri=document,
                    language_id="text",
                    version=version,
                    text=text if text is not None else path.read_text(encoding="utf-8"),
                )
            )
        )
        return document

    def change(self, document: str, version: int, line: int, text: str, end_line: int | None = None) -> None:
        """Replace lines `line..end_line` (0-based, end exclusive; default: insert) with `text`
        (incremental)."""
        end = end_line if end_line is not None else line
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=document, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(types.Position(line, 0), types.Position(end, 0)), text=text
                    )
                ],
            )
        )

    async def hover(self, document: str, line: int) -> str | None:
        """The hover markdown at 1-based `line`, or None."""
        found = await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(document), position=types.Position(line - 1, 0)
            )
        )
        if found is None:
            return None
        assert isinstance(found.contents, types.MarkupContent)
        assert found.contents.kind == types.MarkupKind.Markdown
        return found.contents.value

    async def lenses(self, document: str) -> list[types.CodeLens]:
        return list(
            await self.client.text_document_code_lens_async(
                types.CodeLensParams(text_document=types.TextDocumentIdentifier(document))
            )
            or []
        )

    async def resolve(self, lens: types.CodeLens) -> types.CodeLens:
        return await self.client.code_lens_resolve_async(lens)

    async def command(self, name: str, *arguments: Any) -> Any:
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        )

    async def content(self, document_uri: str) -> str:
        found = await self.client.protocol.send_request_async(
            types.WORKSPACE_TEXT_DOCUMENT_CONTENT, types.TextDocumentContentParams(uri=document_uri)
        )
        return str(found.text)


def run_server(cwd: Path, conversation: Callable[[Session], Awaitable[None]], *, timeout: float = 60) -> int:
    """Start `python -m git_intent lsp` in `cwd`, initialize it, run the conversation, shut it down; the
    server's exit code."""

    async def main() -> int:
        client = LanguageClient("git-intent-tests", "1")
        await client.start_io(sys.executable, "-m", "git_intent", "lsp", cwd=str(cwd), env=dict(os.environ))
        result = await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(), process_id=os.getpid(), root_uri=uri(cwd)
            )
        )
        client.initialized(types.InitializedParams())
        session = Session(client, result.capabilities)
        try:
            await conversation(session)
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            server = client._server
            assert server is not None
            code = await asyncio.wait_for(server.wait(), 10)
            await client.stop()
        return code

    return asyncio.run(asyncio.wait_for(main(), timeout))
