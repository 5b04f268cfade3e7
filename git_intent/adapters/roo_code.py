"""Roo Code (Cline's fork) task folders: `tasks/<task id>/api_conversation_history.json` beside
`ui_messages.json`, `task_metadata.json` and `history_item.json` (src/shared/globalFileNames.ts,
RooCodeInc/Roo-Code v3.52.1).

Where: VS Code's `globalStorage/rooveterinaryinc.roo-cline/` in every flavour (Code, Insiders, VSCodium,
Cursor, Windsurf) on Linux, macOS and Windows (`transcripts.vscode_storage`), or the folder the user set as
`roo-cline.customStoragePath` in a flavour's `settings.json` (src/utils/storage.ts). The task's id is its
folder's name; the messages are Anthropic's (`transcripts.api_history`), an assistant's stamped with its
response `id` and `ts`, its reasoning as Roo Code's own `reasoning` block. The person's words are wrapped in
`<user_message>` (older versions: `<task>`, `<feedback>`, `<answer>`); the environment details name the work
tree as `# Current Workspace Directory (<folder>) Files`. Roo Code writes no version of its own into a task.

Edits: `write_to_file {path, content}`, `apply_diff {path, diff}` (SEARCH/REPLACE blocks with `:start_line:`),
`edit` and its aliases `search_and_replace`, `search_replace`, `edit_file` `{file_path, old_string,
new_string}` (older: `search_and_replace {path, search, replace}`), `insert_content {path, line, content}`,
`apply_patch {patch}`, and `execute_command {command, cwd}` through the shell reader (the tools of
packages/types/src/tool.ts); calls written as XML in the text (before native tool calls) too.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core import errors
from ..core.values import AddedLine, Edit, Session
from ..transcripts import shell
from ..transcripts.api_history import Call, XmlTools, listed_folder, read_history, tagged
from ..transcripts.edits import envelope, replacement, replacements, whole_file
from ..transcripts.jsonl import head_text, loads, written_since
from ..transcripts.search_replace import blocks
from ..transcripts.vscode_storage import global_storage, user_dirs

NAME = "roo-code"
# Roo Code writes no version into a task folder.
NEWEST_TESTED: str | None = None
MULTI_SESSION = False
EXTENSION = "rooveterinaryinc.roo-cline"
HISTORY = "api_conversation_history.json"
SNIFF_BYTES = 32 * 1024
PROMPT_TAGS = ("user_message", "task", "feedback", "answer")
REPLACE_TOOLS = frozenset({"edit", "search_and_replace", "search_replace", "edit_file"})
WRITE_TOOLS = frozenset({"write_to_file", "apply_diff", "insert_content", "apply_patch", "execute_command"})
XML_PARAMS = frozenset({"path", "content", "diff", "command", "cwd", "search", "replace", "line", "patch"})
# What only one of the two agents writes into a task's messages (as in the Cline adapter, seen from this
# side).
ROO_MARKS = (
    "<user_message>",
    "# Current Workspace Directory (",
    '"apply_diff"',
    "<apply_diff>",
    '"isTruncationMarker"',
    '"condenseId"',
)
CLINE_MARKS = (
    "<task>",
    "# Current Working Directory (",
    '"replace_in_file"',
    "<replace_in_file>",
    "<feedback>",
)


def storage_dirs() -> list[Path]:
    """The extension's storage folders: each flavour's `customStoragePath` setting, then its globalStorage."""
    custom = [Path(folder) for user in user_dirs() if (folder := _custom_storage(user / "settings.json"))]
    return [*custom, *global_storage(EXTENSION)]


def locations(root: Path) -> list[str]:
    """Where `discover` looks (every project's tasks), as path patterns of this machine."""
    folders = storage_dirs() or [user_dirs()[0] / "globalStorage" / EXTENSION]
    return [f"{folder}/tasks/*/{HISTORY}" for folder in folders]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Every task's message file written at or after `since` (tasks are not filed by project: the catalog
    keeps those that mention `root`)."""
    for folder in storage_dirs():
        yield from written_since(sorted((folder / "tasks").glob(f"*/{HISTORY}")), since)


def sniff(path: Path) -> bool:
    """True for a task's message array (a JSON array whose first object has a `role` and `content`) whose
    head holds more of Roo Code's marks than of Cline's: words each writes into the messages, the
    extension's folder on its path, `history_item.json` beside it (the shared format is Cline's when the
    marks do not say)."""
    head = head_text(path, SNIFF_BYTES) if path.suffix == ".json" else None
    if (
        head is None
        or not head.startswith("[")
        or '"role"' not in head[:4096]
        or '"content"' not in head[:4096]
    ):
        return False
    parts = {part.lower() for part in path.parts}
    roo = (
        sum(mark in head for mark in ROO_MARKS)
        + (EXTENSION in parts)
        + path.with_name("history_item.json").is_file()
    )
    cline = sum(mark in head for mark in CLINE_MARKS) + bool({"saoudrizwan.claude-dev", ".cline"} & parts)
    return roo > cline


def read(path: Path) -> list[Session]:
    """The task of `path` as one session. Raises OSError when it cannot be opened and
    DamagedTranscriptError when it is not a whole JSON array (a torn rewrite holds no readable part)."""
    try:
        items = loads(path.read_bytes())
    except ValueError:
        items = None
    if not isinstance(items, list):
        raise errors.DamagedTranscriptError(
            f"The Roo Code task {path} is not a whole JSON array; it is skipped."
        )
    cwd = listed_folder(items, "Current Workspace Directory") or _workspace(
        path.with_name("history_item.json")
    )
    history = read_history(
        items,
        edits_of=lambda name, args, call: _edits(name, args, call, cwd),
        prompt_of=lambda text: tagged(text, PROMPT_TAGS),
        xml=XmlTools(REPLACE_TOOLS | WRITE_TOOLS, XML_PARAMS),
    )
    return [
        Session(
            agent=NAME,
            session_id=path.parent.name.replace(":", "-"),
            transcript=path,
            cwd=cwd,
            cwds=[cwd] if cwd else [],
            messages=history.messages,
            edits=history.edits,
            stats=history.stats,
        )
    ]


def _edits(name: str, args: dict[str, Any], call: Call, cwd: str | None) -> list[Edit]:
    """The edits one call made; [] for a tool that writes no file or arguments of another shape."""
    where: dict[str, Any] = {
        "tool": name,
        "message_id": call.message_id,
        "call_id": call.call_id,
        "timestamp": call.timestamp,
    }
    if name == "execute_command":
        command, folder = args.get("command"), args.get("cwd")
        folder = folder if isinstance(folder, str) and folder else cwd
        return shell.shell_edits(command, folder, **where) if isinstance(command, str) else []
    if name == "apply_patch":
        text = args.get("patch", args.get("input"))
        return envelope(text, **where) if isinstance(text, str) else []
    path = args.get("file_path", args.get("path"))
    if not isinstance(path, str) or not path:
        return []
    path = path if posixpath.isabs(path) or not cwd or ":" in path[:3] else posixpath.join(cwd, path)
    if name == "write_to_file" and isinstance(args.get("content"), str):
        return [whole_file(path, args["content"], **where)]
    if name == "apply_diff" and isinstance(args.get("diff"), str):
        pairs = [(b.old, b.new) for b in blocks(args["diff"])]
        return [replacements(path, pairs, **where)] if pairs else []
    if name == "insert_content" and isinstance(args.get("content"), str):
        lines = tuple(AddedLine(text=t) for t in args["content"].splitlines())
        return [Edit(path=path, kind="update", new_text=args["content"], added=lines, **where)]
    if name in REPLACE_TOOLS:
        old, new = args.get("old_string", args.get("search")), args.get("new_string", args.get("replace"))
        if isinstance(old, str) and isinstance(new, str):
            return [replacement(path, old, new, **where)]
    return []


def _workspace(history_item: Path) -> str | None:
    """The `workspace` of the task's `history_item.json`, or None."""
    try:
        data = json.loads(history_item.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    folder = data.get("workspace") if isinstance(data, dict) else None
    return folder if isinstance(folder, str) and folder else None


def _custom_storage(settings: Path) -> str | None:
    """The `roo-cline.customStoragePath` of a VS Code `settings.json` (JSON with comments: the key is found as
    text and its string value decoded), or None."""
    try:
        text = settings.read_text(encoding="utf-8")
    except OSError:
        return None
    at = text.find('"roo-cline.customStoragePath"')
    colon = text.find(":", at) if at >= 0 else -1
    if colon < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[colon + 1 :].lstrip())
    except ValueError:
        return None
    return value if isinstance(value, str) and value.strip() else None
