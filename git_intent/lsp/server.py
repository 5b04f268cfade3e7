"""`git intent lsp`: the Language Server (pygls, over stdio) that answers hover, code lens, the
`git-intent.showMessage` command and `git-intent:` documents for the repository of each document.

Needs the `lsp` extra (pygls). Every handler answers None or one sentence rather than raising: a file outside
any repository, a binary file, a line past the end, a repository without git-intent, a damaged note. The
server exits on `shutdown`/`exit`, at the end of its stdin, and when its parent process dies.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path

from ..core.errors import IntentError
from ..core.version import __version__
from ..explain.file_ranges import Range
from ..explain.render import message_text
from .answers import Answers, Unanswered, agent_ranges
from .documents import SCHEME, SessionDocument, document_text, parse_uri
from .markdown import hover_markdown, lens_title, sentence_markdown

SHOW_MESSAGE = "git-intent.showMessage"
PARENT_POLL = 2.0  # seconds between checks that the editor that started us is still there

log = logging.getLogger(__name__)
Handler = TypeVar("Handler", bound=Callable[..., Any])


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, advertising `workspace.textDocumentContent` for the `git-intent` scheme (LSP 3.18;
    pygls 2.1 does not build that capability itself)."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        workspace = result.capabilities.workspace or types.WorkspaceOptions()
        workspace.text_document_content = types.TextDocumentContentOptions(schemes=[SCHEME])
        result.capabilities.workspace = workspace
        return result


def build_server(answers: Answers | None = None) -> LanguageServer:
    """A LanguageServer with git-intent's features registered (not started)."""
    server = LanguageServer("git-intent", __version__, protocol_cls=_Protocol)
    resident = answers or Answers()

    def guarded(handler: Handler) -> Handler:
        """Any unexpected failure becomes a logged warning and a null answer, never a dead server."""

        def run(*args: Any) -> Any:
            try:
                return handler(*args)
            except Exception as exc:  # noqa: BLE001  (item 3: the editor must keep its server)
                log.exception("git-intent lsp: %s failed", handler.__name__)
                server.window_log_message(
                    types.LogMessageParams(
                        types.MessageType.Warning, f"git-intent: {handler.__name__} failed: {exc}"
                    )
                )
                return None

        run.__name__ = handler.__name__
        return run  # type: ignore[return-value]

    def buffer(uri: str) -> tuple[Path | None, str | None, int | None]:
        """(path on disk, unsaved text, version) of a document; no text for one the client never opened."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        opened = server.workspace.text_documents.get(uri)
        if opened is None:
            return (Path(path) if path else None), None, None
        return (Path(path) if path else None), opened.source, opened.version

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        """Start blaming the whole file now, so it is resident by the time the reader hovers."""
        path, _, _ = buffer(params.text_document.uri)
        if path is not None:
            resident.file(path, wait=False)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded
    def hover(params: types.HoverParams) -> types.Hover | None:
        path, text, version = buffer(params.text_document.uri)
        if path is None:
            return None
        found = resident.line(path, params.position.line + 1, text, version)
        if found is None:
            return None
        value = sentence_markdown(found.sentence) if isinstance(found, Unanswered) else hover_markdown(found)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value))

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    @server.thread()  # it waits for the whole file's blame: hovers go on meanwhile
    @guarded
    def code_lens(params: types.CodeLensParams) -> list[types.CodeLens] | None:
        path, text, version = buffer(params.text_document.uri)
        if path is None:
            return None
        found = resident.ranges(path, text, version)
        if not isinstance(found, list):
            return None
        # Titles are filled in by codeLens/resolve, for the lenses the editor shows (lazily).
        return [
            types.CodeLens(
                range=_line_range(r),
                data={"uri": params.text_document.uri, "line": r.start, "version": version},
            )
            for r in agent_ranges(found)
        ]

    @server.feature(types.CODE_LENS_RESOLVE)
    @guarded
    def code_lens_resolve(lens: types.CodeLens) -> types.CodeLens:
        data = lens.data if isinstance(lens.data, dict) else {}
        path, text, version = buffer(str(data.get("uri", "")))
        found = resident.line(path, int(data.get("line", 0)), text, version) if path else None
        if found is None or isinstance(found, Unanswered) or found.attribution is None:
            lens.command = types.Command(title="git-intent: no agent answer (the buffer changed)", command="")
            return lens
        if (
            not found.evidence
        ):  # no message to open here (a trailer's credit, a transcript not on this machine)
            lens.command = types.Command(title=lens_title(found), command="")
            return lens
        reference = f"{found.attribution.session_id}:{found.attribution.message_id}"
        lens.command = types.Command(
            title=lens_title(found), command=SHOW_MESSAGE, arguments=[data.get("uri"), reference]
        )
        return lens

    @server.command(SHOW_MESSAGE)
    def show_message(uri: str, reference: str) -> dict[str, str] | None:
        """`[document uri, "SESSION:MESSAGE"]` → `{"uri": git-intent: URI, "text": the message in full}`;
        an error answer names the problem in one sentence."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        repo = resident.repository(Path(path).parent) if path else None
        if repo is None:
            return {"uri": "", "text": f"{uri} is not in a git repository."}
        document = SessionDocument(repo.root, reference)
        try:
            from ..sessions.discovery import resolve_reference

            session, message = resolve_reference(repo, reference)
        except IntentError as exc:
            return {"uri": document.uri, "text": str(exc)}
        body = (
            message_text(message, session)
            if message is not None
            else f"session {session.agent} {session.session_id}"
        )
        return {"uri": document.uri, "text": body}

    @server.feature(types.WORKSPACE_TEXT_DOCUMENT_CONTENT)
    def text_document_content(params: types.TextDocumentContentParams) -> types.TextDocumentContentResult:
        try:
            return types.TextDocumentContentResult(text=document_text(parse_uri(params.uri)))
        except IntentError as exc:
            return types.TextDocumentContentResult(text=f"{exc}\n")

    @server.feature(types.INITIALIZED)
    def initialized(params: types.InitializedParams) -> None:
        watch_parent(server.process_id)

    return server


def _line_range(found: Range) -> types.Range:
    return types.Range(
        start=types.Position(line=found.start - 1, character=0),
        end=types.Position(line=found.end - 1, character=0),
    )


def watch_parent(process_id: int | None, poll: float = PARENT_POLL) -> threading.Thread:
    """A daemon thread that ends this process (exit 0) when the editor that started it is gone: the
    `processId` of initialize no longer exists, or we were re-parented (LSP: "the server can shut down
    if the parent process is not alive")."""
    parent = os.getppid()

    def gone() -> bool:
        if os.getppid() != parent:
            return True
        if process_id is None:
            return False
        try:
            os.kill(process_id, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    def loop() -> None:
        while not gone():
            time.sleep(poll)
        log.info("git-intent lsp: the editor is gone; exiting")
        os._exit(0)

    thread = threading.Thread(target=loop, name="git-intent-parent-watch", daemon=True)
    thread.start()
    return thread


def serve_stdio() -> None:
    """Run the server on stdin/stdout until the client says exit (or stdin closes, or the parent dies)."""
    logging.basicConfig(level=logging.WARNING, format="git-intent lsp: %(message)s")
    watch_parent(None)
    build_server().start_io()
