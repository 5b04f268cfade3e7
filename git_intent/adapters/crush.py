"""Crush (charmbracelet/crush) sessions: the SQLite store `<project>/.crush/crush.db`.

Where: the `.crush` folder closest above the working directory within the project (Crush creates it in the
working directory when there is none), or the `options.data_directory` of the project's `crush.json` /
`.crush.json`; the store is always `crush.db` in that folder (internal/config/load.go, internal/db/connect.go
of Crush at commit 37f36e9, August 2026). One store holds every session of its project; it is opened read-only
(`transcripts.sqlite_store`) and Crush, which writes it in WAL mode, is never blocked. Crush records neither a
working directory nor its version with a session: the project is the folder holding `.crush`, and the corpus
sample is a documented sample built with Crush's own migrations and the part shapes its code writes.

Tables (internal/db/migrations): `sessions (id, parent_session_id, title, …, created_at)`, `messages (id,
session_id, role, parts, model, provider, created_at, is_summary_message, …)` with times in epoch seconds.
`parts` is a JSON list of `{"type", "data"}`: `text {text}`, `reasoning {thinking}`, `tool_call {id, name,
input (JSON text), finished}`, `tool_result {tool_call_id, name, content, metadata (JSON text), is_error}`,
`finish`, `image_url`, `binary` and `shell_command` (a `!command` the user ran). Roles are user, assistant,
tool (a message of tool results) and system. `message_id` is Crush's message id; a sub-agent's session names
its parent.

Edits come from the tool results' metadata: `edit {file_path, old_string, new_string}` and `multiedit
{file_path, edits}` report the whole file before and after (`old_content`/`new_content`: exact lines and
numbers), `write {file_path, content}` a unified `diff`; without metadata the call's arguments are used, and
`bash {command, working_dir}` goes through the shell reader. A call whose result `is_error` wrote nothing.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.errors import UnreadableFileError
from ..core.values import Edit, Message, ParseStats, Part, Session, epoch_timestamp
from ..git.worktree import read_worktree_file
from ..transcripts import shell
from ..transcripts.edits import before_after, diffed, replacement, replacements, whole_file
from ..transcripts.jsonl import loads, one_record, written_since
from ..transcripts.sqlite_store import open_read_only, reading, sniff_store, table_columns

NAME = "crush"
MULTI_SESSION = True  # one store holds every session of its project
# Crush stores no version with its sessions: there is nothing on disk to compare.
NEWEST_TESTED: str | None = None
DATA_DIR = ".crush"
STORE = "crush.db"
EDIT_TOOLS = frozenset({"edit", "multiedit", "write"})
SHELL_TOOL = "bash"
_QUIET = frozenset({"finish", "image_url", "binary", "shell_command"})
CONFIG_BYTES = 1 << 20  # a project configuration larger than this is not Crush's


def locations(root: Path) -> list[str]:
    """Where `discover` looks: the store of `root` and of each folder above it (and a `data_directory` its
    configuration names)."""
    return [f"{root / DATA_DIR / STORE} (or the closest {DATA_DIR}/{STORE} above it)"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """The stores of `root` and of the folders above it (Crush uses the closest `.crush`), and the one a
    project configuration's `options.data_directory` names, written at or after `since` (the `-wal`
    counts)."""
    found: list[Path] = [folder / DATA_DIR / STORE for folder in (root, *root.parents)]
    for name in ("crush.json", ".crush.json"):
        try:
            text = read_worktree_file(root, name, limit=CONFIG_BYTES)
            config = json.loads(text) if text is not None else None
        except (UnreadableFileError, ValueError):
            continue
        options = config.get("options") if isinstance(config, dict) else None
        folder = options.get("data_directory") if isinstance(options, dict) else None
        if isinstance(folder, str) and folder:
            found.append((root / Path(folder).expanduser()) / STORE)
    for store in dict.fromkeys(found):
        if store.is_file() and any(written_since([store, store.with_name(store.name + "-wal")], since)):
            yield store


def sniff(path: Path) -> bool:
    """True for a SQLite store with Crush's tables (`sessions` with a `title`, `messages` with `session_id`,
    `role` and `parts`), or a damaged database named `crush.db`."""
    return sniff_store(path, _schema, STORE)


def _schema(conn: sqlite3.Connection) -> dict[str, set[str]] | None:
    tables = table_columns(conn, "sessions", "messages")
    if {"id", "title"} <= tables["sessions"] and {"id", "session_id", "role", "parts"} <= tables["messages"]:
        return tables
    return None


def read(path: Path) -> list[Session]:
    """Every session in the store, oldest first. Raises OSError when the file cannot be opened and
    DamagedTranscriptError when SQLite says it is corrupt; a store that is not Crush's gives []."""
    with path.open("rb"):
        pass  # the only OSError: the file cannot be opened
    found: list[Session] = []
    with reading(path, "Crush"), closing(open_read_only(path)) as conn:
        schema = _schema(conn)
        if schema is None:
            return []
        for row in _sessions(conn, schema):
            found.append(_session(path, conn, schema, row))
    return found


