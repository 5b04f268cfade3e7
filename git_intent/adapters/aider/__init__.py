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

from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from ...core.values import Session
from ...transcripts.jsonl import head_text, written_since
from .log import HEADER, split_sections
from .replies import TOOL, WHOLE_TOOL, Parsed, build

__all__ = [
    "HISTORY",
    "MULTI_SESSION",
    "NAME",
    "TOOL",
    "WHOLE_TOOL",
    "commit_links",
    "discover",
    "history",
    "locations",
    "read",
    "sniff",
]

# One file holds many sessions: a file name does not say which (discovery.find_session reads it whole).
MULTI_SESSION = True
NAME = "aider"
HISTORY = ".aider.chat.history.md"


def history(root: Path) -> Path | None:
    """`root/.aider.chat.history.md` when it is a regular file inside the work tree `root`, else None: a
    link the clone brought in that leads out of the work tree names another of this user's files (a shell
    history, a key), which would be read, indexed and shared as a chat."""
    path = root / HISTORY
    try:
        inside = path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
        return None
    return path if inside and path.is_file() else None


def locations(root: Path) -> list[str]:
    """Where `discover` looks: the chat history Aider writes in the work tree."""
    return [str(root / HISTORY)]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """`root/.aider.chat.history.md` when it is a regular file of the work tree (`history`) written at or
    after `since`."""
    path = history(root)
    if path is not None:
        yield from written_since([path], since)


def sniff(path: Path) -> bool:
    """True for a file named `.aider.chat.history.md`, or a `.md` with an aider session header among its first
    4 KB (lines before it, of any shape, are passed over)."""
    if path.name == HISTORY:
        return True
    return path.suffix == ".md" and any(HEADER.match(line) for line in (head_text(path) or "").splitlines())


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


def _parse(path: Path) -> list[Parsed]:
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    confirmed = any(line.startswith("> Applied edit to ") for line in lines)
    seen: Counter[str] = Counter()
    # A header with nothing after it (aider started and quit, or crashed) is no session; it still takes
    # its id, so the ids of the sessions after it do not depend on this rule.
    built = [build(section, path, seen, confirmed) for section in split_sections(lines)]
    return [b for b in built if b.session.messages]
