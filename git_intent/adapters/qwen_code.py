"""Qwen Code (QwenLM/qwen-code, a fork of Gemini CLI) chat recordings:
`~/.qwen/projects/<work tree, each non-alphanumeric → '-'>/chats/<session id>.jsonl`.

Where: the runtime folder is `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (`Storage` in
packages/core/src/config/storage.ts); a project's folder is its root with every character outside
[A-Za-z0-9] turned into '-' (lower-cased first on Windows); background subagents write
`<project>/subagents/<session id>/agent-<id>.jsonl` in the same format. Read from the writer of
`@qwen-code/qwen-code` 0.24.4 (`ChatRecordingService`, packages/core/src/services/chatRecordingService.ts);
the corpus samples are a documented sample synthesized from that code and agent-sessions' fixtures.

Each line is a `ChatRecord`: `{uuid, parentUuid, sessionId, timestamp, type: "user" | "assistant" |
"tool_result" | "system", subtype?, cwd, version, gitBranch?, message?: {role, parts}, model?,
toolCallResult?: {callId, resultDisplay, error, …}, systemPayload?}`. Unlike Gemini CLI's chats, records
link to their parents by `parentUuid` (a tree, for rewinding) and the message is GenAI `Content` (parts read
by `transcripts.genai`, shared with the Gemini CLI adapter). `message_id` is the record's `uuid`; a record
whose `uuid` came before replaces it in place. A user record with a subtype (a notification, a cron prompt,
a goal's runtime message) is a system message; what the user typed is `systemPayload.displayText` when
recorded (the parts add hook context). `system` records (telemetry, slash commands, compression, titles)
carry nothing to quote. Every branch is kept, in file order: a rewound branch still wrote its files.

Edits: `edit {file_path, old_string, new_string}` (`replace` before the rename) and `write_file {file_path,
content}`, with the tool result's `resultDisplay` `FileDiff` (exact lines and numbers) when recorded, else the
call's arguments; `run_shell_command {command, directory?}` through the shell reader. A call whose result
carries an `error` wrote nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any

from ..core.values import Edit, Message, ParseStats, Part, Session, parse_timestamp
from ..transcripts import shell
from ..transcripts.edits import replacement, whole_file
from ..transcripts.genai import as_dict, file_diff_added, parts_of, str_of
from ..transcripts.jsonl import head_records, iter_records, one_record, recognised, written_since

NAME = "qwen-code"
# The version whose writer the documented sample follows; `doctor` says when recordings on disk are newer.
NEWEST_TESTED = "0.24.4"
EDIT_TOOLS = frozenset({"edit", "replace", "write_file"})
SHELL_TOOL = "run_shell_command"
TYPES = frozenset({"user", "assistant", "tool_result", "system"})
_PATH_KEYS = ("file_path", "absolute_path", "path")


def runtime_dir() -> Path:
    """`$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (a leading `~` expanded)."""
    for name in ("QWEN_RUNTIME_DIR", "QWEN_HOME"):
        env = os.environ.get(name)
        if env:
            return Path(env).expanduser()
    return Path.home() / ".qwen"


def encode_project(root: PurePath | str) -> str:
    """Qwen Code's project folder name: every character outside [A-Za-z0-9] turned into '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(root))


def locations(root: Path) -> list[str]:
    """Where `discover` looks for `root`'s chats, as a path pattern of this machine."""
    return [f"{runtime_dir() / 'projects' / encode_project(root)}*/chats/*.jsonl"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Chats and subagent transcripts of projects at `root`, below it or above it, written at or after
    `since`. Folder names are lossy and lower-cased on Windows: they are compared case-insensitively and by
    prefix both ways; membership is decided later from the records' `cwd`."""
    projects = runtime_dir() / "projects"
    if not projects.is_dir():
        return
    mine = {encode_project(r).casefold() for r in {root, root.resolve()}}
    found: list[Path] = []
    for folder in sorted(p for p in projects.iterdir() if p.is_dir()):
        name = folder.name.casefold()
        if any(name == m or name.startswith(m + "-") or m.startswith(name + "-") for m in mine):
            found += [*folder.glob("chats/*.jsonl"), *folder.glob("subagents/*/*.jsonl")]
    yield from written_since(sorted(found), since)


def sniff(path: Path) -> bool:
    """True when the first records are shaped as chat records (a string `type` and a `uuid` or `sessionId`;
    all but one, as one may be damaged), and more of them hold a GenAI message (`message.parts` a list, a role
    of "user" or "model") or a `toolCallResult` than carry Codex's `payload` or Gemini CLI's `projectHash`."""
    if path.suffix != ".jsonl":
        return False
    return recognised(
        head_records(path, limit=10), _shaped, _genai, lambda r: "payload" in r or "projectHash" in r
    )


def _shaped(record: dict[str, Any]) -> bool:
    return isinstance(record.get("type"), str) and (
        "uuid" in record or isinstance(record.get("sessionId"), str)
    )


def _genai(record: dict[str, Any]) -> bool:
    body = record.get("message")
    return isinstance(record.get("toolCallResult"), dict) or (
        isinstance(body, dict)
        and isinstance(body.get("parts"), list)
        and body.get("role") in ("user", "model")
    )


def read(path: Path) -> list[Session]:
    """The recording in `path` as one session; raises OSError only when it cannot be opened. The session id
    is the first `sessionId` (later ones become aliases), else the file name; a subagent's transcript
    (`subagents/<session id>/agent-*.jsonl`) names that session its parent."""
    stats = ParseStats()
    records: dict[str, dict[str, Any]] = {}
    ids: list[str] = []
    cwds: list[str] = []
    version: str | None = None
    for record in iter_records(path, stats):
        with one_record(stats):
            kind = record.get("type")
            if kind not in TYPES:
                stats.unknown(str(kind))
                continue
            session_id, cwd, wrote = record.get("sessionId"), record.get("cwd"), record.get("version")
            if isinstance(session_id, str) and session_id and session_id not in ids:
                ids.append(session_id)
            if isinstance(cwd, str) and cwd and cwd not in cwds:
                cwds.append(cwd)
            if isinstance(wrote, str) and wrote and wrote != "unknown":
                version = wrote
            key = record.get("uuid")
            records[key if isinstance(key, str) and key else f"r{stats.records}"] = record
    results = {
        str(r["toolCallResult"].get("callId")): r
        for r in records.values()
        if isinstance(r.get("toolCallResult"), dict)
    }
    messages: list[Message] = []
    edits: list[Edit] = []
    for key, record in records.items():
        with one_record(stats):
            message = _message(key.replace(":", "-"), record, results, edits)
            if message is not None:
                messages.append(message)
    nested = path.parent.parent.name == "subagents"
    return [
        Session(
            agent=NAME,
            session_id=ids[0].replace(":", "-") if ids else path.stem,
            transcript=path,
            cwd=cwds[0] if cwds else None,
            cwds=cwds,
            aliases=ids[1:],
            parent_session_id=path.parent.name if nested else None,
            agent_version=version,
            messages=messages,
            edits=edits,
            stats=stats,
        )
    ]


def _message(
    message_id: str, record: dict[str, Any], results: dict[str, dict[str, Any]], edits: list[Edit]
) -> Message | None:
    kind, when = record["type"], parse_timestamp(record.get("timestamp"))
    if kind == "system":
        return None
    parts = [p for p in parts_of(as_dict(record.get("message")).get("parts")) if p.text or p.kind != "text"]
    if kind == "assistant":
        raw = as_dict(record.get("message")).get("parts")
        for item in raw if isinstance(raw, list) else []:
            call = as_dict(as_dict(item).get("functionCall"))
            if call:
                edits += _edits(call, results.get(str(call.get("id"))), message_id, when)
        model = str_of(record.get("model"))
        return (
            Message(message_id=message_id, role="assistant", timestamp=when, parts=tuple(parts), model=model)
            if parts
            else None
        )
    if kind == "tool_result":
        return (
            Message(message_id=message_id, role="tool", timestamp=when, parts=tuple(parts)) if parts else None
        )
    shown = str_of(as_dict(record.get("systemPayload")).get("displayText"))
    if shown and shown.strip():
        parts = [Part(kind="text", text=shown)]
    if not parts:
        return None
    if record.get("subtype") not in (None, "mid_turn_user_message", "at_command", "user_text_elements"):
        return Message(message_id=message_id, role="system", timestamp=when, parts=tuple(parts))
    if all(p.kind == "tool_result" for p in parts):
        return Message(message_id=message_id, role="tool", timestamp=when, parts=tuple(parts))
    return Message(
        message_id=message_id,
        role="user",
        timestamp=when,
        parts=tuple(parts),
        is_prompt=any(p.kind == "text" and p.text.strip() for p in parts),
    )


def _edits(
    call: dict[str, Any], result: dict[str, Any] | None, message_id: str, when: datetime | None
) -> list[Edit]:
    """The edits one function call (`{id, name, args}`) made: none when its result carries an error; from the
    result's `FileDiff` when recorded, else from the call's arguments."""
    name, call_id = str(call.get("name")), str_of(call.get("id"))
    info = as_dict(result.get("toolCallResult")) if result is not None else {}
    if (
        info.get("error")
        or info.get("status") in ("error", "cancelled")
        or any(p.is_error for p in parts_of(as_dict(result.get("message")).get("parts") if result else None))
    ):
        return []
    args = as_dict(call.get("args"))
    stamp = parse_timestamp(result.get("timestamp")) if result is not None else None
    if name == SHELL_TOOL:
        command, folder = args.get("command"), args.get("directory")
        if not isinstance(command, str) or result is None:
            return []  # a command not known to have run wrote nothing known
        return shell.shell_edits(
            command,
            folder if isinstance(folder, str) else None,
            tool=name,
            message_id=message_id,
            call_id=call_id,
            timestamp=stamp or when,
        )
    display = as_dict(info.get("resultDisplay"))
    path = next(
        (args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), display.get("filePath")
    )
    if name not in EDIT_TOOLS or not isinstance(path, str) or not path:
        return []
    original, after = display.get("originalContent"), display.get("newContent")
    added = file_diff_added(display)
    if name == "write_file":
        content = after if isinstance(after, str) else str_of(args.get("content")) or ""
        edit = whole_file(
            path,
            content,
            tool=name,
            message_id=message_id,
            call_id=call_id,
            timestamp=stamp or when,
            created=not original,
        )
    else:
        edit = replacement(
            path,
            str_of(args.get("old_string")) or "",
            str_of(args.get("new_string")) or "",
            tool=name,
            message_id=message_id,
            call_id=call_id,
            timestamp=stamp or when,
        )
    if added is None:
        return [edit]
    return [
        Edit(
            path=edit.path,
            tool=name,
            message_id=message_id,
            call_id=call_id,
            timestamp=edit.timestamp,
            kind=edit.kind,
            old_text=original if isinstance(original, str) else edit.old_text,
            new_text=edit.new_text,
            added=tuple(added),
        )
    ]
