"""Goose (block/goose) sessions: the SQLite store `<data>/sessions/sessions.db`.

Where: `$GOOSE_PATH_ROOT/data` when that is an absolute path; else `$XDG_DATA_HOME/goose` (default
`~/.local/share/goose`) on Linux and macOS, `%APPDATA%\\Block\\goose\\data` on Windows (`Paths` in
crates/goose/src/config/paths.rs, the `etcetera` app strategy). One store holds every project's sessions:
`read_project` reads those of one work tree (`sessions.working_dir`). It is opened read-only
(`transcripts.sqlite_store`), never blocking Goose. Goose records no version with a session; the corpus sample
is a documented sample built with the schema of session_manager.rs and migrations.rs (schema version 13) and
the message shapes of crates/goose/src/conversation/message.

Tables: `sessions (id "YYYYMMDD_N", name, working_dir, session_type, created_at, updated_at, …)` and
`messages (id, message_id?, session_id, role, content_json, created_timestamp (epoch seconds), metadata_json,
…)`. `content_json` is a list of `MessageContent`, tagged by `type`: `text {text}`, `thinking {thinking}`,
`toolRequest {id, toolCall: {status: "success", value: {name, arguments}} | {status: "error", error}}`,
`toolResponse {id, toolResult: {status, value: {content, isError} | [content]}}`, and images,
confirmations, notifications, which carry nothing to quote. `message_id` is the row's `message_id` (schema 7
and later), else `m<row id>`. A user message of tool responses only is a tool message; one not visible to
the user (`metadata_json.userVisible` false) is not what the user typed.

Edits: the developer extension's `write {path, content}`, `edit {path, before, after}` and `shell {command}`
(Goose since 2026), and the older `developer__text_editor {command: write | str_replace | insert, path,
file_text, old_str, new_str, insert_line}` and `developer__shell {command}`; relative paths are the
session's working directory's. A call whose response is an error wrote nothing.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.values import (
    AddedLine,
    Edit,
    Message,
    ParseStats,
    Part,
    Session,
    epoch_timestamp,
    parse_timestamp,
)
from ..transcripts import shell
from ..transcripts.edits import replacement, whole_file
from ..transcripts.jsonl import loads, one_record, written_since
from ..transcripts.sqlite_store import open_read_only, reading, sniff_store, table_columns

NAME = "goose"
MULTI_SESSION = True  # one store holds every session of every project
# Goose stores no version with its sessions (`schema_version` is the store's, 13 in the sample).
NEWEST_TESTED: str | None = None
STORE = "sessions.db"
SHELL_TOOLS = frozenset({"shell"})
_QUIET = frozenset(
    {
        "image",
        "redactedThinking",
        "toolConfirmationRequest",
        "actionRequired",
        "frontendToolRequest",
        "systemNotification",
    }
)


def data_dir() -> Path:
    """Goose's data folder on this platform (see the module docstring)."""
    root = os.environ.get("GOOSE_PATH_ROOT")
    if root and os.path.isabs(root):
        return Path(root) / "data"
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "Block" / "goose" / "data"
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share") / "goose"


def locations(root: Path) -> list[str]:
    """Where `discover` looks: the one store of every project's sessions."""
    return [str(data_dir() / "sessions" / STORE)]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """The store, when it (or its `-wal`) was written at or after `since`; which of its sessions are this work
    tree's is decided by `read_project`."""
    store = data_dir() / "sessions" / STORE
    if store.is_file() and any(written_since([store, store.with_name(store.name + "-wal")], since)):
        yield store


def sniff(path: Path) -> bool:
    """True for a SQLite store with Goose's tables (`sessions` with a `working_dir`, `messages` with
    `session_id`, `role` and `content_json`), or a damaged database named `sessions.db`."""
    return sniff_store(path, _schema, STORE)


def _schema(conn: sqlite3.Connection) -> dict[str, set[str]] | None:
    tables = table_columns(conn, "sessions", "messages")
    if {"id", "working_dir"} <= tables["sessions"] and {"session_id", "role", "content_json"} <= tables[
        "messages"
    ]:
        return tables
    return None


def read(path: Path) -> list[Session]:
    """Every session in the store, oldest first. Raises OSError when the file cannot be opened and
    DamagedTranscriptError when SQLite says it is corrupt; a store that is not Goose's gives []."""
    return read_project(path)


