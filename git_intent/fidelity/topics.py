"""Splitting a session into topics, with their summaries and key facts, and one-line message summaries.

Offline and deterministic: the same session always gives the same topics, with no model. A
later model pass may improve labels and summaries; what is here must stand on its own.
"""

from __future__ import annotations

import difflib
import json
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from ..core import linear
from ..core.values import FORBID, Edit, Message, Part, Session
from ..sessions.prose import counted, estimate_tokens, is_confirmation, request_text, split_sentences

# rapidfuzz token_sort_ratio of a prompt against the earlier requests, measured on the corpus's 62 prompts
# that follow another in their session: prompts re-sent or rephrased (Aider users re-send after /clear or
# /undo) score 70-100, other requests at most 63 (the Codex session's "Review commit …" prompts 53-61).
SIMILAR_REQUEST = 70
SHORT_FOLLOW_UP = 80  # characters: a prompt this short continues the topic unless the files shift
FOLLOW_UP = 200  # characters: up to this long, a prompt with a follow-up cue continues the topic
MIN_SPLIT_MESSAGES = 20  # a long turn is split at a shift in the files touched only after this many messages
MAX_DECISIONS = 3  # assistant decisions kept per topic

# RE2 (`linear`): under `re` each unclosed quote scanned to the end of its line, quadratic in quotes ("“a" *
# 5000). Only whether a sentence holds one is read, so a character before and after stands for a lookaround or
# a Unicode `\b`.
_EDGE = rf"(?:^|[^{linear.WORD}])", rf"(?:[^{linear.WORD}]|$)"  # not after, not before a word character
_FACT = linear.compile(
    rf"(?i)\p{{Nd}}|`[^`\n]+`|\"[^\"\n]+\"|“[^”\n]+”|{_EDGE[0]}'[^'\n]+'{_EDGE[1]}"
    rf"|{_EDGE[0]}(?:must|always|never|don'?t|don’t|do not){_EDGE[1]}"
)
_DECISION = re.compile(
    r"\b(?:decided|decision|chose|choosing|opted|instead of|rather than|going "
    r"with|keeping|trade-?off|won't|will not)\b",
    re.IGNORECASE,
)
_CUE = re.compile(
    r"^(?:also|and|but|now|then|instead|no|not|nope|i mean|actually|still|what about|how "
    r"about|same|only|just|don'?t|do not)\b",
    re.IGNORECASE,
)
_BACK_REFERENCE = re.compile(r"\b(?:also|too|those|these|this|that|it|them)\b", re.IGNORECASE)
BACK_REFERENCE = 120  # characters: up to this long, "also", "too", "those", "it"… refer back to the topic
_RUNNER_HEAD = ("Chunk ID: ", "Wall time: ", "Original token count: ", "Command: ", "Directory: ")
_RUNNER_TAIL = re.compile(r"^(?:Error: \(none\)|Signal: .*|Background PIDs: .*|Process Group PGID: .*)$")
_EXIT = re.compile(r"^(?:Process exited with code|Exit Code:) (-?\d+)$")
_RUNNING = re.compile(r"^Process running with session ID (\d+)$")
_KEY_ARGS = (
    "file_path",
    "path",
    "cmd",
    "command",
    "pattern",
    "query",
    "search_term",
    "url",
    "description",
    "subagent_type",
    "target",
    "targets",
    "session_id",
    "explanation",
)


@dataclass(frozen=True, kw_only=True)
class KeyFact:
    """A sentence worth keeping verbatim: a fact or constraint the user stated, or a decision the
    assistant stated, with the message it came from."""

    __pydantic_config__ = FORBID

    text: str
    message_id: str
    source: Literal["user", "assistant"]


@dataclass(frozen=True, kw_only=True)
class Topic:
    """Consecutive messages of a session about one intent.

    `topic_id` is "t1", "t2", … in session order (stable for a given transcript); `files` are the paths
    edited in the topic, relative to the session's cwd when under it; `token_estimate` is the size of its
    messages in tokens (characters / 4); `first_at`/`last_at` are None when no message has a timestamp.
    `source` is "offline" for the segmentation here, "model" or "agent" for topics drawn from annotations.
    """

    __pydantic_config__ = FORBID

    topic_id: str
    label: str
    summary: str
    placeholder: str
    key_facts: tuple[KeyFact, ...] = ()
    message_ids: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    token_estimate: int = 0
    first_at: datetime | None = None
    last_at: datetime | None = None
    # Drawn from annotations (`fidelity.annotations.annotated_topics`): who wrote them, the key facts kept
    # verbatim at every level, and per turn its first assistant message, its summary and its messages.
    source: Literal["offline", "model", "agent"] = "offline"
    facts: tuple[str, ...] = ()
    turn_summaries: tuple[tuple[str, str, tuple[str, ...]], ...] = ()


