"""Cursor agent transcripts: `~/.cursor/projects/<slug>/agent-transcripts/[<id>/]<id>.jsonl`.

Written by Cursor's agent (IDE and `cursor-agent` CLI); the files record no version, and the corpus
sample is a git-ai test fixture.

Each line is `{"role": "user"|"assistant", "message": {"content": [blocks]}}` with Anthropic-style
blocks: `text`, `thinking`, `tool_use {name, input}` and, rarely, `tool_result`. Typed prompts are
wrapped in `<user_query>…</user_query>`. Lines carry no ids and no timestamps: `message_id` is `r<N>`,
the 1-based ordinal of the record in the file (stable, the file is append-only), the order of messages
is the order of the file, and every message's `timestamp` is the file's modification time (the only
time Cursor records). Edits come from `Write {path, contents}` (seen in the corpus) and, from public
descriptions of Cursor's tools, `StrReplace`/`Edit {path, old_string, new_string, replace_all}`,
`MultiEdit {path, edits}`, `Delete {path}` and `ApplyPatch` (an apply_patch envelope; `*** Move to:` is a
move edit), and from `Shell {command, working_directory?}` through the shell reader (`transcripts.shell`:
writes the command shows, `mv`/`cp`/`git mv`). Tool results are not written, so an edit that Cursor rejected
cannot be told from one that landed.

The project folder is the workspace path with every run of non-alphanumerics turned into one '-' and
no leading or trailing '-' (`/Users/a/testing-git-ai` → `Users-a-testing-git-ai`, as the corpus
sample's own `agent-tools` path shows). Subagents are `<id>/subagents/<sub-id>.jsonl`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Any

from ..core.values import Edit, Message, ParseStats, Part, Role, Session
from ..transcripts import shell
from ..transcripts.blocks import result_text
from ..transcripts.edits import envelope, replacements, whole_file
from ..transcripts.jsonl import head_records, iter_records, one_record, recognised, written_since

NAME = "cursor"
EDIT_TOOLS = frozenset({"Write", "StrReplace", "Edit", "MultiEdit", "Delete", "ApplyPatch"})
SHELL_TOOL = "Shell"
_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant", "system": "system", "tool": "tool"}


def _user_query(text: str) -> str:
    """What the person typed: the text inside the first `<user_query>…</user_query>`, stripped, else `text`.
    Found with `find` (a lazy pattern scanned to the end from every unclosed tag: quadratic)."""
    opening = text.find("<user_query>")
    closing = text.find("</user_query>", opening + len("<user_query>")) if opening >= 0 else -1
    return text[opening + len("<user_query>") : closing].strip() if closing >= 0 else text


def cursor_home() -> Path:
    """`~/.cursor`, where Cursor keeps its per-project folders."""
    return Path.home() / ".cursor"


def encode_project(path: PurePath | str) -> str:
    """Cursor's project folder name for a workspace path: runs of non-alphanumerics → one '-', trimmed."""
    return re.sub(r"[^A-Za-z0-9]+", "-", str(path)).strip("-")


