"""`git-intent:` documents: a session or one message, read at a fidelity, as a client opens them (the LSP
3.18 `workspace/textDocumentContent` request, or the `git-intent.showMessage` command's `text`).

URI: `git-intent:/SESSION[:MESSAGE]?repo=/abs/work/tree&fidelity=full|brief|context` (percent-encoded).
`full` is `git intent show` (a digest, then every message), `brief` one line per message, `context` the
budgeted rendering of `git intent context` (the fidelity choices made with `git intent fidelity`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from ..core.errors import IntentError
from ..git.repo import Repository

SCHEME = "git-intent"
Fidelity = Literal["full", "brief", "context"]
FIDELITIES: tuple[Fidelity, ...] = ("full", "brief", "context")


@dataclass(frozen=True)
class SessionDocument:
    """What a `git-intent:` URI names: the repository, `SESSION` or `SESSION:MESSAGE`, and the fidelity."""

    repo_root: Path
    reference: str
    fidelity: Fidelity = "full"

    @property
    def uri(self) -> str:
        query = urlencode({"repo": str(self.repo_root), "fidelity": self.fidelity})
        return f"{SCHEME}:/{quote(self.reference, safe=':')}?{query}"


def parse_uri(uri: str) -> SessionDocument:
    """The SessionDocument of a `git-intent:` URI. Raises IntentError for another scheme, a missing
    session or repository, or an unknown fidelity."""
    parts = urlsplit(uri)
    query = parse_qs(parts.query)
    reference = unquote(parts.path.lstrip("/"))
    fidelity = (query.get("fidelity") or ["full"])[0]
    if parts.scheme != SCHEME or not reference or not query.get("repo"):
        raise IntentError(f"{uri!r} is not a git-intent document (git-intent:/SESSION[:MESSAGE]?repo=PATH).")
    if fidelity not in FIDELITIES:
        raise IntentError(f"Unknown fidelity {fidelity!r}; use one of {', '.join(FIDELITIES)}.")
    return SessionDocument(Path(query["repo"][0]), reference, fidelity)


def document_text(document: SessionDocument) -> str:
    """The text of a `git-intent:` document (terminal controls made visible). Raises IntentError when the
    repository or session cannot be read."""
    from ..explain.render import message_text, session_text
    from ..sessions.discovery import resolve_reference

    repo = Repository(document.repo_root)
    if document.fidelity == "context":
        from ..explain.render import context_text
        from ..fidelity.context import session_context
        from ..index.annotations import stored_for

        rendered, commits = session_context(repo, document.reference, stored=stored_for(repo))
        return context_text(rendered, commits)
    session, message = resolve_reference(repo, document.reference)
    if message is not None:
        return f"session   {session.agent} {session.session_id}\n{message_text(message, session)}\n"
    return session_text(session, full=document.fidelity == "full")
