"""Offline observation: the user's explicit constraints, decisions, conventions, corrections of the agent,
open questions and facts, read from the prompts a person typed, with their citations.

Always runs, with or without a model. Only typed prompts are read (`explain.reasons.is_request`: never a
compaction summary, a tool result or the agent's own words), fenced code and pasted blocks left out; each
sentence or list item (`sessions.prose.units`) is classified by the words that state a rule ("never",
"always", "must", "don't"), a choice ("let's use", "go with", "switch to"), a correction ("no,", "that's
wrong", "revert") or a question about the design. A correction cites the prompt and the agent message it
turned down. Paths are the files the prompt names and the files the agent edited in the turn it opened.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..core.values import Message, Session
from ..explain.reasons import is_request, opens_turn, prose_of
from ..sessions.prose import clip_units, is_confirmation, request_text, units
from .log import observation_id
from .values import Kind, Observation

MAX_UNIT_CHARS = 400  # a longer "sentence" is pasted output or a log, not something the user stated
MAX_PROMPT_CHARS = 6000  # a longer prompt is a pasted document: its rules are not the user's own words
TEXT_CHARS = 300

_I = re.IGNORECASE
_CORRECTION = re.compile(
    r"^(?:no(?:pe)?\b[,.!:]?|wrong\b|stop\b|undo\b|revert\b|that(?:'s| is) (?:not|wrong)\b|this is wrong\b|"
    r"not like that\b|i said\b|don'?t do that\b|why did you\b)",
    _I,
)
_DECISION = re.compile(
    r"\b(?:let'?s (?:go with|use|keep|switch|make|stick)|we(?:'ll| will) (?:use|go|keep|do|switch)|"
    r"(?:i|we)(?:'ve| have)? decided|go with|(?:switch|migrate)(?:ed)?(?: \S+){0,5} to|"
    r"(?:use|keep) \S+(?: \S+){0,3} instead of|"
    r"instead of .{1,60}, use|from now on|the plan is|change of plan|we(?:'re| are) going (?:to|with))\b",
    _I,
)
_CONSTRAINT_LEAD = re.compile(
    r"^(?:please\s+)?(?:never|always|don'?t|do not|must|must not|avoid|make sure|ensure|no more)\b", _I
)
# Mid-sentence, a rule needs a modal that binds ("must not", "should always") or a subject that takes one
# ("we never", "it must"): "each iteration fetches a reader but never defers" describes code, it is no rule.
_CONSTRAINT = re.compile(
    r"\b(?:must not|mustn'?t|must never|must always|should never|should always|shall not|under no "
    r"circumstances)\b|\b(?:we|you|it|they)(?: should| shall| must)? (?:never|always)\b|\b(?:we|you|it|they) "
    r"must\b",
    _I,
)
# What a user tells the agent about this session's work, not about the code: "Do not make changes."
_TRANSIENT = re.compile(
    r"^(?:please\s+)?(?:do not|don'?t|never) (?:make|edit|change|modify|write|touch|commit|push|run|create)"
    r"(?: any)?(?: (?:changes|files|code|anything|edits))?(?: yet| now| for now)?[.!]?$",
    _I,
)
_CONVENTION = re.compile(
    r"\b(?:convention|naming|name (?:it|them|the)|style|prefix|suffix|camelCase|snake_case|kebab-case|"
    r"always use|prefer|we use|format(?:ted)? (?:as|with))\b",
    _I,
)
# Without a rule word, a convention is stated as one ("use tabs", "we prefer …"), not described ("it still
# refers to the old function name, with a date prefix").
_CONVENTION_LEAD = re.compile(
    r"^(?:please\s+)?(?:use|prefer|name|follow|keep|stick to)\b|\bwe (?:use|prefer|name|follow)\b", _I
)
# What names code in a proposal: a `backticked` span, a file name, a snake_case or camelCase word.
_NAMES_CODE = re.compile(
    r"`[^`\n]+`|\b\w+\.[A-Za-z]{1,5}\b|\b[a-z]+_\w+|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*"
)
_QUESTION = re.compile(
    r"^(?:should we|do we (?:need|want)|what if|is it (?:worth|better|ok)|how should we|which .+ "
    r"should)\b",
    _I,
)
_FACT = re.compile(r"^(?:note that|fyi\b|keep in mind|remember that|bear in mind|for context)", _I)
_NOT_A_RULE = re.compile(r"^(?:i|it|that|this) (?:always|never)\b|^never ?mind\b|\?$", _I)
_PROPOSAL = re.compile(r"\b(?:instead|or|option|approach|use|switch)\b", _I)
_FILE = re.compile(r"(?<![\w/.-])([\w./-]*\w\.[A-Za-z][A-Za-z0-9]{0,5})\b")
_SYMBOL = re.compile(
    r"`([A-Za-z_][\w.]*)(?:\(\))?`|\b([a-z]+_[a-z_0-9]+|[a-z]+[A-Z]\w+|[A-Z][a-z]+[A-Z]\w+)\b"
)

PathOf = Callable[[str, "str | None"], "str | None"]


@dataclass(frozen=True)
class Found:
    """An observation before it is checked: its kind, text, the messages it cites (in time order) and
    what it concerns."""

    kind: Kind
    text: str
    cited: tuple[Message, ...]
    paths: tuple[str, ...]
    symbols: tuple[str, ...]


def classify(unit: str) -> Kind | None:
    """The kind of observation a sentence of a prompt states, or None when it states none."""
    if _QUESTION.search(unit) and unit.endswith("?"):
        return "open_question"
    if _FACT.search(unit):
        return "fact"
    if _DECISION.search(unit):
        return "decision"
    if _NOT_A_RULE.search(unit) or _TRANSIENT.search(unit) or (unit[:1] in "-*" and "**" in unit):
        return None
    if _CONSTRAINT_LEAD.search(unit) or _CONSTRAINT.search(unit):
        return "convention" if _CONVENTION.search(unit) else "constraint"
    if _CONVENTION.search(unit) and _CONVENTION_LEAD.search(unit):
        return "convention"
    return None


def extract(session: Session, path_of: PathOf, files: frozenset[str]) -> list[Observation]:
    """The offline observations of `session`, in time order. `path_of(recorded, cwd)` maps a path the
    transcript recorded to a repository path (None: outside it); `files` are the repository's files, to
    find the ones a prompt names."""
    found: list[Found] = []
    messages = session.messages
    for index, message in enumerate(messages):
        if not is_request(message):
            continue
        said = request_text(message)
        if len(said) > MAX_PROMPT_CHARS:
            continue
        edited = _turn_files(session, index, path_of)
        before = _previous_assistant(messages, index)
        if is_confirmation(said):
            if before is not None and opens_turn(message):
                found += _confirmed(before, message, edited)
            continue
        rows = [u for u in units(prose_of(said)) if len(u) <= MAX_UNIT_CHARS and " " in u]
        if rows and before is not None and _CORRECTION.search(rows[0]) and not _DECISION.search(rows[0]):
            text = clip_units(rows[:2], TEXT_CHARS)
            found.append(_found("rejected", text, (before, message), edited, files))
            rows = rows[2:]
        for unit in rows:
            kind = classify(unit)
            if kind is not None:
                found.append(_found(kind, clip_units([unit], TEXT_CHARS), (message,), edited, files))
    return [_observation(f, session.session_id) for f in found]


def _confirmed(before: Message, message: Message, edited: tuple[str, ...]) -> list[Found]:
    """A bare "yes" to a proposal that chose between ways and names the code (a question with "instead",
    "or", "use", "option" and a `name`, a file or an identifier): a decision in the agent's words, citing
    the proposal and the confirmation. ("Want me to run the tests?" chose nothing worth keeping.)"""
    rows = units(prose_of(before.text))
    asked = [
        u
        for u in rows
        if u.endswith("?") and _PROPOSAL.search(u) and _NAMES_CODE.search(u) and len(u) <= MAX_UNIT_CHARS
    ]
    if not asked:
        return []
    text = "Confirmed: " + clip_units([asked[-1]], TEXT_CHARS)
    return [Found("decision", text, (before, message), edited, _symbols(text))]


def _found(
    kind: Kind, text: str, cited: tuple[Message, ...], edited: tuple[str, ...], files: frozenset[str]
) -> Found:
    named = _named_files(text, files)
    return Found(kind, text, cited, tuple(dict.fromkeys([*named, *edited])), _symbols(text))


def _observation(found: Found, session_id: str) -> Observation:
    citations = [f"{session_id}:{m.message_id}" for m in found.cited]
    stamps = [m.timestamp for m in found.cited if m.timestamp is not None]
    return Observation(
        id=observation_id(found.kind, found.text, citations),
        kind=found.kind,
        text=found.text,
        paths=sorted(found.paths),
        symbols=list(found.symbols),
        citations=citations,
        observed_at=max(stamps) if stamps else None,
        source="offline",
    )


def _previous_assistant(messages: list[Message], index: int) -> Message | None:
    return next((m for m in reversed(messages[:index]) if m.role == "assistant" and m.text.strip()), None)


def _turn_files(session: Session, index: int, path_of: PathOf) -> tuple[str, ...]:
    """Repository paths the agent edited between this prompt and the next one that opens a turn."""
    messages = session.messages
    end = next((i for i in range(index + 1, len(messages)) if opens_turn(messages[i])), len(messages))
    ids = {m.message_id for m in messages[index:end]}
    paths = [path_of(e.path, session.cwd) for e in session.edits if e.message_id in ids]
    return tuple(dict.fromkeys(p for p in paths if p))


def _named_files(text: str, files: frozenset[str]) -> list[str]:
    """Repository files a sentence names: a path ending one of them, or a file name only one file has."""
    named: list[str] = []
    for match in _FILE.findall(text):
        mention = match.strip("./")
        hits = [f for f in files if f == mention or f.endswith("/" + mention)]
        if len(hits) == 1:
            named.append(hits[0])
    return named


def _symbols(text: str) -> tuple[str, ...]:
    found = [a or b for a, b in _SYMBOL.findall(text)]
    return tuple(dict.fromkeys(s for s in found if not _FILE.fullmatch(s)))[:8]
