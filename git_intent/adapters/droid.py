"""Factory Droid sessions: `~/.factory/sessions/<work tree, '/' → '-'>/<session id>.jsonl`.

Where: `~/.factory/sessions/` (`$FACTORY_HOME` in place of `~/.factory`, the override Droid integrations
honour), one folder per work tree named after its path with every '/' turned into '-'
(`/Users/a/proj` → `-Users-a-proj`), older sessions directly in `sessions/`; a `<id>.settings.json` beside
each session holds its model and token counts. The corpus sample is git-ai's test fixture, captured from a
real Droid session (January 2026); Droid's files record no CLI version.

Each line is a record: `{"type": "session_start", "id", "title", "cwd", "owner", "version"}` opens the file
(its `version` is the file format's), then `{"type": "message", "id", "parentId"?, "timestamp", "message":
{"role": "user"|"assistant", "content": [blocks]}}` with Anthropic content blocks (`text`, `thinking`,
`tool_use`, `tool_result`) and `{"type": "todo_state", …}`; other types are counted, not read. `message_id`
is Droid's own record `id`. A user message of tool results only is a tool message; text Droid injects
(`<system-reminder>…</system-reminder>`, the contents of an @-mentioned file) is kept but is not what the
user typed.

Edits: `Create {file_path, content}` (the whole file), `Edit {file_path, old_str, new_str}` (also spelled
`old_string`/`new_string`), `MultiEdit {file_path, edits}`, `ApplyPatch {input}` (an apply_patch envelope)
and `Execute {command}` through the shell reader; a call whose result is an error (`is_error`, or text
opening with "Error") wrote nothing. `Create`, `Edit` and `Execute` follow Droid's documented tools; the
sample shows `ApplyPatch`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core import linear
from ..core.values import Edit, Message, ParseStats, Part, Session, parse_timestamp
from ..transcripts import shell
from ..transcripts.blocks import block_part
from ..transcripts.edits import envelope, replacement, replacements, whole_file
from ..transcripts.jsonl import head_records, iter_records, one_record, recognised, written_since

NAME = "droid"
# Droid records no CLI version in its sessions (`session_start.version` is the file format's, 2).
NEWEST_TESTED: str | None = None
EDIT_TOOLS = frozenset({"Create", "Edit", "MultiEdit", "ApplyPatch"})
SHELL_TOOL = "Execute"
_KNOWN = frozenset({"session_start", "message", "todo_state"})
# RE2 (`linear`): under `re` an unclosed opening tag made each later one scan to the end of the text.
_REMINDER = linear.compile(r"(?s)<system-reminder>.*?</system-reminder>")
_INJECTED = re.compile(r"^Contents of \S")  # an @-mentioned file Droid pastes after the prompt


def factory_dir() -> Path:
    """`$FACTORY_HOME`, else `~/.factory`."""
    env = os.environ.get("FACTORY_HOME")
    return Path(env).expanduser() if env else Path.home() / ".factory"


def encode_project(path: Path | str) -> str:
    """Droid's folder name for a work tree: the path with each '/' turned into '-'."""
    return str(path).replace("/", "-")


def _key(name: str) -> str:
    # Folder names are compared loosely (a Windows path's separators and drive colon, case): over-selecting
    # is fine, the catalog keeps only sessions that name the work tree.
    return re.sub(r"[^0-9a-z]+", "-", name.casefold()).strip("-")


