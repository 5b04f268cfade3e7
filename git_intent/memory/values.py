"""The observation log's records and the answers built from it (pydantic: their JSON and schemas).

An observation's `citations` are `SESSION_ID:MESSAGE_ID` strings checked against the transcripts before
they enter the log (`citing.py`); its `observed_at` is the time of the newest message it cites, so the
log orders the same whichever machine built it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

Kind = Literal["decision", "constraint", "convention", "rejected", "open_question", "fact"]
KINDS: tuple[Kind, ...] = ("decision", "constraint", "convention", "rejected", "open_question", "fact")
Source = Literal["offline", "model", "reflection", "shared"]
CITATION = r"^[A-Za-z0-9][A-Za-z0-9._-]*:[A-Za-z0-9][A-Za-z0-9._-]*$"


class Observation(BaseModel):
    """One line of the log (`<git common dir>/intent/memory/observations.jsonl`).

    `kind`: decision | constraint | convention | rejected (an approach the user turned down) |
    open_question | fact. `text`: the observation, a sentence or two, quoted or close to the words cited.
    `paths`: repository-relative files it concerns (empty: the whole repository). `symbols`: code names it
    mentions. `citations`: `session:message` ids, verified. `observed_at`: the newest cited message's time
    (UTC). `supersedes`: the id of an earlier decision or constraint this one reverses. `compacts`: the ids
    of the observations a reflection pass folded into this one (level 1). `source`: who wrote it."""

    id: str = Field(description="16 hex digits: a digest of kind, text and citations.")
    kind: Kind
    text: str
    paths: list[str] = Field(default_factory=list)
    symbols: list[str] = Field(default_factory=list)
    citations: list[str] = Field(default_factory=list, json_schema_extra={"items": {"pattern": CITATION}})
    observed_at: datetime | None = None
    supersedes: str | None = None
    compacts: list[str] = Field(default_factory=list)
    level: int = Field(default=0, ge=0, le=1, description="0 observed, 1 written by reflection.")
    source: Source = "offline"


class Remembered(Observation):
    """An observation as a query shows it: `superseded_by` the id of the observation that reversed it
    (then it no longer holds, and is shown as such)."""

    superseded_by: str | None = None


class StateItem(BaseModel):
    """One entry of the project state: the observation's id, text, paths and citations."""

    id: str
    text: str
    paths: list[str] = Field(default_factory=list)
    citations: list[str] = Field(default_factory=list)
    observed_at: datetime | None = None
    superseded_by: str | None = None


class ProjectState(BaseModel):
    """`git intent memory --state --json`: the typed snapshot derived from the log at reflection, never
    edited by hand. `decisions` are the active ones; `superseded` lists reversed decisions and constraints,
    each with the id of the observation that reversed it."""

    derived_at: datetime
    observations: int = Field(description="Lines in the log when the state was derived.")
    conventions: list[StateItem] = Field(default_factory=list)
    decisions: list[StateItem] = Field(default_factory=list)
    constraints: list[StateItem] = Field(default_factory=list)
    rejected: list[StateItem] = Field(default_factory=list)
    open_questions: list[StateItem] = Field(default_factory=list)
    facts: list[StateItem] = Field(default_factory=list)
    superseded: list[StateItem] = Field(default_factory=list)


class Request(BaseModel):
    """The prompt that asked for lines (blame's evidence): session, message, its words and the lines."""

    session_id: str
    message_id: str
    text: str
    lines: list[int]


class MemoryAnswer(BaseModel):
    """`git intent memory [PATH[:LINES]] --json` (and MCP `recall`, `intent_for`): what applies, newest
    first, within `budget` tokens (characters / 4). `path` and `lines` echo the question (None: the whole
    repository or file); `query` a recall question; `requests` the prompts that asked for exactly those
    lines (with LINES only); `sessions` the sessions blame credits them to; `left_out` how many applicable
    observations the budget left out."""

    path: str | None = None
    lines: list[int] | None = None
    query: str | None = None
    budget: int
    requests: list[Request] = Field(default_factory=list)
    sessions: list[str] = Field(default_factory=list)
    observations: list[Remembered] = Field(default_factory=list)
    left_out: int = 0


class MemoryUpdate(BaseModel):
    """What one update of the log did: sessions read, observations appended (by source), forged citations
    dropped, model calls and tokens spent, whether reflection ran, and why the model did not observe."""

    sessions: int = 0
    appended: int = 0
    offline: int = 0
    model: int = 0
    dropped_citations: int = 0
    model_calls: int = 0
    model_tokens: int = 0
    model_skipped: str | None = None
    reflected: bool = False
    log_lines: int = 0
