"""VS Code's chat sessions, where Copilot Chat's conversations are kept: `chatSessions/<session id>.json`, one
document (`version` 3: `sessionId`, `creationDate`, `requests[]`), or, since VS Code 1.10x, `<session
id>.jsonl`, a mutation log of that document (`{"kind": 0, "v": document}`, then `kind` 1 sets the value at the
key path `k`, 2 pushes the items `v` onto the array at `k` after cutting it to index `i` when given, 3 deletes
`k`; VS Code's chatSessionOperationLog, as SpecStory's reader replays it).

A request is `{requestId, timestamp (epoch ms), message {text}, response [parts], responseId, result
{timings}, modelId, agent {extensionVersion}}`: the person's prompt, then the reply. Reply parts: Markdown
`{value}`, `toolInvocationSerialized {toolId, toolCallId, invocationMessage}`, and `textEditGroup {uri, edits:
[[{text, range {startLineNumber, startColumn, endLineNumber, endColumn}}]]}`: the text an edit put at a range,
so its lines and their numbers are exact (a first line that starts inside a line is left out: its start is the
file's). Other parts (references, undo stops, progress) say nothing a session needs.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from ...core.values import AddedLine, Edit, Message, ParseStats, Part, epoch_timestamp
from ...transcripts.jsonl import iter_records, loads, one_record
from ...transcripts.vscode_storage import file_uri_path

__all__ = ["document", "read_document"]

PASSED = frozenset(
    {
        "inlineReference",
        "undoStop",
        "codeblockUri",
        "prepareToolInvocation",
        "progressMessage",
        "mcpServersStarting",
        "progressTaskSerialized",
        "thinking",
        "confirmation",
        "warning",
        "textEdit",
        "notebookEditGroup",
        "command",
        "reference",
        "extensions",
        "elicitation",
    }
)


def document(path: Path, stats: ParseStats) -> dict[str, Any] | None:
    """The session document of a `.json` file, or the one a `.jsonl` log builds; None when there is none (a
    torn document, a log without its first entry). Each log entry counts as a record; one that cannot be
    applied is skipped and counted."""
    if path.suffix == ".json":
        try:
            data = loads(path.read_bytes())
        except ValueError:
            return None
        return data if isinstance(data, dict) else None
    state: Any = None
    for entry in iter_records(path, stats):
        stats.records += 1
        with one_record(stats):
            kind, keys = entry.get("kind"), entry.get("k")
            if kind == 0:
                state = entry.get("v")
            elif kind in (1, 2, 3) and isinstance(keys, list) and keys and state is not None:
                _apply(state, kind, keys, entry)
            else:
                stats.unknown(f"kind:{kind}")
    return state if isinstance(state, dict) else None


def _apply(state: Any, kind: int, keys: list[Any], entry: dict[str, Any]) -> None:
    """One mutation; raises KeyError, IndexError or TypeError (a record error) when its path is not there."""
    parent = state
    for key in keys[:-1]:
        parent = parent[key]
    last = keys[-1]
    if kind == 1:
        if isinstance(parent, list) and last == len(parent):
            parent.append(entry.get("v"))
        else:
            parent[last] = entry.get("v")
    elif kind == 3:
        del parent[last]
    else:
        if isinstance(parent, dict) and last not in parent:
            parent[last] = []
        items, cut = parent[last], entry.get("i")
        if isinstance(cut, int):
            del items[cut:]
        items.extend(entry.get("v") or [])


def read_document(data: dict[str, Any], stats: ParseStats) -> tuple[list[Message], list[Edit], str | None]:
    """The messages and edits of a session document, and the newest Copilot Chat version its requests name."""
    messages: list[Message] = []
    edits: list[Edit] = []
    version: str | None = None
    requests = data.get("requests")
    for index, request in enumerate(requests if isinstance(requests, list) else []):
        if not isinstance(request, dict):
            stats.unreadable += 1
            continue
        agent = request.get("agent")
        found = agent.get("extensionVersion") if isinstance(agent, dict) else None
        version = found if isinstance(found, str) and found else version
        messages += _request(request, index, edits, stats)
    return messages, edits, version


def _request(request: dict[str, Any], index: int, edits: list[Edit], stats: ParseStats) -> list[Message]:
    asked = epoch_timestamp(request.get("timestamp"))
    result = request.get("result")
    timings = result.get("timings") if isinstance(result, dict) else None
    elapsed = timings.get("totalElapsed") if isinstance(timings, dict) else None
    answered = (
        asked + timedelta(milliseconds=elapsed) if asked and isinstance(elapsed, (int, float)) else asked
    )
    found: list[Message] = []
    message = request.get("message")
    text = message.get("text") if isinstance(message, dict) else None
    request_id = _id(request.get("requestId"), f"q{index}")
    if isinstance(text, str) and text.strip():
        found.append(
            Message(
                message_id=request_id,
                role="user",
                timestamp=asked,
                parts=(Part(kind="text", text=text),),
                is_prompt=True,
            )
        )
    reply_id = _id(request.get("responseId"), f"a{index}")
    if reply_id == request_id:
        reply_id = f"a{index}"
    parts: list[Part] = []
    response = request.get("response")
    for item in response if isinstance(response, list) else []:
        if not isinstance(item, dict):
            stats.unreadable += 1
            continue
        kind = item.get("kind")
        if kind in (None, "markdownContent") and isinstance(item.get("value"), str):
            if parts and parts[-1].kind == "text":  # VS Code splits one reply's Markdown around references
                parts[-1] = Part(kind="text", text=parts[-1].text + item["value"])
            else:
                parts.append(Part(kind="text", text=item["value"]))
        elif kind == "toolInvocationSerialized":
            parts.append(_tool(item, f"{reply_id}.{len(parts) + 1}"))
        elif kind == "textEditGroup":
            edit = _edit_group(item, reply_id, answered)
            if edit is not None:
                edits.append(edit)
        elif kind not in PASSED:
            stats.unknown(f"response:{kind}")
    parts = [p for p in parts if p.kind != "text" or p.text.strip()]
    if parts:
        model = request.get("modelId")
        found.append(
            Message(
                message_id=reply_id,
                role="assistant",
                timestamp=answered,
                parts=tuple(parts),
                model=model if isinstance(model, str) else None,
            )
        )
    return found


def _tool(item: dict[str, Any], fallback: str) -> Part:
    said = item.get("pastTenseMessage") or item.get("invocationMessage")
    text = said.get("value") if isinstance(said, dict) else said
    call_id = item.get("toolCallId")
    return Part(
        kind="tool_call",
        tool=str(item.get("toolId") or ""),
        call_id=call_id if isinstance(call_id, str) and call_id else fallback,
        text=text if isinstance(text, str) else "",
    )


def _edit_group(item: dict[str, Any], message_id: str, when: Any) -> Edit | None:
    """One file's edits in a reply: each text put at its range, its lines numbered from the range's start."""
    uri = item.get("uri")
    path = (uri.get("fsPath") or uri.get("path")) if isinstance(uri, dict) else file_uri_path(uri)
    if not isinstance(path, str) or not path:
        return None
    added: list[AddedLine] = []
    texts: list[str] = []
    batches = item.get("edits")
    for batch in batches if isinstance(batches, list) else []:
        for change in batch if isinstance(batch, list) else []:
            text = change.get("text") if isinstance(change, dict) else None
            place = change.get("range") if isinstance(change, dict) else None
            if not isinstance(text, str) or not text or not isinstance(place, dict):
                continue
            texts.append(text)
            start, column = place.get("startLineNumber"), place.get("startColumn")
            lines = text.split("\n")
            for offset, line in enumerate(lines):
                if (offset == 0 and column != 1) or (offset == len(lines) - 1 and not line and offset):
                    continue
                added.append(AddedLine(text=line, line=start + offset if isinstance(start, int) else None))
    if not added:
        return None
    return Edit(
        path=path,
        tool="textEditGroup",
        message_id=message_id,
        timestamp=when,
        kind="update",
        new_text="\n".join(texts),
        added=tuple(added),
    )


def _id(value: Any, fallback: str) -> str:
    return value.replace(":", "-") if isinstance(value, str) and value else fallback
