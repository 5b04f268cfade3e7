"""Pi (badlogic/pi-mono, `@mariozechner/pi-coding-agent`) sessions:
`~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`.

Where: `$PI_CODING_AGENT_DIR` (default `~/.pi/agent`) `/sessions/`, one folder per working directory named
`--<path without its leading separator, '/', '\\' and ':' turned into '-'>--`; `$PI_CODING_AGENT_SESSION_DIR`
puts every session directly in that folder instead (`config.ts`, `session-manager.ts` of pi 0.73.1). The
corpus samples are an excerpt of a real session the author of Pi committed as a test fixture (format
version 1, December 2025) and fixtures of git-ai and agent-sessions in version 3.

The first line is the header `{"type": "session", "version", "id", "timestamp", "cwd", "parentSession"?}`;
then entries `{"type", "id", "parentId", "timestamp"}` (versions 2 and 3 link them into a tree for
branching; version 1 has no ids). A `message` entry holds an `AgentMessage`: `user` (content a string or
blocks), `assistant` (`text`, `thinking`, `toolCall {id, name, arguments}` blocks, `model`), `toolResult
{toolCallId, toolName, content, details, isError}`, and the summaries and extension messages pi adds.
`compaction`, `branch_summary`, `model_change`, `thinking_level_change`, `custom`, `custom_message`,
`label` and `session_info` entries carry nothing to quote; other types are counted. `message_id` is the
entry's `id`, else (version 1) `r<N>`, its 1-based ordinal in the file. Every branch's messages are kept,
in file order: a branch left behind still wrote its files.

Edits: `edit {path, edits: [{oldText, newText}]}` (older: `oldText`/`newText` at the top) with its result's
`details.diff` (pi's numbered diff, `+<line number> <text>`: exact lines and numbers; else the texts),
`write {path, content}` (the whole file) and `bash {command}` through the shell reader; a call whose result
`isError` wrote nothing. Paths may be relative to the session's `cwd`. Pi records no CLI version.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
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
from ..transcripts.blocks import block_part, result_text
from ..transcripts.edits import replacements, whole_file
from ..transcripts.jsonl import head_records, iter_records, one_record, recognised, written_since

NAME = "pi"
# Pi writes no CLI version into its sessions (the header's `version` is the file format's, 1 to 3).
NEWEST_TESTED: str | None = None
EDIT_TOOLS = frozenset({"edit", "write"})
SHELL_TOOL = "bash"
_QUIET = frozenset(
    {
        "compaction",
        "branch_summary",
        "model_change",
        "thinking_level_change",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)
_SUMMARIES = frozenset({"branchSummary", "compactionSummary"})
_DIFF_ADDED = re.compile(r"^\+ *(\d+) (.*)$")


def agent_dir() -> Path:
    """`$PI_CODING_AGENT_DIR` (a leading `~` expanded), else `~/.pi/agent`."""
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(env).expanduser() if env else Path.home() / ".pi" / "agent"


def encode_project(cwd: Path | str) -> str:
    """Pi's folder name for a working directory: `--<cwd less its leading separator, [/\\:] → '-'>--`."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", str(cwd))) + "--"


