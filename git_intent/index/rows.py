"""Index rows from sessions: one per message, edit and touched path, each with a digest that shows change."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core.values import Message, Session, utc_stamp
from .base import stamp

_PATH_KEYS = frozenset(
    {
        "file_path",
        "filepath",
        "path",
        "file",
        "filename",
        "notebook_path",
        "target_file",
        "absolute_path",
        "relative_workspace_path",
    }
)
# Rows are tuples in these column orders, inserted with positional parameters: named parameters read from a
# dict per row cost half of the message inserts (30k messages: 0.42 s CPU against 0.23 s).
# The digest, last, hashes the values before it in this order (the order of the dicts rows were before,
# so digests stored by earlier versions still match).
SESSION_COLUMNS = (
    "agent",
    "session_id",
    "cwd",
    "started_at",
    "ended_at",
    "messages",
    "edits",
    "transcript",
    "parent_session_id",
    "agent_version",
)
MESSAGE_COLUMNS = (
    "agent",
    "session_id",
    "message_id",
    "ordinal",
    "role",
    "timestamp",
    "is_prompt",
    "is_summary",
    "tools",
    "text",
    "digest",
)
EDIT_COLUMNS = (
    "agent",
    "session_id",
    "ordinal",
    "message_id",
    "call_id",
    "path",
    "tool",
    "kind",
    "timestamp",
    "added",
    "digest",
)
TOUCH_COLUMNS = ("agent", "session_id", "message_id", "path", "rpath")
COLUMNS = {
    "sessions": SESSION_COLUMNS,
    "messages": MESSAGE_COLUMNS,
    "edits": EDIT_COLUMNS,
    "touches": TOUCH_COLUMNS,
}
KEY, TEXT = (
    2,
    9,
)  # positions of the per-session key (message_id, ordinal) and the indexed text in message/edit rows
Row = tuple[Any, ...]
_NONE = "\x00"


def longest(sessions: Iterable[Session]) -> dict[tuple[str, str], Session]:
    """The copy of each (agent, session_id) with the most messages (the first of equals)."""
    found: dict[tuple[str, str], Session] = {}
    for session in sessions:
        key = (session.agent, session.session_id)
        if key not in found or len(session.messages) > len(found[key].messages):
            found[key] = session
    return found


def session_rows(session: Session) -> tuple[list[Row], list[Row], list[Row]]:
    """Message, edit and touch rows of one session (first copy of a repeated message id kept), as tuples in
    `MESSAGE_COLUMNS`, `EDIT_COLUMNS` and `TOUCH_COLUMNS` order."""
    agent, session_id = session.agent, session.session_id
    # Every message row starts with these two values; joined once for all the digests of the session.
    head = f"{agent}\x1f{session_id}\x1f"
    messages: list[Row] = []
    touched: dict[tuple[str, str], None] = {}
    ids: set[str] = set()
    for ordinal, message in enumerate(session.messages):
        message_id = message.message_id
        if message_id in ids:
            continue
        ids.add(message_id)
        text, tools, paths = _message_text(message)
        when = None if message.timestamp is None else utc_stamp(message.timestamp)
        prompt, summary, tool_names = int(message.is_prompt), int(message.is_summary), " ".join(tools)
        # The string `_digest` joins for these values, written out (the generic `_digest` was 30% of this
        # function in a profile; session_rows went from 20.6 to 26-28 MB of text per CPU s).
        joined = (
            f"{head}{message_id}\x1f{ordinal}\x1f{_NONE if message.role is None else message.role}\x1f"
            f"{_NONE if when is None else when}\x1f{prompt}\x1f{summary}\x1f{tool_names}\x1f{text}"
        )
        messages.append(
            (
                agent,
                session_id,
                message_id,
                ordinal,
                message.role,
                when,
                prompt,
                summary,
                tool_names,
                text,
                _hash(joined),
            )
        )
        if paths:
            touched.update(((message_id, p), None) for p in paths)
    edits: list[Row] = []
    for ordinal, edit in enumerate(session.edits):
        added = "\n".join(line.text for line in edit.added) if edit.added else edit.new_text
        values = (
            agent,
            session_id,
            ordinal,
            edit.message_id,
            edit.call_id,
            edit.path,
            edit.tool,
            edit.kind,
            stamp(edit.timestamp),
            added,
        )
        edits.append((*values, _digest(values)))
        touched[(edit.message_id, _slashed(edit.path))] = None
    touches = [(agent, session_id, message_id, path, path[::-1]) for message_id, path in touched if path]
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
            if (
                isinstance(value, str)
                and name.lower() in _PATH_KEYS
                and value
                and "\n" not in value
                and len(value) < 4096
            ):
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


def session_row(session: Session) -> Row:
    """The `sessions` row of a session, in `SESSION_COLUMNS` order."""
    return (
        session.agent,
        session.session_id,
        session.cwd,
        stamp(session.started_at),
        stamp(session.ended_at),
        len(session.messages),
        len(session.edits),
        str(session.transcript),
        session.parent_session_id,
        session.agent_version,
    )


def _digest(values: Row) -> str:
    """A hash of a row's values in column order; detects changed rows."""
    return _hash("\x1f".join([_NONE if value is None else str(value) for value in values]))


def _hash(joined: str) -> str:
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
