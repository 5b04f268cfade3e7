"""The edits that common tool shapes make, for adapters whose agents share them: a text replacement
(`old_string` → `new_string` and its many spellings), a whole file written, a file before and after, a
unified diff, and an apply_patch envelope. Each returns `Edit`s whose `added` lines are exactly what the
tool wrote, numbered only where the tool's record says where they went. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..core.values import AddedLine, Edit
from .patches import parse_apply_patch, text_diff_added, unified_diff_added

_FROM_NOTHING = re.compile(r"^@@ -0,0 ", re.M)


def replacement(
    path: str,
    old: str,
    new: str,
    *,
    tool: str,
    message_id: str,
    call_id: str | None = None,
    timestamp: datetime | None = None,
) -> Edit:
    """A text replacement in `path`: the lines of `new` not carried over from `old`, without line numbers
    (where the fragment sits in the file is unknown), except when `old` is empty: then the tool created the
    file with `new` as its whole content, numbered from 1."""
    return Edit(
        path=path,
        tool=tool,
        message_id=message_id,
        call_id=call_id,
        timestamp=timestamp,
        kind="create" if not old else "update",
        old_text=old,
        new_text=new,
        added=tuple(text_diff_added(old, new, numbered=not old)),
    )


def replacements(
    path: str,
    pairs: list[tuple[str, str]],
    *,
    tool: str,
    message_id: str,
    call_id: str | None = None,
    timestamp: datetime | None = None,
) -> Edit:
    """Several replacements in one file by one call (a multi-edit): the added lines of each pair, in order,
    without line numbers."""
    added = [line for old, new in pairs for line in text_diff_added(old, new, numbered=False)]
    return Edit(
        path=path,
        tool=tool,
        message_id=message_id,
        call_id=call_id,
        timestamp=timestamp,
        old_text="\n".join(old for old, _ in pairs),
        new_text="\n".join(new for _, new in pairs),
        added=tuple(added),
    )


def whole_file(
    path: str,
    content: str,
    *,
    tool: str,
    message_id: str,
    call_id: str | None = None,
    timestamp: datetime | None = None,
    created: bool = True,
) -> Edit:
    """A file written whole: every line of `content`, numbered from 1 (its line numbers are exact)."""
    return Edit(
        path=path,
        tool=tool,
        message_id=message_id,
        call_id=call_id,
        timestamp=timestamp,
        kind="create" if created else "update",
        new_text=content,
        added=tuple(AddedLine(text=t, line=i + 1) for i, t in enumerate(content.splitlines())),
    )


def before_after(
    path: str,
    before: str,
    after: str,
    *,
    tool: str,
    message_id: str,
    call_id: str | None = None,
    timestamp: datetime | None = None,
) -> Edit:
    """A file the tool reported whole before and after the change: the lines of `after` not carried over
    from `before`, with their exact line numbers; an empty `before` is a created file."""
    return Edit(
        path=path,
        tool=tool,
        message_id=message_id,
        call_id=call_id,
        timestamp=timestamp,
        kind="create" if not before else "update",
        old_text=before or None,
        new_text=after,
        added=tuple(text_diff_added(before, after)),
        before=before,
        after=after,
    )


def diffed(
    path: str,
    diff: str,
    *,
    tool: str,
    message_id: str,
    call_id: str | None = None,
    timestamp: datetime | None = None,
    old: str | None = None,
    new: str = "",
) -> Edit:
    """A change the tool reported as a unified diff: its `+` lines with their new line numbers from the hunk
    headers; a diff from an empty file (`@@ -0,0 …`) created it. `old`/`new` are the call's own texts, when it
    gave them."""
    return Edit(
        path=path,
        tool=tool,
        message_id=message_id,
        call_id=call_id,
        timestamp=timestamp,
        kind="create" if _FROM_NOTHING.search(diff) else "update",
        old_text=old,
        new_text=new,
        added=tuple(unified_diff_added(diff)),
    )


def envelope(
    text: str, *, tool: str, message_id: str, call_id: str | None = None, timestamp: datetime | None = None
) -> list[Edit]:
    """The edits of an apply_patch envelope (`*** Begin Patch`), one per file section, in order: an added
    file's lines numbered from 1, an updated file's `+` lines unnumbered; `*** Move to:` is a move edit
    before the update (the file's earlier edits follow it)."""
    edits: list[Edit] = []
    for section in parse_apply_patch(text):
        if section.move_to and section.move_to != section.path:
            edits.append(
                Edit(
                    path=section.move_to,
                    tool=tool,
                    message_id=message_id,
                    call_id=call_id,
                    timestamp=timestamp,
                    kind="move",
                    source=section.path,
                )
            )
        edits.append(
            Edit(
                path=section.move_to or section.path,
                tool=tool,
                message_id=message_id,
                call_id=call_id,
                timestamp=timestamp,
                kind=section.kind,  # type: ignore[arg-type]  # create|update|delete
                old_text="\n".join(section.old_lines) or None,
                new_text="\n".join(section.new_lines),
                added=tuple(
                    AddedLine(text=t, line=i + 1 if section.kind == "create" else None)
                    for i, t in enumerate(section.added)
                ),
            )
        )
    return edits
