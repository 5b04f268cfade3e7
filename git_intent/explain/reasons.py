"""The reason picker (issue 20): which prompt asked for an edit and which of the agent's words explain it.

One picker serves blame, why, ask, review, the MCP tools, the web view and the language server (through the blame
answer's evidence). Measured on entireio/cli and entireio/git-sync (bench/reason_picker.py): the request is the
last typed prompt before the edit, and the reason one of the 3 assistant messages nearest before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import Message, Session

NEAREST = 3  # assistant messages of the turn the reason is chosen from (issue 20's measure)
PASSAGE_CHARS = 300
CONFIRMATION_CHARS = 60
# A prompt that only confirms what the agent proposed ("yes", "go ahead", "all four"): the answer also quotes
# what it confirmed (issue 20, item 1).
_CONFIRM = re.compile(
    r"^\W*(?:(?:yes|yep|yeah|yup|y|ok(?:ay)?|k|sure|fine|great|perfect|cool|nice|good|correct|right|agreed?|"
    r"approved?|lgtm|go(?: ahead| for it| on)?|do (?:it|that|this|so|both|all(?: of them)?)|proceed|continue|"
    r"please(?: do| proceed| continue)?|sounds? good|makes sense|ship it|all(?: of them| \w+)?|both|"
    r"(?:option |number )?\w{1,2}|let'?s (?:do|go|proceed)(?: (?:it|this|that|with it))?|implement (?:it|that|this)"
    r"|fix (?:it|them|that|all)|thanks?(?: you)?)\b[\s,.!]*)+\W*$", re.IGNORECASE)
_SUMMARY = "this session is being continued from a previous conversation"
_LISTED = re.compile(r'^\s*-\s+"(.+)"\s*$', re.MULTILINE)
# Words that give a reason (strong) or name the problem being fixed (weak): a tie-breaker among passages.
_BECAUSE = re.compile(r"\b(?:because|since|so that|to avoid|in order to|otherwise|instead of|rather than|"
                      r"can(?:no|')t|won't|must not|would (?:break|fail|lose))\b", re.IGNORECASE)
_PROBLEM = re.compile(r"\b(?:the (?:issue|problem|bug|fix|cause)|needs? to|should|must|prevent|ensure|fails?|"
                      r"error|correct approach|better)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?:])\s+(?=[A-Z`*\"'(\[])|\n+")
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)  # code quoted in a message names every word: not a reason
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_COMMON = frozenset("""this that with from self return func function const true false none null else elif
    import package string error type class def struct interface let var async await public private static void
    nil int64 int32 bool""".split())


@dataclass(frozen=True)
class Reason:
    """An assistant message that explains the edit and the passage of it to quote (a sentence or two that names
    the file, the symbol or the line's words when one does)."""

    message: Message
    passage: str
    names: int  # how many of the file, symbol and line words the message names


@dataclass(frozen=True)
class Picked:
    """What explains the edit in `session.messages[edit_index]`.

    `request`: the typed prompt that opened the edit's turn (never a compaction summary), or None; when the
    transcript holds no prompt before the edit but a compaction summary that lists the user's messages (Claude
    Code's "All user messages:"), the summary, with `request_passage` the last prompt it lists: the prompt it
    summarises, quoted from it;
    `confirmed`: when that prompt is a bare confirmation, the assistant message it confirmed, with the passage
    (its question or plan); `reasons`: up to 3 of the turn's assistant messages nearest before the edit, the
    one to quote first, then the others nearest first."""

    edit_index: int
    request: Message | None
    confirmed: Reason | None
    reasons: tuple[Reason, ...]
    request_passage: str | None = None


def is_confirmation(text: str) -> bool:
    """Whether a prompt only confirms ("yes", "go ahead", "all four", "ok, do it"): short and nothing else."""
    text = text.strip()
    return bool(text) and len(text) <= CONFIRMATION_CHARS and bool(_CONFIRM.match(text))


def is_request(message: Message) -> bool:
    """A typed prompt that can open a turn: not a compaction summary pasted in as a user message."""
    return message.is_prompt and not _is_summary(message)


def _is_summary(message: Message) -> bool:
    return message.is_summary or message.text.lstrip().lower().startswith(_SUMMARY)


def _listed_prompts(text: str) -> list[str]:
    """The user's messages a Claude Code compaction summary lists ("All user messages:" then `- "…"` rows)."""
    at = text.lower().find("all user messages")
    return _LISTED.findall(text[at:]) if at >= 0 else []


def pick(session: Session, message_id: str, *, path: str | None = None, content: str | None = None,
         symbol: str | None = None) -> Picked | None:
    """The request and reasons for the edit made in `message_id` of `session` (None when the message is not
    in it). `path` (the edited file), `content` (the line's text) and `symbol` (the enclosing function, method
    or class name) rank the reasons: the message naming most of them, else the nearest."""
    messages = session.messages
    index = next((i for i, m in enumerate(messages) if m.message_id == message_id), None)
    if index is None:
        return None
    opened = next((i for i in range(index, -1, -1) if is_request(messages[i])), None)
    request = messages[opened] if opened is not None else None
    terms = _terms(path, content, symbol)
    start = opened + 1 if opened is not None else 0
    spoken = [m for m in messages[start:index + 1] if m.role == "assistant" and m.text.strip()][-NEAREST:]
    reasons = [_reason(m, terms) for m in reversed(spoken)]  # nearest first
    best = max(range(len(reasons)), key=lambda i: (reasons[i].names, -i), default=None)
    ordered = ([reasons[best]] + reasons[:best] + reasons[best + 1:]) if best is not None else []
    passage = None
    if request is None:  # a continued session: the prompt the summary lists last, quoted from the summary
        summary = next((m for m in reversed(messages[:index]) if _is_summary(m)), None)
        listed = _listed_prompts(summary.text) if summary is not None else []
        request, passage = (summary, listed[-1]) if summary is not None and listed else (None, None)
    confirmed = None
    if request is not None and opened is not None and is_confirmation(request.text):
        before = next((m for m in reversed(messages[:opened]) if m.role == "assistant" and m.text.strip()), None)
        confirmed = Reason(before, _proposal(before.text), 0) if before is not None else None
    return Picked(index, request, confirmed, tuple(ordered), passage)


def split_sentences(text: str) -> list[str]:
    """`text` cut into sentences and lines, each whitespace-collapsed, empty ones left out."""
    return [s for s in (" ".join(p.split()) for p in _SENTENCE.split(text)) if s]


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
    rows = split_sentences(said)
    scored = [(_weight(s, terms) + 2 * len(_BECAUSE.findall(s)) + len(_PROBLEM.findall(s)), -n, s)
              for n, s in enumerate(rows) if len(s) >= 12 and " " in s]
    if not scored:
        return Reason(message, " ".join(rows or split_sentences(message.text))[:PASSAGE_CHARS], 0)
    best = max(scored)
    at = rows.index(best[2])
    passage = best[2]
    if len(passage) < 80 and at + 1 < len(rows):  # a short lead-in ("Now fix ssh.go:") reads with what follows
        passage = f"{passage} {rows[at + 1]}"
    return Reason(message, passage[:PASSAGE_CHARS], _weight(said, terms))


def _proposal(text: str) -> str:
    """What a confirmation confirmed: the message's last question, else its last two sentences."""
    rows = split_sentences(text)
    asked = [s for s in rows if s.endswith("?")]
    return (asked[-1] if asked else " ".join(rows[-2:]))[:PASSAGE_CHARS]