def message_tokens(message: Message) -> int:
    """Estimated tokens of every part of a message (text, reasoning, tool arguments and results)."""
    return estimate_tokens("".join(p.text for p in message.parts))


def fact_sentences(text: str) -> list[str]:
    """Sentences stating a fact or constraint: carrying a number, a quoted or backticked name, or "must",
    "always", "never", "don't" (what bench/context_reduction.py measures)."""
    return [s for s in split_sentences(text) if _FACT.search(s)]


def clip(text: str, width: int) -> str:
    """`text` on one line (whitespace collapsed), cut at a word boundary to at most `width` characters."""
    line = " ".join(text.split())
    if len(line) <= width:
        return line
    cut = line[: width - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > width // 2 else cut).rstrip(" ,;:") + "…"


def lead(text: str, width: int = 160, least: int = 40) -> str:
    """The first sentence of `text` (with the next ones while shorter than `least`), clipped to `width`."""
    out = ""
    for sentence in split_sentences(text):
        if out and sentence.endswith(":") or sentence.startswith("```"):  # a list, heading or code follows
            break
        out = f"{out} {sentence}".strip()
        if len(out) >= least:
            break
    return clip(out, width)


def display_path(session: Session, path: str) -> str:
    """`path` relative to the session's cwd when it lies under one of its cwds, else as recorded."""
    path = path.replace("\\", "/")
    for cwd in sorted(
        {*(session.cwds or []), *([session.cwd] if session.cwd else [])}, key=len, reverse=True
    ):
        root = cwd.replace("\\", "/").rstrip("/") + "/"
        if path.startswith(root):
            return path[len(root) :]
    return path


def edit_line_counts(edit: Edit) -> tuple[int, int]:
    """Lines an edit added and removed: a line diff of its old and new text (Claude Code `Edit`, Codex
    hunks), or the lines it wrote when the tool reports no old text."""
    old = (edit.old_text or "").splitlines()
    new = edit.new_text.splitlines()
    if edit.kind == "delete":
        return 0, len(old)
    if edit.old_text is None:
        return len(edit.added) or len(new), 0
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed


def tool_call_line(part: Part, width: int = 100, root: str | None = None) -> str:
    """A tool call as `tool key-argument`: the path, command, pattern or URL it acted on; paths under
    `root` (the session's cwd) are shown relative to it."""
    tool = part.tool or "tool"
    prefix = root.rstrip("/") + "/" if root else None
    try:
        args = json.loads(part.text)
    except ValueError:
        args = None
    if isinstance(args, dict):
        for key in _KEY_ARGS:
            value = args.get(key)
            if isinstance(value, list):
                value = " ".join(str(v) for v in value)
            if value not in (None, ""):
                return clip(f"{tool} {_relative(str(value), prefix)}", width)
        return tool
    paths = re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", part.text, re.MULTILINE)
    first = paths[0] if paths else (part.text.strip().splitlines() or [""])[0]
    more = f" (+{len(paths) - 1} files)" if len(paths) > 1 else ""
    return clip(f"{tool} {_relative(first, prefix)}{more}", width)


def _relative(text: str, prefix: str | None) -> str:
    return text.replace(prefix, "") if prefix else text


def result_body(text: str) -> tuple[str, str | None]:
    """A tool result without its runner's framing, and the status that framing reported ("exit 0",
    "running"; None when there is none). Framings: Codex `exec_command` (a `Chunk ID:`… header ending
    in `Output:`), Codex `apply_patch`/`shell` JSON (`{"output": …, "metadata": {"exit_code": …}}`),
    Gemini CLI `run_shell_command` (`Command:`, `Directory:`, `Output: …`, then `Exit Code:`…)."""
    if text.startswith('{"output"'):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("output"), str):
            meta = data.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            return data["output"].strip("\n"), f"exit {code}" if isinstance(code, int) else None
    if not text.startswith(("Chunk ID: ", "Command: ")):
        return text, None
    lines, status, head = text.split("\n"), None, 0
    while head < min(len(lines), 8):
        line = lines[head]
        code, running = _EXIT.match(line), _RUNNING.match(line)
        if code or running:
            status = f"exit {code.group(1)}" if code else "running"
        elif line == "Output:":
            head += 1
            break
        elif line.startswith("Output: "):
            lines[head] = line[len("Output: ") :]
            break
        elif not line.startswith(_RUNNER_HEAD):
            break
        head += 1
    tail = len(lines)
    while tail > head and (_RUNNER_TAIL.match(lines[tail - 1]) or _EXIT.match(lines[tail - 1])):
        code = _EXIT.match(lines[tail - 1])
        status = f"exit {code.group(1)}" if code else status
        tail -= 1
    body = "\n".join(lines[head:tail]).strip("\n")
    return ("" if body == "(empty)" else body), status


