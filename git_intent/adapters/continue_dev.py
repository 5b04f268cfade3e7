"""Continue sessions (the VS Code and JetBrains extensions, and the `cn` CLI): one JSON document per session,
`<home>/sessions/<session id>.json`, rewritten whole as the session grows; `<home>` is `$CONTINUE_GLOBAL_DIR`,
else `~/.continue` on Linux, macOS and Windows (core/util/paths.ts and extensions/cli/src/session.ts,
continuedev/continue at d0a3c0b6, 2026-06). `sessions/sessions.json` is the list of sessions, not one.

A session is `{sessionId, title, workspaceDirectory, history: [{message: {role, content, toolCalls?,
toolCallId?}, contextItems, toolCallStates?: [{toolCallId, toolCall, status, parsedArgs}]}], mode?,
chatModelTitle?, usage?}` (`Session`/`ChatHistoryItem`, core/index.d.ts). Content is a string or parts
(`{type: "text", text}`); the history records no times, so messages carry none and their edits count in any
commit window. Message ids are the history's ordinals (`h3`): Continue has none of its own.

Edits, from a call whose state is `done` (or that records no state): the extensions' `create_new_file
{filepath, contents}`, `single_find_and_replace {filepath, old_string, new_string}`, `multi_edit {filepath,
edits}`, `edit_existing_file {filepath, changes}` (its lines less the `... existing code ...` placeholders,
without line numbers: the model writes a sketch the editor applies), `run_terminal_command {command}`; the
CLI's `Write {filepath, content}`, `Edit`/`MultiEdit {file_path, …}` and `Bash {command}`. A relative path or
a `file://` URI is resolved against the workspace.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.errors import DamagedTranscriptError
from ..core.values import AddedLine, Edit, Message, ParseStats, Part, PartKind, Role, Session
from ..transcripts import shell
from ..transcripts.edits import replacement, replacements, whole_file
from ..transcripts.jsonl import head_text, loads, one_record, written_since
from ..transcripts.vscode_storage import file_uri_path

NAME = "continue"
# Continue writes no version into a session.
NEWEST_TESTED: str | None = None
MULTI_SESSION = False
SNIFF_BYTES = 16 * 1024
SHELL_TOOLS = frozenset({"run_terminal_command", "Bash"})
ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "system": "system",
    "thinking": "assistant",
}


def continue_home() -> Path:
    """`$CONTINUE_GLOBAL_DIR`, else `~/.continue`."""
    explicit = os.environ.get("CONTINUE_GLOBAL_DIR", "").strip()
    return Path(explicit) if explicit else Path.home() / ".continue"


def locations(root: Path) -> list[str]:
    """Where `discover` looks (every workspace's sessions), as a path pattern of this machine."""
    return [f"{continue_home() / 'sessions'}/*.json"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Every session written at or after `since` (sessions of every workspace share the folder: the catalog
    keeps those that mention `root`)."""
    found = [p for p in (continue_home() / "sessions").glob("*.json") if p.name != "sessions.json"]
    yield from written_since(sorted(found), since)


def sniff(path: Path) -> bool:
    """True for a JSON object naming a `sessionId` and a `history`, and a `workspaceDirectory` or `title`."""
    head = head_text(path, SNIFF_BYTES) if path.suffix == ".json" else None
    return (
        head is not None
        and head.startswith("{")
        and '"sessionId"' in head
        and '"history"' in head
        and ('"workspaceDirectory"' in head or '"title"' in head)
    )


def read(path: Path) -> list[Session]:
    """The session of `path`. Raises OSError when it cannot be opened and DamagedTranscriptError when it is
    not a whole JSON object."""
    try:
        data = loads(path.read_bytes())
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise DamagedTranscriptError(
            f"The Continue session {path} is not a whole JSON object; it is skipped."
        )
    folder = data.get("workspaceDirectory")
    cwd = (file_uri_path(folder) or folder) if isinstance(folder, str) and folder else None
    stats = ParseStats()
    messages: list[Message] = []
    edits: list[Edit] = []
    history = data.get("history")
    for index, item in enumerate(history if isinstance(history, list) else []):
        stats.records += 1
        with one_record(stats):
            message = _message(item, f"h{index}", cwd, edits, stats)
            if message is not None:
                messages.append(message)
    own = data.get("sessionId")
    session_id = own if isinstance(own, str) and own else path.stem
    return [
        Session(
            agent=NAME,
            session_id=session_id.replace(":", "-"),
            transcript=path,
            cwd=cwd,
            cwds=[cwd] if cwd else [],
            messages=messages,
            edits=edits,
            stats=stats,
        )
    ]


def _message(
    item: Any, message_id: str, cwd: str | None, edits: list[Edit], stats: ParseStats
) -> Message | None:
    message = item.get("message") if isinstance(item, dict) else None
    if not isinstance(message, dict):
        stats.unreadable += 1
        return None
    role = ROLES.get(str(message.get("role")))
    if role is None:
        stats.unknown(f"role:{message.get('role')}")
        return None
    text = _text(message.get("content"))
    parts: list[Part] = []
    if text.strip():
        kind: PartKind = (
            "reasoning" if message.get("role") == "thinking" else "tool_result" if role == "tool" else "text"
        )
        parts.append(
            Part(kind=kind, text=text, call_id=message.get("toolCallId") if role == "tool" else None)
        )
    states = {s.get("toolCallId"): s for s in item.get("toolCallStates") or [] if isinstance(s, dict)}
    calls = message.get("toolCalls")
    for number, call in enumerate(calls if isinstance(calls, list) else [], start=1):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        call_id = (
            call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"{message_id}.{number}"
        )
        raw = function.get("arguments")
        state = states.get(call_id, {})
        args = (
            state.get("parsedArgs")
            if isinstance(state.get("parsedArgs"), dict)
            else loads(raw)
            if isinstance(raw, str) and raw.lstrip().startswith("{")
            else {}
        )
        name = str(function.get("name") or "")
        parts.append(
            Part(kind="tool_call", tool=name, call_id=call_id, text=raw if isinstance(raw, str) else "")
        )
        if state.get("status", "done") == "done" and isinstance(args, dict):
            edits += _edits(name, args, message_id, call_id, cwd)
    if not parts:
        return None
    return Message(message_id=message_id, role=role, parts=tuple(parts), is_prompt=role == "user")


def _edits(name: str, args: dict[str, Any], message_id: str, call_id: str, cwd: str | None) -> list[Edit]:
    """The edits one call made; [] for a tool that writes no file."""
    where: dict[str, Any] = {"tool": name, "message_id": message_id, "call_id": call_id}
    if name in SHELL_TOOLS:
        command = args.get("command")
        return shell.shell_edits(command, cwd, **where) if isinstance(command, str) else []
    raw = args.get("filepath", args.get("file_path"))
    if not isinstance(raw, str) or not raw:
        return []
    path = file_uri_path(raw) or raw
    path = path if posixpath.isabs(path) or not cwd or ":" in path[:3] else posixpath.join(cwd, path)
    body = args.get("contents", args.get("content"))
    if name in ("create_new_file", "Write") and isinstance(body, str):
        return [whole_file(path, body, **where)]
    if name in ("single_find_and_replace", "Edit") and isinstance(args.get("new_string"), str):
        old = args.get("old_string")
        return [replacement(path, old if isinstance(old, str) else "", args["new_string"], **where)]
    if name in ("multi_edit", "MultiEdit") and isinstance(args.get("edits"), list):
        pairs = [
            (e.get("old_string") or "", e["new_string"])
            for e in args["edits"]
            if isinstance(e, dict) and isinstance(e.get("new_string"), str)
        ]
        return [replacements(path, pairs, **where)] if pairs else []
    if name == "edit_existing_file" and isinstance(args.get("changes"), str):
        lines = tuple(AddedLine(text=t) for t in args["changes"].splitlines() if "existing code" not in t)
        return [Edit(path=path, kind="update", new_text=args["changes"], added=lines, **where)]
    return []


def _text(content: Any) -> str:
    """A message's text: a string, or the `text` of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text")) for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""
