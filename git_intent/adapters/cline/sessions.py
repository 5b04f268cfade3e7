"""A Cline SDK session: `<id>.messages.json`, `{"version": 1, "updated_at", "agent":
"lead"|"subagent"|"teammate", "sessionId", "messages": [...], "system_prompt"?}`
(sdk/packages/core/docs/messages-contract-v1.md, cline/cline v4.1.12), rewritten whole after each turn, beside
its manifest `<id>.json` (`cwd`, `workspace_root`, `started_at`, `model`). Every message has an `id` and its
content is blocks; a person's words are the `text` blocks of a user message (the files they attached are
`file` blocks, not read).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...core.errors import DamagedTranscriptError
from ...core.values import Session
from ...transcripts.api_history import read_history
from ...transcripts.jsonl import loads
from .tools import edits_of

__all__ = ["read", "shaped"]


def shaped(head: str) -> bool:
    """Whether a JSON object's head is a messages file: `sessionId`, `version` and `messages`, and `agent` or
    `updated_at` (values are not looked at)."""
    return all(f'"{key}"' in head for key in ("sessionId", "version", "messages")) and (
        '"agent"' in head or '"updated_at"' in head
    )


def read(path: Path, agent: str) -> Session:
    """The session of `path`. Raises OSError when it cannot be opened and DamagedTranscriptError when it is
    not a whole JSON object."""
    try:
        data = loads(path.read_bytes())
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise DamagedTranscriptError(f"The Cline session {path} is not a whole JSON object; it is skipped.")
    own = data.get("sessionId")
    session_id = own if isinstance(own, str) and own else path.name.removesuffix(".messages.json")
    manifest = _manifest(path.with_name(f"{session_id}.json"))
    cwd = next((v for k in ("cwd", "workspace_root") if isinstance(v := manifest.get(k), str) and v), None)
    items = data.get("messages")
    history = read_history(
        items if isinstance(items, list) else [],
        edits_of=lambda name, args, call: edits_of(name, args, call, cwd),
        prompt_of=lambda text: text.strip() or None,
    )
    return Session(
        agent=agent,
        session_id=session_id.replace(":", "-"),
        transcript=path,
        cwd=cwd,
        cwds=[cwd] if cwd else [],
        messages=history.messages,
        edits=history.edits,
        stats=history.stats,
    )


def _manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
