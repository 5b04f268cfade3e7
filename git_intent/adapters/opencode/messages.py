"""OpenCode messages and parts into `Message`s and `Edit`s (see the package docstring for the shapes), and
the small type-checking readers the package shares."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...core.values import AddedLine, Edit, Message, ParseStats, Part, Session, parse_timestamp
from ...transcripts import shell
from ...transcripts.jsonl import one_record
from ...transcripts.patches import FilePatch, parse_apply_patch, text_diff_added, unified_diff_added

EDIT_TOOLS = frozenset({"edit", "multiedit", "write", "apply_patch", "patch"})
SHELL_TOOL = "bash"
_QUIET_PARTS = frozenset(
    {"step-start", "step-finish", "snapshot", "patch", "file", "agent", "retry", "compaction"}
)
_KINDS = {"add": "create", "delete": "delete"}


@dataclass
class Meta:
    """What is known of a session before its messages are read."""

    session_id: str
    project_id: str | None = None
    parent_id: str | None = None
    directory: str | None = None
    version: str | None = None
    updated_ms: int | None = None
    stats: ParseStats = field(default_factory=ParseStats)


Wanted = Callable[[Meta, Session | None], bool]
Raw = tuple[str, dict[str, Any], list[dict[str, Any]]]  # message id, message info, its parts


def build_session(meta: Meta, transcript: Path, raws: Iterable[Raw]) -> Session:
    """A `Session` from a session's metadata and its raw messages, in order."""
    cwds = [meta.directory] if meta.directory else []
    messages: list[Message] = []
    edits: list[Edit] = []
    for message_id, info, parts in raws:
        cwd = text_of(get(info, "path", "cwd"))
        if cwd and cwd not in cwds:
            cwds.append(cwd)
        with one_record(meta.stats):
            message = _message(message_id.replace(":", "_"), info, parts, meta.stats, edits)
            if message is not None:
                messages.append(message)
    return Session(
        agent="opencode",
        session_id=meta.session_id,
        transcript=transcript,
        cwd=cwds[0] if cwds else None,
        cwds=cwds,
        parent_session_id=meta.parent_id,
        agent_version=meta.version,
        messages=messages,
        edits=edits,
        stats=meta.stats,
    )


def _message(
    message_id: str,
    info: dict[str, Any],
    raw_parts: list[dict[str, Any]],
    stats: ParseStats,
    edits: list[Edit],
) -> Message | None:
    role = info.get("role")
    if role not in ("user", "assistant"):
        stats.unknown(f"role:{role}")
        return None
    when = _ms(get(info, "time", "created"))
    parts: list[Part] = []
    typed = compaction = False
    for raw in raw_parts:
        kind = text_of(raw.get("type"))
        text = raw.get("text") if isinstance(raw.get("text"), str) else ""
        if kind == "text" and text:
            parts.append(Part(kind="text", text=text))
            typed = typed or (not raw.get("synthetic") and not raw.get("ignored") and bool(text.strip()))
        elif kind == "reasoning" and text:
            parts.append(Part(kind="reasoning", text=text))
        elif kind == "subtask" and isinstance(raw.get("prompt"), str):
            parts.append(Part(kind="text", text=raw["prompt"]))
        elif kind == "tool":
            parts += _tool(raw, message_id, when, edits)
        elif kind == "compaction":
            compaction = True
        elif kind not in _QUIET_PARTS and kind not in ("text", "reasoning", "subtask"):
            stats.unknown(str(kind))
    if not parts:
        return None
    return Message(
        message_id=message_id,
        role=role,
        timestamp=when,
        parts=tuple(parts),
        is_prompt=role == "user" and typed and not compaction,
        is_summary=role == "assistant" and info.get("summary") is True,
    )


def _tool(raw: dict[str, Any], message_id: str, when: datetime | None, edits: list[Edit]) -> list[Part]:
    name, call_id = str(raw.get("tool") or ""), text_of(raw.get("callID"))
    state = as_dict(raw.get("state"))
    args = as_dict(state.get("input"))
    parts = [Part(kind="tool_call", tool=name, call_id=call_id, text=json.dumps(args))]
    status = state.get("status")
    if status in ("completed", "error"):
        output = state.get("output") if status == "completed" else state.get("error")
        parts.append(
            Part(
                kind="tool_result",
                tool=name,
                call_id=call_id,
                is_error=status == "error",
                text=output if isinstance(output, str) else "" if output is None else json.dumps(output),
            )
        )
    if status == "completed" and name in EDIT_TOOLS:
        stamp = _ms(get(state, "time", "end")) or when
        edits += _edits(name, args, as_dict(state.get("metadata")), message_id, call_id, stamp)
    elif status == "completed" and name == SHELL_TOOL and get(state, "metadata", "exit") == 0:
        # `bash {command, workdir?}`, `metadata.exit` its status (packages/opencode/src/tool/bash.ts): what it
        # wrote, moved or copied, as far as the command text shows (`transcripts.shell`).
        command, workdir = text_of(args.get("command")), text_of(args.get("workdir"))
        if command:
            edits += shell.shell_edits(
                command,
                workdir,
                tool=name,
                message_id=message_id,
                call_id=call_id,
                timestamp=_ms(get(state, "time", "end")) or when,
            )
    return parts