def summarize_result(part: Part, width: int = 100) -> str:
    """A tool result as its size, exit code or error, and first non-blank line."""
    body, code = result_body(part.text)
    first = next((line for line in body.splitlines() if line.strip()), "")
    status = "error, " if part.is_error else f"{code}, " if code is not None else ""
    return clip(f"{status}{len(part.text):,} chars: {first}" if first else f"{status}empty", width)


def summarize_message(message: Message, width: int = 120, root: str | None = None) -> str:
    """One line for a message: the first sentence of its text, `tool key-argument` for a tool call,
    size and first line for a tool result; a compaction summary is named, never summarized again.
    Paths under `root` (the session's cwd) are shown relative to it."""
    if message.is_summary:
        return f"compaction summary ({len(message.text):,} chars)"
    pieces: list[str] = []
    texts = [p.text for p in message.parts if p.kind == "text" and p.text.strip()]
    if texts:
        pieces.append(lead(request_text(message) if message.is_prompt else texts[0], width))
    elif any(p.kind == "reasoning" and p.text.strip() for p in message.parts):
        pieces.append("(thinking) " + lead(message.text, width))
    pieces += [tool_call_line(p, root=root) for p in message.parts if p.kind == "tool_call"]
    pieces += ["→ " + summarize_result(p) for p in message.parts if p.kind == "tool_result"]
    return clip("; ".join(pieces), width) if pieces else "(empty)"


def segment_topics(session: Session) -> list[Topic]:
    """The topics of a session, in order; every message belongs to exactly one.

    A prompt starts a new topic unless it acknowledges ("yes, do it"), repeats or rephrases a request of
    the current topic (rapidfuzz token_sort_ratio >= 70), or is a short follow-up whose turn keeps to the
    directories the topic already edits. A long turn (>= 20 messages in the topic) is also split where
    its edits move to directories the topic has not touched, at the assistant's first words after the
    topic's last edit. Messages before the first prompt join the first topic.
    """
    messages = session.messages
    edited: dict[str, list[str]] = {}
    for edit in session.edits:
        edited.setdefault(edit.message_id, []).append(display_path(session, edit.path))
    groups: list[list[int]] = []
    current: list[int] = []
    requests: list[str] = []
    dirs: set[str] = set()
    last_edit = -1
    for index, message in enumerate(messages):
        if (
            message.is_prompt
            and current
            and (requests or groups)
            and _starts_topic(message, requests, dirs, _turn_dirs(messages, index, edited))
        ):
            groups.append(current)
            current, requests, dirs, last_edit = [], [], set(), -1
        elif message.message_id in edited and current and dirs and len(current) >= MIN_SPLIT_MESSAGES:
            new_dirs = {posixpath.dirname(p) for p in edited[message.message_id]}
            if not new_dirs & dirs:
                cut = next(
                    (
                        i
                        for i in current
                        if i > last_edit
                        and messages[i].role == "assistant"
                        and any(p.kind == "text" for p in messages[i].parts)
                    ),
                    index,
                )
                groups.append([i for i in current if i < cut])
                current, requests, dirs = [i for i in current if i >= cut], [], set()
        current.append(index)
        if message.is_prompt and not is_confirmation(message.text):
            requests.append(request_text(message))
        if message.message_id in edited:
            dirs |= {posixpath.dirname(p) for p in edited[message.message_id]}
            last_edit = index
    if current:
        groups.append(current)
    return [
        _topic(session, f"t{n}", [messages[i] for i in group], n == 1) for n, group in enumerate(groups, 1)
    ]


def _turn_dirs(messages: list[Message], start: int, edited: dict[str, list[str]]) -> set[str]:
    """Directories edited from the prompt at `start` up to the next prompt."""
    out: set[str] = set()
    for message in messages[start + 1 :]:
        if message.is_prompt:
            break
        out |= {posixpath.dirname(p) for p in edited.get(message.message_id, ())}
    return out


