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

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path, PurePath, PurePosixPath
from typing import Any

from ..models import AddedLine, Edit, Message, ParseStats, Part, Session, parse_timestamp
from ..transcripts import shell
from ..transcripts.jsonl import head_records, iter_records, loads, mostly, one_record, written_since
from ..transcripts.patches import text_diff_added, unified_diff_added

# One file holds many sessions: a file name does not say which (catalog.find_session reads it whole).
MULTI_SESSION = True
SHELL_TOOL = "run_shell_command"
NAME = "gemini-cli"
EDIT_TOOLS = frozenset({"replace", "write_file"})
_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})  # info/error/warning become "system"
_SNIFF_BYTES = 64 * 1024
_HEADER = re.compile(r'\A\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"projectHash"\s*:')
_HEX = re.compile(r"\A[0-9a-f]{16}(?:[0-9a-f]{48})?\Z")
_ABSOLUTE = re.compile(r"(?<![\w./~-])(/[^\s'\"`:,;()<>\[\]{}]+)")
_PATH_KEYS = ("file_path", "absolute_path", "path")
# Not a record type: ParseStats has no field for messages a `$rewindTo` removed, so they are counted here.
REWOUND = "$rewindTo:dropped"
UNMATCHED_REWIND = "$rewindTo:unmatched"


def gemini_dir() -> Path:
    """`$GEMINI_CLI_HOME/.gemini` (Gemini CLI's home override), else `~/.gemini`."""
    env = os.environ.get("GEMINI_CLI_HOME")
    return (Path(env).expanduser() if env else Path.home()) / ".gemini"


def project_hash(root: PurePath | str) -> str:
    """Gemini CLI's project hash: sha256 of the absolute project root, in hex (early versions kept 16 digits)."""
    return hashlib.sha256(str(root).encode("utf-8")).hexdigest()


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Chat files of sessions started in `root`, in a folder above it, or (slug folders only) below it.

    Folders taken: `sha256(root or an ancestor)` (also its 16-digit prefix), slugs that
    `projects.json` or a `.project_root` marker assign to those paths or to paths below `root`, and
    marker-less folders whose chats record a matching `projectHash`. A legacy `.json` is skipped when
    Gemini migrated it to a `.jsonl` beside it. Files last written before `since` are skipped.
    """
    tmp = gemini_dir() / "tmp"
    if not tmp.is_dir():
        return
    roots = {str(root), str(root.resolve())}
    above = {str(a) for r in roots for a in PurePosixPath(r).parents} | roots
    hashes = {h for p in above for h in (project_hash(p), project_hash(p)[:16])}
    slugs = _registry_slugs(roots, above)
    for folder in sorted(tmp.iterdir()):
        chats = folder / "chats"
        if not chats.is_dir():
            continue
        if folder.name in hashes or folder.name in slugs or _owned(folder, roots, above, hashes, chats):
            yield from written_since(_chat_files(chats), since)


def _registry_slugs(roots: set[str], above: set[str]) -> set[str]:
    try:
        data = json.loads((gemini_dir() / "projects.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    projects = data.get("projects") if isinstance(data, dict) else None
    return {slug for path, slug in (projects.items() if isinstance(projects, dict) else [])
            if isinstance(slug, str) and isinstance(path, str) and _related(path, roots, above)}


def _related(path: str, roots: set[str], above: set[str]) -> bool:
    path = path.rstrip("/") or "/"
    return path in above or any(path.startswith(r.rstrip("/") + "/") for r in roots)


def _owned(folder: Path, roots: set[str], above: set[str], hashes: set[str], chats: Path) -> bool:
    try:
        return _related((folder / ".project_root").read_text(encoding="utf-8").strip(), roots, above)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return False
    if _HEX.match(folder.name):
        return False  # a hash folder belongs to the path it hashes
    for path in sorted(chats.glob("session-*.jsonl"))[:3]:
        heads = head_records(path, limit=1, max_bytes=_SNIFF_BYTES)
        if heads and heads[0].get("projectHash") in hashes:
            return True
    return False


def _chat_files(chats: Path) -> list[Path]:
    files = sorted(chats.glob("session-*.jsonl"))
    migrated = {p.with_suffix(".json") for p in files}
    files += [p for p in sorted(chats.glob("session-*.json")) if p not in migrated]
    return files + sorted(chats.glob("*/*.jsonl"))  # subagents: chats/<parent session id>/<id>.jsonl


def sniff(path: Path) -> bool:
    """True for a Gemini chat file: a legacy object or JSONL metadata line opening with `sessionId` then
    `projectHash`, or JSONL whose first records are Gemini records (`$set`, `$rewindTo`, or a message with an
    `id` and a Gemini `type`; all but one, as one may be damaged) and none has Claude Code's `uuid`/`message`
    or Codex's `payload`."""
    if path.suffix not in (".json", ".jsonl"):
        return False
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            head = handle.read(_SNIFF_BYTES).lstrip("\ufeff \t\r\n")
    except OSError:
        return False
    if _HEADER.match(head):
        return True
    heads = head_records(path, limit=5, max_bytes=_SNIFF_BYTES)
    return not any(_foreign(r) for r in heads) and mostly(heads, _is_gemini_record)


