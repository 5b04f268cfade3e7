"""Gemini CLI chat recordings: `~/.gemini/tmp/<project>/chats/session-*.jsonl` (the JSONL of later versions;
corpus sample shaped as 0.40) and the legacy single-JSON `session-*.json` (corpus samples from 0.23).

The project folder is `sha256(<absolute project root>)` in hex (older versions), or a slug claimed in
`~/.gemini/projects.json` whose owner is written in `<slug>/.project_root` (newer versions). Subagent
chats live in `chats/<parent session id>/<session id>.jsonl`. `$GEMINI_CLI_HOME` replaces the home
directory, so state is then under `$GEMINI_CLI_HOME/.gemini`.

JSONL lines are: a metadata line (`sessionId`, `projectHash`, `startTime`, `kind`); message records
(`id`, `timestamp`, `type` user | gemini | info | error | warning, `content`, and for `gemini`
`thoughts`, `toolCalls` with their embedded `result`, `status` and `resultDisplay`); `{"$set": {...}}`
updates of session fields; `{"$rewindTo": id}`, which drops that message and every later one. A message
record whose `id` was seen before replaces it in place (Gemini rewrites a message as its tool calls
finish). The legacy file is one object with the same fields and a `messages` array; its records count
is the number of array entries. `message_id` is Gemini's own message `id`. Edits come from `replace`
(`old_string`/`new_string`) and `write_file` (`content`) calls; when the call's `resultDisplay` carries
a `fileDiff` (unified diff) or `originalContent`/`newContent`, exact lines and line numbers follow.
Records carry no cwd: it is read from the slug folder's `.project_root`, else found by hashing the
ancestors of recorded absolute paths against `projectHash`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...core.values import Edit, Message, ParseStats, Session
from ...transcripts.genai import str_of
from ...transcripts.jsonl import head_records, head_text, iter_records, loads, one_record, recognised
from .messages import EDIT_TOOLS, SHELL_TOOL, TYPES, build_message
from .project import SNIFF_BYTES, discover, gemini_dir, locations, project_hash, project_root

__all__ = [
    "EDIT_TOOLS",
    "MULTI_SESSION",
    "NAME",
    "REWOUND",
    "SHELL_TOOL",
    "UNMATCHED_REWIND",
    "discover",
    "gemini_dir",
    "locations",
    "project_hash",
    "read",
    "sniff",
]

# One file holds many sessions: a file name does not say which (discovery.find_session reads it whole).
MULTI_SESSION = True
NAME = "gemini-cli"
# A chat file opens with `sessionId` and names its `projectHash` (values are not checked: one may be damaged).
_HEADER = re.compile(r'\A\{\s*"sessionId"\s*:')
# Not a record type: ParseStats has no field for messages a `$rewindTo` removed, so they are counted here.
REWOUND = "$rewindTo:dropped"
UNMATCHED_REWIND = "$rewindTo:unmatched"


def sniff(path: Path) -> bool:
    """True for a Gemini chat file: a legacy object or JSONL metadata line opening with `sessionId` and naming
    a `projectHash`, or JSONL whose first records are shaped as Gemini records (a `$` operation, or an object
    with a string `id` or `type`; all but one, as one may be damaged), at least one a Gemini record (`$set`,
    `$rewindTo`, or a message with an `id` and a Gemini `type`), more than have Claude Code's `uuid`/`message`
    or Codex's `payload`. Other types are not a reason to refuse the file."""
    head = head_text(path, SNIFF_BYTES) if path.suffix in (".json", ".jsonl") else None
    if head is None:
        return False
    if _HEADER.match(head) and '"projectHash"' in head:
        return True
    heads = head_records(path, limit=5, max_bytes=SNIFF_BYTES)
    return recognised(heads, _shaped, _is_gemini_record, _foreign)


def _shaped(record: dict[str, Any]) -> bool:
    """Shaped as a Gemini record of any type: a `$` operation, or an object with a string `id` or `type`."""
    return (
        any(key.startswith("$") for key in record)
        or isinstance(record.get("id"), str)
        or isinstance(record.get("type"), str)
    )


def _foreign(record: dict[str, Any]) -> bool:
    """A record with another agent's marks: Claude Code's `uuid`/`message`, Codex's `payload`."""
    return any(key in record for key in ("payload", "uuid", "message")) and "$set" not in record


def _is_gemini_record(record: dict[str, Any]) -> bool:
    if "$set" in record or "$rewindTo" in record:
        return True
    if any(key in record for key in ("payload", "uuid", "message", "sessionId")):
        return False
    return isinstance(record.get("id"), str) and str_of(record.get("type")) in TYPES and "content" in record


