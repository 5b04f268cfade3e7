"""Aider chat history: `<repo root>/.aider.chat.history.md` (aider 0.x; checked on v0.47–v0.48 logs).

A Markdown log aider appends to. `# aider chat started at YYYY-MM-DD HH:MM:SS` (the machine's local time)
starts a session; `#### ` lines are what the user typed (one line per typed line); `> ` lines are aider's
own output, the assistant's replies are everything else. Aider ends every output with two spaces (a
Markdown line break): only the first line of a multi-line output (a test run, a long commit message)
carries `> `, so such output runs to the next non-blank line ending in two spaces. Files without that
convention are split as aider's own `split_chat_history_markdown` does, ignoring markers inside fences.

Edits are SEARCH/REPLACE blocks (a path line, a fence, `<<<<<<< SEARCH`, old lines, `=======`, new lines,
`>>>>>>> REPLACE`, found as aider's `find_original_update_blocks` does), and whole-file fences (a path
line, then the file in a fence) when aider reports `Applied edit to <that path>`. A reply's blocks count
only when aider says it applied them: dropped when no `Applied edit to` follows (ask mode, interrupted,
dry run) unless the log never says it, and when it reports a malformed reply or blocks that `failed to
match` (the others of a partly applied reply are kept). Paths are relative to the repo root, aider's cwd.

The file has no other clock and no ids: every message of a session has the session's start time; the
session id is `aider-<start, YYYY-MM-DDTHHMMSS>` (`-2`, `-3` … on a repeat) and message ids are
`m<N>`, the 1-based position in the session. `commit_links` maps aider's `> Commit <hash>` lines to the
reply whose edits each commit holds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..models import AddedLine, Edit, Message, ParseStats, Part, Role, Session
from ..transcripts.jsonl import written_since
from ..transcripts.patches import text_diff_added

# One file holds many sessions: a file name does not say which (catalog.find_session reads it whole).
MULTI_SESSION = True
NAME = "aider"
HISTORY = ".aider.chat.history.md"
TOOL = "search_replace"
WHOLE_TOOL = "whole_file"
_HEADER = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})\s*$")
_HEAD = re.compile(r"^<{5,9} SEARCH>?\s*$")
_DIVIDER = re.compile(r"^={5,9}\s*$")
_UPDATED = re.compile(r"^>{5,9} REPLACE\s*$")
_COMMIT = re.compile(r"^Commit ([0-9a-f]{7,40})\b")
_VERSION = re.compile(r"^Aider (v\S+)")
# Aider's own one-line outputs, recognised after a reply even without the trailing two spaces.
_AIDER_SAYS = re.compile(r"^> (Tokens: |Applied edit to |Commit [0-9a-f]{7}|Committing |The LLM did not conform"
                         r"|Unexpected error|\^C )")
_OTHERS = re.compile(r"^# The other \d+ SEARCH/REPLACE blocks? (were|was) applied successfully")
_FAILED = re.compile(r"^## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in (.+)$")
_PROMPT_COMMANDS = ("/ask ", "/code ", "/architect ", "/context ")


@dataclass
class _Block:
    role: Role
    lines: list[str] = field(default_factory=list)
    commits: list[tuple[str, bool]] = field(default_factory=list)  # (hash, made before applying edits)
    dirty_pending: bool = False


@dataclass
class _Section:
    started: str | None
    blocks: list[_Block] = field(default_factory=list)
    lines: int = 0


@dataclass
class _Parsed:
    session: Session
    blocks: list[tuple[str, _Block]]  # (message_id, block), every block of the session in order
    edit_messages: set[str]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """`root/.aider.chat.history.md` when it exists and was written at or after `since`."""
    path = root / HISTORY
    if path.is_file():
        yield from written_since([path], since)


def sniff(path: Path) -> bool:
    """True for a file named `.aider.chat.history.md`, or a `.md` whose first line is an aider session header."""
    if path.name == HISTORY:
        return True
    if path.suffix != ".md":
        return False
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    first = next((line for line in head.splitlines() if line.strip()), "")
    return bool(_HEADER.match(first))


def read(path: Path) -> list[Session]:
    """Every session of the history file, in file order; raises OSError only when it cannot be opened.

    Lines before the first session header (a truncated file) become a session `aider-before-first-header`.
    """
    return [p.session for p in _parse(path)]


def commit_links(path: Path) -> list[tuple[str, str, str]]:
    """`(session_id, message_id, short hash)` for every `> Commit <hash>` line, in file order.

    `message_id` is the assistant reply whose edits the commit holds: the latest reply with edits not yet
    committed, or, for a follow-up commit with no prompt in between (aider's lint fixes), the last reply
    with edits. A commit aider made of someone else's changes (`--commit` at start-up, `/commit`, or
    "Committing <file> before applying edits") gets the id of the tool message holding the line, unless an
    earlier reply's applied edits were still uncommitted (a partly applied reply), which it then holds.
    Raises OSError only when the file cannot be opened.
    """
    links: list[tuple[str, str, str]] = []
    for parsed in _parse(path):
        sid = parsed.session.session_id
        uncommitted: list[str] = []
        last_edit: str | None = None
        reply: str | None = None
        prompt_since = False
        for message_id, block in parsed.blocks:
            if block.role == "user":
                prompt_since, reply = True, None
            elif block.role == "assistant":
                reply = message_id
                if message_id in parsed.edit_messages:
                    uncommitted.append(message_id)
                    last_edit, prompt_since = message_id, False
            for short, dirty in block.commits:
                older = [m for m in uncommitted if m != reply]
                if dirty:
                    target = older[-1] if older else message_id
                    uncommitted = [m for m in uncommitted if m not in older]
                elif uncommitted:
                    target = uncommitted[-1]
                    uncommitted = []
                elif last_edit is not None and not prompt_since:
                    target = last_edit
                else:
                    target = message_id
                links.append((sid, target, short))
    return links


# --------------------------------------------------------------------------------------------------
# Splitting the log into sessions and blocks
# --------------------------------------------------------------------------------------------------


def _parse(path: Path) -> list[_Parsed]:
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    confirmed = any(line.startswith("> Applied edit to ") for line in lines)
    seen: Counter[str] = Counter()
    # A header with nothing after it (aider started and quit, or crashed) is no session; it still takes
    # its id, so the ids of the sessions after it do not depend on this rule.
    built = [_build(section, path, seen, confirmed) for section in _split(lines)]
    return [b for b in built if b.session.messages]


def _uses_linebreaks(lines: list[str]) -> bool:
    """Whether aider ended its outputs with two spaces (all versions seen do); decided on `> ` lines."""
    quoted = [line for line in lines if line.startswith("> ")]
    return bool(quoted) and 2 * sum(line.endswith("  ") for line in quoted) >= len(quoted)


def _split(lines: list[str]) -> list[_Section]:
    breaks = _uses_linebreaks(lines)
    sections = [_Section(started=None)]
    block: _Block | None = None
    state = ""  # "", "tool", "more" (a multi-line output), "user", "assistant"
    blank_before = True
    in_fence = False

    def start(role: Role) -> _Block:
        new = _Block(role=role)
        sections[-1].blocks.append(new)
        return new

    for line in lines:
        header = _HEADER.match(line)
        if header:
            sections.append(_Section(started=line[len("# aider chat started at "):].strip()))
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


def _tool_line(block: _Block, text: str) -> None:
    block.lines.append(text)
    commit = _COMMIT.match(text)
    if commit:
        block.commits.append((commit.group(1), block.dirty_pending))
        block.dirty_pending = False
    elif text.startswith("Committing ") and text.endswith("before applying edits."):
        block.dirty_pending = True


# --------------------------------------------------------------------------------------------------
# Turning blocks into messages and edits
# --------------------------------------------------------------------------------------------------


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


def _build(section: _Section, path: Path, seen: Counter[str], confirmed: bool) -> _Parsed:
    started = _local_time(section.started)
    base = "aider-" + section.started.replace(" ", "T").replace(":", "") if section.started else (
        "aider-before-first-header")
    seen[base] += 1
    session_id = base if seen[base] == 1 else f"{base}-{seen[base]}"
    stats = ParseStats(records=section.lines)
    messages: list[Message] = []
    edits: list[Edit] = []
    named: list[tuple[str, _Block]] = []
    version: str | None = None
    asked = ""
    for index, block in enumerate(section.blocks):
        message_id = f"m{index + 1}"
        named.append((message_id, block))
        text = "\n".join(block.lines).strip("\n")
        if block.role == "user":
            # `/ask X` is logged, then X again as the request the ask coder sends: one prompt, not two.
            prompt = _is_prompt(text) and not (asked and text.strip() == asked)
            asked = text.split(None, 1)[1].strip() if text.startswith(_PROMPT_COMMANDS) and prompt else ""
            messages.append(Message(message_id=message_id, role="user", timestamp=started,
                                    parts=(Part(kind="text", text=text),), is_prompt=prompt))
            continue
        asked = ""
        if block.role == "tool":
            version = version or next((m.group(1) for m in map(_VERSION.match, block.lines) if m), None)
            error = "did not conform to the edit format" in text or "failed to match" in text
            messages.append(Message(message_id=message_id, role="tool", timestamp=started,
                                    parts=(Part(kind="tool_result", text=text, is_error=error),)))
        else:
            outcome = _outcome(section.blocks, index + 1)
            parts, made = _reply(block.lines, message_id, started, outcome, confirmed, stats)
            messages.append(Message(message_id=message_id, role="assistant", timestamp=started, parts=tuple(parts)))
            edits += made
    cwd = str(path.parent)
    session = Session(agent="aider", session_id=session_id, transcript=path, cwd=cwd, cwds=[cwd],
                      agent_version=version, messages=messages, edits=edits, stats=stats)
    return _Parsed(session=session, blocks=named, edit_messages={e.message_id for e in edits})


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
    return not text.startswith("/") or (text.startswith(_PROMPT_COMMANDS) and bool(text.split(None, 1)[1:]))


def _outcome(blocks: list[_Block], start: int) -> _Outcome:
    """What aider reported about a reply: the tool output from `blocks[start]` to the next user or
    assistant message."""
    outcome = _Outcome()
    for block in blocks[start:]:
        if block.role != "tool":
            break
        lines = block.lines
        for i, line in enumerate(lines):
            for prefix, bucket in (("Applied edit to ", outcome.applied), ("Did not apply edit to ", outcome.skipped),
                                   ("Skipping edits to ", outcome.skipped)):
                if line.startswith(prefix):
                    bucket.add(line[len(prefix):].removesuffix(" (--dry-run)").strip())
            if "did not conform to the edit format" in line:
                outcome.malformed = True
            if _OTHERS.match(line):
                outcome.others_applied = True
            failed = _FAILED.match(line)
            if failed:
                changes, _ = _changes(lines[i + 1:], None, failed.group(1).strip())
                if changes and changes[0].search is not None:
                    outcome.failed.append((failed.group(1).strip(), _norm(changes[0].search),
                                           _norm(changes[0].replace)))
    return outcome


def _reply(lines: list[str], message_id: str, when: datetime | None, outcome: _Outcome, confirmed: bool,
           stats: ParseStats) -> tuple[list[Part], list[Edit]]:
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
        prose = "\n".join(lines[at:change.start]).strip()
        if prose:
            parts.append(Part(kind="text", text=prose))
        call_id = f"{message_id}.b{number + 1}"
        tool = TOOL if change.search is not None else WHOLE_TOOL
        parts.append(Part(kind="tool_call", tool=tool, call_id=call_id,
                          text="\n".join(lines[change.start:change.end + 1])))
        at = change.end + 1
        if change not in kept:
            continue
        if change.search is None:
            added = [AddedLine(text=t, line=i + 1) for i, t in enumerate(change.replace.splitlines())]
        else:
            added = text_diff_added(change.search, change.replace, numbered=False)
        edits.append(Edit(path=change.path, tool=tool, message_id=message_id, call_id=call_id, timestamp=when,
                          kind="create" if change.search is not None and not change.search.strip() else "update",
                          old_text=change.search or None, new_text=change.replace, added=tuple(added)))
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


def _changes(lines: list[str], stats: ParseStats | None, current: str | None = None
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
            changes.append(_Change(path=name, search=_joined(lines[i + 1:j]), replace=_joined(lines[j + 1:k]),
                                   start=first, end=end))
            current, i = name, end + 1
            continue
        if lines[i].startswith("```") and stats is not None:
            # An opening fence: skip to its closing one, so a closing fence is never taken for an
            # opening one (unless a SEARCH block is inside, which the branch above then reads).
            close = next((c for c in range(i + 1, n) if lines[c].rstrip() == "```"), None)
            if close is not None and not any(_HEAD.match(line.strip()) for line in lines[i + 1:close]):
                name = _strip_filename(lines[i - 1]) if i > 0 else None
                if name and ("." in name or "/" in name):
                    changes.append(_Change(path=name, search=None, replace=_joined(lines[i + 1:close]),
                                           start=i - 1, end=close))
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

