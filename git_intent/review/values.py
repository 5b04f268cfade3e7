"""The `git intent review RANGE --json` contract: files → hunks → groups, with blame's shapes inside.

Documented in docs/json.md; fields may be added, none may change meaning.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..core.values import Attribution
from ..explain.blame import Status
from ..explain.classify import LineClass
from ..explain.evidence import Evidence
from ..explain.line_history import Previous
from .ranges import Change

PreviousLine = Previous  # a person's change to an agent's line: the same shape as blame's `previous`


class ReviewLine(BaseModel):
    """One added line: its 1-based number at the range's end, text, the commit blame gives it and that
    commit's author; `previous` when a person changed a line an agent wrote."""

    line: int
    content: str
    commit: str | None
    author: str | None = None
    previous: PreviousLine | None = None


class ReviewGroup(BaseModel):
    """Consecutive added lines of a hunk with one attribution: an agent's message (`agent`), one person
    (`human`), or a commit without a usable record (`unrecorded`, `unreadable`). Blank lines join the
    group around them and are not counted. `attribution`, `evidence` and `reason` are blame's, from
    the group's first non-blank line, and so are `symbol` (the function, method or class around it) and
    `line_class` (the class every surface counts its lines under: `explain.classify`)."""

    status: Status
    line_class: LineClass | None = None
    start: int
    end: int
    lines: list[ReviewLine]
    attribution: Attribution | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    commits: list[str] = Field(default_factory=list)
    author: str | None = None
    reason: str | None = None
    symbol: str | None = None

    @property
    def counted(self) -> int:
        """Non-blank lines of the group (what the summary table counts)."""
        return sum(1 for line in self.lines if line.content.strip())

    @property
    def changed(self) -> list[ReviewLine]:
        """Lines of the group that replaced a line an agent wrote."""
        return [line for line in self.lines if line.previous is not None]


class ReviewHunk(BaseModel):
    """One hunk of the range's diff (`git diff -U0` numbers), its removed-line count and its groups."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    removed: int
    groups: list[ReviewGroup]


class ReviewFile(BaseModel):
    """One file of the range, in `git diff` order; `old_path` is set for a rename or copy."""

    path: str
    old_path: str | None = None
    change: Change
    binary: bool = False
    hunks: list[ReviewHunk]


class FileTally(BaseModel):
    """A row of the summary table: non-blank added lines by status (`unrecorded` includes unreadable notes;
    `agent` splits into `agent_with_evidence` and `agent_without_evidence`, the classes `audit` and `stats`
    count), and the sessions involved as `agent:session_id`."""

    path: str
    agent: int = 0
    human: int = 0
    unrecorded: int = 0
    agent_with_evidence: int = 0
    agent_without_evidence: int = 0
    changed_by_person: int = 0
    sessions: list[str] = Field(default_factory=list)


class ModelSummary(BaseModel):
    """A model's one-paragraph summary of a session's part in the range, with its verified citations
    (`SESSION:MESSAGE`) and the citations dropped as unverifiable."""

    text: str
    citations: list[str] = Field(default_factory=list)
    dropped: list[str] = Field(default_factory=list)


class SessionReview(BaseModel):
    """A session involved in the range: its non-blank lines, files, the messages whose edits wrote
    them, the requests behind those edits (blame's evidence items, in order of first appearance; a bare
    confirmation is followed by the proposal it confirmed, kind "confirmed"), and a model summary when a
    model is configured (null offline)."""

    agent: str
    session_id: str
    lines: int
    files: list[str]
    messages: list[str]
    requests: list[Evidence]
    summary: ModelSummary | None = None


class ReviewAnswer(BaseModel):
    """`git intent review RANGE --json`: the range (`spec` as typed, `base` and `end` as 40-hex; `base`
    is git's empty tree for a root commit), the summary table (`summary`, then `totals`), the sessions
    involved, every file, and `problems` (one sentence per commit whose note could not be used)."""

    range: str
    base: str
    end: str
    summary: list[FileTally]
    totals: FileTally
    sessions: list[SessionReview]
    files: list[ReviewFile]
    problems: list[str] = Field(default_factory=list)
