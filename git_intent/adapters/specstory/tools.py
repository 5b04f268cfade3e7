"""The file edits a SpecStory tool block shows, as each provider of SpecStory's CLI renders them
(`pkg/providers/*/markdown_tools.go`, Markdown v2.1.0) and as its editor extension does.

Where the block holds the new text, the edit's `added` lines are that text: Claude Code's, Cursor's, Gemini
CLI's and Factory Droid's Write (the whole file, numbered from 1), Codex's apply_patch (`**Add: `p`**` /
`**Update: `p`**` sections, or a whole envelope), Cursor's edit_file and search_replace chunks (`@@ -a,b +c,d
@@` diffs, numbered; the extension writes them HTML-escaped, one space after each marker), Cursor CLI's
StrReplace, Gemini CLI's replace (its `new_string`), Droid's Edit, Copilot's edit groups (`@@ lines a-b @@`
then the text), Claude Code's Edit with `replace_all` (its result quotes both texts), and the extension's
older
```` ```lang:path ```` code blocks. Where it holds only the file's name — Claude Code's other Edits and its
MultiEdits, whose text SpecStory leaves out — the edit has no `added` lines: session-level only, it credits no
line. A tool whose result says it failed (`<tool_use_error>`, a refusal,
"Apply failed", a cancelled status) made no edit.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from ...core import linear
from ...core.values import AddedLine, Edit
from ...transcripts.patches import HUNK_HEADER, parse_apply_patch, text_diff_added, unified_diff_added
from .markdown import FENCE, Block

SUMMARY = linear.compile(r"<summary>(?P<summary>.*?)</summary>")  # RE2: an unclosed one scanned on under `re`
TOOL_NAME = re.compile(r"Tool use: \*\*(?P<name>[^*]+)\*\*")
SUMMARY_PATHS = (
    re.compile(r"Edit file: (?P<path>.+?)\s*$"),
    re.compile(r"Apply patch for (?P<path>.+?)\s*$"),
    re.compile(r"^`(?P<path>[^`]+)`$"),
    re.compile(r"^(?:Notebook e|E)dit: \*\*(?P<path>[^*]+)\*\*$"),
)
BODY_PATHS = (
    re.compile(r"^Path: `(?P<path>[^`]+)`"),
    re.compile(r"^File: (?P<path>\S.*?)\s*$"),
    re.compile(r"^\s*`(?P<path>\.{0,2}/[^`]+)`\s*$"),
    re.compile(r"^- (?:file_path|path): `(?P<path>[^`]+)`$"),
    re.compile(r"File created successfully at: (?P<path>.+?)\s*$"),
    re.compile(r"^The file (?P<path>.+?) has been (?:updated|overwritten|created)"),
    re.compile(r"^\+\+\+ (?:b/)?(?P<path>\S.*?)\s*$"),
)
CODEX_SECTION = re.compile(r"^\*\*(?P<op>Add|Update|Modify|Delete): `(?P<path>[^`]+)`\*\*\s*$")
CODE_BLOCK = re.compile(r"^```(?P<lang>[\w#+.-]*):(?P<path>[^\s`]+)\s*$")
# RE2: under `re` the two white space runs around an absent comment mark split a long run every way.
PLACEHOLDER = linear.compile(r"(?i)^\s*(?://|#|/\*|<!--|--|;|\*)?\s*\.\.\.\s*(?:existing|rest of)\b.*\.\.\.")
FAILED = re.compile(
    r"<tool_use_error>|^The user doesn't want to (?:proceed|take this action)|^\*\*Apply "
    r"failed\*\*|^Status: \*\*(?:cancelled|canceled|error|rejected|aborted)\*\*|^Cancelled\s*$"
)
RESULT = re.compile(
    r"^(?:File created successfully at: |The file .+ has been |Successfully "
    r"(?:wrote|modified|created|overwrote|replaced))"
)
REPLACED = linear.compile(  # RE2: under `re` each repeated opening scanned on to the end
    r"(?s)All occurrences of '(?P<old>.*?)' were successfully replaced with '(?P<new>.*)'\.\s*$"
)
RESULT_LABEL = re.compile(r"^(?:Result|Output|Output \(error\)):\s*$")
ESCAPED = re.compile(r"&(?:quot|#39|lt|gt|amp);")
# Tools that write a whole file: what their block shows is the file, line 1 first.
WHOLE_FILE = frozenset(
    {
        "write",
        "write_file",
        "write_to_file",
        "create_file",
        "create",
        "writefile",
        "createfile",
        "addfile",
        "append_to_file",
    }
)
RAW_NEW_TEXT = frozenset(
    {"replace", "smart_edit"}
)  # Gemini CLI: its "```diff" fence holds `new_string` itself
WRITE_NAMES = (
    WHOLE_FILE
    | RAW_NEW_TEXT
    | frozenset(
        {
            "edit",
            "multiedit",
            "str_replace_editor",
            "edit_file",
            "edit_file_v2",
            "search_replace",
            "apply_patch",
            "strreplace",
            "multistrreplace",
            "replace_file_content",
            "multi_replace_file_content",
            "code_edit",
            "insert_edit_into_file",
            "replace_string_in_file",
            "applypatch",
            "applyedit",
            "texteditgroup",
        }
    )
)
EditKind = Literal["update", "create", "delete"]
CODE_BLOCK_TOOL = "code_block"  # the extension's ```lang:path block, which names no tool


@dataclass
class Fence:
    """A fenced code block of a tool block: its info string, its lines, and the line before it."""

    info: str
    lines: list[str]
    before: str


def tool_name(block: Block) -> str:
    """The tool a block shows: `data-tool-name`, else the summary's `Tool use: **name**`, else "tool"."""
    if block.tool_name:
        return block.tool_name
    found = TOOL_NAME.search(summary(block))
    return found["name"].strip() if found else "tool"


