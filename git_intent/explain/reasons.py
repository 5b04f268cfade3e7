"""The reason picker: which prompt asked for an edit and which of the agent's words explain it.

One picker serves blame, why, ask, review, the MCP tools, the web view and the language server (through the
blame answer's evidence). Measured on entireio/cli and entireio/git-sync (bench/reason_picker.py): the request
is the typed prompt that opened the edit's turn, and the reason one of the 3 assistant messages nearest before
the edit. Nothing it picks comes after the edit, and passages are whole sentences or list items
(sessions/prose.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.values import Message, Session
from ..sessions.prose import clip_units, is_confirmation, is_list_item, request_text, units

NEAREST = 3  # assistant messages of the turn the reason is chosen from (as bench/reason_picker.py measures)
PASSAGE_CHARS = 300
INTERJECTIONS = 2  # prompts typed while the agent worked, quoted after the one that opened the turn
SHORT_LEAD = 80  # characters: a unit this short ("Now fix ssh.go:") reads with the one after it
_SUMMARY = "this session is being continued from a previous conversation"
# Spaces within the line only (`[^\S\n]`): a `\s*` after `^` ran over every following blank line from each,
# quadratic in newlines (150,000 of them: 17.7 s).
_LISTED = re.compile(r'^[^\S\n]*-[^\S\n]+"(.+)"[^\S\n]*$', re.MULTILINE)
# Words that give a reason (strong) or name the problem being fixed (weak): a tie-breaker among passages.
_BECAUSE = re.compile(
    r"\b(?:because|since|so that|to avoid|in order to|otherwise|instead of|rather "
    r"than|can(?:no|')t|won't|must not|would (?:break|fail|lose))\b",
    re.IGNORECASE,
)
_PROBLEM = re.compile(
    r"\b(?:the (?:issue|problem|bug|fix|cause)|needs? to|should|must|prevent|ensure|fails?|error|correct "
    r"approach|better)\b",
    re.IGNORECASE,
)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)  # code quoted in a message names every word: not a reason
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
# What names code in a proposal: a `backticked` span, a file name, a snake_case or camelCase word.
_CODE = re.compile(r"`[^`\n]+`|\b\w+\.[A-Za-z]{1,5}\b|\b[a-z]+_\w+|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*")
_COMMON = frozenset(
    """this that with from self return func function const true false none null else elif
    import package string error type class def struct interface let var async await public private static void
    nil int64 int32 bool""".split()
)


@dataclass(frozen=True)
class Reason:
    """An assistant message that explains the edit and the passage of it to quote (a sentence or two that
    names the file, the symbol or the line's words when one does)."""

    message: Message
    passage: str
    names: int  # how many of the file, symbol and line words the message names


@dataclass(frozen=True)
class Picked:
    """What explains the edit in `session.messages[edit_index]`; every message in it comes before the edit.

    `request`: the typed prompt that opened the edit's turn (never a compaction summary, nor a prompt typed
    while the agent worked), or None; when the transcript holds no prompt before the edit but a compaction
    summary that lists the user's messages (Claude Code's "All user messages:"), the summary, with
    `request_passage` the last prompt it lists: the prompt it summarises, quoted from it; `confirmed`: when
    that prompt is a bare confirmation, the assistant message it answered, with the passage naming the code
    (the file, the symbol or the line's words; else its question and the sentence before it); `added`:
    prompts typed while the agent worked on the turn (Claude Code delivers them with a tool result), the
    last `INTERJECTIONS`, in time order; `reasons`: up to 3 of the turn's assistant messages nearest before
    the edit, in time order; `best`: the one of them to quote (the one naming most of the edit's terms,
    else the nearest)."""

    edit_index: int
    request: Message | None
    confirmed: Reason | None
    reasons: tuple[Reason, ...]
    request_passage: str | None = None
    best: Reason | None = None
    added: tuple[Message, ...] = ()


def is_request(message: Message) -> bool:
    """A typed prompt: not a compaction summary pasted in as a user message."""
    return message.is_prompt and not _is_summary(message)


def opens_turn(message: Message) -> bool:
    """A typed prompt that opened a turn: not one typed while the agent worked, which Claude Code delivers in
    the record of a tool result."""
    return is_request(message) and not any(p.kind == "tool_result" for p in message.parts)


def _is_summary(message: Message) -> bool:
    return message.is_summary or message.text.lstrip().lower().startswith(_SUMMARY)


def _listed_prompts(text: str) -> list[str]:
    """The user's messages a Claude Code compaction summary lists ("All user messages:" then `- "…"` rows)."""
    at = text.lower().find("all user messages")
    return _LISTED.findall(text[at:]) if at >= 0 else []


def pick(
    session: Session,
    message_id: str,
    *,
    path: str | None = None,
    content: str | None = None,
    symbol: str | None = None,
) -> Picked | None:
    """The request and reasons for the edit made in `message_id` of `session` (None when the message is not
    in it). `path` (the edited file), `content` (the line's text) and `symbol` (the enclosing function, method
    or class name) rank the reasons and trim a confirmed proposal: the message naming most of them, else the
    nearest."""
    messages = session.messages
    index = next((i for i, m in enumerate(messages) if m.message_id == message_id), None)
    if index is None:
        return None
    opened = next((i for i in range(index, -1, -1) if opens_turn(messages[i])), None)
    request = messages[opened] if opened is not None else None
    terms = _terms(path, content, symbol)
    start = opened + 1 if opened is not None else 0
    turn = messages[start : index + 1]
    added = tuple(m for m in turn[:-1] if is_request(m))[-INTERJECTIONS:]
    spoken = [m for m in turn if m.role == "assistant" and m.text.strip()][-NEAREST:]
    reasons = tuple(_reason(m, terms) for m in spoken)  # time order
    best = max(reversed(reasons), key=lambda r: r.names, default=None)  # ties: the nearest
    passage = None
    if request is None:  # a continued session: the prompt the summary lists last, quoted from the summary
        summary = next((m for m in reversed(messages[:index]) if _is_summary(m)), None)
        listed = _listed_prompts(summary.text) if summary is not None else []
        request, passage = (summary, listed[-1]) if summary is not None and listed else (None, None)
    confirmed = None
    if request is not None and opened is not None and is_confirmation(request_text(request)):
        before = next(
            (m for m in reversed(messages[:opened]) if m.role == "assistant" and m.text.strip()), None
        )
        confirmed = _proposal(before, terms) if before is not None else None
    return Picked(index, request, confirmed, reasons, passage, best, added)


def _terms(path: str | None, content: str | None, symbol: str | None) -> list[tuple[str, int]]:
    """(lower-cased term, weight): the file's name and stem, the symbol, and the line's distinctive words."""
    found: list[tuple[str, int]] = []
    if path:
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        found.append((name.lower(), 2))
    if symbol:
        found.append((symbol.lower(), 3))
    if content:
        words = {w.lower() for w in _WORD.findall(content) if w.lower() not in _COMMON}
        found += [(w, 1) for w in sorted(words, key=lambda w: (-len(w), w))[:6]]  # ties by name: stable
    return found


def _weight(text: str, terms: list[tuple[str, int]]) -> int:
    low = text.lower()
    return sum(weight for term, weight in terms if term in low)


def prose_of(text: str) -> str:
    """`text` without fenced code blocks: the words an agent said, not the code it quoted."""
    return _FENCE.sub(" ", text)


def _reason(message: Message, terms: list[tuple[str, int]]) -> Reason:
    said = prose_of(message.text)
    rows = units(said)
    scored = [
        (_weight(s, terms) + 2 * len(_BECAUSE.findall(s)) + len(_PROBLEM.findall(s)), -n)
        for n, s in enumerate(rows)
        if len(s) >= 12 and " " in s
    ]
    if not scored:
        return Reason(message, clip_units(rows or units(message.text), PASSAGE_CHARS), 0)
    return Reason(message, _passage(rows, -max(scored)[1]), _weight(said, terms))


def _proposal(message: Message, terms: list[tuple[str, int]]) -> Reason:
    """What a confirmation confirmed, trimmed to the part naming the code: the unit naming most of the
    edit's terms (the first of equals), followed by the message's last question when that is another unit
    and both fit ("3. NormalizeAfterLoad one-way migration … Want me to make the comment fix?"); when no
    unit names a term, the last question if it names code (a `backticked` name, a file, a snake_case or
    camelCase word), else the nearest unit before it that does, with it; else the last question and the
    unit before it."""
    rows = units(prose_of(message.text))
    if not rows:
        return Reason(message, clip_units(units(message.text), PASSAGE_CHARS), 0)
    weights = [_weight(s, terms) for s in rows]
    asked = max((n for n, s in enumerate(rows) if s.endswith("?")), default=None)
    last = asked if asked is not None else len(rows) - 1
    if max(weights):
        named = weights.index(max(weights))
    elif asked is not None and _CODE.search(rows[asked]):
        return Reason(message, clip_units([rows[asked]], PASSAGE_CHARS), 0)
    else:
        named = next((n for n in range(last - 1, -1, -1) if _CODE.search(rows[n])), max(0, last - 1))
    passage = _passage(rows, named)
    if asked is not None and asked > named and rows[asked] not in passage:
        joined = f"{passage} {rows[asked]}" if asked == named + 1 else f"{passage} … {rows[asked]}"
        passage = joined if len(joined) <= PASSAGE_CHARS else passage
    return Reason(message, passage, max(weights))


def _passage(rows: list[str], at: int) -> str:
    """Unit `at` of `rows` as a reader can take it, whole and within PASSAGE_CHARS when it fits: a list item
    after the lead-in that opens its list ("…, it means: 1. The session created/modified the file", "Will fix:
    …
    3. Extract the helper" with the items between elided); a lead-in
    (short, "Now fix ssh.go", or ending with ":") with the unit after it."""
    passage = rows[at]
    if is_list_item(passage):
        first = at
        while first > 0 and is_list_item(rows[first - 1]):
            first -= 1
        lead = rows[first - 1] if first > 0 else ""
        if lead.endswith(":") and len(lead) + len(passage) < PASSAGE_CHARS:
            passage = (
                f"{lead} {passage}" if first == at else f"{lead} … {passage}"
            )  # the items between left out
    elif (
        (len(passage) < SHORT_LEAD or passage.endswith(":"))
        and at + 1 < len(rows)
        and len(passage) + len(rows[at + 1]) < PASSAGE_CHARS
    ):
        passage = f"{passage} {rows[at + 1]}"
    return clip_units([passage], PASSAGE_CHARS)