def read_project(
    path: Path, project_id: str | None = None, root: Path | None = None, since: datetime | None = None
) -> list[Session]:
    """The sessions of the store whose working directory is `root` or below it (all, without `root`),
    updated at or after `since` (by `sessions.updated_at`, else their newest message). Only chosen sessions
    are parsed; `project_id` is not Goose's notion and is ignored."""
    with path.open("rb"):
        pass  # the only OSError: the file cannot be opened
    roots = {os.path.normpath(str(root)), os.path.realpath(str(root))} if root is not None else set()
    found: list[Session] = []
    with reading(path, "Goose"), closing(open_read_only(path)) as conn:
        schema = _schema(conn)
        if schema is None:
            return []
        for session_id, folder, updated in _sessions(conn, schema):
            if roots and not (folder and _under(folder, roots)):
                continue
            if since is not None and updated is not None and updated < since:
                continue
            session = _session(path, conn, schema, session_id, folder)
            end = session.ended_at
            if since is None or updated is not None or end is None or end >= since:
                found.append(session)
    return found


def _under(folder: str, roots: set[str]) -> bool:
    here = os.path.normpath(folder)
    return any(here == r or here.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _sessions(
    conn: sqlite3.Connection, schema: dict[str, set[str]]
) -> list[tuple[str, str | None, datetime | None]]:
    updated = "updated_at" if "updated_at" in schema["sessions"] else "NULL"
    order = "created_at, id" if "created_at" in schema["sessions"] else "id"
    rows = [
        (str(r[0]), r[1] if isinstance(r[1], str) and r[1] else None, _sql_time(r[2]))
        for r in conn.execute(f"SELECT id, working_dir, {updated} FROM sessions ORDER BY {order}")
    ]
    known = {row[0] for row in rows}
    rows += [
        (str(r[0]), None, None)
        for r in conn.execute("SELECT DISTINCT session_id FROM messages ORDER BY 1")
        if str(r[0]) not in known
    ]
    return rows


def _sql_time(value: Any) -> datetime | None:
    """A SQLite `CURRENT_TIMESTAMP` ("YYYY-MM-DD HH:MM:SS", UTC) or an RFC 3339 string."""
    return parse_timestamp(value.replace(" ", "T", 1)) if isinstance(value, str) else epoch_timestamp(value)


def _session(
    path: Path, conn: sqlite3.Connection, schema: dict[str, set[str]], session_id: str, folder: str | None
) -> Session:
    columns = schema["messages"]
    wanted = [c for c in ("message_id", "created_timestamp", "metadata_json") if c in columns]
    stats = ParseStats()
    raws: list[tuple[str, str, list[dict[str, Any]], dict[str, Any]]] = []
    for row_id, role, content, *rest in conn.execute(
        f"SELECT id, role, content_json{''.join(', ' + c for c in wanted)} FROM messages WHERE session_id "
        "= ? ORDER BY id",
        (session_id,),
    ):
        stats.records += 1
        extra = dict(zip(wanted, rest, strict=True))
        decoded = _json(content)
        if not isinstance(decoded, list):
            stats.unreadable += 1
            continue
        own = extra.get("message_id")
        message_id = own if isinstance(own, str) and own else f"m{row_id}"
        raws.append(
            (message_id.replace(":", "-"), str(role), [c for c in decoded if isinstance(c, dict)], extra)
        )
    failed = {
        str(c.get("id"))
        for _, _, contents, _ in raws
        for c in contents
        if c.get("type") == "toolResponse" and _failed(c.get("toolResult"))
    }
    messages: list[Message] = []
    edits: list[Edit] = []
    for message_id, role, contents, extra in raws:
        with one_record(stats):
            message = _message(message_id, role, contents, extra, folder, failed, edits, stats)
            if message is not None:
                messages.append(message)
    return Session(
        agent=NAME,
        session_id=session_id.replace(":", "-"),
        transcript=path,
        cwd=folder,
        cwds=[folder] if folder else [],
        messages=messages,
        edits=edits,
        stats=stats,
    )


def _failed(result: Any) -> bool:
    """Whether a `toolResult` is an error: `{"status": "error"}`, or a result marked `isError`."""
    if not isinstance(result, dict):
        return False
    value = result.get("value")
    return result.get("status") == "error" or (isinstance(value, dict) and value.get("isError") is True)


def _message(
    message_id: str,
    role: str,
    contents: list[dict[str, Any]],
    extra: dict[str, Any],
    folder: str | None,
    failed: set[str],
    edits: list[Edit],
    stats: ParseStats,
) -> Message | None:
    if role not in ("user", "assistant"):
        stats.unknown(f"role:{role}")
        return None
    when = epoch_timestamp(extra.get("created_timestamp"))
    parts: list[Part] = []
    for item in contents:
        kind = item.get("type")
        if kind == "text" and isinstance(item.get("text"), str) and item["text"].strip():
            parts.append(Part(kind="text", text=item["text"]))
        elif kind == "thinking" and isinstance(item.get("thinking"), str) and item["thinking"]:
            parts.append(Part(kind="reasoning", text=item["thinking"]))
        elif kind == "toolRequest":
            call = item.get("toolCall")
            value = call.get("value") if isinstance(call, dict) else None
            call_id = str(item.get("id") or "")
            name = str(value.get("name") or "") if isinstance(value, dict) else ""
            args = value.get("arguments") if isinstance(value, dict) else None
            parts.append(
                Part(kind="tool_call", tool=name or None, call_id=call_id or None, text=json.dumps(args))
            )
            if role == "assistant" and call_id not in failed and isinstance(args, dict):
                edits += _edits(name, args, folder, message_id, call_id, when)
        elif kind == "toolResponse":
            result = item.get("toolResult")
            answered = item.get("id")
            parts.append(
                Part(
                    kind="tool_result",
                    call_id=answered if isinstance(answered, str) else None,
                    is_error=_failed(result),
                    text=_result_text(result),
                )
            )
        elif kind not in _QUIET:
            stats.unknown(f"content:{kind}")
    if not parts:
        return None
    if role == "user" and all(p.kind == "tool_result" for p in parts):
        return Message(message_id=message_id, role="tool", timestamp=when, parts=tuple(parts))
    meta = _json(extra.get("metadata_json"))
    visible = not (isinstance(meta, dict) and meta.get("userVisible") is False)
    return Message(
        message_id=message_id,
        role=role,  # type: ignore[arg-type]  # checked above
        timestamp=when,
        parts=tuple(parts),
        is_prompt=role == "user" and visible and any(p.kind == "text" for p in parts),
    )


def _result_text(result: Any) -> str:
    if not isinstance(result, dict):
        return ""
    if result.get("status") == "error":
        return str(result.get("error") or "")
    value = result.get("value")
    content = value.get("content") if isinstance(value, dict) else value
    items = content if isinstance(content, list) else []
    return "\n".join(
        str(c.get("text")) for c in items if isinstance(c, dict) and isinstance(c.get("text"), str)
    )


def _edits(
    name: str, args: dict[str, Any], folder: str | None, message_id: str, call_id: str, when: datetime | None
) -> list[Edit]:
    """The edits one tool request made (the extension prefix `developer__` is dropped from its name)."""
    base = name.rsplit("__", 1)[-1]
    if base in SHELL_TOOLS:
        command = args.get("command")
        return (
            shell.shell_edits(
                command, folder, tool=name, message_id=message_id, call_id=call_id, timestamp=when
            )
            if isinstance(command, str)
            else []
        )
    path = args.get("path")
    if not isinstance(path, str) or not path:
        return []
    command = args.get("command") if base == "text_editor" else base
    if command == "write":
        content = args.get("content", args.get("file_text"))
        return [
            whole_file(
                path,
                content if isinstance(content, str) else "",
                tool=name,
                message_id=message_id,
                call_id=call_id,
                timestamp=when,
            )
        ]
    if command in ("edit", "str_replace"):
        old, new = args.get("before", args.get("old_str")), args.get("after", args.get("new_str"))
        return [
            replacement(
                path,
                old if isinstance(old, str) else "",
                new if isinstance(new, str) else "",
                tool=name,
                message_id=message_id,
                call_id=call_id,
                timestamp=when,
            )
        ]
    if command == "insert" and isinstance(args.get("new_str"), str):
        after = args.get("insert_line")
        start = after + 1 if isinstance(after, int) and not isinstance(after, bool) and after >= 0 else None
        lines = args["new_str"].splitlines()
        return [
            Edit(
                path=path,
                tool=name,
                message_id=message_id,
                call_id=call_id,
                timestamp=when,
                new_text=args["new_str"],
                added=tuple(
                    AddedLine(text=t, line=start + i if start else None) for i, t in enumerate(lines)
                ),
            )
        ]
    return []


def _json(value: Any) -> Any:
    try:
        return loads(value) if isinstance(value, (str, bytes)) else None
    except ValueError:
        return None