def locations(root: Path) -> list[str]:
    """Where `discover` looks for `root`'s sessions, as path patterns of this machine."""
    flat = os.environ.get("PI_CODING_AGENT_SESSION_DIR")
    return [
        f"{agent_dir() / 'sessions' / encode_project(root)}/*.jsonl",
        *([f"{Path(flat).expanduser()}/*.jsonl"] if flat else []),
    ]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Sessions started in `root`, below it or above it, written at or after `since`; with
    `$PI_CODING_AGENT_SESSION_DIR`, every session in that folder (the catalog keeps this work tree's)."""
    found: list[Path] = []
    flat = os.environ.get("PI_CODING_AGENT_SESSION_DIR")
    if flat and Path(flat).expanduser().is_dir():
        found += Path(flat).expanduser().glob("*.jsonl")
    sessions = agent_dir() / "sessions"
    if sessions.is_dir():
        mine = {encode_project(r)[:-2] for r in {root, root.resolve()}}
        for folder in sorted(p for p in sessions.iterdir() if p.is_dir()):
            name = folder.name[:-2] if folder.name.endswith("--") else folder.name
            if any(name == m or name.startswith(m + "-") or m.startswith(name + "-") for m in mine):
                found += folder.glob("*.jsonl")
    yield from written_since(sorted(set(found)), since)


def sniff(path: Path) -> bool:
    """True when the first records are shaped as Pi's (a string `type`; all but one, as one may be
    damaged), and more of them are surely Pi's (a `session` header with a `cwd`, a `message` entry whose
    message carries Pi's epoch `timestamp` or a `toolResult` role) than carry another agent's marks (Claude
    Code's `uuid` or `sessionId`, Codex's `payload`, Droid's `session_start`)."""
    if path.suffix != ".jsonl":
        return False
    return recognised(
        head_records(path, limit=5),
        lambda r: isinstance(r.get("type"), str),
        _marked,
        lambda r: bool({"uuid", "sessionId", "payload"} & r.keys()) or r.get("type") == "session_start",
    )


def _marked(record: dict[str, Any]) -> bool:
    if record.get("type") == "session":
        return isinstance(record.get("cwd"), str)
    body = record.get("message")
    return (
        record.get("type") == "message"
        and isinstance(body, dict)
        and (isinstance(body.get("timestamp"), (int, float)) or body.get("role") == "toolResult")
    )


def read(path: Path) -> list[Session]:
    """The session in `path`; raises OSError only when it cannot be opened. The session id is the header's
    `id`, else the file name; a forked session's `parentSession` file names its parent."""
    stats = ParseStats()
    header: dict[str, Any] = {}
    entries: list[tuple[int, dict[str, Any]]] = []
    for record in iter_records(path, stats):
        kind = record.get("type")
        if kind == "session" and not header:
            header = record
        elif kind == "message" and isinstance(record.get("message"), dict):
            entries.append((stats.records, record))
        elif kind not in _QUIET:
            stats.unknown(str(kind))
    results = _results(entries)
    messages: list[Message] = []
    edits: list[Edit] = []
    for ordinal, record in entries:
        with one_record(stats):
            message = _message(record, ordinal, results, edits, stats)
            if message is not None:
                messages.append(message)
    cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
    session_id = header.get("id") if isinstance(header.get("id"), str) and header.get("id") else path.stem
    parent = header.get("parentSession")
    return [
        Session(
            agent=NAME,
            session_id=str(session_id).replace(":", "-"),
            transcript=path,
            cwd=cwd,
            cwds=[cwd] if cwd else [],
            parent_session_id=_session_of(parent) if isinstance(parent, str) else None,
            messages=messages,
            edits=edits,
            stats=stats,
        )
    ]


def _session_of(parent: str) -> str | None:
    """The session id in a parent session's file name (`<timestamp>_<uuid>.jsonl`)."""
    stem = re.split(r"[/\\]", parent)[-1].removesuffix(".jsonl")
    return stem.rsplit("_", 1)[-1] or None


def _results(entries: list[tuple[int, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Each tool result message, by its `toolCallId`."""
    found: dict[str, dict[str, Any]] = {}
    for _, record in entries:
        body = record["message"]
        if body.get("role") == "toolResult" and isinstance(body.get("toolCallId"), str):
            found[body["toolCallId"]] = body
    return found


def _message(
    record: dict[str, Any],
    ordinal: int,
    results: dict[str, dict[str, Any]],
    edits: list[Edit],
    stats: ParseStats,
) -> Message | None:
    body = record["message"]
    role = body.get("role")
    raw_id = record.get("id")
    message_id = (raw_id if isinstance(raw_id, str) and raw_id else f"r{ordinal}").replace(":", "-")
    when = parse_timestamp(record.get("timestamp")) or epoch_timestamp(body.get("timestamp"))
    content = body.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    blocks = blocks if isinstance(blocks, list) else []
    if role == "toolResult":
        call_id = body.get("toolCallId")
        result = Part(
            kind="tool_result",
            tool=str(body.get("toolName") or "") or None,
            call_id=call_id if isinstance(call_id, str) else None,
            is_error=body.get("isError") is True,
            text=result_text(blocks),
        )
        return Message(message_id=message_id, role="tool", timestamp=when, parts=(result,))
    if role in _SUMMARIES:
        summary = body.get("summary")
        return Message(
            message_id=message_id,
            role="user",
            timestamp=when,
            is_summary=True,
            parts=(Part(kind="text", text=summary if isinstance(summary, str) else ""),),
        )
    if role not in ("user", "assistant"):  # bashExecution (a command the user ran), custom, …
        stats.unknown(f"role:{role}")
        return None
    parts: list[Part] = []
    for number, block in enumerate(blocks, start=1):
        if isinstance(block, dict) and block.get("type") == "toolCall":
            block = {**block, "type": "tool_use", "input": block.get("arguments")}
        part = block_part(block, f"{message_id}.{number}")
        if part is None:
            continue
        parts.append(part)
        if part.kind == "tool_call" and role == "assistant":
            edits += _edits(
                str(part.tool),
                block.get("input"),
                results.get(str(part.call_id)),
                message_id,
                str(part.call_id),
                when,
            )
    parts = [p for p in parts if p.text.strip() or p.kind != "text"]
    if not parts:
        return None
    model = body.get("model")
    return Message(
        message_id=message_id,
        role=role,
        timestamp=when,
        parts=tuple(parts),
        is_prompt=role == "user" and any(p.kind == "text" for p in parts),
        model=model if isinstance(model, str) and role == "assistant" else None,
    )


def _edits(
    name: str, args: Any, result: dict[str, Any] | None, message_id: str, call_id: str, when: datetime | None
) -> list[Edit]:
    """The edits one call made; none when its result is an error."""
    if not isinstance(args, dict) or (result is not None and result.get("isError") is True):
        return []
    if name == SHELL_TOOL:
        command = args.get("command")
        return (
            shell.shell_edits(
                command, None, tool=name, message_id=message_id, call_id=call_id, timestamp=when
            )
            if isinstance(command, str)
            else []
        )
    path = args.get("path", args.get("file_path"))
    if name not in EDIT_TOOLS or not isinstance(path, str) or not path:
        return []
    if name == "write":
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
    many = args.get("edits")
    pairs = (
        [(str(e.get("oldText", "")), str(e.get("newText", ""))) for e in many if isinstance(e, dict)]
        if (isinstance(many, list))
        else []
    )
    if isinstance(args.get("oldText"), str) and isinstance(args.get("newText"), str):
        pairs.append((args["oldText"], args["newText"]))
    edit = replacements(path, pairs, tool=name, message_id=message_id, call_id=call_id, timestamp=when)
    details = result.get("details") if result is not None else None
    diff = details.get("diff") if isinstance(details, dict) else None
    if isinstance(diff, str) and diff.strip():
        added = tuple(
            AddedLine(text=m.group(2), line=int(m.group(1)))
            for m in map(_DIFF_ADDED.match, diff.split("\n"))
            if m
        )
        return [
            Edit(
                path=edit.path,
                tool=edit.tool,
                message_id=message_id,
                call_id=call_id,
                timestamp=when,
                old_text=edit.old_text,
                new_text=edit.new_text,
                added=added,
            )
        ]
    return [edit]
