"""`git intent audit RANGE`: the added lines of a range by class, for CI gates on provenance coverage.

Over the non-blank lines each commit of the range added, classified as every surface classifies them
(`explain.range_lines`, `explain.classify`): `agent_with_evidence` (an agent session wrote it, and its message
can be read here — a transcript, the backup, or the shared evidence), `agent_without_evidence` (a trailer
names the agent, or the session is not here), `human` (recorded, no agent edit wrote it), `unrecorded`.
`coverage` = (agent + human) / total; `evidence_coverage` = agent lines with evidence / agent lines; both are
1.0 when their denominator is 0.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..capture.carry_range import carry_range
from ..core.errors import IntentError
from ..explain.range_lines import classify_range
from ..git.repo import Repository


class LineCounts(BaseModel):
    """Non-blank added lines by status."""

    agent_with_evidence: int = 0
    agent_without_evidence: int = 0
    human: int = 0
    unrecorded: int = 0
    total: int = 0

    def add(self, status: str) -> None:
        """Count one line of `status`."""
        setattr(self, status, getattr(self, status) + 1)
        self.total += 1

    @property
    def agent(self) -> int:
        """Agent lines, with or without evidence."""
        return self.agent_with_evidence + self.agent_without_evidence

    def coverage(self) -> float:
        """(agent + human) / total, 1.0 for no lines."""
        return round((self.agent + self.human) / self.total, 4) if self.total else 1.0

    def evidence_coverage(self) -> float:
        """Agent lines with evidence / agent lines, 1.0 for no agent lines."""
        return round(self.agent_with_evidence / self.agent, 4) if self.agent else 1.0


class FileAudit(BaseModel):
    """One file's counts and ratios."""

    path: str
    lines: LineCounts
    coverage: float
    evidence_coverage: float


class AgentAudit(BaseModel):
    """One agent's lines, and how many of them have evidence."""

    lines: int = 0
    with_evidence: int = 0


class AuditLine(BaseModel):
    """One counted line (`audit --lines`): line `line` of `path` as `commit` added it, its class, and who
    wrote it when an agent did (`method`: note, content or trailer; no session for a trailer's line)."""

    commit: str
    path: str
    line: int
    line_class: str
    agent: str | None = None
    session_id: str | None = None
    message_id: str | None = None
    method: str | None = None


class AuditReport(BaseModel):
    """The `audit --json` output (docs/json.md); `listed` only with `--lines`."""

    range: str
    commits: int
    lines: LineCounts
    coverage: float
    evidence_coverage: float
    files: list[FileAudit]
    agents: dict[str, AgentAudit]
    listed: list[AuditLine] | None = None
    unrecorded_commits: list[str] = []  # commits of the range with unrecorded lines, oldest first


def audit(repo: Repository, revision_range: str, *, listed: bool = False) -> AuditReport:
    """Count the non-blank added lines of every commit of `revision_range` (`git rev-list` syntax); with
    `listed`, list them too.

    Raises IntentError when the range names no commits git knows.
    """
    try:
        found = classify_range(repo, revision_range)
    except IntentError as exc:
        raise IntentError(
            f"{revision_range!r} is not a revision range of this repository.",
            hint="Example: git intent audit origin/main..HEAD",
        ) from exc
    total, files, agents = LineCounts(), dict[str, LineCounts](), dict[str, AgentAudit]()
    rows: list[AuditLine] | None = [] if listed else None
    unrecorded: dict[str, None] = {}
    for line in found.lines():
        total.add(line.line_class)
        if line.line_class == "unrecorded":
            unrecorded[line.commit] = None
        files.setdefault(line.path, LineCounts()).add(line.line_class)
        attribution = line.resolution.attribution
        if line.line_class.startswith("agent") and attribution is not None:
            agent = agents.setdefault(attribution.agent, AgentAudit())
            agent.lines += 1
            agent.with_evidence += line.line_class == "agent_with_evidence"
        if rows is not None:
            who = attribution if line.resolution.status == "agent" else None
            rows.append(
                AuditLine(
                    commit=line.commit,
                    path=line.path,
                    line=line.line,
                    line_class=line.line_class,
                    agent=who.agent if who else None,
                    session_id=who.session_id or None if who else None,
                    message_id=who.message_id or None if who else None,
                    method=who.method if who else None,
                )
            )
    return AuditReport(
        range=revision_range,
        commits=len(found.commits),
        lines=total,
        coverage=total.coverage(),
        evidence_coverage=total.evidence_coverage(),
        files=[
            FileAudit(path=p, lines=c, coverage=c.coverage(), evidence_coverage=c.evidence_coverage())
            for p, c in sorted(files.items())
        ],
        agents=dict(sorted(agents.items())),
        listed=rows,
        unrecorded_commits=list(unrecorded),
    )


def unrecorded_hint(repo: Repository, commits: list[str], *, look: int = 5) -> str:
    """What to do about `commits` (unrecorded): carry, when this clone holds the recorded commits one of the
    first `look` may copy (`capture.carry_range`); else record those made here and fetch the others'."""
    for commit in commits[:look]:
        found = carry_range(repo, commit)
        if found:
            return (
                f"Carry the records this clone holds: `git intent carry {found} --onto {commit[:12]}` (and "
                "the like for the other commits); record commits made here with `git intent record REV`."
            )
    return (
        "Record commits made here with `git intent record REV`; `git intent fetch` brings the records of "
        "commits others made, once they ran `git intent push`."
    )
