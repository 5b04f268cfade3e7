"""Anthropic-style message arrays as Cline and Roo Code keep them: `[{"role": "user"|"assistant", "content":
str | [blocks], "ts": epoch ms, "id"?, "modelInfo"?}, …]` (Cline's and Roo Code's
`api_conversation_history.json`, Cline's SDK `<id>.messages.json`), read into messages and the edits their
tool calls made.

Blocks are Anthropic's `text`, `thinking`, `tool_use {id, name, input}` and `tool_result {tool_use_id,
content, is_error}`; before native tool calls both agents had the model write its calls as XML in its text
(`transcripts.xml_tools`). What a person typed comes wrapped (`<task>`, `<feedback>`, `<answer>`,
`<user_message>`) among text the agent adds (tool results, and `<environment_details>`, which is left out):
each adapter says how to find it. The tools differ per agent: each adapter turns one call into edits
(`EditsOf`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..core.values import Edit, Message, ParseStats, Part, epoch_timestamp
from .blocks import block_part, result_text
from .jsonl import loads, one_record
from .xml_tools import xml_calls

__all__ = ["Call", "EditsOf", "History", "XmlTools", "listed_folder", "read_history", "tagged"]


@dataclass(frozen=True)
class Call:
    """Where a tool call was made: its message, its id, its time, and the text of its result (None when it has
    none: a call written as XML, or one whose result was not recorded)."""

    message_id: str
    call_id: str
    timestamp: datetime | None
    result: str | None = None


EditsOf = Callable[[str, dict[str, Any], Call], list[Edit]]
PromptOf = Callable[[str], "str | None"]


@dataclass
class History:
    """What `read_history` read: messages in order, edits in the order their calls were made, and counts."""

    messages: list[Message] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    stats: ParseStats = field(default_factory=ParseStats)


@dataclass(frozen=True)
class XmlTools:
    """The tools a model wrote as XML in its text, and the parameters to read of them."""

    names: frozenset[str]
    params: frozenset[str]


def read_history(
    items: list[Any], *, edits_of: EditsOf, prompt_of: PromptOf, xml: XmlTools | None = None
) -> History:
    """Every message of `items`, a record that is not one skipped and counted. A message's id is its own `id`
    when it has a unique one, else its ordinal (`m3`); its time its `ts`, else the time before it (a user
    message often has none). A call whose result is an error (`is_error`, `"success": false`) or was
    denied by the user wrote nothing."""
    history = History()
    results = _results(items)
    seen: set[str] = set()
    when: datetime | None = None
    for index, item in enumerate(items):
        history.stats.records += 1
        with one_record(history.stats):
            if not isinstance(item, dict):
                history.stats.unreadable += 1
                continue
            role = item.get("role")
            if role not in ("user", "assistant"):
                history.stats.unknown(f"role:{role}")
                continue
            own = item.get("id")
            message_id = (
                own.replace(":", "-") if isinstance(own, str) and own and own not in seen else f"m{index}"
            )
            seen.add(message_id)
            when = epoch_timestamp(item.get("ts")) or when
            content = item.get("content")
            blocks = (
                [{"type": "text", "text": content}]
                if isinstance(content, str)
                else (content if isinstance(content, list) else [])
            )
            message = (
                _assistant(item, blocks, message_id, when, results, edits_of, xml, history)
                if role == "assistant"
                else _user(blocks, message_id, when, prompt_of, history.stats)
            )
            if message is not None:
                history.messages.append(message)
    return history


def tagged(text: str, tags: tuple[str, ...]) -> str | None:
    """The text inside the first of `tags` that `text` holds (`<task>…</task>`), stripped; None when none
    does."""
    for tag in tags:
        start = text.find(f"<{tag}>")
        if start < 0:
            continue
        start += len(tag) + 2
        end = text.find(f"</{tag}>", start)
        return text[start : end if end >= 0 else len(text)].strip()
    return None


def listed_folder(items: list[Any], heading: str) -> str | None:
    """The folder the agent listed for the model under `# <heading> (<folder>) Files` in the first user
    message that has one (Cline: "Current Working Directory", Roo Code: "Current Workspace Directory");
    None when none names a folder (a multi-root task says `(Primary: name)`)."""
    marker = f"# {heading} ("
    for item in items:
        content = item.get("content") if isinstance(item, dict) and item.get("role") == "user" else None
        for block in content if isinstance(content, list) else [content]:
            text = block.get("text") if isinstance(block, dict) else block
            if not isinstance(text, str) or (start := text.find(marker)) < 0:
                continue
            start += len(marker)
            end = text.find(") Files", start, text.find("\n", start) % (len(text) + 1))
            folder = text[start:end] if end > start else ""
            if folder and not folder.startswith("Primary: "):
                return folder
    return None


def _assistant(
    item: dict[str, Any],
    blocks: list[Any],
    message_id: str,
    when: datetime | None,
    results: dict[str, str | None],
    edits_of: EditsOf,
    xml: XmlTools | None,
    history: History,
) -> Message | None:
    parts: list[Part] = []
    for number, block in enumerate(blocks, start=1):
        if (
            xml is not None
            and isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ):
            parts += _xml_parts(
                block["text"], f"{message_id}.{number}", message_id, when, edits_of, xml, history
            )
            continue
        part = block_part(block, f"{message_id}.{number}")
        if (
            part is None and isinstance(block, dict) and block.get("type") == "reasoning"
        ):  # Roo Code's own block
            part = Part(kind="reasoning", text=str(block.get("text") or ""))
        if part is None:
            history.stats.unknown(
                f"block:{block.get('type') if isinstance(block, dict) else type(block).__name__}"
            )
            continue
        parts.append(part)
        call_id = str(part.call_id)
        if part.kind == "tool_call" and isinstance(block, dict) and results.get(call_id, "") is not None:
            args = block.get("input")
            args = loads(args) if isinstance(args, str) and args.startswith("{") else args
            history.edits += edits_of(
                str(part.tool),
                args if isinstance(args, dict) else {},
                Call(message_id, call_id, when, results.get(call_id)),
            )
    parts = [p for p in parts if p.kind not in ("text", "reasoning") or p.text.strip()]
    if not parts:
        return None
    info = item.get("modelInfo")
    model = (info.get("modelId") or info.get("id")) if isinstance(info, dict) else None
    return Message(
        message_id=message_id,
        role="assistant",
        timestamp=when,
        parts=tuple(parts),
        model=model if isinstance(model, str) else None,
    )


def _xml_parts(
    text: str,
    call_prefix: str,
    message_id: str,
    when: datetime | None,
    edits_of: EditsOf,
    xml: XmlTools,
    history: History,
) -> list[Part]:
    """A text with the tool calls written in it: the words around them, then each call (and its edits)."""
    calls = xml_calls(text, xml.names, xml.params)
    parts: list[Part] = []
    words, at = [], 0
    for call in calls:
        words.append(text[at : call.start])
        at = call.end
    words.append(text[at:])
    prose = "".join(words).strip()
    if prose:
        parts.append(Part(kind="text", text=prose))
    for number, call in enumerate(calls, start=1):
        call_id = f"{call_prefix}.x{number}"
        parts.append(Part(kind="tool_call", tool=call.name, call_id=call_id, text=json.dumps(call.args)))
        history.edits += edits_of(call.name, dict(call.args), Call(message_id, call_id, when))
    return parts


def _user(
    blocks: list[Any], message_id: str, when: datetime | None, prompt_of: PromptOf, stats: ParseStats
) -> Message | None:
    parts: list[Part] = []
    prompt = False
    for number, block in enumerate(blocks, start=1):
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            typed = prompt_of(block["text"])
            if typed:
                parts.append(Part(kind="text", text=typed))
                prompt = True
            elif _xml_result(block["text"]):
                parts.append(Part(kind="tool_result", text=block["text"]))
            elif block["text"].strip() and not block["text"].lstrip().startswith("<environment_details>"):
                parts.append(Part(kind="text", text=block["text"]))
            continue
        part = block_part(block, f"{message_id}.{number}")
        if part is None:
            stats.unknown(f"block:{block.get('type') if isinstance(block, dict) else type(block).__name__}")
            continue
        parts.append(part)
    if not parts:
        return None
    tool = all(p.kind == "tool_result" for p in parts)
    return Message(
        message_id=message_id,
        role="tool" if tool else "user",
        timestamp=when,
        parts=tuple(parts),
        is_prompt=prompt,
    )


def _xml_result(text: str) -> bool:
    """Whether a user text is the result of a call written in XML: `[write_to_file for 'a.py'] Result:`."""
    head = text.lstrip()[:400]
    return head.startswith("[") and "] Result:" in head


def _results(items: list[Any]) -> dict[str, str | None]:
    """The text of each call's result by the call's id; None for a result that says the call failed or was
    denied."""
    found: dict[str, str | None] = {}
    for item in items:
        content = item.get("content") if isinstance(item, dict) else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            call_id = block.get("tool_use_id")
            if isinstance(call_id, str):
                text = result_text(block.get("content"))
                found[call_id] = None if block.get("is_error") is True else _outcome(text)
    return found


def _outcome(text: str) -> str | None:
    """What a result says, or None when it says the call did nothing: Cline's SDK `{"result": …, "success":
    false}` (its `result` is what it says), Roo Code's `{"status": "denied"|"error", …}`, or Cline's denial
    (`formatResponse.toolDenied`)."""
    head = text.strip()
    if head.startswith("The user denied this operation"):
        return None
    if head.startswith("{") and head.endswith("}") and ('"success"' in head or '"status"' in head):
        try:
            data = json.loads(head)
        except ValueError:
            return text
        if isinstance(data, dict) and (
            data.get("success") is False or data.get("status") in ("denied", "error")
        ):
            return None
        if isinstance(data, dict) and isinstance(data.get("result"), str):
            return str(data["result"])
    return text