def summary(block: Block) -> str:
    """The block's `<summary>` text, HTML entities decoded (the extension escapes names and paths there)."""
    for line in block.lines[:4]:
        found = SUMMARY.search(line)
        if found:
            return html.unescape(found["summary"]).strip()
    return ""


def is_write(block: Block) -> bool:
    """Whether the block is a tool use that writes files (`data-tool-type="write"`, an "Edit file:"
    summary, or a writing tool's name in a block of no type)."""
    if block.tool_type is not None:
        return block.tool_type == "write"
    said = summary(block)
    return "Edit file:" in said or "Apply patch for" in said or tool_name(block).lower() in WRITE_NAMES


def block_edits(block: Block, *, message_id: str, timestamp: datetime | None) -> list[Edit]:
    """The edits a writing tool block shows (see the module docstring); [] for a failed one or one that names
    no file. An edit whose text the block does not hold has no `added` lines."""
    name = tool_name(block)
    body = [line for line in block.lines if not SUMMARY.search(line)]
    fences, outside = _scan(body)
    results = [fence for fence in fences if _is_result(fence)]
    said = outside + [line for fence in results for line in fence.lines]
    if any(FAILED.search(line.strip()) for line in said):
        return []
    edits = list(_codex_sections(body, name, message_id, timestamp))
    if edits:
        return edits
    for fence in fences:
        if any(line.startswith("*** Begin Patch") for line in fence.lines):
            return _envelope("\n".join(fence.lines), name, message_id, timestamp)
    heads = [line for fence in fences if fence.info == "diff" for line in fence.lines[:2]]
    path = _path(summary(block), said + heads)
    if path is None:
        return []
    added, whole = _added(name, [fence for fence in fences if fence not in results])
    replaced = (
        REPLACED.search("\n".join(line for fence in results for line in fence.lines)) if not added else None
    )
    if replaced:  # Claude Code's replace_all result quotes both texts
        return [
            Edit(
                path=path,
                tool=name,
                message_id=message_id,
                timestamp=timestamp,
                old_text=replaced["old"],
                new_text=replaced["new"],
                added=tuple(text_diff_added(replaced["old"], replaced["new"], numbered=False)),
            )
        ]
    return [
        Edit(
            path=path,
            tool=name,
            message_id=message_id,
            timestamp=timestamp,
            kind="create" if whole else "update",
            new_text="\n".join(a.text for a in added),
            added=tuple(added),
        )
    ]


def code_block_edits(lines: list[str], *, message_id: str, timestamp: datetime | None) -> list[Edit]:
    """The extension's older edits inside a reply's text: a ```` ```lang:path ```` block holds the new code of
    `path`, its `// ... existing code ...` lines standing for what it kept (left out)."""
    edits: list[Edit] = []
    for fence in _fences(lines):
        found = CODE_BLOCK.match("```" + fence.info)
        if found is None:
            continue
        added = [AddedLine(text=line) for line in fence.lines if line.strip() and not PLACEHOLDER.match(line)]
        edits.append(
            Edit(
                path=found["path"],
                tool=CODE_BLOCK_TOOL,
                message_id=message_id,
                timestamp=timestamp,
                new_text="\n".join(fence.lines),
                added=tuple(added),
            )
        )
    return edits


def _fences(lines: list[str]) -> Iterator[Fence]:
    yield from _scan(lines)[0]


def _scan(lines: list[str]) -> tuple[list[Fence], list[str]]:
    """The fenced blocks of `lines`, and the lines outside every fence (an unclosed fence runs to the end)."""
    fences: list[Fence] = []
    outside: list[str] = []
    opened: tuple[str, str, str] | None = None
    content: list[str] = []
    before = ""
    for line in lines:
        match = FENCE.match(line)
        if opened is None:
            if match:
                opened, content = (match["fence"], match["info"].strip(), before), []
            else:
                outside.append(line)
                before = line.strip() or before
        elif (
            match
            and match["fence"][0] == opened[0][0]
            and len(match["fence"]) >= len(opened[0])
            and not match["info"].strip()
        ):
            fences.append(Fence(info=opened[1], lines=content, before=opened[2]))
            opened, before = None, ""
        else:
            content.append(line)
    return fences, outside