def _sessions(conn: sqlite3.Connection, schema: dict[str, set[str]]) -> list[tuple[str, str | None]]:
    parent = "parent_session_id" if "parent_session_id" in schema["sessions"] else "NULL"
    order = "created_at, id" if "created_at" in schema["sessions"] else "id"
    rows = [
        (str(r[0]), r[1] if isinstance(r[1], str) and r[1] else None)
        for r in conn.execute(f"SELECT id, {parent} FROM sessions ORDER BY {order}")
    ]
    known = {session_id for session_id, _ in rows}
    # Messages whose session row is missing still form a session.
    rows += [
        (str(r[0]), None)
        for r in conn.execute("SELECT DISTINCT session_id FROM messages ORDER BY session_id")
        if str(r[0]) not in known
    ]
    return rows


def _session(
    path: Path, conn: sqlite3.Connection, schema: dict[str, set[str]], row: tuple[str, str | None]
) -> Session:
    session_id, parent = row
    columns = schema["messages"]
    wanted = [c for c in ("model", "created_at", "is_summary_message") if c in columns]
    order = "created_at, rowid" if "created_at" in columns else "rowid"
    stats = ParseStats()
    raws: list[tuple[str, str, list[dict[str, Any]], dict[str, Any]]] = []
    for message_id, role, parts, *rest in conn.execute(
        f"SELECT id, role, parts{''.join(', ' + c for c in wanted)} FROM messages WHERE session_id = ? "
        f"ORDER BY {order}",
        (session_id,),
    ):
        stats.records += 1
        decoded = _decode(parts)
        if decoded is None:
            stats.unreadable += 1
            continue
        raws.append(
            (str(message_id).replace(":", "-"), str(role), decoded, dict(zip(wanted, rest, strict=True)))
        )
    results = {
        str(_data(p).get("tool_call_id")): _data(p)
        for _, _, parts, _ in raws
        for p in parts
        if p.get("type") == "tool_result"
    }
    messages: list[Message] = []
    edits: list[Edit] = []
    for message_id, role, parts, extra in raws:
        with one_record(stats):
            message = _message(message_id, role, parts, extra, results, edits, stats)
            if message is not None:
                messages.append(message)
    project = os.path.abspath(path.parent.parent) if path.parent.name == DATA_DIR else None
    return Session(
        agent=NAME,
        session_id=session_id.replace(":", "-"),
        transcript=path,
        cwd=project,
        cwds=[project] if project else [],
        parent_session_id=parent,
        messages=messages,
        edits=edits,
        stats=stats,
    )


def _decode(parts: Any) -> list[dict[str, Any]] | None:
    try:
        value = loads(parts) if isinstance(parts, (str, bytes)) else None
    except ValueError:
        return None
    return [p for p in value if isinstance(p, dict)] if isinstance(value, list) else None


