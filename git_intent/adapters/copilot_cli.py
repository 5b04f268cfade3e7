"""GitHub Copilot CLI sessions: the agent's event log, `<home>/session-state/<session id>/events.jsonl`
(before 0.0.35x: `<home>/session-state/<session id>.jsonl`), read by `transcripts.copilot_events`.

`<home>` is `$COPILOT_HOME`, else `$XDG_STATE_HOME/.copilot`, else `~/.copilot` on Linux, macOS and Windows
(the CLI's changelog names `COPILOT_HOME` and `~/.copilot`; VS Code's Copilot Chat finds CLI sessions under
`$XDG_STATE_HOME` the same way, src/extension/chatSessions/copilotcli/node/cliHelpers.ts). Sessions of every
project share the folder: membership is decided from the session's `context.cwd` and the paths it edited. VS
Code writes the same format for its agent sessions (the `copilot-chat` adapter's): a log whose `session.start`
names a `vscodeVersion`, or that lies in a `GitHub.copilot-chat` folder, is VS Code's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.values import Session
from ..transcripts.copilot_events import read_events, shaped
from ..transcripts.jsonl import head_records, recognised, written_since

NAME = "copilot-cli"
# The CLI version of the newest fixture (`session.start`'s `copilotVersion`); `doctor` says when logs on disk
# come from a newer one.
NEWEST_TESTED = "1.0.77"
MULTI_SESSION = False
SNIFF_BYTES = 64 * 1024


def copilot_home() -> Path:
    """`$COPILOT_HOME`, else `$XDG_STATE_HOME/.copilot`, else `~/.copilot`."""
    explicit = os.environ.get("COPILOT_HOME", "").strip()
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME", "").strip()
    return (Path(state) if state else Path.home()) / ".copilot"


def locations(root: Path) -> list[str]:
    """Where `discover` looks (every project's sessions), as path patterns of this machine."""
    folder = copilot_home() / "session-state"
    return [f"{folder}/*/events.jsonl", f"{folder}/*.jsonl"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Every session's event log written at or after `since` (sessions are not filed by project: the catalog
    keeps those that mention `root`)."""
    folder = copilot_home() / "session-state"
    found = [*folder.glob("*/events.jsonl"), *folder.glob("*.jsonl")]
    yield from written_since(sorted(found), since)


def sniff(path: Path) -> bool:
    """True for an event log of the CLI: its first records shaped as events (all but one), at least one a
    conversation record or a `session.start` of the agent, none a `session.start` naming a VS Code version,
    and not inside VS Code's `GitHub.copilot-chat` folder."""
    if path.suffix != ".jsonl" or any(part.lower() == "github.copilot-chat" for part in path.parts):
        return False
    heads = head_records(path, limit=8, max_bytes=SNIFF_BYTES)
    # VS Code writes the same records: the version it names in `session.start` says whose the log is.
    return recognised(heads, shaped, _marked) and not any(_vscode(record) for record in heads)


def read(path: Path) -> list[Session]:
    """The session in `path`. Raises OSError when it cannot be opened."""
    log = read_events(path)
    folder = path.parent.name if path.name == "events.jsonl" else path.stem
    return [
        Session(
            agent=NAME,
            session_id=(log.session_id or folder).replace(":", "-"),
            transcript=path,
            cwd=log.cwd,
            cwds=[log.cwd] if log.cwd else [],
            agent_version=log.version,
            messages=log.messages,
            edits=log.edits,
            stats=log.stats,
        )
    ]


def _marked(record: dict[str, Any]) -> bool:
    data = record.get("data")
    kind = record.get("type")
    if kind == "session.start":
        return (
            isinstance(data, dict) and data.get("producer") == "copilot-agent" and "vscodeVersion" not in data
        )
    return kind in ("user.message", "assistant.message", "tool.execution_complete")


def _vscode(record: dict[str, Any]) -> bool:
    data = record.get("data")
    return record.get("type") == "session.start" and isinstance(data, dict) and "vscodeVersion" in data
