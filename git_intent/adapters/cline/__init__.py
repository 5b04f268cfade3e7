"""Cline: the task folders of the VS Code extension (v3.x) and the sessions of its SDK (v4: CLI, VS Code,
JetBrains).

Task folders, `tasks/<task id>/api_conversation_history.json` beside `ui_messages.json` and
`task_metadata.json` (`tasks.py`): in VS Code's `globalStorage/saoudrizwan.claude-dev/` (every flavour: Code,
Insiders, VSCodium, Cursor, Windsurf; on Linux, macOS and Windows) and in Cline's data folder,
`$CLINE_DATA_DIR`, else `$CLINE_DIR/data`, else `~/.cline/data` (where v3.5x and later, the CLI and JetBrains
keep them). SDK sessions, `<session data>/<session id>/<session id>.messages.json` beside its `<session
id>.json` manifest (`sessions.py`): `$CLINE_SESSION_DATA_DIR`, else `<data folder>/sessions`. Paths follow
apps/vscode/src/core/storage/disk.ts and sdk/packages/shared/src/storage/paths.ts (cline/cline, v3.89.2 and
v4.1.12).

Both hold Anthropic-style messages (`transcripts.api_history`); the tools and what they wrote are in
`tools.py`. Task folders of the shared format are also Roo Code's (its fork): a file is Cline's unless more of
Roo Code's marks than Cline's are in its head (`sniff`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from ...core.values import Session
from ...transcripts.jsonl import head_text, written_since
from ...transcripts.vscode_storage import global_storage
from . import sessions, tasks

__all__ = [
    "EXTENSION",
    "MULTI_SESSION",
    "NAME",
    "NEWEST_TESTED",
    "data_dirs",
    "discover",
    "locations",
    "read",
    "sniff",
]

NAME = "cline"
# The extension version of the task-folder sample (`task_metadata.json`'s `cline_version`); SDK sessions
# record none. `doctor` says when task folders on disk come from a newer one.
NEWEST_TESTED = "3.89.2"
MULTI_SESSION = False
EXTENSION = "saoudrizwan.claude-dev"
SNIFF_BYTES = 32 * 1024


def data_dirs() -> list[Path]:
    """Cline's data folder (`$CLINE_DATA_DIR`, else `$CLINE_DIR/data`, else `~/.cline/data`), then the
    extension's VS Code storage folders that exist."""
    explicit = os.environ.get("CLINE_DATA_DIR", "").strip()
    home = os.environ.get("CLINE_DIR", "").strip()
    data = Path(explicit) if explicit else (Path(home) if home else Path.home() / ".cline") / "data"
    return [data, *global_storage(EXTENSION)]


def session_dir() -> Path:
    """Where the SDK keeps sessions: `$CLINE_SESSION_DATA_DIR`, else `<data folder>/sessions`."""
    explicit = os.environ.get("CLINE_SESSION_DATA_DIR", "").strip()
    return Path(explicit) if explicit else data_dirs()[0] / "sessions"


def locations(root: Path) -> list[str]:
    """Where `discover` looks (every project's tasks and sessions), as path patterns of this machine."""
    return [
        *(f"{folder}/tasks/*/{tasks.HISTORY}" for folder in data_dirs()),
        f"{session_dir()}/*/*.messages.json",
    ]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Every task's `api_conversation_history.json` and every SDK session's `<id>.messages.json` written at or
    after `since` (tasks are not filed by project: the catalog keeps those that mention `root`)."""
    for folder in data_dirs():
        yield from written_since(sorted((folder / "tasks").glob(f"*/{tasks.HISTORY}")), since)
    yield from written_since(sorted(session_dir().glob("*/*.messages.json")), since)


def sniff(path: Path) -> bool:
    """True for an SDK session (a JSON object naming its `sessionId`, `version` and `messages`, and its
    `agent` or `updated_at`) and for a task's message array whose head holds no more of Roo Code's marks
    than of Cline's (`tasks.marks`)."""
    head = head_text(path, SNIFF_BYTES) if path.suffix == ".json" else None
    if head is None:
        return False
    if head.startswith("{"):
        return sessions.shaped(head)
    if not tasks.shaped(head):
        return False
    cline, roo = tasks.marks(path, head)
    return cline >= roo


def read(path: Path) -> list[Session]:
    """The task or SDK session in `path` as one session. Raises OSError when it cannot be opened and
    DamagedTranscriptError when it is not whole JSON of its shape."""
    if path.name.endswith(".messages.json") or (head_text(path, 64) or "").startswith("{"):
        return [sessions.read(path, NAME)]
    return [tasks.read(path, NAME)]
