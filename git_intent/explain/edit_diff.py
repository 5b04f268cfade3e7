"""An edit as a unified diff (old text → new text), for `show` and the web view's message page: a tool call
that edited a file reads as the change it made, not as one line of JSON arguments. Pure functions."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from ..core.values import Edit, Message, Session

__all__ = ["call_arguments", "call_edits", "edit_diff"]

# Arguments whose text the diff shows (Claude Code Edit/MultiEdit/Write, Codex apply_patch, Gemini CLI,
# OpenCode, Cursor): left out of the arguments printed beside the diff, with the path the diff's header names.
_SHOWN_BY_DIFF = frozenset(
    {
        "old_string",
        "new_string",
        "content",
        "edits",
        "patch",
        "input",
        "old_str",
        "new_str",
        "file_text",
        "contents",
        "code_edit",
        "diff",
        "file_path",
        "filePath",
        "path",
        "target_file",
        "absolute_path",
    }
)


def edit_diff(edit: Edit, context: int = 3, root: Path | None = None) -> list[str]:
    """`edit` as the lines of a unified diff: `--- OLD`, `+++ NEW`, then hunks.

    With the whole file before and after the edit (Claude Code's `originalFile`) the hunks carry the file's
    line numbers; otherwise the replaced text is diffed against the replacing text and each hunk header is
    `@@ … @@` (numbers inside a snippet mean nothing in the file). A created file diffs from `/dev/null`, a
    deleted one to it. A relative path is prefixed `a/` and `b/` as git does; an absolute one (a
    transcript's) is printed as it is, unless it lies in the work tree `root`: then it is relative to it, so
    the author and a teammate reading the shared edit (whose path is the repository's) see the same diff."""
    path = _in_tree(edit.path, root)
    name = path if path.startswith("/") else None
    old_name = "/dev/null" if edit.kind == "create" else name or f"a/{path}"
    new_name = "/dev/null" if edit.kind == "delete" else name or f"b/{path}"
    numbered = edit.before is not None and edit.after is not None
    if numbered:
        old, new = edit.before or "", edit.after or ""
    elif edit.kind == "create":
        old, new = "", edit.new_text or "\n".join(a.text for a in edit.added)
    elif edit.kind == "delete":
        old, new = edit.old_text or "", ""
    else:  # a snippet replaced by another, or only the lines the edit added
        old, new = edit.old_text or "", edit.new_text or "\n".join(a.text for a in edit.added)
    body = list(difflib.unified_diff(old.splitlines(), new.splitlines(), n=context, lineterm=""))[2:]
    whole = numbered or edit.kind in ("create", "delete")
    if not whole:
        body = ["@@ … @@" if line.startswith("@@") else line for line in body]
    return [f"--- {old_name}", f"+++ {new_name}", *(body or ["(no change to the text)"])]


def _in_tree(path: str, root: Path | None) -> str:
    """`path` relative to `root` when it is an absolute path inside it (the root as given or resolved)."""
    if root is None or not path.startswith("/"):
        return path
    for base in dict.fromkeys((root.as_posix(), root.resolve().as_posix())):
        if PurePosixPath(path).is_relative_to(base):
            return PurePosixPath(path).relative_to(base).as_posix()
    return path


def call_edits(session: Session, message: Message) -> dict[str, list[Edit]]:
    """The edits each tool call of `message` made, by call id, in the session's order."""
    found: dict[str, list[Edit]] = {}
    for edit in session.edits:
        if edit.message_id == message.message_id and edit.call_id:
            found.setdefault(edit.call_id, []).append(edit)
    return found


def call_arguments(text: str, edits: Sequence[Edit]) -> str | None:
    """A tool call's arguments (`text`, JSON as the transcript holds it) as one line, without those the diffs
    of its `edits` show (the replaced and replacing text, the path); None when nothing else is left, or when
    the arguments are not a JSON object (a patch given as raw text: its diff is the whole of it)."""
    if not edits:
        return text
    try:
        arguments = json.loads(text)
    except ValueError:
        return None
    if not isinstance(arguments, dict):
        return None
    rest = {
        key: value
        for key, value in arguments.items()
        if key not in _SHOWN_BY_DIFF and not (key == "replace_all" and not value)
    }
    return json.dumps(rest, ensure_ascii=False) if rest else None
