"""Amp (Sourcegraph) threads: one JSON document per thread, `<data>/amp/threads/T-<uuid>.json`.

Where: `$XDG_DATA_HOME/amp/threads` (default `~/.local/share/amp/threads`) on Linux and macOS;
`%LOCALAPPDATA%\\amp\\threads`, else `%APPDATA%\\amp\\threads`, on Windows (the locations git-ai's Amp support
reads). Threads of every project share the folder: membership is decided from the thread's work trees and
the paths it edited. The corpus samples are git-ai's test fixtures, written by the Amp CLI
0.0.1772237000-g924883 (thread format `v` 85 and 220).

A thread is `{"v", "id": "T-…", "created": epoch ms, "title", "messages": [...], "env": {"initial": {"trees":
[{"uri": "file:///work/tree", …}], "platform": {"clientVersion", …}}}, "meta", …}`, rewritten whole as the
thread grows. A message is `{"role": "user"|"assistant", "messageId": N, "content": [blocks], "meta":
{"sentAt": epoch ms}, "usage": {"model", "timestamp"}, "state", …}`; blocks are Anthropic's `text`,
`thinking` and `tool_use {id, name, input}`, and Amp's own `tool_result {toolUseID, run: {status, result}}`.
`message_id` is Amp's `messageId`. A user message holding only tool results is a tool message, its time that
of the call before it (Amp records none).

Edits: `edit_file {path, old_str, new_str}` with its result's `diff` (a unified diff in a Markdown fence:
exact lines and numbers; else the strings), `create_file {path, content}` (the whole file), `apply_patch`
envelopes, and `Bash {cmd, cwd}` through the shell reader; a call whose result did not finish (`run.status`
other than "done") wrote nothing. `create_file` and `Bash` follow Amp's documented tools: the samples show
`Read` and `edit_file` only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ..core.errors import DamagedTranscriptError
from ..core.values import Edit, Message, ParseStats, Part, Session, epoch_timestamp, parse_timestamp
from ..transcripts import shell
from ..transcripts.blocks import block_part
from ..transcripts.edits import diffed, envelope, replacement, whole_file
from ..transcripts.jsonl import head_text, loads, one_record, written_since

NAME = "amp"
# The Amp CLI build of the fixtures (`env.initial.platform.clientVersion`); `doctor` says when threads on
# disk come from a newer one.
NEWEST_TESTED = "0.0.1772237000-g924883"
MULTI_SESSION = False
EDIT_TOOLS = frozenset({"edit_file", "create_file", "apply_patch"})
SHELL_TOOLS = frozenset({"Bash", "bash"})
SNIFF_BYTES = 8 * 1024
_THREAD_ID = re.compile(r'"id"\s*:\s*"T-[0-9A-Za-z-]{8,}"')
_VERSION = re.compile(r'"v"\s*:\s*\d+')
_FENCE = re.compile(r"^```[a-z]*\s*$", re.M)


def threads_dir() -> list[Path]:
    """Where Amp keeps threads on this platform (see the module docstring); the first existing is Amp's."""
    found: list[Path] = []
    for name in ("LOCALAPPDATA", "APPDATA"):
        if os.environ.get(name):
            found.append(Path(os.environ[name]) / "amp" / "threads")
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    found.append(base / "amp" / "threads")
    return found


