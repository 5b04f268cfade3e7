"""The messages that explain an edit: the user's request, the assistant's words around it, the edit."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from ..core.values import MOVE_KINDS, Edit, Message, Role, Session
from .reasons import is_request, pick

MAX_TEXT = 2000


@dataclass(kw_only=True)
class Evidence:
    """One quoted message in a blame answer (the JSON contract of docs/json.md, plus `kind`; `source` is
    "shared" when quoted from refs/intent/evidence, where `redacted` tells whether redaction changed the
    text).

    `kind` "confirmed": the assistant's proposal a bare confirmation ("yes", "go ahead") confirmed. A
    second "request" is a prompt the user typed while the agent worked on the turn. `passage`: for
    "reasoning" and "confirmed", the sentences or list items of `text` the reason picker chose to quote
    (explain/reasons.py), never cut inside one; for a "request" quoted from a compaction summary (a
    continued session), the prompt the summary lists. `best`: the "reasoning" that explains the edit, the
    one to quote when only one is quoted."""

    session_id: str
    message_id: str
    role: Role
    timestamp: datetime | None
    text: str
    kind: Literal["request", "confirmed", "reasoning", "edit", "follow-up"]
    source: Literal["transcript", "shared"] = "transcript"
    redacted: bool = False
    passage: str | None = None
    best: bool = False


def clip(text: str, limit: int = MAX_TEXT, pointer: str | None = None) -> str:
    """`text` cut to `limit` characters, ending with a pointer to the full message when cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    tail = f" … [clipped; full text: git intent show {pointer}]" if pointer else " … [clipped]"
    return text[:limit].rstrip() + tail


def find_edit(
    session: Session, message_id: str, call_id: str | None, path_suffix: str | None = None
) -> Edit | None:
    """The edit a note record points at: same message and call, preferring the same file; a move or copy
    only when the call made nothing else (it writes no line: Codex's `*** Move to:` records one beside its
    update)."""
    found = [
        e for e in session.edits if e.message_id == message_id and (call_id is None or e.call_id == call_id)
    ]
    found = [e for e in found if e.kind not in MOVE_KINDS] or found
    if path_suffix:
        same = [e for e in found if e.path.replace("\\", "/").endswith(path_suffix)]
        found = same or found
    return found[0] if found else None


def gather_evidence(
    session: Session,
    message_id: str,
    edit: Edit | None,
    path: str | None = None,
    content: str | None = None,
    symbol: str | None = None,
) -> list[Evidence]:
    """Evidence for the edit made in `message_id`, as the reason picker chose it (explain/reasons.py): the
    request that opened the edit's turn, what a bare confirmation confirmed, then in time order the prompts
    typed while the agent worked and up to three assistant messages of reasoning (`best` marks the one that
    explains the edit: it names the file, `symbol` or words of `content`, else it is the nearest), the edit
    itself, and the assistant's next words. Everything before the edit comes before it in the session. `path`
    names the edited file in the work tree (the transcript may hold another machine's path). Empty when the
    message is not in the session."""
    picked = pick(session, message_id, path=path, content=content, symbol=symbol)
    if picked is None:
        return []
    sid, index = session.session_id, picked.edit_index
    found: list[Evidence] = []
    if picked.request is not None:
        found.append(_quote(sid, picked.request, "request", picked.request_passage))
    if picked.confirmed is not None:
        found.append(_quote(sid, picked.confirmed.message, "confirmed", picked.confirmed.passage))
    order = {m.message_id: n for n, m in enumerate(session.messages[: index + 1])}
    turn = [(order[m.message_id], _quote(sid, m, "request")) for m in picked.added]
    turn += [
        (order[r.message.message_id], _quote(sid, r.message, "reasoning", r.passage, r is picked.best))
        for r in picked.reasons
    ]
    found += [item for _, item in sorted(turn, key=lambda pair: pair[0])]
    target = session.messages[index]
    # The message's own time, as `show` prints it: an edit's time is its tool result's (Claude Code records
    # the result when the tool returns, minutes later for a slow one), which named the same message 21:43 here
    # and 21:41 in `show`.
    found.append(
        Evidence(
            session_id=sid,
            message_id=target.message_id,
            role="assistant",
            timestamp=target.timestamp or (edit.timestamp if edit else None),
            text=render_edit(edit, path) if edit else _tool_calls(target),
            kind="edit",
        )
    )
    for message in session.messages[index + 1 :]:
        if is_request(message):
            break
        if message.role == "assistant" and any(p.kind == "text" and p.text.strip() for p in message.parts):
            found.append(_quote(sid, message, "follow-up"))
            break
    return found


def best_reason(evidence: list[Evidence]) -> Evidence | None:
    """The "reasoning" item the reason picker chose to quote (`best`), else the first one."""
    reasons = [e for e in evidence if e.kind == "reasoning"]
    return next((e for e in reasons if e.best), reasons[0] if reasons else None)


def render_edit(edit: Edit, path: str | None = None, limit: int = 30) -> str:
    """An edit as its tool, path and first line, then a diff of the replaced text (at most `limit` lines)."""
    first = next((a.line for a in edit.added if a.line is not None), None)
    head = f"{edit.tool} {path or edit.path}" + (f" (line {first})" if first else "")
    if edit.kind == "create" or not edit.old_text:
        body = [f"+{a.text}" for a in edit.added] or [f"+{line}" for line in edit.new_text.splitlines()]
    else:
        body = [
            line.rstrip("\n")
            for line in difflib.unified_diff(
                edit.old_text.splitlines(), edit.new_text.splitlines(), n=1, lineterm=""
            )
        ][2:]
        # Line numbers inside a replaced snippet mean nothing in the file, but hunks must stay apart.
        body = ["@@ … @@" if line.startswith("@@") else line for line in body[1:]]
    if len(body) > limit:
        body = body[:limit] + [f"… {len(body) - limit} more diff lines"]
    return "\n".join([head, *body])


def _quote(
    session_id: str,
    message: Message,
    kind: Literal["request", "confirmed", "reasoning", "follow-up"],
    passage: str | None = None,
    best: bool = False,
) -> Evidence:
    text = message.text if message.role != "tool" else "\n".join(p.text for p in message.parts)
    return Evidence(
        session_id=session_id,
        message_id=message.message_id,
        role=message.role,
        timestamp=message.timestamp,
        text=clip(text, pointer=f"{session_id}:{message.message_id}"),
        kind=kind,
        passage=passage,
        best=best,
    )


def _tool_calls(message: Message) -> str:
    calls = [f"{p.tool}: {p.text}" for p in message.parts if p.kind == "tool_call"]
    return clip("\n".join(calls) or message.text)