def _foreign(record: dict[str, Any]) -> bool:
    """A record with another agent's marks: Claude Code's `uuid`/`message`, Codex's `payload`."""
    return any(key in record for key in ("payload", "uuid", "message")) and "$set" not in record


def _is_gemini_record(record: dict[str, Any]) -> bool:
    if "$set" in record or "$rewindTo" in record:
        return True
    if any(key in record for key in ("payload", "uuid", "message", "sessionId")):
        return False
    return isinstance(record.get("id"), str) and _str(record.get("type")) in _TYPES and "content" in record


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
        if _str(record.get("type")) not in _TYPES:
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
        for key in keys[keys.index(target):]:
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
                message = _message(message_id, record, edits)
                if message is not None:
                    messages.append(message)
        cwd = _cwd(path, self.meta, self.records.values())
        directories = self.meta.get("directories")
        cwds = [c for c in [cwd, *(directories if isinstance(directories, list) else [])] if isinstance(c, str)]
        nested = path.parent.parent.name == "chats"
        return Session(agent="gemini-cli", session_id=self.ids[0] if self.ids else path.stem, transcript=path,
                       cwd=cwd, cwds=list(dict.fromkeys(cwds)), aliases=self.ids[1:],
                       parent_session_id=path.parent.name if nested else None,
                       messages=messages, edits=edits, stats=stats)


def _message(message_id: str, record: dict[str, Any], edits: list[Edit]) -> Message | None:
    kind = record.get("type")
    when = parse_timestamp(record.get("timestamp"))
    if kind == "gemini":
        thoughts = record.get("thoughts")
        parts = [_thought(t) for t in (thoughts if isinstance(thoughts, list) else []) if isinstance(t, dict)]
        parts += _parts(record.get("content"))
        calls = record.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                parts += _call_parts(call)
                edit = _edit(call, message_id, when)
                if edit is not None:
                    edits.append(edit)
                edits += _shell_edits(call, message_id, when)
        parts = [p for p in parts if p.text or p.kind in ("tool_call", "tool_result")]
        return Message(message_id=message_id, role="assistant", timestamp=when, parts=tuple(parts)) if parts else None
    shown = _parts(record.get("displayContent"))
    parts = shown if any(p.kind == "text" and p.text for p in shown) else _parts(record.get("content"))
    parts = [p for p in parts if p.text or p.kind != "text"]
    if not parts:
        return None
    if kind == "user" and all(p.kind == "tool_result" for p in parts):
        return Message(message_id=message_id, role="tool", timestamp=when, parts=tuple(parts))
    prompt = kind == "user" and any(p.kind == "text" and p.text.strip() for p in parts)
    return Message(message_id=message_id, role="user" if kind == "user" else "system", timestamp=when,
                   parts=tuple(parts), is_prompt=prompt)


def _thought(thought: dict[str, Any]) -> Part:
    subject, description = thought.get("subject"), thought.get("description")
    text = "\n".join(s for s in (subject, description) if isinstance(s, str) and s)
    return Part(kind="reasoning", text=text)


def _parts(content: Any) -> list[Part]:
    """Parts of a Gemini `PartListUnion`: a string, one part object, or a list of them."""
    if isinstance(content, str):
        return [Part(kind="text", text=content)]
    items = content if isinstance(content, list) else [content] if isinstance(content, dict) else []
    parts: list[Part] = []
    for item in items:
        if isinstance(item, str):
            parts.append(Part(kind="text", text=item))
        elif not isinstance(item, dict):
            continue
        elif isinstance(item.get("text"), str):
            parts.append(Part(kind="reasoning" if item.get("thought") else "text", text=item["text"]))
        elif isinstance(item.get("functionResponse"), dict):
            response = item["functionResponse"]
            body = response.get("response")
            parts.append(Part(kind="tool_result", tool=_str(response.get("name")), call_id=_str(response.get("id")),
                              text=_response_text(body), is_error=isinstance(body, dict) and "error" in body))
        elif isinstance(item.get("functionCall"), dict):
            call = item["functionCall"]
            parts.append(Part(kind="tool_call", tool=_str(call.get("name")), call_id=_str(call.get("id")),
                              text=json.dumps(call.get("args"))))
    return parts


def _call_parts(call: dict[str, Any]) -> list[Part]:
    name, call_id = str(call.get("name", "")), _str(call.get("id"))
    parts = [Part(kind="tool_call", tool=name, call_id=call_id, text=json.dumps(call.get("args")))]
    results = [p for p in _parts(call.get("result")) if p.kind == "tool_result"]
    display = call.get("resultDisplay")
    text = "\n".join(p.text for p in results if p.text) or (display if isinstance(display, str) else "")
    if results or text or "status" in call:
        failed = call.get("status") in ("error", "cancelled") or any(p.is_error for p in results)
        parts.append(Part(kind="tool_result", tool=name, call_id=call_id, text=text, is_error=failed))
    return parts


