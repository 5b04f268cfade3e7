"""Gemini CLI message records into `Message`s and `Edit`s: parts, thoughts, tool calls and the edits of
`replace`, `write_file` and `run_shell_command` calls. The GenAI parts and `FileDiff` displays are read by
`transcripts.genai`, which Qwen Code's adapter shares."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ...core.values import AddedLine, Edit, Message, Part, parse_timestamp
from ...transcripts import shell
from ...transcripts.genai import as_dict, file_diff_added, parts_of, str_of
from ...transcripts.patches import text_diff_added

SHELL_TOOL = "run_shell_command"
EDIT_TOOLS = frozenset({"replace", "write_file"})
TYPES = frozenset({"user", "gemini", "info", "error", "warning"})  # info/error/warning become "system"
PATH_KEYS = ("file_path", "absolute_path", "path")


def build_message(message_id: str, record: dict[str, Any], edits: list[Edit]) -> Message | None:
    """The message of one record (None when it holds nothing to quote); its edits are appended to `edits`."""
    kind = record.get("type")
    when = parse_timestamp(record.get("timestamp"))
    if kind == "gemini":
        thoughts = record.get("thoughts")
        parts = [_thought(t) for t in (thoughts if isinstance(thoughts, list) else []) if isinstance(t, dict)]
        parts += parts_of(record.get("content"))
        calls = record.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                parts += _call_parts(call)
                edit = _edit(call, message_id, when)
                if edit is not None:
                    edits.append(edit)
                edits += _shell_edits(call, message_id, when)
        parts = [p for p in parts if p.text or p.kind in ("tool_call", "tool_result")]
        return (
            Message(message_id=message_id, role="assistant", timestamp=when, parts=tuple(parts))
            if parts
            else None
        )
    shown = parts_of(record.get("displayContent"))
    parts = shown if any(p.kind == "text" and p.text for p in shown) else parts_of(record.get("content"))
    parts = [p for p in parts if p.text or p.kind != "text"]
    if not parts:
        return None
    if kind == "user" and all(p.kind == "tool_result" for p in parts):
        return Message(message_id=message_id, role="tool", timestamp=when, parts=tuple(parts))
    prompt = kind == "user" and any(p.kind == "text" and p.text.strip() for p in parts)
    return Message(
        message_id=message_id,
        role="user" if kind == "user" else "system",
        timestamp=when,
        parts=tuple(parts),
        is_prompt=prompt,
    )


def _thought(thought: dict[str, Any]) -> Part:
    subject, description = thought.get("subject"), thought.get("description")
    text = "\n".join(s for s in (subject, description) if isinstance(s, str) and s)
    return Part(kind="reasoning", text=text)


def _call_parts(call: dict[str, Any]) -> list[Part]:
    name, call_id = str(call.get("name", "")), str_of(call.get("id"))
    parts = [Part(kind="tool_call", tool=name, call_id=call_id, text=json.dumps(call.get("args")))]
    results = [p for p in parts_of(call.get("result")) if p.kind == "tool_result"]
    display = call.get("resultDisplay")
    text = "\n".join(p.text for p in results if p.text) or (display if isinstance(display, str) else "")
    if results or text or "status" in call:
        failed = call.get("status") in ("error", "cancelled") or any(p.is_error for p in results)
        parts.append(Part(kind="tool_result", tool=name, call_id=call_id, text=text, is_error=failed))
    return parts


def _edit(call: dict[str, Any], message_id: str, when: datetime | None) -> Edit | None:
    """The edit a `replace` or `write_file` call made; None for other tools and for failed calls."""
    name = str_of(call.get("name"))
    if name not in EDIT_TOOLS or call.get("status") not in (None, "success"):
        return None
    if any(p.is_error for p in parts_of(call.get("result"))):
        return None
    args, display = as_dict(call.get("args")), as_dict(call.get("resultDisplay"))
    path = next(
        (args[k] for k in PATH_KEYS if isinstance(args.get(k), str) and args[k]), display.get("filePath")
    )
    if not isinstance(path, str) or not path:
        return None
    original, after = display.get("originalContent"), display.get("newContent")
    added = file_diff_added(display)
    stamp = parse_timestamp(call.get("timestamp")) or when
    output = "\n".join(p.text for p in parts_of(call.get("result")))
    if name == "write_file":
        content = after if isinstance(after, str) else str_of(args.get("content")) or ""
        created = display.get("isNewFile") is True or original == "" or "created" in output.lower()
        if added is None:
            added = [AddedLine(text=t, line=i + 1) for i, t in enumerate(content.splitlines())]
        return Edit(
            path=path,
            tool=name,
            message_id=message_id,
            call_id=str_of(call.get("id")),
            timestamp=stamp,
            kind="create" if created else "update",
            old_text=original if isinstance(original, str) else None,
            new_text=content,
            added=tuple(added),
        )
    old, new = str_of(args.get("old_string")) or "", str_of(args.get("new_string")) or ""
    if added is None:
        # Without the file, a fragment's position is unknown, except when `old_string` is empty: then
        # Gemini created the file with `new_string` as its whole content.
        added = text_diff_added(old, new, numbered=not old)
    return Edit(
        path=path,
        tool=name,
        message_id=message_id,
        call_id=str_of(call.get("id")),
        timestamp=stamp,
        kind="create" if not old else "update",
        old_text=old,
        new_text=new,
        added=tuple(added),
    )


def _shell_edits(call: dict[str, Any], message_id: str, when: datetime | None) -> list[Edit]:
    """Writes a successful `run_shell_command` shows in its command text (paths stay relative to the
    session's project root). Gemini's own `status` decides success: it prints the exit code after the
    output, where `shell.exit_code` would not look."""
    command = as_dict(call.get("args")).get("command")
    if call.get("name") != SHELL_TOOL or call.get("status") != "success" or not isinstance(command, str):
        return []
    return shell.shell_edits(
        command,
        None,
        tool=SHELL_TOOL,
        message_id=message_id,
        call_id=str_of(call.get("id")),
        timestamp=parse_timestamp(call.get("timestamp")) or when,
    )
