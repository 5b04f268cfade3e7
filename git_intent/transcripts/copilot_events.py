"""GitHub Copilot's session event log, JSON Lines written by its agent (`"producer": "copilot-agent"`):
Copilot CLI keeps one per session (`~/.copilot/session-state/<id>/events.jsonl`), and VS Code's Copilot Chat
writes the same format for its agent sessions (`GitHub.copilot-chat/transcripts/<id>.jsonl`;
SessionTranscriptService, src/extension/chat/vscode-node/sessionTranscriptService.ts,
microsoft/vscode-copilot-chat 0.42).

A record is `{"type", "data", "id", "timestamp", "parentId"}`. Read: `session.start` (`sessionId`,
`copilotVersion`, `vscodeVersion` in VS Code, `context.cwd`), `user.message` (`content`: what the person
typed), `assistant.message` (`content`, `toolRequests[{toolCallId, name, arguments}]`, `reasoningText`,
`model`) and `tool.execution_complete` (`toolCallId`, `success`, `result.content`). The other types the
writers name (`TYPES_PASSED`) carry nothing a session needs; any other type is counted as unknown. A message's
id is its record's `id`.

Edits: Copilot CLI's `create {path, file_text}`, `edit`/`str_replace {path, old_str, new_str}`, `insert {path,
new_str}`, `str_replace_editor {command, …}` and `apply_patch {input}`; Copilot Chat's `create_file {filePath,
content}`, `replace_string_in_file {filePath, oldString, newString}`, `multi_replace_string_in_file
{replacements}`, `insert_edit_into_file {filePath, code}` (its `...existing code...` lines left out) and
`apply_patch {input}`; `bash` (`shell` in early versions) and `run_in_terminal {command}` through the shell
reader. A call whose execution did not succeed wrote nothing. Tool names and arguments as
src/extension/chatSessions/copilotcli/common/copilotCLITools.ts and src/extension/tools/common/toolNames.ts
name them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.values import AddedLine, Edit, Message, ParseStats, Part, parse_timestamp
from . import shell
from .edits import envelope, replacement, replacements, whole_file
from .jsonl import iter_records, loads, one_record

__all__ = ["EventLog", "read_events", "shaped"]

# Types the writers log that hold nothing a session is read for (turn bounds, usage, hooks, subagent
# bookkeeping).
TYPES_PASSED = frozenset(
    {
        "session.model_change",
        "session.info",
        "session.error",
        "session.usage_checkpoint",
        "session.shutdown",
        "session.auto_mode_resolved",
        "session.truncation",
        "session.resume",
        "system.message",
        "assistant.turn_start",
        "assistant.turn_end",
        "tool.execution_start",
        "hook.start",
        "hook.end",
        "subagent.started",
        "subagent.completed",
        "session.compaction_start",
        "session.compaction_complete",
        "assistant.usage",
    }
)
SHELL_TOOLS = frozenset({"bash", "shell", "run_in_terminal"})


@dataclass
class EventLog:
    """One event log read: its session's id, work tree and agent version (and VS Code's version, set only when
    VS Code wrote it), messages, edits and counts."""

    session_id: str | None = None
    cwd: str | None = None
    version: str | None = None
    vscode_version: str | None = None
    messages: list[Message] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    stats: ParseStats = field(default_factory=ParseStats)
    seen: set[str] = field(default_factory=set, repr=False)


def shaped(record: dict[str, Any]) -> bool:
    """Whether a record is shaped as an event: a dotted string `type`, a `data` object, a `timestamp`."""
    kind = record.get("type")
    return (
        isinstance(kind, str)
        and "." in kind
        and isinstance(record.get("data"), dict)
        and "timestamp" in record
    )


def read_events(path: Path) -> EventLog:
    """The event log in `path`. Raises OSError when it cannot be opened; a record that cannot be read is
    skipped and counted."""
    log = EventLog()
    records = list(iter_records(path, log.stats))
    done = _outcomes(records)
    for record in records:
        log.stats.records += 1
        with one_record(log.stats):
            _record(record, done, log)
    return log


def _outcomes(records: list[dict[str, Any]]) -> dict[str, bool]:
    """Whether each call succeeded, by its id (a call with no outcome recorded is taken as done)."""
    found: dict[str, bool] = {}
    for record in records:
        data = record.get("data")
        if record.get("type") == "tool.execution_complete" and isinstance(data, dict):
            found[str(data.get("toolCallId"))] = data.get("success") is not False
    return found


def _record(record: dict[str, Any], done: dict[str, bool], log: EventLog) -> None:
    kind, data = record.get("type"), record.get("data")
    if not isinstance(kind, str) or not isinstance(data, dict):
        log.stats.unreadable += 1
        return
    when = parse_timestamp(record.get("timestamp"))
    record_id = record.get("id")
    message_id = record_id.replace(":", "-") if isinstance(record_id, str) and record_id else ""
    if (
        not message_id or message_id in log.seen
    ):  # ids are the writer's uuids; a copied or trimmed log repeats them
        message_id = f"r{log.stats.records}"
    log.seen.add(message_id)
    if kind == "session.start":
        context = data.get("context")
        cwd = context.get("cwd") if isinstance(context, dict) else None
        log.session_id = _text(data.get("sessionId")) or log.session_id
        log.cwd = _text(cwd) or log.cwd
        log.version = _text(data.get("copilotVersion")) or log.version
        log.vscode_version = _text(data.get("vscodeVersion")) or log.vscode_version
    elif kind == "user.message" and _text(data.get("content")):
        log.messages.append(
            Message(
                message_id=message_id,
                role="user",
                timestamp=when,
                parts=(Part(kind="text", text=str(data["content"])),),
                is_prompt=True,
            )
        )
    elif kind == "assistant.message":
        _assistant(data, message_id, when, done, log)
    elif kind == "tool.execution_complete":
        result = data.get("result")
        text = (
            result.get("content", result.get("text_result_for_llm")) if isinstance(result, dict) else result
        )
        log.messages.append(
            Message(
                message_id=message_id,
                role="tool",
                timestamp=when,
                parts=(
                    Part(
                        kind="tool_result",
                        call_id=_text(data.get("toolCallId")),
                        text=text if isinstance(text, str) else "",
                        is_error=data.get("success") is False,
                    ),
                ),
            )
        )
    elif kind not in TYPES_PASSED:
        log.stats.unknown(kind)


def _assistant(
    data: dict[str, Any], message_id: str, when: datetime | None, done: dict[str, bool], log: EventLog
) -> None:
    parts: list[Part] = []
    if _text(data.get("reasoningText")):
        parts.append(Part(kind="reasoning", text=str(data["reasoningText"])))
    if _text(data.get("content")):
        parts.append(Part(kind="text", text=str(data["content"])))
    requests = data.get("toolRequests")
    for number, request in enumerate(requests if isinstance(requests, list) else [], start=1):
        if not isinstance(request, dict):
            continue
        name, call_id = (
            str(request.get("name") or ""),
            _text(request.get("toolCallId")) or f"{message_id}.{number}",
        )
        args = request.get("arguments")
        args = loads(args) if isinstance(args, str) and args.lstrip().startswith("{") else args
        args = args if isinstance(args, dict) else {}
        parts.append(Part(kind="tool_call", tool=name, call_id=call_id, text=json.dumps(args)))
        if done.get(call_id, True):
            log.edits += _edits(name, args, message_id, call_id, when, log.cwd)
    if parts:
        model = data.get("model")
        log.messages.append(
            Message(
                message_id=message_id,
                role="assistant",
                timestamp=when,
                parts=tuple(parts),
                model=model if isinstance(model, str) else None,
            )
        )


def _edits(
    name: str, args: dict[str, Any], message_id: str, call_id: str, when: datetime | None, cwd: str | None
) -> list[Edit]:
    """The edits one call made; [] for a tool that writes no file."""
    where: dict[str, Any] = {"tool": name, "message_id": message_id, "call_id": call_id, "timestamp": when}
    if name == "str_replace_editor":  # the older CLI's one editor tool, its operation in `command`
        name = str(args.get("command") or "")
    if name in SHELL_TOOLS:
        command = args.get("command")
        return shell.shell_edits(command, cwd, **where) if isinstance(command, str) else []
    if name == "apply_patch":
        text = args.get("input", args.get("patch"))
        return envelope(text, **where) if isinstance(text, str) else []
    if name == "multi_replace_string_in_file":
        return _multi(args.get("replacements"), where)
    path = args.get("path", args.get("filePath"))
    if not isinstance(path, str) or not path:
        return []
    body = args.get("file_text", args.get("content"))
    if name in ("create", "create_file") and isinstance(body, str):
        return [whole_file(path, body, **where)]
    old, new = args.get("old_str", args.get("oldString")), args.get("new_str", args.get("newString"))
    if name in ("edit", "str_replace", "replace_string_in_file") and isinstance(new, str):
        return [replacement(path, old if isinstance(old, str) else "", new, **where)]
    code = args.get("code") if name == "insert_edit_into_file" else new if name == "insert" else None
    if isinstance(code, str):
        lines = tuple(AddedLine(text=t) for t in code.splitlines() if "...existing code..." not in t)
        return [Edit(path=path, kind="update", new_text=code, added=lines, **where)]
    return []


def _multi(items: Any, where: dict[str, Any]) -> list[Edit]:
    """`multi_replace_string_in_file`: one edit per file, its replacements in order."""
    by_path: dict[str, list[tuple[str, str]]] = {}
    for item in items if isinstance(items, list) else []:
        if (
            isinstance(item, dict)
            and isinstance(item.get("filePath"), str)
            and isinstance(item.get("newString"), str)
        ):
            old = item.get("oldString")
            by_path.setdefault(item["filePath"], []).append(
                (old if isinstance(old, str) else "", item["newString"])
            )
    return [replacements(path, pairs, **where) for path, pairs in by_path.items()]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
