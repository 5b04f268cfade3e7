"""The observation log's records and the answers built from it.

An observation's `citations` are `SESSION_ID:MESSAGE_ID` strings checked against the transcripts before
they enter the log (`citing.py`); its `observed_at` is the time of the newest message it cites, so the
log orders the same whichever machine built it. Stdlib dataclasses, as `core.values` keeps its types
(building pydantic models cost `memory PATH` ~400 ms of start-up on a loaded machine); pydantic validates
what others wrote (`core.values.validate`) and describes the JSON (`git intent schema memory`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

Kind = Literal["decision", "constraint", "convention", "rejected", "open_question", "fact"]
KINDS: tuple[Kind, ...] = ("decision", "constraint", "convention", "rejected", "open_question", "fact")
Source = Literal["offline", "model", "reflection", "shared"]


@dataclass(kw_only=True)
class Observation:
    """One line of the log (`<git common dir>/intent/memory/observations.jsonl`).

    `kind`: decision | constraint | convention | rejected (an approach the user turned down) |
    open_question | fact. `text`: the observation, a sentence or two, quoted or close to the words cited.
    `paths`: repository-relative files it concerns (empty: the whole repository). `symbols`: code names it
    mentions. `citations`: `session:message` ids, verified. `observed_at`: the newest cited message's time
    (UTC). `supersedes`: the id of an earlier decision or constraint this one reverses. `compacts`: the ids
    of the observations a reflection pass folded into this one (level 1). `source`: who wrote it."""

    id: str = field(metadata={"description": "16 hex digits: a digest of kind, text and citations."})
    kind: Kind
    text: str
    paths: list[str] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    citations: list[str] = field(
        default_factory=list, metadata={"description": "SESSION_ID:MESSAGE_ID of each message cited."}
    )
    observed_at: datetime | None = None
    supersedes: str | None = None
    compacts: list[str] = field(default_factory=list)
    level: int = field(default=0, metadata={"ge": 0, "le": 1, "description": "0 observed, 1 by reflection."})
    source: Source = "offline"


@dataclass(kw_only=True)
class Remembered(Observation):
    """An observation as a query shows it: `superseded_by` the id of the observation that reversed it
    (then it no longer holds, and is shown as such)."""

    superseded_by: str | None = None


@dataclass(kw_only=True)
class StateItem:
    """One entry of the project state: the observation's id, text, paths and citations, and for a
    reversed one the id of the observation that reversed it."""

    id: str
    text: str
    paths: list[str] = field(default_factory=list)
    citations: list[str] = field(default_factory=list)
    observed_at: datetime | None = None
    superseded_by: str | None = None


@dataclass(kw_only=True)
class ProjectState:
    """`git intent memory --state --json`: the typed snapshot derived from the log at each update (with
    reflection), never edited by hand. `decisions` are the active ones; `superseded` lists reversed
    decisions and constraints, each with the id of the observation that reversed it."""

    derived_at: datetime
    observations: int = field(metadata={"description": "Lines in the log when the state was derived."})
    conventions: list[StateItem] = field(default_factory=list)
    decisions: list[StateItem] = field(default_factory=list)
    constraints: list[StateItem] = field(default_factory=list)
    rejected: list[StateItem] = field(default_factory=list)
    open_questions: list[StateItem] = field(default_factory=list)
    facts: list[StateItem] = field(default_factory=list)
    superseded: list[StateItem] = field(default_factory=list)


@dataclass(kw_only=True)
class Request:
    """The prompt that asked for lines (blame's evidence): session, message, its words and the lines."""

    session_id: str
    message_id: str
    text: str
    lines: list[int] = field(default_factory=list)


@dataclass(kw_only=True)
class MemoryAnswer:
    """`git intent memory [PATH[:LINES]] --json` (and MCP `recall`, `intent_for`): what applies, newest
    first, within `budget` tokens (characters / 4). `path` and `lines` echo the question (None: the whole
    repository or file); `query` a recall question; `requests` the prompts that asked for exactly those
    lines (with LINES only); `sessions` the sessions blame credits them to; `left_out` how many applicable
    observations the budget left out."""

    budget: int
    path: str | None = None
    lines: list[int] | None = None
    query: str | None = None
    requests: list[Request] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    observations: list[Remembered] = field(default_factory=list)
    left_out: int = 0


@dataclass(kw_only=True)
class MemoryUpdate:
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