def _edits(
    name: str,
    args: dict[str, Any],
    meta: dict[str, Any],
    message_id: str,
    call_id: str | None,
    when: datetime | None,
) -> list[Edit]:
    common: dict[str, Any] = {"tool": name, "message_id": message_id, "call_id": call_id, "timestamp": when}
    if name == "multiedit":
        # metadata.results[i] is the `edit` metadata of edits[i]; an entry's own filePath wins.
        results = dicts(meta.get("results"))
        found = [
            _replace(
                {"filePath": args.get("filePath"), **pair}, results[i] if i < len(results) else {}, common
            )
            for i, pair in enumerate(dicts(args.get("edits")))
        ]
        return [e for e in found if e is not None]
    if name in ("apply_patch", "patch"):
        return _patches(args, meta, common)
    edit = _write(args, meta, common) if name == "write" else _replace(args, meta, common)
    return [edit] if edit is not None else []


def _replace(args: dict[str, Any], meta: dict[str, Any], common: dict[str, Any]) -> Edit | None:
    """An `edit` call: oldString → newString (the git-ai fixtures give `content` instead: a whole file)."""
    path = text_of(args.get("filePath")) or text_of(get(meta, "filediff", "file"))
    old, new = text_of(args.get("oldString")), text_of(args.get("newString"))
    if path is None or (new is None and not isinstance(args.get("content"), str)):
        return None
    whole = new is None or old == ""
    new = new if new is not None else str(args["content"])
    added = _from_metadata(meta, new, whole)
    if added is None:
        added = _numbered(new) if whole else text_diff_added(old or "", new, numbered=False)
    return Edit(
        path=path,
        kind="create" if old == "" else "update",
        old_text=old,
        new_text=new,
        added=tuple(added),
        **common,
    )


def _write(args: dict[str, Any], meta: dict[str, Any], common: dict[str, Any]) -> Edit | None:
    path, content = text_of(args.get("filePath")) or text_of(meta.get("filepath")), args.get("content")
    if path is None or not isinstance(content, str):
        return None
    added = _from_metadata(meta, content, True)
    return Edit(
        path=path,
        kind="update" if meta.get("exists") is True else "create",
        new_text=content,
        added=tuple(added if added is not None else _numbered(content)),
        **common,
    )


def _patches(args: dict[str, Any], meta: dict[str, Any], common: dict[str, Any]) -> list[Edit]:
    """An `apply_patch` call: one edit per file of `metadata.files`, else per section of the envelope."""
    envelope = parse_apply_patch(str(args.get("patchText") or ""))
    files = dicts(meta.get("files"))
    if not files:
        return [
            edit
            for section in envelope
            for edit in [
                *_moved(section.path, section.move_to, common),
                _envelope_edit(section, section.kind, common),
            ]
        ]
    edits = []
    for entry in files:
        path = text_of(entry.get("movePath")) or text_of(entry.get("filePath"))
        if path is None:
            continue
        edits += _moved(text_of(entry.get("filePath")), text_of(entry.get("movePath")), common)
        kind = _KINDS.get(str(entry.get("type")), "update")
        section = _section(envelope, text_of(entry.get("filePath")) or path)
        before, after = text_of(entry.get("before")), text_of(entry.get("after"))
        fragment = after if after is not None else "\n".join(section.new_lines) if section else None
        added = _from_metadata(
            {"diff": entry.get("patch") or entry.get("diff"), "filediff": entry}, fragment, after is not None
        )
        if section is None:
            section = FilePatch(path=path, kind=kind)
        if added is None:
            added = _envelope_added(section, kind)
        edits.append(
            Edit(
                path=path,
                kind=kind,  # type: ignore[arg-type]
                old_text=before if before is not None else "\n".join(section.old_lines) or None,
                new_text=after if after is not None else "\n".join(section.new_lines),
                added=tuple([] if kind == "delete" else added),
                **common,
            )
        )
    return edits


