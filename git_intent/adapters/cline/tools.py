"""The edits Cline's tools make, in both of its eras: the task-folder extension (v3.x: `write_to_file {path,
content}`, `new_rule {path, content}`, `replace_in_file {path, diff}` with SEARCH/REPLACE blocks, `apply_patch
{input}`, `execute_command {command}`; the names of `ClineDefaultTool`, apps/vscode/src/shared/tools.ts) and
the SDK (v4: `editor {path, old_text?, new_text, insert_line?}`, `apply_patch {input}`, `run_commands
{commands}`; sdk/packages/core/src/extensions/tools/definitions.ts). A relative path is the task's work
tree's.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ...core.values import AddedLine, Edit
from ...transcripts import shell
from ...transcripts.api_history import Call
from ...transcripts.edits import envelope, replacement, replacements, whole_file
from ...transcripts.patches import text_diff_added
from ...transcripts.search_replace import blocks

__all__ = ["EDIT_TOOLS", "XML_PARAMS", "edits_of"]

EDIT_TOOLS = frozenset({"write_to_file", "new_rule", "replace_in_file", "apply_patch", "editor"})
SHELL_TOOLS = frozenset({"execute_command", "run_commands"})
# What the XML-era models wrote as parameters of the tools above.
XML_PARAMS = frozenset({"path", "content", "diff", "input", "command"})


def edits_of(name: str, args: dict[str, Any], call: Call, cwd: str | None) -> list[Edit]:
    """The edits one call made; [] for a tool that writes no file or arguments of another shape."""
    where: dict[str, Any] = {
        "tool": name,
        "message_id": call.message_id,
        "call_id": call.call_id,
        "timestamp": call.timestamp,
    }
    if name in SHELL_TOOLS:
        commands = args.get("commands", [args.get("command")])
        return [
            e
            for command in commands
            if isinstance(command, str)
            for e in shell.shell_edits(command, cwd, **where)
        ]
    if name == "apply_patch":
        text = args.get("input", args.get("patch"))
        return envelope(text, **where) if isinstance(text, str) else []
    path = args.get("path")
    if name not in EDIT_TOOLS or not isinstance(path, str) or not path:
        return []
    path = path if posixpath.isabs(path) or not cwd or ":" in path[:3] else posixpath.join(cwd, path)
    if name in ("write_to_file", "new_rule"):
        content = args.get("content")
        return [whole_file(path, content, **where)] if isinstance(content, str) else []
    if name == "replace_in_file":
        diff = args.get("diff")
        pairs = [(b.old, b.new) for b in blocks(diff)] if isinstance(diff, str) else []
        if not pairs:
            return []
        edit = replacements(path, pairs, **where)
        numbers = _once(enumerate(_final_content(call.result or ""), start=1))
        return [
            replace(edit, added=tuple(AddedLine(text=a.text, line=numbers.get(a.text)) for a in edit.added))
        ]
    return _editor(path, args, call, where)


def _editor(path: str, args: dict[str, Any], call: Call, where: dict[str, Any]) -> list[Edit]:
    """The SDK's `editor`: an insertion at `insert_line`, a replacement of `old_text`, or a new file. Its
    result shows the changed lines numbered (`+467: text`, a line-by-line comparison that also lists
    shifted lines): an added line found there once takes that number (as a `replace_in_file` line found
    once in the whole file its result shows)."""
    new, old = args.get("new_text"), args.get("old_text")
    if not isinstance(new, str):
        return []
    if args.get("insert_line") is not None:
        return [
            Edit(
                path=path,
                kind="update",
                new_text=new,
                added=tuple(AddedLine(text=t) for t in new.splitlines()),
                **where,
            )
        ]
    if not isinstance(old, str):
        return [whole_file(path, new, **where)]
    numbers = _once(
        (int(number), text)
        for line in (call.result or "").splitlines()
        for number, colon, text in [line[1:].partition(": ")]
        if line.startswith("+") and colon and number.isdigit()
    )
    if not numbers:
        return [replacement(path, old, new, **where)]
    added = tuple(
        AddedLine(text=a.text, line=numbers.get(a.text)) for a in text_diff_added(old, new, numbered=False)
    )
    return [Edit(path=path, kind="update", old_text=old, new_text=new, added=added, **where)]


def _once(numbered: Iterable[tuple[int, str]]) -> dict[str, int]:
    """The line number of each text that stands on exactly one of the `(number, text)` lines."""
    seen: dict[str, int | None] = {}
    for number, text in numbered:
        seen[text] = None if text in seen else number
    return {text: number for text, number in seen.items() if number is not None}


def _final_content(result: str) -> list[str]:
    """The lines of the whole file a result shows after the edit (`<final_file_content path="…">`), or []."""
    start = result.find("<final_file_content path=")
    start = result.find(">\n", start) if start >= 0 else -1
    end = result.rfind("\n</final_file_content>")
    return result[start + 2 : end].split("\n") if 0 <= start < end else []
