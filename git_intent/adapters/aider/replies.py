"""Turning aider's blocks into messages and edits: SEARCH/REPLACE blocks and whole-file fences, kept only
when aider says it applied them."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ...core.values import AddedLine, Edit, Message, ParseStats, Part, Session
from ...transcripts.patches import text_diff_added
from .log import PROMPT_COMMANDS, Block, Section

TOOL = "search_replace"
WHOLE_TOOL = "whole_file"
_HEAD = re.compile(r"^<{5,9} SEARCH>?\s*$")
_DIVIDER = re.compile(r"^={5,9}\s*$")
_UPDATED = re.compile(r"^>{5,9} REPLACE\s*$")
_VERSION = re.compile(r"^Aider (v\S+)")
_OTHERS = re.compile(r"^# The other \d+ SEARCH/REPLACE blocks? (were|was) applied successfully")
_FAILED = re.compile(
    r"^## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in (.+)$"
)


@dataclass
class Parsed:
    """A session read from the log, with the blocks its messages came from (for `commit_links`)."""

    session: Session
    blocks: list[tuple[str, Block]]  # (message_id, block), every block of the session in order
    edit_messages: set[str]


@dataclass
class _Change:
    path: str
    search: str | None  # None for a whole-file fence
    replace: str
    start: int
    end: int  # inclusive line span in the reply


@dataclass
class _Outcome:
    applied: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    failed: list[tuple[str, str, str]] = field(default_factory=list)
    malformed: bool = False
    others_applied: bool = False


def build(section: Section, path: Path, seen: Counter[str], confirmed: bool) -> Parsed:
    """The session of one section; `seen` counts start times already used (ids of repeats get `-2`, …),
    `confirmed` says whether the log ever reports an applied edit."""
    started = _local_time(section.started)
    base = (
        "aider-" + section.started.replace(" ", "T").replace(":", "")
        if section.started
        else ("aider-before-first-header")
    )
    seen[base] += 1
    session_id = base if seen[base] == 1 else f"{base}-{seen[base]}"
    stats = ParseStats(records=section.lines)
    messages: list[Message] = []
    edits: list[Edit] = []
    named: list[tuple[str, Block]] = []
    version: str | None = None
    asked = ""
    for index, block in enumerate(section.blocks):
        message_id = f"m{index + 1}"
        named.append((message_id, block))
        text = "\n".join(block.lines).strip("\n")
        if block.role == "user":
            # `/ask X` is logged, then X again as the request the ask coder sends: one prompt, not two.
            prompt = _is_prompt(text) and not (asked and text.strip() == asked)
            asked = text.split(None, 1)[1].strip() if text.startswith(PROMPT_COMMANDS) and prompt else ""
            messages.append(
                Message(
                    message_id=message_id,
                    role="user",
                    timestamp=started,
                    parts=(Part(kind="text", text=text),),
                    is_prompt=prompt,
                )
            )
            continue
        asked = ""
        if block.role == "tool":
            version = version or next((m.group(1) for m in map(_VERSION.match, block.lines) if m), None)
            error = "did not conform to the edit format" in text or "failed to match" in text
            messages.append(
                Message(
                    message_id=message_id,
                    role="tool",
                    timestamp=started,
                    parts=(Part(kind="tool_result", text=text, is_error=error),),
                )
            )
        else:
            outcome = _outcome(section.blocks, index + 1)
            parts, made = _reply(block.lines, message_id, started, outcome, confirmed, stats)
            messages.append(
                Message(message_id=message_id, role="assistant", timestamp=started, parts=tuple(parts))
            )
            edits += made
    cwd = str(path.parent)
    session = Session(
        agent="aider",
        session_id=session_id,
        transcript=path,
        cwd=cwd,
        cwds=[cwd],
        agent_version=version,
        messages=messages,
        edits=edits,
        stats=stats,
    )
    return Parsed(session=session, blocks=named, edit_messages={e.message_id for e in edits})


def _local_time(stamp: str | None) -> datetime | None:
    """The header's time, which aider writes in the machine's local time zone without an offset."""
    try:
        return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").astimezone() if stamp else None
    except ValueError:  # 2024-13-45: a damaged header still starts a session, with no time
        return None


def _is_prompt(text: str) -> bool:
    """A typed request: not a slash command (except those carrying a request) and not aider's `<blank>`."""
    if not text.strip() or text.strip() == "<blank>":
        return False
    return not text.startswith("/") or (text.startswith(PROMPT_COMMANDS) and bool(text.split(None, 1)[1:]))


def _outcome(blocks: list[Block], start: int) -> _Outcome:
    """What aider reported about a reply: the tool output from `blocks[start]` to the next user or
    assistant message."""
    outcome = _Outcome()
    for block in blocks[start:]:
        if block.role != "tool":
            break
        lines = block.lines
        for i, line in enumerate(lines):
            for prefix, bucket in (
                ("Applied edit to ", outcome.applied),
                ("Did not apply edit to ", outcome.skipped),
                ("Skipping edits to ", outcome.skipped),
            ):
                if line.startswith(prefix):
                    bucket.add(line[len(prefix) :].removesuffix(" (--dry-run)").strip())
            if "did not conform to the edit format" in line:
                outcome.malformed = True
            if _OTHERS.match(line):
                outcome.others_applied = True
            failed = _FAILED.match(line)
            if failed:
                changes, _ = _changes(lines[i + 1 :], None, failed.group(1).strip())
                if changes and changes[0].search is not None:
                    outcome.failed.append(
                        (failed.group(1).strip(), _norm(changes[0].search), _norm(changes[0].replace))
                    )
    return outcome


