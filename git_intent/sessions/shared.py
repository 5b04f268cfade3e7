"""Reading shared evidence as sessions, on a machine without the transcripts (blame, show, context).

A blob of `refs/intent/evidence` (docs/json.md) becomes a `SharedSession`: the same `Session` model the
adapters produce, holding only what was shared, already redacted. Blobs that cannot be read (too large, too
deep, the wrong shape: other people wrote them) are skipped with one warning on stderr each, as
unreadable transcripts are, and `git intent doctor` names them.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.terminal import terminal_safe
from ..core.values import Session, parse_timestamp, validate
from ..git.repo import Repository
from ..notes import evidence_ref as store

_CACHE: dict[tuple[str, str], dict[str, dict[str, str]]] = {}
_WARNED: set[str] = set()
# What one shared message part may contribute to an answer (one 60 MB message made `show` take 30 s
# and 392 MB); the rest is left out with a note saying how much. The longest part of the corpus is ~40,000.
MAX_PART_CHARS = 64 * 1024


@dataclass(kw_only=True)
class SharedSession(Session):
    """A session read from the shared store: `level` (evidence | sessions), the ids of the messages
    whose text redaction changed, the shared topic summaries, and the shared per-turn annotations (decoded
    JSON objects, validated where they are used: `fidelity.annotations.shared_annotations`)."""

    level: str = "evidence"
    redacted_ids: list[str] = field(default_factory=list)
    topics: list[dict[str, Any]] = field(default_factory=list)
    annotations: list[dict[str, Any]] = field(default_factory=list)


def _shared(repo: Repository) -> dict[str, dict[str, str]]:
    oid = store.ref_oid(repo)
    if oid is None:
        return {}
    key = (str(repo.common_dir), oid)
    if key not in _CACHE:
        _CACHE[key] = store.sessions_in(store.read_entries(repo)[1])
    return _CACHE[key]


def shared_session(
    repo: Repository, session_id: str, agent: str | None = None, *, exact: bool = True
) -> SharedSession | None:
    """The shared session with this id (or unique id prefix unless `exact`), the most complete level
    first; None when nothing matching is shared or its blob cannot be read."""
    if not session_id:
        return None
    found = _shared(repo)
    if not found:
        return None
    safe_id = store.session_key("-", session_id).split("/", 1)[1]
    mine = [k for k in found if not agent or k.startswith(agent + "/")]
    keys = [k for k in mine if k.split("/", 1)[1] == safe_id]
    if not keys and not exact:
        keys = [k for k in mine if k.split("/", 1)[1].startswith(safe_id)]
    if len(keys) != 1:
        return None
    levels = found[keys[0]]
    level = "sessions" if "sessions" in levels else "evidence"
    return load_shared(repo, levels[level], f"{store.EVIDENCE_REF}:{store.session_path(level, keys[0])}")


def load_shared(repo: Repository, oid: str, where: str) -> SharedSession | None:
    """A session blob as a SharedSession, or None when it is not a readable evidence object (then one
    warning on stderr names it, once per process)."""
    payload, problem = store.load_payload(repo, oid)
    session = None if payload is None else readable_session(payload, where)
    if session is None:
        _warn(oid, where, problem or "does not hold a readable session")
    return session


def readable_session(payload: dict[str, Any], where: str) -> SharedSession | None:
    """`session_from_payload`, or None when the payload does not hold a readable session (never raises)."""
    try:
        return session_from_payload(payload, where)
    except (
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
        RecursionError,
    ):  # pydantic's ValidationError too
        return None


def _warn(oid: str, where: str, problem: str) -> None:
    if oid in _WARNED:
        return
    _WARNED.add(oid)
    sys.stderr.write(
        terminal_safe(
            f"warning: The shared blob {oid[:12]} ({where}) {problem}; it is ignored (`git intent doctor` "
            f"lists such objects)."
        )
        + "\n"
    )


def session_from_payload(payload: dict[str, Any], where: str) -> SharedSession:
    """Build a SharedSession from a decoded blob, shape-checked by pydantic (`values.validate`: someone
    else wrote it). Raises ValueError (pydantic's ValidationError is one) or KeyError/TypeError/
    AttributeError for a malformed one."""
    messages, edits, redacted = [], [], []
    for item in payload.get("messages", []):
        parts = [
            {
                "kind": p["kind"],
                "text": capped(p.get("text") or ""),
                "tool": p.get("tool"),
                "call_id": p.get("call_id"),
                "is_error": bool(p.get("is_error")),
            }
            for p in item.get("parts", [])
        ]
        messages.append(
            {
                "message_id": item["message_id"],
                "role": item["role"],
                "timestamp": _when(item),
                "parts": parts,
                "is_prompt": bool(item.get("is_prompt")),
                "is_summary": bool(item.get("is_summary")),
                "model": item["model"] if isinstance(item.get("model"), str) else None,
            }
        )
        if item.get("redacted"):
            redacted.append(item["message_id"])
    for item in payload.get("edits", []):
        edits.append(
            {
                "path": item["path"],
                "tool": item["tool"],
                "message_id": item["message_id"],
                "call_id": item.get("call_id"),
                "timestamp": _when(item),
                "kind": item.get("kind", "update"),
                "old_text": capped(item.get("old_text")),
                "new_text": capped(item.get("new_text") or ""),
                "added": [{"text": a["text"], "line": a.get("line")} for a in item.get("added", [])],
            }
        )
        if item.get("redacted"):
            redacted.append(item["message_id"])
    _rebuild_calls(messages, edits)
    return validate(
        SharedSession,
        {
            "agent": payload["agent"],
            "session_id": payload["session_id"],
            "transcript": Path(where),
            "agent_version": payload.get("agent_version"),
            "messages": messages,
            "edits": edits,
            "level": str(payload.get("level", "evidence")),
            "redacted_ids": sorted(set(redacted)),
            "topics": [t for t in payload.get("topics", []) if isinstance(t, dict)],
            "annotations": [a for a in payload.get("annotations", []) if isinstance(a, dict)],
        },
    )


def _rebuild_calls(messages: list[dict[str, Any]], edits: list[dict[str, Any]]) -> None:
    """Give each shared edit back the tool call that made it, in its message, when the blob has none.

    The `evidence` level shares a message's text and reasoning but not its tool calls, so a teammate's
    `show` printed no diff (the diff hangs from the call) and `why` could not quote the edited lines (a quote
    comes from the call's arguments). The call is rebuilt from what the blob holds, the edits it made: its
    arguments are the edits' paths and texts, every one of which the diff shows, so `show` prints it as the
    author's and quotes find the edited lines there."""
    made: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for edit in edits:
        if edit["call_id"]:
            made.setdefault((edit["message_id"], edit["call_id"]), []).append(edit)
    for message in messages:
        present = {p["call_id"] for p in message["parts"] if p["kind"] == "tool_call"}
        for (message_id, call_id), found in made.items():
            if message_id != message["message_id"] or call_id in present:
                continue
            arguments = [
                {
                    "path": e["path"],
                    "old_string": e["old_text"] or "",
                    "new_string": e["new_text"] or "\n".join(a["text"] for a in e["added"]),
                }
                for e in found
            ]
            message["parts"].append(
                {
                    "kind": "tool_call",
                    "text": json.dumps({"edits": arguments}, ensure_ascii=False),
                    "tool": found[0]["tool"],
                    "call_id": call_id,
                    "is_error": False,
                }
            )


def capped(text: Any) -> Any:
    """`text` cut to MAX_PART_CHARS characters, with a line saying how many were left out."""
    if not isinstance(text, str) or len(text) <= MAX_PART_CHARS:
        return text
    return (
        f"{text[:MAX_PART_CHARS]}\n[… {len(text) - MAX_PART_CHARS:,} more characters of this shared "
        f"message left out]"
    )


def _when(item: dict[str, Any]) -> datetime | None:
    return parse_timestamp(item.get("timestamp"))


def mark_shared(session: Session, evidence: list[Any]) -> list[Any]:
    """Evidence quoted from a SharedSession carries `source: "shared"` and `redacted` per message."""
    if not isinstance(session, SharedSession):
        return evidence
    redacted = set(session.redacted_ids)
    return [replace(e, source="shared", redacted=e.message_id in redacted) for e in evidence]