def locations(root: Path) -> list[str]:
    """Where `discover` looks for `root`'s transcripts, as a path pattern of this machine."""
    return [f"{cursor_home() / 'projects' / encode_project(root)}*/agent-transcripts/"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Transcripts of workspaces at `root`, below it, or above it, written at or after `since`.

    Folder names are lossy ('/', '.', '_' all become '-'), and Windows drive letters appear in either
    case, so names are compared case-insensitively and by prefix both ways; membership is decided later
    from the cwd and edited paths.
    """
    projects = cursor_home() / "projects"
    if not projects.is_dir():
        return
    mine = encode_project(root).casefold()
    for folder in sorted(projects.iterdir()):
        name = folder.name.casefold()
        if name == mine or name.startswith(mine + "-") or mine.startswith(name + "-"):
            transcripts = folder / "agent-transcripts"
            found = [
                *transcripts.glob("*.jsonl"),
                *transcripts.glob("*/*.jsonl"),
                *transcripts.glob("*/subagents/*.jsonl"),
            ]
            yield from written_since(sorted(found), since)


def sniff(path: Path) -> bool:
    """True when the first records are shaped as Cursor's (objects with a string `role`, of any value; all but
    one, as one may be damaged), more `{role, message}` objects than records with a Claude/Codex `type`,
    `payload` or `sessionId`. Roles are not checked against a list."""
    if path.suffix != ".jsonl":
        return False
    return recognised(
        head_records(path, limit=5),
        lambda r: isinstance(r.get("role"), str),
        lambda r: isinstance(r.get("role"), str) and isinstance(r.get("message"), dict),
        lambda r: bool({"type", "payload", "sessionId"} & r.keys()),
    )


def read(path: Path) -> list[Session]:
    """Parse one transcript into one session named after the file; raises OSError only when it cannot
    be opened. A file in `<id>/subagents/` gets `parent_session_id` = `<id>`."""
    when = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
    stats = ParseStats()
    messages: list[Message] = []
    edits: list[Edit] = []
    paths: list[str] = []
    for record in iter_records(path, stats):
        with one_record(stats):
            message = _message(record, f"r{stats.records}", when, edits, paths, stats)
            if message is not None:
                messages.append(message)
    parent = path.parent.parent.name if path.parent.name == "subagents" else None
    cwd = _workspace(path, paths)
    return [
        Session(
            agent="cursor",
            session_id=path.stem,
            transcript=path,
            cwd=cwd,
            cwds=[cwd] if cwd else [],
            parent_session_id=parent,
            messages=messages,
            edits=edits,
            stats=stats,
        )
    ]


def _message(
    record: dict[str, Any],
    message_id: str,
    when: datetime,
    edits: list[Edit],
    paths: list[str],
    stats: ParseStats,
) -> Message | None:
    body, role = record.get("message"), _ROLES.get(str(record.get("role")))
    if role is None:
        stats.unknown(str(record.get("role") or record.get("type")))
        return None
    content = body.get("content") if isinstance(body, dict) else None
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    parts = _parts(content if isinstance(content, list) else [], message_id, when, edits, paths)
    if not parts:
        return None
    if all(p.kind == "tool_result" for p in parts):
        role = "tool"
    # Cursor injects context as tagged text (`<user_info>`, …); what the person typed is in <user_query>.
    raw = _raw(content).lstrip()
    prompt = role == "user" and bool(raw) and ("<user_query>" in raw or not raw.startswith("<"))
    return Message(message_id=message_id, role=role, timestamp=when, parts=tuple(parts), is_prompt=prompt)


def _parts(
    content: list[Any], message_id: str, when: datetime, edits: list[Edit], paths: list[str]
) -> list[Part]:
    parts: list[Part] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            raw = block["text"]
            parts.append(Part(kind="text", text=_user_query(raw)))
        elif btype == "thinking" and isinstance(block.get("thinking"), str):
            parts.append(Part(kind="reasoning", text=block["thinking"]))
        elif btype in ("tool_use", "tool_call"):
            name = str(block.get("name") or block.get("tool") or "")
            args = block.get("input", block.get("args"))
            call_id = str(block.get("id") or f"{message_id}.{len(parts) + 1}")
            parts.append(
                Part(
                    kind="tool_call",
                    tool=name,
                    call_id=call_id,
                    text=args if isinstance(args, str) else json.dumps(args),
                )
            )
            if isinstance(args, dict):
                paths += [v for k, v in args.items() if k in ("path", "file_path") and isinstance(v, str)]
            if name in EDIT_TOOLS:
                edits += _edits(name, args, message_id, call_id, when)
            elif name == SHELL_TOOL and isinstance(args, dict) and isinstance(args.get("command"), str):
                # What it wrote, moved or copied, as far as the command text shows (`transcripts.shell`); like
                # the edits, whether it succeeded is not recorded.
                folder = next(
                    (
                        v
                        for k, v in args.items()
                        if k in ("working_directory", "cwd", "workdir") and isinstance(v, str) and v
                    ),
                    None,
                )
                edits += shell.shell_edits(
                    args["command"], folder, tool=name, message_id=message_id, call_id=call_id, timestamp=when
                )
        elif btype == "tool_result":
            parts.append(
                Part(
                    kind="tool_result",
                    call_id=str(block.get("tool_use_id") or "") or None,
                    is_error=bool(block.get("is_error")),
                    text=result_text(block.get("content")),
                )
            )
    return parts


def _edits(name: str, args: Any, message_id: str, call_id: str, when: datetime) -> list[Edit]:
    if name == "ApplyPatch":
        text = (
            args
            if isinstance(args, str)
            else next((v for k, v in args.items() if k in ("patch", "input") and isinstance(v, str)), "")
            if isinstance(args, dict)
            else ""
        )
        return envelope(text, tool=name, message_id=message_id, call_id=call_id, timestamp=when)
    if not isinstance(args, dict):
        return []
    path = args.get("path") or args.get("file_path")
    if not isinstance(path, str) or not path:
        return []
    if name == "Write":
        contents = args.get("contents", args.get("content"))
        return [
            whole_file(
                path,
                contents if isinstance(contents, str) else "",
                tool=name,
                message_id=message_id,
                call_id=call_id,
                timestamp=when,
            )
        ]
    if name == "Delete":
        return [
            Edit(path=path, tool=name, message_id=message_id, call_id=call_id, timestamp=when, kind="delete")
        ]
    raw = args.get("edits")
    many: list[Any] = raw if name == "MultiEdit" and isinstance(raw, list) else [args]
    pairs = [
        (str(e.get("old_string", "")), str(e.get("new_string", ""))) for e in many if isinstance(e, dict)
    ]
    return [replacements(path, pairs, tool=name, message_id=message_id, call_id=call_id, timestamp=when)]


def _workspace(path: Path, paths: list[str]) -> str | None:
    """The workspace folder: the ancestor of a path the agent touched whose encoding is the project folder.

    Only possible when the transcript sits in Cursor's layout (`projects/<slug>/agent-transcripts/…`).
    """
    parts = path.parts
    if "agent-transcripts" not in parts:
        return None
    slug = parts[parts.index("agent-transcripts") - 1].casefold()
    for touched in paths:
        pure = PureWindowsPath(touched) if re.match(r"^[A-Za-z]:[\\/]", touched) else PurePosixPath(touched)
        for folder in pure.parents:
            if encode_project(folder).casefold() == slug:
                return str(folder)
    return None


def _raw(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"
    )
