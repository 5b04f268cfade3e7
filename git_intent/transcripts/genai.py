"""Google GenAI `Content` as Gemini CLI and its fork Qwen Code record it: parts (text, thoughts, function
calls and responses) and the `FileDiff` their edit tools report, for both adapters.

A part is `{"text": …, "thought"?: true}`, `{"functionCall": {"id", "name", "args"}}` or
`{"functionResponse": {"id", "name", "response": {"output" | "error" | …}}}` (`@google/genai`'s `Part`); a
`FileDiff` display is `{"fileDiff": unified diff, "fileName", "originalContent", "newContent", …}`
(gemini-cli `packages/core/src/tools/tools.ts`, the same in qwen-code).
"""

from __future__ import annotations

import json
from typing import Any

from ..core.values import AddedLine, Part
from .patches import text_diff_added, unified_diff_added


def parts_of(content: Any) -> list[Part]:
    """Parts of a GenAI `PartListUnion`: a string, one part object, or a list of them."""
    if isinstance(content, str):
        return [Part(kind="text", text=content)]
    items = content if isinstance(content, list) else [content] if isinstance(content, dict) else []
    parts: list[Part] = []
    for item in items:
        if isinstance(item, str):
            parts.append(Part(kind="text", text=item))
        elif not isinstance(item, dict):
            continue
        elif isinstance(item.get("text"), str):
            parts.append(Part(kind="reasoning" if item.get("thought") else "text", text=item["text"]))
        elif isinstance(item.get("functionResponse"), dict):
            response = item["functionResponse"]
            body = response.get("response")
            parts.append(
                Part(
                    kind="tool_result",
                    tool=str_of(response.get("name")),
                    call_id=str_of(response.get("id")),
                    text=response_text(body),
                    is_error=isinstance(body, dict) and "error" in body,
                )
            )
        elif isinstance(item.get("functionCall"), dict):
            call = item["functionCall"]
            parts.append(
                Part(
                    kind="tool_call",
                    tool=str_of(call.get("name")),
                    call_id=str_of(call.get("id")),
                    text=json.dumps(call.get("args")),
                )
            )
    return parts


def response_text(body: Any) -> str:
    """The text of a function response: its `output`, `error` or `content` string, else the JSON of it."""
    if isinstance(body, str):
        return body
    if isinstance(body, dict):
        for key in ("output", "error", "content"):
            if isinstance(body.get(key), str):
                return str(body[key])
        return json.dumps(body)
    return "" if body is None else json.dumps(body)


def file_diff_added(display: dict[str, Any]) -> list[AddedLine] | None:
    """The lines a `FileDiff` display says the edit added, with their line numbers: from its unified
    `fileDiff`, else from `originalContent`/`newContent`; None when it holds neither."""
    diff, original, after = display.get("fileDiff"), display.get("originalContent"), display.get("newContent")
    if isinstance(diff, str) and diff.strip():
        return unified_diff_added(diff)
    if isinstance(original, str) and isinstance(after, str):
        return text_diff_added(original, after)
    return None


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is an object, else {}."""
    return value if isinstance(value, dict) else {}


def str_of(value: Any) -> str | None:
    """`value` when it is a string, else None."""
    return value if isinstance(value, str) else None