def _message(
    message_id: str,
    role: str,
    raw_parts: list[dict[str, Any]],
    extra: dict[str, Any],
    results: dict[str, dict[str, Any]],
    edits: list[Edit],
    stats: ParseStats,
) -> Message | None:
    if role not in ("user", "assistant", "tool", "system"):
        stats.unknown(f"role:{role}")
        return None
    when = epoch_timestamp(extra.get("created_at"))
    parts: list[Part] = []
    for raw in raw_parts:
        kind, data = raw.get("type"), _data(raw)
        if kind == "text" and isinstance(data.get("text"), str) and data["text"].strip():
            parts.append(Part(kind="text", text=data["text"]))
        elif kind == "reasoning" and isinstance(data.get("thinking"), str) and data["thinking"]:
            parts.append(Part(kind="reasoning", text=data["thinking"]))
        elif kind == "tool_call":
            call_id, name = str(data.get("id") or ""), str(data.get("name") or "")
            parts.append(
                Part(kind="tool_call", tool=name, call_id=call_id or None, text=str(data.get("input") or ""))
            )
            if role == "assistant":
                edits += _edits(name, data.get("input"), results.get(call_id), message_id, call_id, when)
        elif kind == "tool_result":
            answered = data.get("tool_call_id")
            parts.append(
                Part(
                    kind="tool_result",
                    tool=str(data.get("name") or "") or None,
                    call_id=answered if isinstance(answered, str) else None,
                    is_error=data.get("is_error") is True,
                    text=str(data.get("content") or ""),
                )
            )
        elif kind not in _QUIET:
            stats.unknown(f"part:{kind}")
    if not parts:
        return None
    model = extra.get("model")
    return Message(
        message_id=message_id,
        role=role,  # type: ignore[arg-type]  # checked above
        timestamp=when,
        parts=tuple(parts),
        is_summary=bool(extra.get("is_summary_message")),
        is_prompt=role == "user" and any(p.kind == "text" for p in parts),
        model=model if isinstance(model, str) and model and role == "assistant" else None,
    )


def _edits(
    name: str,
    raw_input: Any,
    result: dict[str, Any] | None,
    message_id: str,
    call_id: str,
    when: datetime | None,
) -> list[Edit]:
    """The edits one call made: none when its result `is_error`; from the result's metadata when it reports
    the change, else from the call's input."""
    if result is not None and result.get("is_error") is True:
        return []
    args = _json_object(raw_input)
    if name == SHELL_TOOL:
        command, folder = args.get("command"), args.get("working_dir")
        if not isinstance(command, str):
            return []
        return shell.shell_edits(
            command,
            folder if isinstance(folder, str) and folder else None,
            tool=name,
            message_id=message_id,
            call_id=call_id,
            timestamp=when,
        )
    path = args.get("file_path")
    if name not in EDIT_TOOLS or not isinstance(path, str) or not path:
        return []
    meta = _json_object(result.get("metadata")) if result is not None else {}
    before, after, diff = meta.get("old_content"), meta.get("new_content"), meta.get("diff")
    if isinstance(after, str) and (name != "write" or isinstance(before, str)):
        return [
            before_after(
                path,
                before if isinstance(before, str) else "",
                after,
                tool=name,
                message_id=message_id,
                call_id=call_id,
                timestamp=when,
            )
        ]
    if name == "write":
        content = args.get("content")
        if isinstance(diff, str) and diff.strip():
            return [
                diffed(
                    path,
                    diff,
                    new=content if isinstance(content, str) else "",
                    tool=name,
                    message_id=message_id,
                    call_id=call_id,
                    timestamp=when,
                )
            ]
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
    if name == "multiedit":
        many = args.get("edits")
        pairs = (
            [
                (str(e.get("old_string", "")), str(e.get("new_string", "")))
                for e in many
                if isinstance(e, dict)
            ]
            if (isinstance(many, list))
            else []
        )
        return [replacements(path, pairs, tool=name, message_id=message_id, call_id=call_id, timestamp=when)]
    old, new = args.get("old_string"), args.get("new_string")
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


def _json_object(value: Any) -> dict[str, Any]:
    """A JSON object given as text (Crush keeps tool inputs and result metadata as JSON strings), else {}."""
    if isinstance(value, dict):
        return value
    try:
        decoded = loads(value) if isinstance(value, str) and value else None
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


def _data(part: dict[str, Any]) -> dict[str, Any]:
    data = part.get("data")
    return data if isinstance(data, dict) else {}
