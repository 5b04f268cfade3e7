"""Anthropic-style content blocks, which many agents record as they came from the model: `text`, `thinking`,
`tool_use {id, name, input}` and `tool_result {tool_use_id, content, is_error}`, into `Part`s."""

from __future__ import annotations

import json
from typing import Any

from ..core.values import Part


def block_part(block: Any, fallback_call_id: str) -> Part | None:
    """The part one content block holds, or None for a block of no known shape (an image, a signature).
    A tool call without an `id` gets `fallback_call_id`; its arguments are kept as JSON text."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return Part(kind="text", text=block["text"])
    if kind == "thinking" and isinstance(block.get("thinking"), str):
        return Part(kind="reasoning", text=block["thinking"])
    if kind in ("tool_use", "tool_call"):
        args = block.get("input", block.get("arguments"))
        call_id = block.get("id")
        return Part(
            kind="tool_call",
            tool=str(block.get("name") or ""),
            call_id=call_id if isinstance(call_id, str) and call_id else fallback_call_id,
            text=args if isinstance(args, str) else json.dumps(args),
        )
    if kind == "tool_result":
        call_id = block.get("tool_use_id")
        return Part(
            kind="tool_result",
            call_id=call_id if isinstance(call_id, str) and call_id else None,
            is_error=block.get("is_error") is True,
            text=result_text(block.get("content")),
        )
    return None


def result_text(content: Any) -> str:
    """The text of a tool result's content: a string, or the `text` of each block of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""
