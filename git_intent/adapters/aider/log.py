"""Splitting aider's chat history into sessions (`# aider chat started at …`) and blocks: what the user
typed (`#### `), aider's own output (`> `, running to the next line ending in two spaces) and replies."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...core.values import Role

HEADER = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})\s*$")
_COMMIT = re.compile(r"^Commit ([0-9a-f]{7,40})\b")
# Aider's own one-line outputs, recognised after a reply even without the trailing two spaces.
_AIDER_SAYS = re.compile(
    r"^> (Tokens: |Applied edit to |Commit [0-9a-f]{7}|Committing |The LLM did not conform|Unexpected "
    r"error|\^C )"
)
PROMPT_COMMANDS = ("/ask ", "/code ", "/architect ", "/context ")


@dataclass
class Block:
    """A run of lines from one speaker: the user (`#### `), aider itself (tool), or the model (assistant)."""

    role: Role
    lines: list[str] = field(default_factory=list)
    commits: list[tuple[str, bool]] = field(default_factory=list)  # (hash, made before applying edits)
    dirty_pending: bool = False


@dataclass
class Section:
    """One session of the log: its start time as written in the header, its blocks, its line count."""

    started: str | None
    blocks: list[Block] = field(default_factory=list)
    lines: int = 0


def uses_linebreaks(lines: list[str]) -> bool:
    """Whether aider ended its outputs with two spaces (all versions seen do); decided on `> ` lines."""
    quoted = [line for line in lines if line.startswith("> ")]
    return bool(quoted) and 2 * sum(line.endswith("  ") for line in quoted) >= len(quoted)


def split_sections(lines: list[str]) -> list[Section]:
    """The sessions of the log's lines, each split into blocks."""
    breaks = uses_linebreaks(lines)
    sections = [Section(started=None)]
    block: Block | None = None
    state = ""  # "", "tool", "more" (a multi-line output), "user", "assistant"
    blank_before = True
    in_fence = False

    def start(role: Role) -> Block:
        new = Block(role=role)
        sections[-1].blocks.append(new)
        return new

    for line in lines:
        header = HEADER.match(line)
        if header:
            sections.append(Section(started=line[len("# aider chat started at ") :].strip()))
            sections[-1].lines, block, state, blank_before = 1, None, "", False
            continue
        sections[-1].lines += 1
        blank = not line.strip()
        is_tool = line.startswith("> ") or line.rstrip() == ">"
        is_user = line.startswith("#### ") or line.rstrip() == "####"
        if state == "more" and block is not None:
            if is_user and blank_before and line.endswith("  "):
                state = ""
            else:
                block.lines.append(line.rstrip())
                if not blank and line.endswith("  "):
                    state = "tool"
                blank_before = blank
                continue
        if state == "assistant" and block is not None:
            if breaks:
                ends = line.endswith("  ") or bool(_AIDER_SAYS.match(line))
                marker = (is_tool or is_user) and blank_before and ends
            else:
                marker = (is_tool or is_user) and not in_fence
                in_fence = in_fence != line.startswith("```")
            if not marker:
                block.lines.append(line)
                blank_before = blank
                continue
            state = ""
        if is_tool:
            if state != "tool" or block is None:
                block = start("tool")
            _tool_line(block, line[2:].rstrip() if len(line) > 1 else "")
            state = "more" if breaks and not line.endswith("  ") and line.rstrip() != ">" else "tool"
        elif is_user:
            if state != "user" or block is None:
                block = start("user")
            block.lines.append(line[5:].rstrip())
            state = "user"
        elif blank:
            block, state = None, ""
        else:
            block, state, in_fence = start("assistant"), "assistant", line.startswith("```")
            block.lines.append(line)
        blank_before = blank
    return sections


def _tool_line(block: Block, text: str) -> None:
    block.lines.append(text)
    commit = _COMMIT.match(text)
    if commit:
        block.commits.append((commit.group(1), block.dirty_pending))
        block.dirty_pending = False
    elif text.startswith("Committing ") and text.endswith("before applying edits."):
        block.dirty_pending = True
