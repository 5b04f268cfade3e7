"""Index rows from sessions: one per message, edit and touched path, each with a digest that shows change."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..models import Message, Session
from .base import stamp

_PATH_KEYS = frozenset({"file_path", "filepath", "path", "file", "filename", "notebook_path", "target_file",
                        "absolute_path", "relative_workspace_path"})
Row = dict[str, Any]


def longest(sessions: Iterable[Session]) -> dict[tuple[str, str], Session]:
    """The copy of each (agent, session_id) with the most messages (the first of equals)."""
    found: dict[tuple[str, str], Session] = {}
    for session in sessions:
        key = (session.agent, session.session_id)
        if key not in found or len(session.messages) > len(found[key].messages):
            found[key] = session
    return found


def session_rows(session: Session) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Message, edit and touch rows of one session (first copy of a repeated message id kept)."""
    agent, session_id = session.agent, session.session_id
    messages: list[dict[str, Any]] = []
    touched: dict[tuple[str, str], None] = {}
    ids: set[str] = set()
    for ordinal, message in enumerate(session.messages):
        if message.message_id in ids:
            continue
        ids.add(message.message_id)
        text, tools, paths = _message_text(message)
        row = {"agent": agent, "session_id": session_id, "message_id": message.message_id, "ordinal": ordinal,
               "role": message.role, "timestamp": stamp(message.timestamp), "is_prompt": int(message.is_prompt),
               "is_summary": int(message.is_summary), "tools": " ".join(tools), "text": text}
        row["digest"] = _digest(row)
        messages.append(row)
        touched.update(((message.message_id, p), None) for p in paths)
    edits: list[dict[str, Any]] = []
    for ordinal, edit in enumerate(session.edits):
        added = "\n".join(line.text for line in edit.added) if edit.added else edit.new_text
        row = {"agent": agent, "session_id": session_id, "ordinal": ordinal, "message_id": edit.message_id,
               "call_id": edit.call_id, "path": edit.path, "tool": edit.tool, "kind": edit.kind,
               "timestamp": stamp(edit.timestamp), "added": added}
        row["digest"] = _digest(row)
        edits.append(row)
        touched[(edit.message_id, _slashed(edit.path))] = None
    touches = [{"agent": agent, "session_id": session_id, "message_id": message_id, "path": path,
                "rpath": path[::-1]} for message_id, path in touched if path]
    return messages, edits, touches


def _message_text(message: Message) -> tuple[str, list[str], list[str]]:
    """The searchable text of a message (text, reasoning, tool calls with readable arguments, tool
    results), its tool names, and the paths its tool calls name."""
    pieces: list[str] = []
    tools: list[str] = []
    paths: list[str] = []
    for part in message.parts:
        if part.tool and part.tool not in tools:
            tools.append(part.tool)
        if part.kind != "tool_call":
            if part.text:
                pieces.append(part.text)
            continue
        args = _json_object(part.text)
        if args is None:
            pieces.append(f"{part.tool or 'tool'} {part.text}".rstrip())
            continue
        # Arguments as `key: value` lines: JSON escapes (\n, \") would glue letters onto words for FTS.
        lines = [part.tool or "tool"]
        for name, value in args.items():
            lines.append(f"{name}: {value if isinstance(value, str) else json.dumps(value)}")
            if isinstance(value, str) and name.lower() in _PATH_KEYS and value and "\n" not in value \
                    and len(value) < 4096:
                paths.append(_slashed(value))
        pieces.append("\n".join(lines))
    return "\n\n".join(pieces), tools, paths


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def session_row(session: Session) -> dict[str, Any]:
    return {"agent": session.agent, "session_id": session.session_id, "cwd": session.cwd,
            "started_at": stamp(session.started_at), "ended_at": stamp(session.ended_at),
            "messages": len(session.messages), "edits": len(session.edits), "transcript": str(session.transcript),
            "parent_session_id": session.parent_session_id, "agent_version": session.agent_version}


def _digest(row: dict[str, Any]) -> str:
    """A hash of a row's values (rows of one table share their key order); detects changed rows."""
    joined = "\x1f".join(["\x00" if value is None else str(value) for value in row.values()])
    return hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _slashed(path: str) -> str:
    return path.replace("\\", "/")


def transcript_stat(path: Path) -> tuple[int, int] | None:
    """(size, mtime_ns) of a transcript, folding in a SQLite `-wal` beside it (OpenCode's store writes
    its newest rows there while the main file is unchanged); None when the file is gone."""
    try:
        info = path.stat()
    except OSError:
        return None
    size, mtime = info.st_size, info.st_mtime_ns
    try:
        wal = path.with_name(path.name + "-wal").stat()
        size, mtime = size + wal.st_size, max(mtime, wal.st_mtime_ns)
    except OSError:
        pass
    return size, mtime
