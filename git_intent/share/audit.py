"""`git intent audit RANGE`: the added lines of a range by status, for CI gates on provenance coverage.

Over the non-blank lines each commit of the range added (`Repository.added_hunks`): `agent_with_evidence`
(a note credits an agent session, and its message can be read here — a transcript, the backup, or the
shared evidence), `agent_without_evidence`, `human` (recorded, no agent edit wrote it), `unrecorded` (the
commit has no note). `coverage` = (agent + human) / total; `evidence_coverage` = agent lines with
evidence / agent lines; both are 1.0 when their denominator is 0.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..errors import GitError, IntentError
from ..git.repo import Repository
from ..notes import LinesRecord
from ..sessions.discovery import find_session
from .collect import note_records, noted_commits


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
        commits = repo.git("rev-list", revision_range, "--").split()
    except GitError as exc:
        raise IntentError(f"{revision_range!r} is not a revision range of this repository ({exc}).",
                          hint="Example: git intent audit origin/main..HEAD") from exc
    notes = noted_commits(repo)
    records = note_records(repo, {c: notes[c] for c in commits if c in notes})
    total, files, agents = LineCounts(), dict[str, LineCounts](), dict[str, AgentAudit]()
    readable: dict[tuple[str, str], set[str] | None] = {}
    for commit in commits:
        for hunk in repo.added_hunks(commit):
            for offset, text in enumerate(hunk.lines):
                if not text.strip():
                    continue
                status, record = _status(commit in notes, records.get(commit, []), hunk.path, hunk.start + offset)
                if record is not None:
                    has = record.message_id in (_messages(repo, record, readable) or set())
                    status = "agent_with_evidence" if has else "agent_without_evidence"
                    agent = agents.setdefault(record.agent, AgentAudit())
                    agent.lines += 1
                    agent.with_evidence += has
                total.add(status)
                files.setdefault(hunk.path, LineCounts()).add(status)
    return AuditReport(range=revision_range, commits=len(commits), lines=total, coverage=total.coverage(),
                       evidence_coverage=total.evidence_coverage(),
                       files=[FileAudit(path=p, lines=c, coverage=c.coverage(), evidence_coverage=c.evidence_coverage())
                              for p, c in sorted(files.items())],
                       agents=dict(sorted(agents.items())))


def _status(noted: bool, records: list[LinesRecord], path: str, line: int) -> tuple[str, LinesRecord | None]:
    if not noted:
        return "unrecorded", None
    record = next((r for r in records if r.covers(path, line)), None)
    return ("agent", record) if record is not None else ("human", None)


def _messages(repo: Repository, record: LinesRecord, cache: dict[tuple[str, str], set[str] | None]
              ) -> set[str] | None:
    """The message ids of the record's session readable here (transcript, backup or shared), cached."""
    key = (record.agent, record.session_id)
    if key not in cache:
        try:
            session = find_session(repo, record.session_id, record.agent, exact=True)
            cache[key] = {m.message_id for m in session.messages} | {e.message_id for e in session.edits}
        except IntentError:
            cache[key] = None
    return cache[key]
