"""GitHub Copilot Chat in VS Code: the chat sessions VS Code keeps for each workspace (`sessions.py`), and the
agent's event log Copilot Chat writes beside them (`transcripts.copilot_events`).

Where, for each flavour (Code, Insiders, VSCodium, …) on Linux, macOS and Windows
(`transcripts.vscode_storage`): `<User>/workspaceStorage/<hash>/chatSessions/<session id>.json` or `.jsonl`
for a workspace that opened the work tree (its `workspace.json` names the folder),
`<User>/globalStorage/emptyWindowChatSessions/` for chats in a window with no folder, and the event logs in
`<User>/workspaceStorage/<hash>/GitHub.copilot-chat/transcripts/ <session id>.jsonl` (Copilot Chat keeps the
newest twenty). A session in both is read from its chat session, which keeps the text each edit put into the
file and where.

`agent_version` is Copilot Chat's version (a request's `agent.extensionVersion`, an event log's
`copilotVersion`); the work tree is the workspace's folder, or the event log's `context.cwd`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ...core.errors import DamagedTranscriptError
from ...core.values import ParseStats, Session
from ...transcripts.copilot_events import read_events, shaped
from ...transcripts.jsonl import head_records, head_text, recognised, written_since
from ...transcripts.vscode_storage import user_dirs, workspace_folder, workspace_storage
from .sessions import document, read_document

__all__ = ["MULTI_SESSION", "NAME", "NEWEST_TESTED", "discover", "locations", "read", "sniff"]

NAME = "copilot-chat"
# The Copilot Chat version of the newest fixture; `doctor` says when sessions on disk come from a newer one.
NEWEST_TESTED = "0.47.0"
MULTI_SESSION = False
SNIFF_BYTES = 64 * 1024
EXTENSION_FOLDER = "github.copilot-chat"


def locations(root: Path) -> list[str]:
    """Where `discover` looks: the chat sessions and event logs of the workspaces that opened `root`, and the
    chats of windows with no folder, in each editor flavour present (VS Code's when none is)."""
    users = [user for user in user_dirs() if user.is_dir()] or user_dirs()[:1]
    return [
        pattern
        for user in users
        for pattern in (
            f"{user}/workspaceStorage/<workspace of {root.name}>/chatSessions/*.json[l]",
            f"{user}/workspaceStorage/<workspace of {root.name}>/GitHub.copilot-chat/transcripts/*.jsonl",
            f"{user}/globalStorage/emptyWindowChatSessions/*.json[l]",
        )
    ]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """The chat sessions and event logs of the workspaces that opened `root`, and of windows with no folder,
    written at or after `since`; an event log whose session has a chat session is left out."""
    found: list[Path] = []
    for folder in workspace_storage(root):
        chats = [*(folder / "chatSessions").glob("*.json"), *(folder / "chatSessions").glob("*.jsonl")]
        named = {p.stem for p in chats}
        logs = [
            p for p in (folder / "GitHub.copilot-chat" / "transcripts").glob("*.jsonl") if p.stem not in named
        ]
        found += sorted(chats) + sorted(logs)
    for user in user_dirs():
        empty = user / "globalStorage" / "emptyWindowChatSessions"
        found += sorted([*empty.glob("*.json"), *empty.glob("*.jsonl")])
    yield from written_since(found, since)


def sniff(path: Path) -> bool:
    """True for a chat session (a JSON object with `requests` and a `version`, and a `sessionId` or the
    requester's and responder's names), a mutation log whose first entry (`"kind": 0`) holds one, or an
    event log that VS Code wrote (its `session.start` names a `vscodeVersion`, or it lies in Copilot Chat's
    folder)."""
    if path.suffix == ".json":
        head = head_text(path, SNIFF_BYTES)
        return head is not None and head.startswith("{") and _chat_head(head)
    if path.suffix != ".jsonl":
        return False
    heads = head_records(path, limit=8, max_bytes=SNIFF_BYTES)
    if heads and heads[0].get("kind") == 0 and isinstance(heads[0].get("v"), dict):
        first = heads[0]["v"]
        return "requests" in first or (
            "version" in first and ("sessionId" in first or "creationDate" in first)
        )
    ours = any(part.lower() == EXTENSION_FOLDER for part in path.parts) or any(_vscode(r) for r in heads)
    return ours and recognised(
        heads, shaped, lambda r: r.get("type") in ("session.start", "user.message", "assistant.message")
    )


def read(path: Path) -> list[Session]:
    """The session in `path`. Raises OSError when it cannot be opened and DamagedTranscriptError when a chat
    session holds no whole document."""
    hashed = {"chatSessions": path.parent.parent, "transcripts": path.parent.parent.parent}.get(
        path.parent.name
    )
    cwd = workspace_folder(hashed) if hashed is not None else None
    head = head_text(path, 256) or ""
    if path.suffix == ".jsonl" and '"kind"' not in head[:64]:
        log = read_events(path)
        cwd = cwd or log.cwd
        return [
            Session(
                agent=NAME,
                session_id=(log.session_id or path.stem).replace(":", "-"),
                transcript=path,
                cwd=cwd,
                cwds=[cwd] if cwd else [],
                agent_version=log.version,
                messages=log.messages,
                edits=log.edits,
                stats=log.stats,
            )
        ]
    stats = ParseStats()
    data = document(path, stats)
    if data is None:
        raise DamagedTranscriptError(
            f"The Copilot Chat session {path} holds no whole session; it is skipped."
        )
    if path.suffix == ".json":
        stats.records = len(data.get("requests") or []) if isinstance(data.get("requests"), list) else 0
    messages, edits, version = read_document(data, stats)
    own = data.get("sessionId")
    session_id = own if isinstance(own, str) and own else path.stem
    return [
        Session(
            agent=NAME,
            session_id=session_id.replace(":", "-"),
            transcript=path,
            cwd=cwd,
            cwds=[cwd] if cwd else [],
            agent_version=version,
            messages=messages,
            edits=edits,
            stats=stats,
        )
    ]


def _chat_head(head: str) -> bool:
    return (
        '"requests"' in head
        and '"version"' in head
        and ('"sessionId"' in head or '"responderUsername"' in head or '"requesterUsername"' in head)
    )


def _vscode(record: dict[str, Any]) -> bool:
    data = record.get("data")
    return record.get("type") == "session.start" and isinstance(data, dict) and "vscodeVersion" in data
