"""Codex CLI rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl` (codex 0.1x to 0.146).

Each record is `{timestamp, type, payload}` with type session_meta | turn_context | response_item |
event_msg | compacted | world_state | .... Messages: `event_msg/user_message` (what the person typed),
`response_item/message` (assistant text), `response_item/reasoning`, tool calls (`function_call`,
`custom_tool_call`) and their outputs. Edits come from apply_patch envelopes, in the current
`custom_tool_call` form and the older `function_call` `shell`/`apply_patch` forms; when the matching
`event_msg/patch_apply_end` carries a `unified_diff`, its exact lines and line numbers are used; an
`*** Update File: A` with `*** Move to: B` is a move edit (A to B, `capture.moves`) before B's update.
Codex records have no ids, so `message_id` is `r<N>`, the 1-based ordinal of the record in the file. Other
record and payload types are skipped and counted.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.values import AddedLine, Edit, Message, ParseStats, Part, Session, parse_timestamp
from ..transcripts import shell
from ..transcripts.jsonl import head_records, iter_records, loads, one_record, recognised, written_since
from ..transcripts.patches import parse_apply_patch, unified_diff_added

NAME = "codex"
# The newest Codex version the fixtures cover (fixtures/transcripts/codex/README.md); `doctor` says when
# transcripts on disk come from a newer one.
NEWEST_TESTED = "0.146.0"
_KNOWN = frozenset(
    {
        "session_meta",
        "turn_context",
        "response_item",
        "event_msg",
        "compacted",
        "world_state",
        "inter_agent_communication_metadata",
    }
)
# Payload types read or passed over knowingly (seen in 0.118-0.146 rollouts); any other is counted as
# "<record type>/<payload type>" in `ParseStats.unknown_types`, so that drift shows.
_EVENTS = frozenset(
    {
        "token_count",
        "agent_message",
        "exec_command_end",
        "exec_command_begin",
        "patch_apply_end",
        "patch_apply_begin",
        "user_message",
        "task_started",
        "task_complete",
        "collab_agent_spawn_end",
        "collab_waiting_end",
        "web_search_end",
        "collab_close_end",
        "context_compacted",
        "collab_agent_interaction_end",
        "turn_aborted",
        "thread_name_updated",
        "item_completed",
        "dynamic_tool_call_request",
        "dynamic_tool_call_response",
        "mcp_tool_call_end",
        "mcp_tool_call_begin",
        "entered_review_mode",
        "guardian_assessment",
        "exited_review_mode",
        "image_generation_end",
        "thread_goal_updated",
        "agent_reasoning",
        "thread_settings_applied",
        "sub_agent_activity",
        "view_image_tool_call",
        "error",
        "undo_completed",
        "agent_reasoning_section_break",
        "turn_diff",
        "background_event",
        "stream_error",
    }
)
_ITEMS = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
        "tool_search_call",
        "tool_search_output",
        "agent_message",
        "image_generation_call",
        "ghost_snapshot",
    }
)
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_ROLLOUT_NAME = re.compile(rf"^rollout-.*-({_UUID})\.jsonl$")


def codex_home() -> Path:
    """`$CODEX_HOME`, else `~/.codex`."""
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".codex"


def locations(root: Path) -> list[str]:
    """Where `discover` looks (every project's rollouts, filed by date), as a path pattern of this machine."""
    return [f"{codex_home() / 'sessions'}/YYYY/MM/DD/rollout-*.jsonl"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Rollouts written at or after `since` (all of them without it), from the dated folders.

    Rollouts are filed by start date, not by project, so membership is decided later from the cwd and
    edited paths; the date folders and file times keep this cheap.
    """
    sessions = codex_home() / "sessions"
    if not sessions.is_dir():
        return
    # A long session outlives its start date's folder, so file times decide, not folder names.
    yield from written_since(sorted(sessions.glob("*/*/*/rollout-*.jsonl")), since)


def sniff(path: Path) -> bool:
    """True when the file's first records are shaped as rollout records (a string `type`, all but one as
    one may be damaged), more of them with an object `payload` than with Claude Code's `uuid` or
    `sessionId`; record types are not checked against a list."""
    if path.suffix != ".jsonl":
        return False
    return recognised(
        head_records(path, limit=5),
        lambda r: isinstance(r.get("type"), str),
        lambda r: isinstance(r.get("payload"), dict),
        lambda r: "uuid" in r or "sessionId" in r,
    )


def read(path: Path) -> list[Session]:
    """Parse one rollout into one session; raises OSError only when the file cannot be opened.

    The session id is the first `session_meta.payload.id` (later ones, from resumed or forked
    rollouts, become aliases); a spawned subagent's `parent_session_id` comes from
    `session_meta.payload.source.subagent.thread_spawn.parent_thread_id`.
    """
    stats = ParseStats()
    builder = _Builder(path)
    for record in iter_records(path, stats):
        with one_record(stats):
            builder.add(record, stats)
    return [builder.finish(stats)]


class _Builder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.ids: list[str] = []
        self.parent: str | None = None
        self.version: str | None = None
        self.cwds: list[str] = []
        self.messages: list[Message] = []
        self.typed_prompts = False
        self.item_prompts: set[str] = set()
        self.calls: dict[str, tuple[str, str, str, datetime | None]] = {}
        self.applied: dict[str, tuple[bool, dict[str, Any], datetime | None]] = {}
        self.failed: set[str] = set()
        self.shell_calls: dict[str, tuple[str, Any, str, datetime | None]] = {}
        self.shell_failed: set[str] = set()
        self.model: str | None = None  # turn_context.model: the model of the turns that follow

    def add(self, record: dict[str, Any], stats: ParseStats) -> None:
        kind, payload = record.get("type"), record.get("payload")
        if not isinstance(kind, str) or kind not in _KNOWN:
            stats.unknown(str(kind))
            return
        payload = payload if isinstance(payload, dict) else {}
        if kind in ("event_msg", "response_item") and not isinstance(payload.get("type"), str):
            stats.unreadable += 1  # an event or item that does not say what it is
            return
        known = _EVENTS if kind == "event_msg" else _ITEMS if kind == "response_item" else None
        if known is not None and payload["type"] not in known:
            stats.unknown(f"{kind}/{payload['type']}")  # counted, then read as far as it is understood
        when = parse_timestamp(record.get("timestamp"))
        message_id = f"r{stats.records}"
        if kind == "session_meta":
            self._meta(payload)
        elif kind == "turn_context":
            self._cwd(payload.get("cwd"))
            model = payload.get("model")
            self.model = model if isinstance(model, str) and model else self.model
        elif kind == "compacted":
            text = payload.get("message")
            if isinstance(text, str) and text:
                self.messages.append(
                    Message(
                        message_id=message_id,
                        role="system",
                        timestamp=when,
                        parts=(Part(kind="text", text=text),),
                        is_summary=True,
                    )
                )
        elif kind == "event_msg":
            self._event(payload, message_id, when)
        elif kind == "response_item":
            self._item(payload, message_id, when)

    def _meta(self, payload: dict[str, Any]) -> None:
        sid = payload.get("id")
        if isinstance(sid, str) and sid not in self.ids:
            self.ids.append(sid)
        self._cwd(payload.get("cwd"))
        if isinstance(payload.get("cli_version"), str) and self.version is None:
            self.version = payload["cli_version"]
        source = payload.get("source")
        spawn = source.get("subagent", {}) if isinstance(source, dict) else {}
        spawn = spawn.get("thread_spawn", {}) if isinstance(spawn, dict) else {}
        if isinstance(spawn, dict) and isinstance(spawn.get("parent_thread_id"), str) and self.parent is None:
            self.parent = spawn["parent_thread_id"]
        elif isinstance(payload.get("parent_thread_id"), str) and self.parent is None:
            self.parent = payload["parent_thread_id"]  # codex 0.139 review subagents

    def _cwd(self, cwd: Any) -> None:
        if isinstance(cwd, str) and cwd and cwd not in self.cwds:
            self.cwds.append(cwd)

    def _event(self, payload: dict[str, Any], message_id: str, when: datetime | None) -> None:
        etype = payload.get("type")
        if etype == "user_message" and isinstance(payload.get("message"), str):
            self.typed_prompts = True
            self.messages.append(
                Message(
                    message_id=message_id,
                    role="user",
                    timestamp=when,
                    is_prompt=True,
                    parts=(Part(kind="text", text=payload["message"]),),
                )
            )
        elif etype == "patch_apply_end" and isinstance(payload.get("call_id"), str):
            raw = payload.get("changes")
            changes: dict[str, Any] = raw if isinstance(raw, dict) else {}
            self.applied[payload["call_id"]] = (payload.get("success") is not False, changes, when)
        elif (
            etype == "exec_command_end" and isinstance(payload.get("exit_code"), int) and payload["exit_code"]
        ):
            self.shell_failed.add(str(payload.get("call_id")))

    def _item(self, payload: dict[str, Any], message_id: str, when: datetime | None) -> None:
        itype = payload.get("type")
        if itype == "message":
            role = payload.get("role")
            text = _content_text(payload.get("content"))
            if role == "assistant" and text:
                self.messages.append(
                    Message(
                        message_id=message_id,
                        role="assistant",
                        timestamp=when,
                        model=self.model,
                        parts=(Part(kind="text", text=text),),
                    )
                )
            elif role == "user" and text and not text.lstrip().startswith("<"):
                # Older rollouts have no event_msg/user_message; injected context starts with a tag.
                self.item_prompts.add(message_id)
                self.messages.append(
                    Message(
                        message_id=message_id,
                        role="user",
                        timestamp=when,
                        is_prompt=True,
                        parts=(Part(kind="text", text=text),),
                    )
                )
        elif itype == "reasoning":
            summary = payload.get("summary")
            text = (
                "\n".join(str(s.get("text", "")) for s in summary if isinstance(s, dict))
                if isinstance(summary, list)
                else ""
            )
            if text:
                self.messages.append(
                    Message(
                        message_id=message_id,
                        role="assistant",
                        timestamp=when,
                        model=self.model,
                        parts=(Part(kind="reasoning", text=text),),
                    )
                )
        elif itype in _CALLS:
            self._call(payload, message_id, when)
        elif itype in _OUTPUTS:
            call_id = str(payload.get("call_id", ""))
            text = _output_text(payload.get("output"))
            error = _failed(text)
            if error:
                self.failed.add(call_id)
            if shell.exit_code(text) not in (None, 0):
                self.shell_failed.add(call_id)
            self.messages.append(
                Message(
                    message_id=message_id,
                    role="tool",
                    timestamp=when,
                    parts=(Part(kind="tool_result", call_id=call_id, text=text, is_error=error),),
                )
            )

    def _call(self, payload: dict[str, Any], message_id: str, when: datetime | None) -> None:
        name = str(payload.get("name") or payload.get("type"))
        call_id = str(payload.get("call_id") or payload.get("id") or message_id)
        raw = payload.get("input") if "input" in payload else payload.get("arguments", payload.get("action"))
        text = raw if isinstance(raw, str) else json.dumps(raw)
        self.messages.append(
            Message(
                message_id=message_id,
                role="assistant",
                timestamp=when,
                model=self.model,
                parts=(Part(kind="tool_call", tool=name, call_id=call_id, text=text),),
            )
        )
        if "*** Begin Patch" in text:
            self.calls[call_id] = (name, _patch_text(text), message_id, when)
        elif name in shell.CODEX_TOOLS:
            self.shell_calls[call_id] = (name, raw, message_id, when)

    def finish(self, stats: ParseStats) -> Session:
        if self.typed_prompts:
            # Newer rollouts log the typed prompt twice; keep the event_msg copy only.
            self.messages = [m for m in self.messages if m.message_id not in self.item_prompts]
        edits: list[Edit] = []
        for call_id, (name, patch, message_id, when) in self.calls.items():
            with one_record(stats):
                edits += self._edits(call_id, name, patch, message_id, when)
        for call_id, (name, raw, message_id, when) in self.shell_calls.items():
            if call_id not in self.failed and call_id not in self.shell_failed:
                with one_record(stats):
                    edits += shell.codex_edits(
                        name, raw, message_id=message_id, call_id=call_id, timestamp=when
                    )
        edits.sort(
            key=lambda edit: int(edit.message_id[1:])
        )  # record order: apply_patch and shell edits interleave
        session_id = self.ids[0] if self.ids else rollout_uuid(self.path) or self.path.stem
        return Session(
            agent="codex",
            session_id=session_id,
            transcript=self.path,
            cwd=self.cwds[0] if self.cwds else None,
            cwds=self.cwds,
            parent_session_id=self.parent,
            aliases=self.ids[1:],
            agent_version=self.version,
            messages=self.messages,
            edits=edits,
            stats=stats,
        )

    def _edits(
        self, call_id: str, name: str, patch: str, message_id: str, when: datetime | None
    ) -> list[Edit]:
        applied = self.applied.get(call_id)
        if call_id in self.failed or (applied is not None and not applied[0]):
            return []
        tool = "apply_patch" if name in ("apply_patch", "custom_tool_call") else f"{name}:apply_patch"
        changes = applied[1] if applied else {}
        stamp = applied[2] if applied and applied[2] else when
        edits: list[Edit] = []
        for file in parse_apply_patch(patch):
            change = changes.get(file.path) or _by_suffix(changes, file.path)
            added: list[AddedLine]
            if (
                isinstance(change, dict)
                and isinstance(change.get("unified_diff"), str)
                and change["unified_diff"]
            ):
                added = unified_diff_added(change["unified_diff"])
            elif isinstance(change, dict) and isinstance(change.get("content"), str):
                added = [AddedLine(text=t, line=i + 1) for i, t in enumerate(change["content"].splitlines())]
            else:
                added = [
                    AddedLine(text=t, line=i + 1 if file.kind == "create" else None)
                    for i, t in enumerate(file.added)
                ]
            if file.move_to and file.move_to != file.path:
                edits.append(
                    Edit(
                        path=file.move_to,
                        tool=tool,
                        message_id=message_id,
                        call_id=call_id,
                        timestamp=stamp,
                        kind="move",
                        source=file.path,
                    )
                )
            edits.append(
                Edit(
                    path=file.move_to or file.path,
                    tool=tool,
                    message_id=message_id,
                    call_id=call_id,
                    timestamp=stamp,
                    kind=file.kind,  # type: ignore[arg-type]
                    old_text="\n".join(file.old_lines) or None,
                    new_text="\n".join(file.new_lines),
                    added=tuple(added),
                )
            )
        return edits


def rollout_uuid(path: Path) -> str | None:
    """The session id Codex writes into a rollout's name (`rollout-<ts>-<uuid>.jsonl`), or None.

    The same id as `session_meta.payload.id`: the fallback when that record is damaged (the file stem
    is not the session's id).
    """
    match = _ROLLOUT_NAME.match(path.name)
    return match.group(1) if match else None


def _patch_text(text: str) -> str:
    """The envelope inside a call's arguments, which may be JSON (`{"input": ...}`, `{"command": [...]}`)."""
    try:
        value = loads(text)
    except ValueError:
        return text
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and "*** Begin Patch" in item:
            return item
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return text


def _content_text(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(c.get("text", ""))
        for c in content
        if isinstance(c, dict) and c.get("type") in ("output_text", "input_text", "text")
    )


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        return str(output.get("content") or output.get("output") or json.dumps(output))
    return json.dumps(output) if output is not None else ""


def _failed(text: str) -> bool:
    """Whether a call output reports a non-zero exit (older rollouts wrap outputs in JSON metadata)."""
    try:
        value = loads(text)
    except ValueError:
        # codex 0.118 answers a rejected patch in plain text and writes no patch_apply_end.
        return text.lstrip().startswith("apply_patch verification failed")
    meta = value.get("metadata") if isinstance(value, dict) else None
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    return isinstance(code, int) and code != 0


def _by_suffix(changes: dict[str, Any], path: str) -> Any:
    """The `patch_apply_end` change of a path the envelope spelled relatively (its keys are absolute)."""
    found = [v for k, v in changes.items() if k.endswith("/" + path.lstrip("./"))]
    return found[0] if len(found) == 1 else None
