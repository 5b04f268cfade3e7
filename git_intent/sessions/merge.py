"""Merging the copies of one session into one session, its records deduplicated by message id and its edits
by tool call.

Entire keeps a growing copy of a session in every checkpoint: the same session id in many files of different
lengths (entireio/git-sync: 451 transcripts on `entire/checkpoints/v1`, of far fewer sessions). A backup copy
and the agent's own file are two more copies of one session. They are one session, not competing ones.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime

from ..core.values import Edit, Message, ParseStats, Session

__all__ = ["merge_copies", "merge_session"]


def merge_copies(found: dict[tuple[str, str], Session], sessions: Iterable[Session]) -> None:
    """Add `sessions` to `found` by (agent, session_id), merging a session met again with the copy already
    there (`merge_session`). The sessions given are not changed (a parse cache may hold them)."""
    for session in sessions:
        key = (session.agent, session.session_id)
        found[key] = merge_session(found[key], session) if key in found else session


def merge_session(one: Session, other: Session) -> Session:
    """One session from two copies of it: the copy with more messages, plus the messages (by `message_id`)
    and edits (by message, call and path) only the other holds, in time order. A copy that adds nothing
    (the usual case: an earlier, shorter copy of a growing file) leaves the longer one as it is.

    Message ids must name the same record in both copies: Claude Code's `uuid`s do; Codex's `r<N>` ordinals
    do for copies of one rollout that grows at its end, which is how Entire copies it.
    """
    longer, shorter = (one, other) if _leads(one, other) else (other, one)
    known = {m.message_id for m in longer.messages}
    extra = [m for m in shorter.messages if m.message_id not in known]
    have = {_edit_key(e) for e in longer.edits}
    edits = [e for e in shorter.edits if _edit_key(e) not in have]
    aliases = sorted({*longer.aliases, *shorter.aliases} - {longer.session_id})
    if not extra and not edits and aliases == sorted(longer.aliases):
        return longer
    messages = _in_time_order([*longer.messages, *extra])
    return replace(
        longer,
        messages=messages,
        edits=[*longer.edits, *edits],
        aliases=aliases,
        cwds=[*longer.cwds, *(c for c in shorter.cwds if c not in longer.cwds)],
        stats=_stats(longer.stats, shorter.stats),
    )


def _edit_key(edit: Edit) -> tuple[str, str | None, str, str]:
    return edit.message_id, edit.call_id, edit.path, edit.tool


def _leads(one: Session, other: Session) -> bool:
    """Whether `one` leads the merge of two copies: more messages, then more edits, then a digest of what it
    holds, so copies of one length merge alike in whichever order they were found (notes must not depend
    on it)."""
    sizes = (len(one.messages), len(one.edits)), (len(other.messages), len(other.edits))
    if sizes[0] != sizes[1]:
        return sizes[0] > sizes[1]
    return _digest(one) >= _digest(other)


def _digest(session: Session) -> str:
    digest = hashlib.sha256()
    for message in session.messages:
        digest.update(message.message_id.encode("utf-8", "surrogatepass") + b"\0")
    for edit in session.edits:
        digest.update(repr(_edit_key(edit)).encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def _in_time_order(messages: list[Message]) -> list[Message]:
    """Messages sorted by timestamp, a message without one keeping the time of the one before it (stable:
    equal times keep their order)."""
    last: datetime | None = None
    keyed: list[tuple[datetime | None, int, Message]] = []
    for index, message in enumerate(messages):
        last = message.timestamp or last
        keyed.append((last, index, message))
    if any(when is None for when, _, _ in keyed):
        return messages  # a copy without clocks: its order is all there is
    return [m for _, _, m in sorted(keyed, key=lambda k: (k[0], k[1]))]


def _stats(one: ParseStats, other: ParseStats) -> ParseStats:
    """The counts of the longer copy, each raised to the other's where it is higher (a copy's records are
    mostly the other's too: adding would count them twice)."""
    types = dict(one.unknown_types)
    for kind, count in other.unknown_types.items():
        types[kind] = max(types.get(kind, 0), count)
    return ParseStats(
        records=max(one.records, other.records),
        unreadable=max(one.unreadable, other.unreadable),
        duplicates=max(one.duplicates, other.duplicates),
        unknown_types=types,
    )