def _starts_topic(prompt: Message, requests: list[str], dirs: set[str], turn_dirs: set[str]) -> bool:
    text = request_text(prompt)
    if is_confirmation(text):
        return False
    from rapidfuzz import fuzz  # here, not at import: offline `why` uses this module and never this

    if any(fuzz.token_sort_ratio(text[:600].lower(), r[:600].lower()) >= SIMILAR_REQUEST for r in requests):
        return False
    shifted = bool(dirs and turn_dirs and not dirs & turn_dirs)
    follow_up = (
        len(text) <= SHORT_FOLLOW_UP
        or (len(text) <= BACK_REFERENCE and bool(_BACK_REFERENCE.search(text)))
        or (len(text) <= FOLLOW_UP and (bool(_CUE.match(text)) or bool(dirs & turn_dirs)))
    )
    return shifted or not follow_up


def _topic(session: Session, topic_id: str, messages: list[Message], first: bool) -> Topic:
    ids = {m.message_id for m in messages}
    edits = [e for e in session.edits if e.message_id in ids]
    files = list(dict.fromkeys(display_path(session, e.path) for e in edits))
    prompts = [m for m in messages if m.is_prompt and not is_confirmation(m.text)]
    said = next(
        (
            p.text
            for m in messages
            if m.role == "assistant"
            for p in m.parts
            if p.kind == "text" and len(p.text.strip()) > 20
        ),
        None,
    )
    opening = request_text(prompts[0]) if prompts else f"continued: {said}" if said else None
    label = (
        clip(lead(opening, 200), 60)
        if opening
        else clip(summarize_message(messages[0], root=session.cwd), 60)
    )
    stamps = [m.timestamp for m in messages if m.timestamp is not None]
    head = " ".join(label.rstrip("…").split()[:6]) or "untitled work"
    return Topic(
        topic_id=topic_id,
        label=label,
        summary=_summary(session, messages, prompts, edits, first),
        placeholder=f"{head} ({counted(len(messages), 'message')}, {counted(len(edits), 'edit')})",
        key_facts=tuple(_key_facts(messages)),
        message_ids=tuple(m.message_id for m in messages),
        files=tuple(files),
        token_estimate=sum(message_tokens(m) for m in messages),
        first_at=min(stamps) if stamps else None,
        last_at=max(stamps) if stamps else None,
    )


def _summary(
    session: Session, messages: list[Message], prompts: list[Message], edits: list[Edit], first: bool
) -> str:
    out = [
        f"Asked: {lead(request_text(prompts[0]), 200)}"
        if prompts
        else "No request from the user."
        if first
        else "Continued the previous request (no new prompt)."
    ]
    if len(prompts) > 1:
        out.append(f"Then {len(prompts) - 1} follow-up(s), the last: {lead(request_text(prompts[-1]), 120)}")
    out.append(f"Changed {changed_files(session, edits)}." if edits else "No files changed.")
    answer = next(
        (
            p.text
            for m in reversed(messages)
            if m.role == "assistant"
            for p in reversed(m.parts)
            if p.kind == "text" and len(p.text.strip()) > 20
        ),
        "",
    )
    if answer:
        out.append(f"Outcome: {lead(answer, 240, 80)}")
    return " ".join(s if s.endswith((".", "?", "!", "…")) else s + "." for s in out)


def changed_files(session: Session, edits: Iterable[Edit], limit: int = 6) -> str:
    """Edited files with added/removed line counts, as `a.go (+6 −2), b.go (+1 −0)`, at most `limit`."""
    counts: dict[str, list[int]] = {}
    for edit in edits:
        added, removed = edit_line_counts(edit)
        entry = counts.setdefault(display_path(session, edit.path), [0, 0])
        entry[0] += added
        entry[1] += removed
    shown = [f"{path} (+{a} −{r})" for path, (a, r) in list(counts.items())[:limit]]
    more = f" and {len(counts) - limit} more" if len(counts) > limit else ""
    return ", ".join(shown) + more


def _key_facts(messages: list[Message]) -> list[KeyFact]:
    facts: list[KeyFact] = []
    seen: set[str] = set()
    decisions = 0
    for message in messages:
        if message.is_prompt:
            for sentence in fact_sentences(message.text):
                if sentence not in seen:
                    seen.add(sentence)
                    facts.append(KeyFact(text=sentence, message_id=message.message_id, source="user"))
        elif message.role == "assistant" and decisions < MAX_DECISIONS:
            for part in message.parts:
                for sentence in split_sentences(part.text) if part.kind == "text" else ():
                    if decisions < MAX_DECISIONS and len(sentence) <= 300 and _DECISION.search(sentence):
                        decisions += 1
                        facts.append(
                            KeyFact(text=sentence, message_id=message.message_id, source="assistant")
                        )
    return facts