def locations(root: Path) -> list[str]:
    """Where `discover` looks (every project's threads), as path patterns of this machine."""
    return [f"{folder}/T-*.json" for folder in threads_dir()]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Every thread written at or after `since`: threads are not filed by project (the catalog keeps those
    that mention `root`)."""
    for folder in threads_dir():
        if folder.is_dir():
            yield from written_since(sorted(folder.glob("T-*.json")), since)


def sniff(path: Path) -> bool:
    """True for a JSON document opening with a thread's fields: an `"id"` of the form `T-…` and a numeric
    `"v"` within its first 8 KB (values other than these two are not looked at)."""
    head = head_text(path, SNIFF_BYTES) if path.suffix == ".json" else None
    return (
        head is not None
        and head.startswith("{")
        and bool(_THREAD_ID.search(head))
        and bool(_VERSION.search(head))
    )


def read(path: Path) -> list[Session]:
    """The thread in `path` as one session. Raises OSError when it cannot be opened and DamagedTranscriptError
    when it is not a whole JSON object (a thread is rewritten whole: a torn one holds no readable part)."""
    try:
        thread = loads(path.read_bytes())
    except ValueError:
        thread = None
    if not isinstance(thread, dict):
        raise DamagedTranscriptError(f"The Amp thread {path} is not a whole JSON object; it is skipped.")
    stats = ParseStats()
    raw = thread.get("messages")
    items = raw if isinstance(raw, list) else []
    results = _results(items)
    messages: list[Message] = []
    edits: list[Edit] = []
    when = epoch_timestamp(thread.get("created"))
    for index, item in enumerate(items):
        stats.records += 1
        with one_record(stats):
            if not isinstance(item, dict):
                stats.unreadable += 1
                continue
            when = _time(item) or when
            message = _message(item, index, when, results, edits, stats)
            if message is not None:
                messages.append(message)
    env = _dict(_dict(thread.get("env")).get("initial"))
    trees = (
        [_folder(t.get("uri")) for t in env.get("trees", []) if isinstance(t, dict)]
        if isinstance(env.get("trees"), list)
        else []
    )
    cwds = [t for t in trees if t]
    version = _dict(env.get("platform")).get("clientVersion")
    thread_id = thread.get("id")
    return [
        Session(
            agent=NAME,
            session_id=thread_id.replace(":", "-") if isinstance(thread_id, str) and thread_id else path.stem,
            transcript=path,
            cwd=cwds[0] if cwds else None,
            cwds=cwds,
            agent_version=version if isinstance(version, str) else None,
            messages=messages,
            edits=edits,
            stats=stats,
        )
    ]


def _results(items: list[Any]) -> dict[str, dict[str, Any]]:
    """Each tool call's `run` (status and result), by the call's id."""
    runs: dict[str, dict[str, Any]] = {}
    for item in items:
        content = item.get("content") if isinstance(item, dict) else None
        for block in content if isinstance(content, list) else []:
            call_id = (
                block.get("toolUseID")
                if isinstance(block, dict) and block.get("type") == "tool_result"
                else None
            )
            if isinstance(call_id, str):
                runs[call_id] = _dict(block.get("run"))
    return runs


def _message(
    item: dict[str, Any],
    index: int,
    when: datetime | None,
    results: dict[str, dict[str, Any]],
    edits: list[Edit],
    stats: ParseStats,
) -> Message | None:
    role = item.get("role")
    if role not in ("user", "assistant"):
        stats.unknown(f"role:{role}")
        return None
    raw_id = item.get("messageId")
    message_id = str(raw_id) if isinstance(raw_id, (int, str)) and str(raw_id) else f"m{index}"
    message_id = message_id.replace(":", "-")
    content = item.get("content")
    parts: list[Part] = []
    for number, block in enumerate(content if isinstance(content, list) else [], start=1):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            parts.append(_result_part(block))
            continue
        part = block_part(block, f"{message_id}.{number}")
        if part is None:
            stats.unknown(f"block:{block.get('type') if isinstance(block, dict) else type(block).__name__}")
            continue
        parts.append(part)
        if part.kind == "tool_call" and role == "assistant" and isinstance(block, dict):
            edits += _edits(
                str(part.tool),
                _dict(block.get("input")),
                results.get(str(part.call_id)),
                message_id,
                str(part.call_id),
                when,
            )
    parts = [p for p in parts if p.text.strip() or p.kind != "text"]
    if not parts:
        return None
    if role == "user" and all(p.kind == "tool_result" for p in parts):
        return Message(message_id=message_id, role="tool", timestamp=when, parts=tuple(parts))
    model = _dict(item.get("usage")).get("model")
    return Message(
        message_id=message_id,
        role=role,
        timestamp=when,
        parts=tuple(parts),
        is_prompt=role == "user" and any(p.kind == "text" for p in parts),
        model=model if isinstance(model, str) and role == "assistant" else None,
    )


def _result_part(block: dict[str, Any]) -> Part:
    run = _dict(block.get("run"))
    result = run.get("result")
    if isinstance(result, dict):
        text = next((result[k] for k in ("output", "content", "diff") if isinstance(result.get(k), str)), "")
    else:
        text = result if isinstance(result, str) else ""
    error = run.get("error")
    if not text and isinstance(error, (str, dict)):
        text = error if isinstance(error, str) else str(error.get("message", ""))
    call_id = block.get("toolUseID")
    return Part(
        kind="tool_result",
        call_id=call_id if isinstance(call_id, str) else None,
        text=str(text),
        is_error=run.get("status") not in ("done", None),
    )


def _edits(
    name: str,
    args: dict[str, Any],
    run: dict[str, Any] | None,
    message_id: str,
    call_id: str,
    when: datetime | None,
) -> list[Edit]:
    """The edits one call made; none when its run did not finish ("done")."""
    if run is not None and run.get("status") != "done":
        return []
    result = _dict(run.get("result")) if run is not None else {}
    path = args.get("path") or args.get("file_path")
    if name in SHELL_TOOLS:
        command, folder = args.get("cmd", args.get("command")), args.get("cwd")
        if not isinstance(command, str):
            return []
        return shell.shell_edits(
            command,
            folder if isinstance(folder, str) else None,
            tool=name,
            message_id=message_id,
            call_id=call_id,
            timestamp=when,
        )
    if name == "apply_patch":
        text = next((v for k, v in args.items() if k in ("patch", "input") and isinstance(v, str)), "")
        return envelope(text, tool=name, message_id=message_id, call_id=call_id, timestamp=when)
    if name not in EDIT_TOOLS or not isinstance(path, str) or not path:
        return []
    if name == "create_file":
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
    old, new = args.get("old_str"), args.get("new_str")
    old, new = old if isinstance(old, str) else "", new if isinstance(new, str) else ""
    diff = result.get("diff")
    if isinstance(diff, str) and diff.strip():
        return [
            diffed(
                path,
                _FENCE.sub("", diff),
                old=old,
                new=new,
                tool=name,
                message_id=message_id,
                call_id=call_id,
                timestamp=when,
            )
        ]
    return [replacement(path, old, new, tool=name, message_id=message_id, call_id=call_id, timestamp=when)]


def _time(item: dict[str, Any]) -> datetime | None:
    """When a message was sent (a user's `meta.sentAt`) or written (an assistant's `usage.timestamp`)."""
    return epoch_timestamp(_dict(item.get("meta")).get("sentAt")) or parse_timestamp(
        _dict(item.get("usage")).get("timestamp")
    )


def _folder(uri: Any) -> str | None:
    """The local path of a `file://` work tree URI."""
    if not isinstance(uri, str) or not uri.startswith("file://"):
        return None
    path = unquote(urlparse(uri).path)
    return path[1:] if re.match(r"^/[A-Za-z]:/", path) else path  # file:///C:/… is a Windows path


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