def locations(root: Path) -> list[str]:
    """Where `discover` looks for `root`'s sessions, as path patterns of this machine."""
    sessions = factory_dir() / "sessions"
    return [f"{sessions / encode_project(root)}*/*.jsonl", f"{sessions}/*.jsonl"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Sessions of the work tree `root`, of folders below it or above it, and the older flat files, written
    at or after `since`."""
    sessions = factory_dir() / "sessions"
    if not sessions.is_dir():
        return
    mine = {_key(encode_project(r)) for r in {root, root.resolve()}}
    found = list(sessions.glob("*.jsonl"))
    for folder in sorted(p for p in sessions.iterdir() if p.is_dir()):
        name = _key(folder.name)
        if any(name == m or name.startswith(m + "-") or m.startswith(name + "-") for m in mine):
            found += folder.glob("*.jsonl")
    yield from written_since(sorted(found), since)


def sniff(path: Path) -> bool:
    """True when the first records are shaped as Droid's (a string `type` and a string `id`; all but one,
    as one may be damaged), and more of them are surely Droid's (a `session_start` with a `cwd`, a
    `message` record holding a `message` object with a `role`) than carry another agent's marks (Claude
    Code's `uuid` or `sessionId`, Codex's `payload`, Pi's `session` header or the epoch `timestamp` inside
    its messages)."""
    if path.suffix != ".jsonl":
        return False
    return recognised(
        head_records(path, limit=5),
        lambda r: isinstance(r.get("type"), str) and isinstance(r.get("id"), str),
        lambda r: _marked(r) and not _foreign(r),
        _foreign,
    )


def _foreign(record: dict[str, Any]) -> bool:
    body = record.get("message")
    return (
        bool({"uuid", "sessionId", "payload"} & record.keys())
        or record.get("type") == "session"
        or (isinstance(body, dict) and isinstance(body.get("timestamp"), (int, float)))
    )


def _marked(record: dict[str, Any]) -> bool:
    if record.get("type") == "session_start":
        return isinstance(record.get("cwd"), str)
    body = record.get("message")
    return record.get("type") == "message" and isinstance(body, dict) and isinstance(body.get("role"), str)


def read(path: Path) -> list[Session]:
    """The session in `path`; raises OSError only when it cannot be opened. The session id is
    `session_start.id`, else the file name."""
    stats = ParseStats()
    records: list[dict[str, Any]] = []
    head: dict[str, Any] = {}
    for record in iter_records(path, stats):
        kind = record.get("type")
        if kind == "session_start" and not head:
            head = record
        elif kind == "message":
            records.append(record)
        elif kind not in _KNOWN:
            stats.unknown(str(kind))
    failed = _failed_calls(records)
    messages: list[Message] = []
    edits: list[Edit] = []
    for ordinal, record in enumerate(records, start=1):
        with one_record(stats):
            message = _message(record, ordinal, failed, edits, stats)
            if message is not None:
                messages.append(message)
    cwd = head.get("cwd") if isinstance(head.get("cwd"), str) else None
    session_id = head.get("id") if isinstance(head.get("id"), str) and head.get("id") else path.stem
    return [
        Session(
            agent=NAME,
            session_id=str(session_id).replace(":", "-"),
            transcript=path,
            cwd=cwd,
            cwds=[cwd] if cwd else [],
            messages=messages,
            edits=edits,
            stats=stats,
        )
    ]


def _failed_calls(records: list[dict[str, Any]]) -> set[str]:
    """The ids of tool calls whose result is an error."""
    failed: set[str] = set()
    for record in records:
        body = record.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        for block in content if isinstance(content, list) else []:
            part = (
                block_part(block, "")
                if isinstance(block, dict) and block.get("type") == "tool_result"
                else None
            )
            if (
                part is not None
                and part.call_id
                and (part.is_error or part.text.lstrip().startswith("Error"))
            ):
                failed.add(part.call_id)
    return failed


def _message(
    record: dict[str, Any], ordinal: int, failed: set[str], edits: list[Edit], stats: ParseStats
) -> Message | None:
    body = record["message"]
    role = body.get("role")
    if role not in ("user", "assistant"):
        stats.unknown(f"role:{role}")
        return None
    raw_id = record.get("id")
    message_id = (raw_id if isinstance(raw_id, str) and raw_id else f"r{ordinal}").replace(":", "-")
    when = parse_timestamp(record.get("timestamp"))
    content = body.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    parts: list[Part] = []
    for number, block in enumerate(blocks if isinstance(blocks, list) else [], start=1):
        part = block_part(block, f"{message_id}.{number}")
        if part is None:
            continue
        parts.append(part)
        if part.kind == "tool_call" and role == "assistant" and part.call_id not in failed:
            edits += _edits(str(part.tool), block.get("input"), message_id, str(part.call_id), when)
    if not parts:
        return None
    if role == "user" and all(p.kind == "tool_result" for p in parts):
        return Message(message_id=message_id, role="tool", timestamp=when, parts=tuple(parts))
    typed = any(p.kind == "text" and _typed(p.text) for p in parts)
    return Message(
        message_id=message_id,
        role=role,
        timestamp=when,
        parts=tuple(parts),
        is_prompt=role == "user" and typed,
    )


def _typed(text: str) -> bool:
    """Whether a user text block holds words the user typed (not only a reminder or a pasted file)."""
    rest = _REMINDER.sub("", text).strip()
    return bool(rest) and not _INJECTED.match(rest)


def _edits(name: str, args: Any, message_id: str, call_id: str, when: datetime | None) -> list[Edit]:
    if name == SHELL_TOOL and isinstance(args, dict) and isinstance(args.get("command"), str):
        folder = args.get("workdir", args.get("cwd"))
        return shell.shell_edits(
            args["command"],
            folder if isinstance(folder, str) else None,
            tool=name,
            message_id=message_id,
            call_id=call_id,
            timestamp=when,
        )
    if name == "ApplyPatch":
        text = (
            args
            if isinstance(args, str)
            else next((v for k, v in args.items() if k in ("input", "patch") and isinstance(v, str)), "")
            if isinstance(args, dict)
            else ""
        )
        return envelope(text, tool=name, message_id=message_id, call_id=call_id, timestamp=when)
    if name not in EDIT_TOOLS or not isinstance(args, dict):
        return []
    path = args.get("file_path", args.get("path"))
    if not isinstance(path, str) or not path:
        return []
    if name == "Create":
        content = args.get("content")
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
    if name == "MultiEdit":
        many = args.get("edits")
        pairs = [_pair(e) for e in many if isinstance(e, dict)] if isinstance(many, list) else []
        return [replacements(path, pairs, tool=name, message_id=message_id, call_id=call_id, timestamp=when)]
    old, new = _pair(args)
    return [replacement(path, old, new, tool=name, message_id=message_id, call_id=call_id, timestamp=when)]


def _pair(args: dict[str, Any]) -> tuple[str, str]:
    old = args.get("old_str", args.get("old_string"))
    new = args.get("new_str", args.get("new_string"))
    return (old if isinstance(old, str) else "", new if isinstance(new, str) else "")
