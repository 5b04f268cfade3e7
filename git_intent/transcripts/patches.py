"""Patch formats shared by adapters: the apply_patch envelope (Codex), unified diffs, and text diffs.

Each function returns the lines an edit produced (`AddedLine`), with their new line numbers when the
format gives them. Pure functions, no I/O.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from ..models import AddedLine

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class FilePatch:
    """One file section of an apply_patch envelope (Codex `*** Begin Patch` format)."""

    path: str
    kind: str  # "update" | "create" | "delete"
    move_to: str | None = None
    old_lines: list[str] = field(default_factory=list)
    new_lines: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


def parse_apply_patch(text: str) -> list[FilePatch]:
    """Parse a Codex apply_patch envelope (`*** Begin Patch` ... `*** End Patch`).

    Sections: `*** Add File: P` (every line `+`), `*** Update File: P` (optional `*** Move to: Q`,
    then `@@` chunks of ` `, `-`, `+` lines), `*** Delete File: P`. Text outside the envelope and
    malformed lines are ignored.
    """
    begin = text.find("*** Begin Patch")
    if begin < 0:
        return []
    patches: list[FilePatch] = []
    current: FilePatch | None = None
    for line in text[begin:].split("\n")[1:]:
        if line.startswith("*** End Patch"):
            break
        header = _section_header(line)
        if header is not None:
            current = FilePatch(path=header[1], kind=header[0])
            patches.append(current)
            continue
        if current is None:
            continue
        if line.startswith("*** Move to: "):
            current.move_to = line[len("*** Move to: "):].strip()
        elif line.startswith("*** End of File") or line.startswith("@@"):
            continue
        elif line.startswith("+"):
            current.added.append(line[1:])
            current.new_lines.append(line[1:])
        elif line.startswith("-"):
            current.old_lines.append(line[1:])
        elif line.startswith(" ") or line == "":
            current.old_lines.append(line[1:])
            current.new_lines.append(line[1:])
    return patches


def _section_header(line: str) -> tuple[str, str] | None:
    for prefix, kind in (("*** Add File: ", "create"), ("*** Update File: ", "update"),
                         ("*** Delete File: ", "delete")):
        if line.startswith(prefix):
            return kind, line[len(prefix):].strip()
    return None


def unified_diff_added(diff: str) -> list[AddedLine]:
    """Added lines of a unified diff with their new-side line numbers (`@@ -a,b +c,d @@` hunks).

    Hunk bodies are counted from the header, so a body line such as `--- x` (a removed SQL comment)
    is never mistaken for a file header.
    """
    added: list[AddedLine] = []
    new_line = old_left = new_left = 0
    for line in diff.split("\n"):
        if old_left <= 0 and new_left <= 0:
            match = HUNK_HEADER.match(line)
            if match:
                old_left = int(match.group(2)) if match.group(2) is not None else 1
                new_left = int(match.group(4)) if match.group(4) is not None else 1
                new_line = int(match.group(3))
            continue
        if line.startswith("\\"):
            continue
        if line.startswith("+"):
            added.append(AddedLine(text=line[1:], line=new_line))
            new_line += 1
            new_left -= 1
        elif line.startswith("-"):
            old_left -= 1
        else:
            new_line += 1
            old_left -= 1
            new_left -= 1
    return added


def text_diff_added(before: str, after: str, *, numbered: bool = True) -> list[AddedLine]:
    """Lines of `after` that are not carried over from `before` (difflib opcodes `insert`/`replace`).

    With `numbered`, each line carries its 1-based line number in `after`; pass False when `after` is a
    fragment (an `old_string`/`new_string` pair) whose position in the file is unknown.
    """
    old, new = before.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    added: list[AddedLine] = []
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("insert", "replace"):
            for j in range(j1, j2):
                added.append(AddedLine(text=new[j], line=j + 1 if numbered else None))
    return added
