"""`git intent audit RANGE`: the added lines of a range by class, for CI gates on provenance coverage.

Over the non-blank lines each commit of the range added, classified as every surface classifies them
(`explain.range_lines`, `explain.classify`): `agent_with_evidence` (an agent session wrote it, and its message can
be read here — a transcript, the backup, or the shared evidence), `agent_without_evidence` (a trailer names the
agent, or the session is not here), `human` (recorded, no agent edit wrote it), `unrecorded`. `coverage` = (agent
+ human) / total; `evidence_coverage` = agent lines with evidence / agent lines; both are 1.0 when their
denominator is 0.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..errors import IntentError
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


class AuditReport(BaseModel):
    """The `audit --json` output (docs/json.md)."""

    range: str
    commits: int
    lines: LineCounts
    coverage: float
    evidence_coverage: float
    files: list[FileAudit]
    agents: dict[str, AgentAudit]


def audit(repo: Repository, revision_range: str) -> AuditReport:
    """Count the non-blank added lines of every commit of `revision_range` (`git rev-list` syntax).

    Raises IntentError when the range names no commits git knows.
    """
    try:
        found = classify_range(repo, revision_range)
    except IntentError as exc:
        raise IntentError(f"{revision_range!r} is not a revision range of this repository.",
                          hint="Example: git intent audit origin/main..HEAD") from exc
    total, files, agents = LineCounts(), dict[str, LineCounts](), dict[str, AgentAudit]()
    for line in found.lines():
        total.add(line.line_class)
        files.setdefault(line.path, LineCounts()).add(line.line_class)
        attribution = line.resolution.attribution
        if line.line_class.startswith("agent") and attribution is not None:
            agent = agents.setdefault(attribution.agent, AgentAudit())
            agent.lines += 1
            agent.with_evidence += line.line_class == "agent_with_evidence"
    return AuditReport(range=revision_range, commits=len(found.commits), lines=total, coverage=total.coverage(),
                       evidence_coverage=total.evidence_coverage(),
                       files=[FileAudit(path=p, lines=c, coverage=c.coverage(), evidence_coverage=c.evidence_coverage())
                              for p, c in sorted(files.items())],
                       agents=dict(sorted(agents.items())))