def _edit(call: dict[str, Any], message_id: str, when: datetime | None) -> Edit | None:
    """The edit a `replace` or `write_file` call made; None for other tools and for failed calls."""
    name = _str(call.get("name"))
    if name not in EDIT_TOOLS or call.get("status") not in (None, "success"):
        return None
    if any(p.is_error for p in _parts(call.get("result"))):
        return None
    args, display = _dict(call.get("args")), _dict(call.get("resultDisplay"))
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), display.get("filePath"))
    if not isinstance(path, str) or not path:
        return None
    diff, original, after = display.get("fileDiff"), display.get("originalContent"), display.get("newContent")
    added: list[AddedLine] | None = None
    if isinstance(diff, str) and diff.strip():
        added = unified_diff_added(diff)
    elif isinstance(original, str) and isinstance(after, str):
        added = text_diff_added(original, after)
    stamp = parse_timestamp(call.get("timestamp")) or when
    output = "\n".join(p.text for p in _parts(call.get("result")))
    if name == "write_file":
        content = after if isinstance(after, str) else _str(args.get("content")) or ""
        created = display.get("isNewFile") is True or original == "" or "created" in output.lower()
        if added is None:
            added = [AddedLine(text=t, line=i + 1) for i, t in enumerate(content.splitlines())]
        return Edit(path=path, tool=name, message_id=message_id, call_id=_str(call.get("id")), timestamp=stamp,
                    kind="create" if created else "update", old_text=original if isinstance(original, str) else None,
                    new_text=content, added=tuple(added))
    old, new = _str(args.get("old_string")) or "", _str(args.get("new_string")) or ""
    if added is None:
        # Without the file, a fragment's position is unknown, except when `old_string` is empty: then
        # Gemini created the file with `new_string` as its whole content.
        added = text_diff_added(old, new, numbered=not old)
    return Edit(path=path, tool=name, message_id=message_id, call_id=_str(call.get("id")), timestamp=stamp,
                kind="create" if not old else "update", old_text=old, new_text=new, added=tuple(added))


def _shell_edits(call: dict[str, Any], message_id: str, when: datetime | None) -> list[Edit]:
    """Writes a successful `run_shell_command` shows in its command text (paths stay relative to the
    session's project root). Gemini's own `status` decides success: it prints the exit code after the
    output, where `shell.exit_code` would not look."""
    command = _dict(call.get("args")).get("command")
    if call.get("name") != SHELL_TOOL or call.get("status") != "success" or not isinstance(command, str):
        return []
    return shell.shell_edits(command, None, tool=SHELL_TOOL, message_id=message_id, call_id=_str(call.get("id")),
                             timestamp=parse_timestamp(call.get("timestamp")) or when)


def _cwd(path: Path, meta: dict[str, Any], records: Iterable[dict[str, Any]]) -> str | None:
    """The project root: the slug folder's `.project_root`, else the ancestor of a recorded absolute path
    whose sha256 is `projectHash`, else the absolute path a relative edit path resolved to."""
    project = path.parent.parent if path.parent.name == "chats" else (
        path.parent.parent.parent if path.parent.parent.name == "chats" else None)
    if project is not None:
        try:
            marker = (project / ".project_root").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            marker = ""
        if marker:
            return marker
    absolute: list[str] = []
    resolved: list[str] = []
    for record in records:
        calls = record.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                _call_paths(call, absolute, resolved)
    wanted = meta.get("projectHash")
    if isinstance(wanted, str) and wanted:
        for found in absolute:
            for folder in PurePosixPath(found).parents:
                digest = project_hash(folder)
                if digest == wanted or digest[:16] == wanted:
                    return str(folder)
    return resolved[0] if resolved else None


def _call_paths(call: dict[str, Any], absolute: list[str], resolved: list[str]) -> None:
    """Collect absolute paths a call recorded and, for a relative argument path, the cwd it implies."""
    args, display = _dict(call.get("args")), _dict(call.get("resultDisplay"))
    seen = [args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)]
    here = [p for p in seen if p.startswith("/")]
    if isinstance(display.get("filePath"), str) and display["filePath"].startswith("/"):
        here.append(display["filePath"])
    if _str(call.get("name")) in EDIT_TOOLS or call.get("name") == "read_file":
        for part in _parts(call.get("result")):
            here += [m.rstrip(".") for m in _ABSOLUTE.findall(part.text)]
    absolute += here
    for rel in (p for p in seen if not p.startswith("/")):
        tail = "/" + rel.removeprefix("./")
        resolved += [p[: -len(tail)] for p in here if p.endswith(tail) and len(p) > len(tail)]


def _response_text(body: Any) -> str:
    if isinstance(body, str):
        return body
    if isinstance(body, dict):
        for key in ("output", "error", "content"):
            if isinstance(body.get(key), str):
                return str(body[key])
        return json.dumps(body)
    return "" if body is None else json.dumps(body)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