def _reply(
    lines: list[str],
    message_id: str,
    when: datetime | None,
    outcome: _Outcome,
    confirmed: bool,
    stats: ParseStats,
) -> tuple[list[Part], list[Edit]]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    changes, broken = _changes(lines, stats)
    stats.unreadable += broken
    blocks = [c for c in changes if c.search is not None]
    if blocks:
        kept = [c for c in blocks if _applied(c, outcome, confirmed)]
    else:
        kept = [c for c in changes if c.path in outcome.applied]
    parts: list[Part] = []
    edits: list[Edit] = []
    at = 0
    for number, change in enumerate(c for c in changes if c.search is not None or c in kept):
        prose = "\n".join(lines[at : change.start]).strip()
        if prose:
            parts.append(Part(kind="text", text=prose))
        call_id = f"{message_id}.b{number + 1}"
        tool = TOOL if change.search is not None else WHOLE_TOOL
        parts.append(
            Part(
                kind="tool_call",
                tool=tool,
                call_id=call_id,
                text="\n".join(lines[change.start : change.end + 1]),
            )
        )
        at = change.end + 1
        if change not in kept:
            continue
        if change.search is None:
            added = [AddedLine(text=t, line=i + 1) for i, t in enumerate(change.replace.splitlines())]
        else:
            added = text_diff_added(change.search, change.replace, numbered=False)
        edits.append(
            Edit(
                path=change.path,
                tool=tool,
                message_id=message_id,
                call_id=call_id,
                timestamp=when,
                kind="create" if change.search is not None and not change.search.strip() else "update",
                old_text=change.search or None,
                new_text=change.replace,
                added=tuple(added),
            )
        )
    prose = "\n".join(lines[at:]).strip()
    if prose:
        parts.append(Part(kind="text", text=prose))
    return parts, edits


def _applied(change: _Change, outcome: _Outcome, confirmed: bool) -> bool:
    if change.path in outcome.skipped:
        return False
    if outcome.malformed:
        key = (change.path, _norm(change.search or ""), _norm(change.replace))
        return outcome.others_applied and key not in outcome.failed
    # Aider prints the path it resolved, which may differ from the one the reply spelled; any
    # confirmation for this reply counts.
    return bool(outcome.applied) or not confirmed


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def _changes(
    lines: list[str], stats: ParseStats | None, current: str | None = None
) -> tuple[list[_Change], int]:
    """SEARCH/REPLACE blocks (a block with no path line is for `current`, the previous block's file) and,
    with `stats`, whole-file fences of a reply; and the count of blocks that could not be read."""
    changes: list[_Change] = []
    broken = 0
    i, n = 0, len(lines)
    while i < n:
        if _HEAD.match(lines[i].strip()):
            name, first = _filename(lines, i)
            name = name or current
            j = i + 1
            while j < n and not _DIVIDER.match(lines[j].strip()):
                j += 1
            k = j + 1
            # aider v0.47 also ended the new side at a second divider
            while k < n and not (_UPDATED.match(lines[k].strip()) or _DIVIDER.match(lines[k].strip())):
                k += 1
            if k >= n or name is None:
                broken += 1
                if k >= n:
                    break
                i = k + 1
                continue
            end = k + 1 if k + 1 < n and lines[k + 1].startswith("```") else k
            changes.append(
                _Change(
                    path=name,
                    search=_joined(lines[i + 1 : j]),
                    replace=_joined(lines[j + 1 : k]),
                    start=first,
                    end=end,
                )
            )
            current, i = name, end + 1
            continue
        if lines[i].startswith("```") and stats is not None:
            # An opening fence: skip to its closing one, so a closing fence is never taken for an
            # opening one (unless a SEARCH block is inside, which the branch above then reads).
            close = next((c for c in range(i + 1, n) if lines[c].rstrip() == "```"), None)
            if close is not None and not any(_HEAD.match(line.strip()) for line in lines[i + 1 : close]):
                name = _strip_filename(lines[i - 1]) if i > 0 else None
                if name and ("." in name or "/" in name):
                    changes.append(
                        _Change(
                            path=name,
                            search=None,
                            replace=_joined(lines[i + 1 : close]),
                            start=i - 1,
                            end=close,
                        )
                    )
                i = close + 1
                continue
        i += 1
    return changes, broken


def _joined(lines: list[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


def _filename(lines: list[str], head: int) -> tuple[str | None, int]:
    """aider's `find_filename`: up to three lines above the SEARCH marker, looking past fence lines."""
    first = head
    for i in range(head - 1, max(head - 4, -1), -1):
        name = _strip_filename(lines[i])
        if name:
            return name, i
        if not lines[i].startswith("```"):
            break
        first = i
    return None, first


def _strip_filename(line: str) -> str | None:
    name = line.strip()
    if name == "..." or not name:
        return None
    if name.startswith("```"):
        name = name.lstrip("`")
        return name if name and ("." in name or "/" in name) and not any(c.isspace() for c in name) else None
    name = name.rstrip(":").lstrip("#").strip().strip("`").strip("*")
    # A sentence above the fence is not a path (aider would then fuzzy-match it against the repo).
    return name if name and not any(c.isspace() for c in name) else None
