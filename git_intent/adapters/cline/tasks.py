"""A Cline task folder: `api_conversation_history.json`, the messages as Cline sent them to the model (a JSON
array, rewritten whole as the task grows; `ClineStorageMessage`, apps/vscode/src/shared/messages/content.ts,
v3.89.2), and beside it `task_metadata.json` (`environment_history[].cline_version`, the extension's version).

The task's id is its folder's name. The person's words are wrapped in `<task>` (the first message),
`<feedback>` or `<answer>`; the rest of a user message is what Cline adds (`<environment_details>`, which
names the work tree as `# Current Working Directory (<folder>) Files`, and tool results). Models before native
tool calls wrote their calls as XML in the text; both kinds are read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...core.errors import DamagedTranscriptError
from ...core.values import Session
from ...transcripts.api_history import XmlTools, listed_folder, read_history, tagged
from ...transcripts.jsonl import loads
from .tools import EDIT_TOOLS, SHELL_TOOLS, XML_PARAMS, edits_of

__all__ = ["HISTORY", "marks", "read", "shaped"]

HISTORY = "api_conversation_history.json"
PROMPT_TAGS = ("task", "feedback", "answer")
# What only one of the two agents writes into a task's messages (Roo Code forked Cline, and keeps the folder).
CLINE_MARKS = (
    "<task>",
    "# Current Working Directory (",
    '"replace_in_file"',
    "<replace_in_file>",
    "<feedback>",
)
ROO_MARKS = (
    "<user_message>",
    "# Current Workspace Directory (",
    '"apply_diff"',
    "<apply_diff>",
    '"isTruncationMarker"',
    '"condenseId"',
)


def shaped(head: str) -> bool:
    """Whether a file's head is a message array: a JSON array whose first object has a `role` and
    `content`."""
    first = head[:4096]
    return head.startswith("[") and '"role"' in first and '"content"' in first


def marks(path: Path, head: str) -> tuple[int, int]:
    """How many of Cline's and of Roo Code's marks a task file shows: words each writes into the messages, the
    extension's folder on its path, and Roo Code's `history_item.json` beside the file."""
    parts = {part.lower() for part in path.parts}
    cline = sum(mark in head for mark in CLINE_MARKS) + bool({"saoudrizwan.claude-dev", ".cline"} & parts)
    roo = (
        sum(mark in head for mark in ROO_MARKS)
        + ("rooveterinaryinc.roo-cline" in parts)
        + (path.with_name("history_item.json").is_file())
    )
    return cline, roo


def read(path: Path, agent: str) -> Session:
    """The task of `path` as one session. Raises OSError when it cannot be opened and DamagedTranscriptError
    when it is not a whole JSON array (a torn rewrite holds no readable part)."""
    try:
        items = loads(path.read_bytes())
    except ValueError:
        items = None
    if not isinstance(items, list):
        raise DamagedTranscriptError(f"The Cline task {path} is not a whole JSON array; it is skipped.")
    cwd = listed_folder(items, "Current Working Directory")
    history = read_history(
        items,
        edits_of=lambda name, args, call: edits_of(name, args, call, cwd),
        prompt_of=lambda text: tagged(text, PROMPT_TAGS),
        xml=XmlTools(EDIT_TOOLS | SHELL_TOOLS, XML_PARAMS),
    )
    return Session(
        agent=agent,
        session_id=path.parent.name.replace(":", "-"),
        transcript=path,
        cwd=cwd,
        cwds=[cwd] if cwd else [],
        agent_version=_version(path.with_name("task_metadata.json")),
        messages=history.messages,
        edits=history.edits,
        stats=history.stats,
    )


def _version(metadata: Path) -> str | None:
    """The newest `cline_version` in the task's `environment_history`, or None."""
    try:
        data: Any = json.loads(metadata.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    entries = data.get("environment_history") if isinstance(data, dict) else None
    versions = (
        [e.get("cline_version") for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    )
    found = [v for v in versions if isinstance(v, str) and v]
    return found[-1] if found else None
