"""The answer to a why or ask question: prose, checked citations, what was read and what it cost.

Stdlib dataclasses, as blame's answer is (an offline `why` builds no pydantic validator);
`values.to_json` prints them and `git intent schema` describes them through pydantic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..explain.blame import LineAnswer

Mode = Literal["model", "offline"]
DropReason = Literal["unknown_message", "not_read", "quote_mismatch", "malformed"]


@dataclass(kw_only=True)
class Citation:
    """A `[session_id:message_id]` marker of the answer that code verified: the message exists in that
    session, was read during this answer, and `quote` (the quoted span right before the marker in the same
    sentence, or None) occurs in it, whitespace-normalised. Ids are full ids, never prefixes."""

    session_id: str
    message_id: str
    quote: str | None = None
    verified: Literal[True] = True


@dataclass(kw_only=True)
class DroppedCitation:
    """A citation removed from the answer, with the quote it carried. `reason` is a fixed code:
    `unknown_message` (no such message in that session), `not_read` (never shown to the model in this
    answer), `quote_mismatch` (the quote does not occur in the message), `malformed` (not two ids, or an
    ambiguous prefix). `marker` is the citation as written."""

    session_id: str
    message_id: str
    reason: DropReason
    marker: str = ""
    quote: str | None = None


@dataclass(kw_only=True)
class Usage:
    """What the answer cost. `prompt_tokens`/`completion_tokens` come from the provider's replies (0
    offline). `transcript_tokens_read` estimates (characters / 4, the index's estimator) the distinct
    transcript text sent to the model (offline: the quoted evidence); `session_tokens_total` the whole
    text of the sessions consulted. Framing and JSON are not counted."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    transcript_tokens_read: int = 0
    session_tokens_total: int = 0


@dataclass(kw_only=True)
class Limits:
    """The limits the answer ran under: model calls (`intent.maxSteps`) and transcript tokens read
    (`intent.maxTokens`); `reached` names the one that stopped the sub-agent, if any."""

    max_steps: int
    max_tokens: int
    reached: Literal["steps", "tokens"] | None = None


@dataclass(kw_only=True)
class WhyAnswer:
    """`git intent why|ask --json` (docs/json.md). `lines` holds the blame lines consulted, as in
    `blame --json` (the asked lines for `why`); `sessions` the ids of the sessions consulted, best match
    first; `steps` the model calls made (0 offline). `model_error` is one sentence when a configured
    model failed and the answer fell back to offline; `hint` says how to get a model's answer."""

    question: str
    mode: Mode
    model: str | None = None
    answer: str
    citations: list[Citation] = field(default_factory=list)
    dropped_citations: list[DroppedCitation] = field(default_factory=list)
    lines: list[LineAnswer] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    limits: Limits | None = None
    model_error: str | None = None
    hint: str | None = None