def read(path: Path) -> list[Session]:
    """Parse one chat file (JSONL or legacy JSON) into one session; raises OSError only when it cannot be
    opened.

    The session id is the first recorded `sessionId` (later different ones become aliases), else the
    file name. A subagent file (`chats/<parent>/<id>.jsonl`) gets `parent_session_id`. Messages removed
    by `$rewindTo` are dropped with their edits and counted in `stats.unknown_types[REWOUND]`.
    """
    stats = ParseStats()
    chat = _Chat()
    legacy = _legacy_object(path, stats)
    if legacy is None:
        for record in iter_records(path, stats):
            with one_record(stats):
                chat.apply(record, stats)
    else:
        chat.load_legacy(legacy, stats)
    return [chat.session(path, stats)]


def _legacy_object(path: Path, stats: ParseStats) -> dict[str, Any] | None:
    """The whole-file object when `path` is a legacy (pretty-printed or one-line) session; None for JSONL."""
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        first = handle.readline().lstrip("\ufeff").strip()
        if first and first != "{" and '"messages"' not in first:
            return None
        text = first + "\n" + handle.read()
    try:
        value = loads(text)
    except ValueError:
        if first != "{":
            return None  # JSONL after all: the line reader will count what is torn
        stats.unreadable += 1
        return {}
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        return None if first != "{" else {}
    return value


class _Chat:
    """The conversation as Gemini CLI would rebuild it, record by record."""

    def __init__(self) -> None:
        self.meta: dict[str, Any] = {}
        self.ids: list[str] = []
        self.records: dict[str, dict[str, Any]] = {}

    def apply(self, record: dict[str, Any], stats: ParseStats) -> None:
        if "$rewindTo" in record:
            self.rewind(record["$rewindTo"], stats)
        elif "$set" in record:
            values = record["$set"]
            if isinstance(values, dict):
                self.update(values, stats)
            else:
                stats.unreadable += 1
        elif isinstance(record.get("id"), str):
            self.message(record["id"], record, stats)
        elif isinstance(record.get("sessionId"), str):
            self.update(record, stats)
        else:
            stats.unknown(str(record.get("type")))

    def message(self, message_id: str, record: dict[str, Any], stats: ParseStats) -> None:
        if str_of(record.get("type")) not in TYPES:
            stats.unknown(str(record.get("type")))
            return
        self.records[message_id] = record  # an id seen before keeps its place, as in Gemini's loader

    def update(self, values: dict[str, Any], stats: ParseStats) -> None:
        for key, value in values.items():
            if key == "messages" and isinstance(value, list):
                # Gemini writes the whole history back after masking or compressing it. Messages left
                # out were not undone (their edits reached the files), so they are kept; only
                # `$rewindTo` removes messages.
                for item in value:
                    if isinstance(item, dict) and isinstance(item.get("id"), str):
                        self.message(item["id"], item, stats)
                    else:
                        stats.unreadable += 1
                continue
            self.meta[key] = value
            if key == "sessionId" and isinstance(value, str) and value not in self.ids:
                self.ids.append(value)

    def rewind(self, target: Any, stats: ParseStats) -> None:
        if not isinstance(target, str) or target not in self.records:
            # Gemini's loader would clear the whole chat here; a torn line must not erase a session.
            stats.unknown(UNMATCHED_REWIND)
            return
        keys = list(self.records)
        for key in keys[keys.index(target) :]:
            del self.records[key]
            stats.unknown(REWOUND)

    def load_legacy(self, value: dict[str, Any], stats: ParseStats) -> None:
        self.update({k: v for k, v in value.items() if k != "messages"}, stats)
        raw = value.get("messages")
        for index, item in enumerate(raw if isinstance(raw, list) else [], start=1):
            stats.records += 1
            if not isinstance(item, dict):
                stats.unreadable += 1
                continue
            message_id = item.get("id")
            self.message(message_id if isinstance(message_id, str) else f"m{index}", item, stats)

    def session(self, path: Path, stats: ParseStats) -> Session:
        messages: list[Message] = []
        edits: list[Edit] = []
        for raw_id, record in self.records.items():
            message_id = raw_id.replace(":", "-")  # `SESSION:MESSAGE` addressing
            with one_record(stats):
                message = build_message(message_id, record, edits)
                if message is not None:
                    messages.append(message)
        cwd = project_root(path, self.meta, self.records.values())
        directories = self.meta.get("directories")
        cwds = [
            c for c in [cwd, *(directories if isinstance(directories, list) else [])] if isinstance(c, str)
        ]
        nested = path.parent.parent.name == "chats"
        return Session(
            agent="gemini-cli",
            session_id=self.ids[0] if self.ids else path.stem,
            transcript=path,
            cwd=cwd,
            cwds=list(dict.fromkeys(cwds)),
            aliases=self.ids[1:],
            parent_session_id=path.parent.name if nested else None,
            messages=messages,
            edits=edits,
            stats=stats,
        )