def _is_result(fence: Fence) -> bool:
    """Whether a fence is the tool's result rather than its input: labelled "Result:"/"Output:", or Claude
    Code's result sentence in a ```` ```text ```` fence."""
    first = next((line.strip() for line in fence.lines if line.strip()), "")
    return bool(RESULT_LABEL.match(fence.before)) or (
        fence.info == "text" and bool(RESULT.match(first) or FAILED.search(first))
    )


def _path(said: str, body: list[str]) -> str | None:
    """The file a block names: in its summary first, then in the lines outside its input fences."""
    for pattern in SUMMARY_PATHS:
        found = pattern.search(said)
        if found:
            return found["path"].strip()
    for pattern in BODY_PATHS:
        for line in body:
            found = pattern.match(line.strip())
            if found:
                return found["path"].strip()
    return None


def _added(name: str, fences: list[Fence]) -> tuple[list[AddedLine], bool]:
    """The lines the input fences add, and whether they are the whole file."""
    lowered = name.lower()
    added: list[AddedLine] = []
    for fence in fences:
        lines = _unescaped(fence.lines)
        if fence.info == "diff" and lowered not in RAW_NEW_TEXT:
            added += _diff_added(lines)
        elif (
            lowered in WHOLE_FILE
        ):  # the fence holds the content and a newline: `splitlines` counts as a file does
            return [
                AddedLine(text=line, line=n + 1) for n, line in enumerate("\n".join(lines).splitlines())
            ], True
        else:
            if lines and lines[-1] == "... (truncated)":  # Gemini CLI cuts `new_string` at 2,000 characters
                lines = lines[:-2]
            added += [AddedLine(text=line) for line in lines if line.strip() and not PLACEHOLDER.match(line)]
    return added, False


def _diff_added(lines: list[str]) -> list[AddedLine]:
    """The `+` lines of a diff fence: numbered when its hunks say where (`@@ -a,b +c,d @@`), else in order.
    Cursor's chunks put one space after every marker (`+ text`), which is taken off."""
    body = [line for line in lines if not HUNK_HEADER.match(line) and not line.startswith(("+++ ", "--- "))]
    if body and all(line[:1] in "+- " and (len(line) == 1 or line[1] == " ") for line in body):
        lines = [
            line if HUNK_HEADER.match(line) or line.startswith(("+++ ", "--- ")) else line[:1] + line[2:]
            for line in lines
        ]
    if any(HUNK_HEADER.match(line) for line in lines):
        return unified_diff_added("\n".join(lines))
    return [
        AddedLine(text=line[1:]) for line in lines if line.startswith("+") and not line.startswith("+++ ")
    ]


def _unescaped(lines: list[str]) -> list[str]:
    """`lines` with HTML entities decoded when the extension escaped them: entities and no raw quote or angle
    bracket (code that merely contains `&amp;` keeps it)."""
    text = "\n".join(lines)
    if ESCAPED.search(text) and not any(c in text for c in "\"'<>"):
        return html.unescape(text).split("\n")
    return lines


def _codex_sections(
    body: list[str], name: str, message_id: str, timestamp: datetime | None
) -> Iterator[Edit]:
    """Codex's apply_patch as SpecStory renders it: a `**Add: `p`**` (or Update, Modify, Delete) line, then
    the section's patch lines in a diff fence; rebuilt as an envelope so it reads as Codex's own."""
    sections: list[str] = []
    for n, line in enumerate(body):
        found = CODEX_SECTION.match(line.strip())
        if found is None:
            continue
        op = {"Add": "Add", "Delete": "Delete"}.get(found["op"], "Update")
        sections.append(f"*** {op} File: {found['path']}")
        if op != "Delete":
            fence = next(_fences(body[n + 1 :]), None)
            sections += fence.lines if fence is not None else []
    if sections:
        yield from _envelope(
            "\n".join(["*** Begin Patch", *sections, "*** End Patch"]), name, message_id, timestamp
        )


def _envelope(text: str, name: str, message_id: str, timestamp: datetime | None) -> list[Edit]:
    edits: list[Edit] = []
    for section in parse_apply_patch(text):
        if section.move_to and section.move_to != section.path:
            edits.append(
                Edit(
                    path=section.move_to,
                    tool=name,
                    message_id=message_id,
                    timestamp=timestamp,
                    kind="move",
                    source=section.path,
                )
            )
        kind: EditKind = (
            "create" if section.kind == "create" else "delete" if section.kind == "delete" else "update"
        )
        edits.append(
            Edit(
                path=section.move_to or section.path,
                tool=name,
                message_id=message_id,
                timestamp=timestamp,
                kind=kind,
                old_text="\n".join(section.old_lines) or None,
                new_text="\n".join(section.new_lines),
                added=tuple(
                    AddedLine(text=t, line=i + 1 if kind == "create" else None)
                    for i, t in enumerate(section.added)
                ),
            )
        )
    return edits