def _moved(source: str | None, target: str | None, common: dict[str, Any]) -> list[Edit]:
    """The move an apply_patch section makes (`*** Move to:`, metadata `movePath`), before its update: the
    file's earlier edits follow it (`capture.moves`)."""
    if not source or not target or source == target:
        return []
    return [Edit(path=target, kind="move", source=source, **common)]


def _envelope_edit(section: FilePatch, kind: str, common: dict[str, Any]) -> Edit:
    return Edit(
        path=section.move_to or section.path,
        kind=kind,  # type: ignore[arg-type]
        old_text="\n".join(section.old_lines) or None,
        new_text="\n".join(section.new_lines),
        added=tuple(_envelope_added(section, kind)),
        **common,
    )


def _envelope_added(section: FilePatch, kind: str) -> list[AddedLine]:
    """Lines an envelope section adds; numbered only for a new file (an update's hunks have no numbers)."""
    if kind == "delete":
        return []
    return [AddedLine(text=t, line=i + 1 if kind == "create" else None) for i, t in enumerate(section.added)]


def _section(envelope: list[FilePatch], path: str) -> FilePatch | None:
    """The envelope section of a file the metadata names by absolute path (the envelope's are relative)."""
    found = [p for p in envelope if path == p.path or path.endswith("/" + p.path.lstrip("./"))]
    return found[0] if len(found) == 1 else None


def _from_metadata(meta: dict[str, Any], source: str | None, whole: bool) -> list[AddedLine] | None:
    """Added lines from tool metadata: `filediff.before/after` (exact), else the trimmed unified diff."""
    before, after = text_of(get(meta, "filediff", "before")), text_of(get(meta, "filediff", "after"))
    if before is not None and after is not None:
        return text_diff_added(before, after)
    diff = meta.get("diff") if isinstance(meta.get("diff"), str) else get(meta, "filediff", "patch")
    if not isinstance(diff, str) or "@@" not in diff:
        return None
    return _reindent(unified_diff_added(diff), source, whole)


def _reindent(added: list[AddedLine], source: str | None, whole: bool) -> list[AddedLine]:
    """Undo OpenCode's `trimDiff`, which strips the indentation common to every line of a diff.

    With the whole new file (`whole`), line N of the diff is line N of the file; with a fragment (a
    newString), the diff's lines are found in order in the fragment at one consistent indentation.
    Lines that cannot be placed keep the diff's text.
    """
    if source is None:
        return added
    lines = source.splitlines()
    if whole:
        return [
            AddedLine(text=lines[a.line - 1], line=a.line)
            if a.line and a.line <= len(lines) and _indented(lines[a.line - 1], a.text) is not None
            else a
            for a in added
        ]
    width: int | None = None
    out, start = [], 0
    for item in added:
        for j in range(start, len(lines)):
            cut = _indented(lines[j], item.text)
            if cut is not None and (width is None or cut == width or not item.text):
                width = cut if width is None and item.text else width
                out.append(AddedLine(text=lines[j], line=item.line))
                start = j + 1
                break
        else:
            out.append(item)
    return out


def _indented(exact: str, trimmed: str) -> int | None:
    """How many leading whitespace characters `exact` has beyond `trimmed`, or None when not the same line."""
    cut = len(exact) - len(trimmed)
    return cut if cut >= 0 and exact.endswith(trimmed) and not exact[:cut].strip() else None


def _numbered(text: str) -> list[AddedLine]:
    return [AddedLine(text=t, line=i + 1) for i, t in enumerate(text.splitlines())]


def get(value: Any, *keys: str) -> Any:
    """`value[k1][k2]…`, or None where a level is missing or not an object."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is an object, else {}."""
    return value if isinstance(value, dict) else {}


def dicts(value: Any) -> list[dict[str, Any]]:
    """The objects in `value` when it is a list, else []."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def text_of(value: Any) -> str | None:
    """`value` when it is a string, else None."""
    return value if isinstance(value, str) else None


def int_of(value: Any) -> int | None:
    """`value` as an int when it is a number (not a bool), else None."""
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _ms(value: Any) -> datetime | None:
    """Epoch milliseconds (OpenCode's `time.created`) as an aware UTC datetime; ISO strings are accepted."""
    if isinstance(value, str):
        return parse_timestamp(value)
    millis = int_of(value)
    try:
        return datetime.fromtimestamp(millis / 1000, tz=timezone.utc) if millis is not None else None
    except (OverflowError, OSError, ValueError):
        return None
