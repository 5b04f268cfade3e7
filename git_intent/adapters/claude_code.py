"""Claude Code transcripts: `~/.claude/projects/<encoded cwd>/<sessionId>.jsonl` (versions 1.0 to 2.1).

Records are JSON objects with a `type` (user | assistant | system | summary | progress | file-history-snapshot
| queue-operation | attachment read or passed over knowingly; newer ones such as 2.1.14x's `last-prompt` and
`permission-mode` are skipped and counted in `ParseStats.unknown_types`), a `uuid` (our `message_id`), a
`sessionId`, a `cwd` and an ISO-8601 `timestamp`. Edits come from `Edit`, `MultiEdit` and `Write` tool_use
blocks; the matching tool_result record carries `toolUseResult.originalFile` (the whole file before the edit),
from which exact line numbers follow. `structuredPatch` renders tabs as spaces, so it only gives a line hint
when `originalFile` is missing.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.values import AddedLine, Edit, Message, ParseStats, Part, Session, parse_timestamp
from ..transcripts import shell
from ..transcripts.jsonl import head_records, iter_records, one_record, recognised, written_since
from ..transcripts.patches import text_diff_added

NAME = "claude-code"
# The newest Claude Code version the fixtures cover (fixtures/transcripts/claude-code/README.md); `doctor`
# says when transcripts on disk come from a newer one.
NEWEST_TESTED = "2.1.143"
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write"})
_KNOWN = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "attachment",
        "custom-title",
        "tag",
    }
)
_NOT_PROMPTS = (
    "<command-",
    "<local-command",
    "<bash-",
    "<task-notification",
    "<system-reminder",
    "Caveat: The messages below",
    "[Request interrupted by user",
)
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _typed_command(text: str) -> bool:
    """Whether a user record is a slash command typed with arguments (`<command-name>/goal</command-name>…
    <command-args>simplify this repo</command-args>`): a request, quoted as its arguments."""
    if not text.startswith(("<command-name>", "<command-message>")):
        return False
    # With arguments (`/goal simplify this repo`, a skill's `/review 172`) it asks for work; without (`/exit`,
    # `/model`) it only echoes the command. Found with `find`, not `<command-args>\s*\S.*?</command-args>`,
    # which scanned to the end from every unclosed tag (quadratic); the first tag decides: a later one has
    # less after it.
    opening = text.find("<command-args>")
    if opening < 0:
        return False
    rest = text[opening + len("<command-args>") :]
    content = len(rest) - len(rest.lstrip())
    return content < len(rest) and rest.find("</command-args>", content + 1) >= 0


def config_dir() -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else Path.home() / ".claude"


def encode_project(path: Path | str) -> str:
    """Claude Code's project folder name for a cwd: every non-alphanumeric character becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def locations(root: Path) -> list[str]:
    """Where `discover` looks for `root`'s transcripts, as path patterns of this machine."""
    return [f"{config_dir() / 'projects' / encode_project(root)}*/*.jsonl"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Transcripts of sessions started in `root`, below it, or in a folder above it.

    Folder names are lossy ('/' and '.' both become '-'), so this over-selects; membership is decided
    later from the cwd and edited paths. Files last written before `since` are skipped.
    """
    projects = config_dir() / "projects"
    if not projects.is_dir():
        return
    mine = encode_project(root)
    for folder in projects.iterdir():
        name = folder.name
        if name == mine or name.startswith(mine + "-") or mine.startswith(name + "-"):
            yield from written_since([*folder.glob("*.jsonl"), *folder.glob("*/subagents/*.jsonl")], since)


def sniff(path: Path) -> bool:
    """True when the file's first records are shaped as Claude Code's, whatever their types: objects with a
    string `type` and no GenAI `message.parts` (all but one, as one may be damaged: Qwen Code's records are
    Claude-like but for those), more of them carrying a `uuid` or a `sessionId` (Gemini CLI's records have an
    `id`) than carrying Codex's `payload` or Gemini CLI's `projectHash` (one unknown record with such a key
    does not veto the file). Types are not checked against a list: Claude Code 2.1.14x opens a file with
    `last-prompt` and `permission-mode` records, and a list made every such file unrecognised."""
    if path.suffix != ".jsonl":
        return False
    return recognised(
        head_records(path), _typed, _looks_like_claude, lambda r: "payload" in r or "projectHash" in r
    )


def _typed(record: dict[str, Any]) -> bool:
    return isinstance(record.get("type"), str) and not _genai(record)


def _genai(record: dict[str, Any]) -> bool:
    """A record whose message is GenAI `Content` (`parts`, no `content`): Qwen Code's, shaped like Claude
    Code's records otherwise."""
    body = record.get("message")
    return isinstance(body, dict) and "parts" in body and "content" not in body


def _looks_like_claude(record: dict[str, Any]) -> bool:
    kind = record.get("type")
    if not isinstance(kind, str) or _genai(record):
        return False
    return (
        "uuid" in record
        or isinstance(record.get("sessionId"), str)
        or kind in ("summary", "file-history-snapshot")
    )


def read(path: Path) -> list[Session]:
    """Parse one transcript file into one session (a file is one run, even when resumed).

    The session id is the file name when it is one of the file's `sessionId`s, else the id carrying
    the most user/assistant records; other ids become `aliases`. Subagent files
    (`<sessionId>/subagents/agent-*.jsonl`) become sessions named after the file with
    `parent_session_id` set. Raises OSError only when the file cannot be opened.
    """
    stats = ParseStats()
    builder = _Builder(path)
    for record in iter_records(path, stats):
        with one_record(stats):
            builder.add(record, stats)
    return [builder.finish(stats)]


class _Builder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.messages: list[Message] = []
        self.edits: list[Edit] = []
        self.pending: dict[str, tuple[str, dict[str, Any], str, datetime | None]] = {}
        self.shell_calls: dict[str, tuple[str, str | None, str, datetime | None]] = {}
        self.cwd: str | None = None
        self.ids: Counter[str] = Counter()
        self.seen: set[str] = set()
        self.cwds: list[str] = []
        self.version: str | None = None

    def add(self, record: dict[str, Any], stats: ParseStats) -> None:
        kind = record.get("type")
        if not isinstance(kind, str) or kind not in _KNOWN:
            stats.unknown(str(kind))
            return
        sid, cwd = record.get("sessionId"), record.get("cwd")
        if isinstance(cwd, str) and cwd not in self.cwds:
            self.cwds.append(cwd)
        self.cwd = cwd if isinstance(cwd, str) else self.cwd
        if isinstance(record.get("version"), str):
            self.version = record["version"]
        if kind not in ("user", "assistant"):
            return
        if isinstance(sid, str):
            self.ids[sid] += 1
        uuid = record.get("uuid")
        message_id = uuid if isinstance(uuid, str) else f"r{stats.records}"
        if message_id in self.seen:
            stats.duplicates += 1  # Claude Code sometimes writes a record twice (seen around glued lines)
            return
        self.seen.add(message_id)
        when = parse_timestamp(record.get("timestamp"))
        body = record.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        if kind == "assistant":
            model = body.get("model") if isinstance(body, dict) else None
            # "<synthetic>" marks turns Claude Code wrote itself (an API error), not a model id
            self._assistant(
                message_id,
                when,
                content,
                model if isinstance(model, str) and model and not model.startswith("<") else None,
            )
        else:
            self._user(record, message_id, when, content)

    def _assistant(
        self, message_id: str, when: datetime | None, content: Any, model: str | None = None
    ) -> None:
        parts: list[Part] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                parts.append(Part(kind="text", text=str(block.get("text", ""))))
            elif btype == "thinking":
                parts.append(Part(kind="reasoning", text=str(block.get("thinking", ""))))
            elif btype == "tool_use":
                name, args = str(block.get("name", "")), block.get("input")
                args = args if isinstance(args, dict) else {}
                call_id = str(block.get("id", ""))
                parts.append(Part(kind="tool_call", tool=name, call_id=call_id, text=json.dumps(args)))
                if name in EDIT_TOOLS:
                    self.pending[call_id] = (name, args, message_id, when)
                elif name == shell.CLAUDE_TOOL and isinstance(args.get("command"), str):
                    self.shell_calls[call_id] = (args["command"], self.cwd, message_id, when)
        if parts:
            self.messages.append(
                Message(
                    message_id=message_id, role="assistant", timestamp=when, parts=tuple(parts), model=model
                )
            )

    def _user(self, record: dict[str, Any], message_id: str, when: datetime | None, content: Any) -> None:
        parts: list[Part] = []
        if isinstance(content, str):
            parts.append(Part(kind="text", text=content))
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                parts.append(Part(kind="text", text=str(block.get("text", ""))))
            elif block.get("type") == "tool_result":
                call_id = str(block.get("tool_use_id", ""))
                error = bool(block.get("is_error"))
                parts.append(
                    Part(
                        kind="tool_result",
                        call_id=call_id,
                        is_error=error,
                        text=_result_text(block.get("content")),
                    )
                )
                self._finish_edit(call_id, error, record.get("toolUseResult"), when)
                self._finish_shell(call_id, error, when)
        if not parts:
            return
        is_tool = all(p.kind == "tool_result" for p in parts)
        summary = bool(record.get("isCompactSummary"))
        text = "\n".join(p.text for p in parts if p.kind == "text").lstrip()
        prompt = (
            not is_tool
            and not summary
            and not record.get("isMeta")
            and bool(text)
            and (not text.startswith(_NOT_PROMPTS) or _typed_command(text))
        )
        self.messages.append(
            Message(
                message_id=message_id,
                role="tool" if is_tool else "user",
                timestamp=when,
                parts=tuple(parts),
                is_prompt=prompt,
                is_summary=summary,
            )
        )

    def _finish_edit(self, call_id: str, error: bool, result: Any, when: datetime | None) -> None:
        pending = self.pending.pop(call_id, None)
        if pending is None or error or isinstance(result, str):
            return
        name, args, message_id, called = pending
        edit = _edit(
            name, args, result if isinstance(result, dict) else {}, message_id, call_id, when or called
        )
        if edit is not None:
            self.edits.append(edit)

    def _finish_shell(self, call_id: str, error: bool, when: datetime | None) -> None:
        pending = self.shell_calls.pop(call_id, None)
        if pending is not None and not error:
            command, cwd, message_id, called = pending
            self.edits += shell.shell_edits(
                command,
                cwd,
                tool=shell.CLAUDE_TOOL,
                message_id=message_id,
                call_id=call_id,
                timestamp=when or called,
            )

    def finish(self, stats: ParseStats) -> Session:
        # Edits whose result never arrived (the run was cut off) still count: their lines only match
        # a commit if they reached the file.
        for call_id, (name, args, message_id, when) in list(self.pending.items()):
            edit = _edit(name, args, {}, message_id, call_id, when)
            if edit is not None:
                self.edits.append(edit)
        for call_id in list(self.shell_calls):
            self._finish_shell(call_id, False, None)
        session_id, parent = self._identity()
        return Session(
            agent="claude-code",
            session_id=session_id,
            transcript=self.path,
            cwd=self.cwds[0] if self.cwds else None,
            cwds=self.cwds,
            parent_session_id=parent,
            aliases=sorted(i for i in self.ids if i != session_id),
            agent_version=self.version,
            messages=self.messages,
            edits=self.edits,
            stats=stats,
        )

    def _identity(self) -> tuple[str, str | None]:
        stem = self.path.stem
        if self.path.parent.name == "subagents":
            return stem, self.path.parent.parent.name
        if stem.startswith("agent-"):
            # Older Claude Code wrote sidechains beside the parent as agent-<id>.jsonl, with its sessionId.
            return stem, self.ids.most_common(1)[0][0] if self.ids else None
        if stem in self.ids or (_UUID.match(stem) and not self.ids):
            return stem, None
        if self.ids:
            return self.ids.most_common(1)[0][0], None
        return stem, None


def _edit(
    name: str,
    args: dict[str, Any],
    result: dict[str, Any],
    message_id: str,
    call_id: str,
    when: datetime | None,
) -> Edit | None:
    """The edit of one Edit/MultiEdit/Write call; `result` is its `toolUseResult` ({} when none arrived).

    With the whole file before the edit (`originalFile`), the replacements are applied to it: exact
    line numbers, and `before`/`after` for `replay`. A Write whose result names no original created the
    file (its `before` is "").
    """
    path = args.get("file_path") or result.get("filePath")
    if not isinstance(path, str) or not path:
        return None
    original = result.get("originalFile")
    if not isinstance(original, str):
        original = (
            result.get("originalFileContents")
            if isinstance(result.get("originalFileContents"), str)
            else None
        )
    if name == "Write":
        content = str(args.get("content", result.get("content", "")))
        written = (
            text_diff_added(original, content)
            if original
            else [AddedLine(text=t, line=i + 1) for i, t in enumerate(content.splitlines())]
        )
        return Edit(
            path=path,
            tool=name,
            message_id=message_id,
            call_id=call_id,
            timestamp=when,
            kind="update" if original else "create",
            old_text=original,
            new_text=content,
            added=tuple(written),
            before=original if original is not None else "" if result else None,
            after=content if result else None,
        )
    raw_edits = args.get("edits")
    many: list[Any] = raw_edits if isinstance(raw_edits, list) else []
    pairs = (
        [
            (str(e.get("old_string", "")), str(e.get("new_string", "")), bool(e.get("replace_all")))
            for e in many
            if isinstance(e, dict)
        ]
        if name == "MultiEdit"
        else [
            (str(args.get("old_string", "")), str(args.get("new_string", "")), bool(args.get("replace_all")))
        ]
    )
    after = _replace(original, pairs) if original is not None else None
    added = text_diff_added(original, after) if original is not None and after is not None else []
    if after is None:
        hint = _patch_hint(result.get("structuredPatch"))
        for old, new, _ in pairs:
            added += [AddedLine(text=a.text, line=hint) for a in text_diff_added(old, new, numbered=False)]
    return Edit(
        path=path,
        tool=name,
        message_id=message_id,
        call_id=call_id,
        timestamp=when,
        old_text="\n".join(p[0] for p in pairs),
        new_text="\n".join(p[1] for p in pairs),
        added=tuple(added),
        before=original if after is not None else None,
        after=after,
    )


def _replace(original: str, pairs: list[tuple[str, str, bool]]) -> str | None:
    """The whole file after applying old→new replacements to it; None when one does not apply (an empty
    `old` applies to an empty file only: Claude Code's Edit creating a file)."""
    text = original
    for old, new, everywhere in pairs:
        if not old and not text:
            text = new
            continue
        if not old or old not in text:
            return None
        text = text.replace(old, new) if everywhere else text.replace(old, new, 1)
    return text


def _patch_hint(patch: Any) -> int | None:
    if isinstance(patch, list) and patch and isinstance(patch[0], dict):
        start = patch[0].get("newStart")
        return start if isinstance(start, int) else None
    return None


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""
