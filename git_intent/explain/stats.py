"""`git intent stats`: the added lines of a revision range, by class, status, agent, model, session and
person.

The lines and their classes are `range_lines.classify_range`'s, as `audit` counts them; each credited session
is read once to learn its model (the record cache's listing answers for most).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pydantic import BaseModel

from ..core.errors import IntentError
from ..git.repo import Repository
from ..notes import Note
from .range_lines import classify_range

UNKNOWN_MODEL = "unknown"


class StatusCounts(BaseModel):
    """Non-blank added lines by status: credited to an agent session (by the commit's note, or, for a
    commit without one, as `record` would credit it now), written by a person (the commit's note credits no
    session with them), unrecorded (no note and no session here wrote it, or the note cannot be read), or
    `trailer`: lines of a commit whose trailers name an agent while no transcript credits any of its lines
    (counted apart from both agent sessions and people)."""

    agent: int = 0
    human: int = 0
    unrecorded: int = 0
    trailer: int = 0


class ClassCounts(BaseModel):
    """Non-blank added lines by class (`explain.classify`), as `audit` counts them: an agent's with its
    evidence readable here, an agent's without (a trailer's, or a session not here), a person's,
    unrecorded."""

    agent_with_evidence: int = 0
    agent_without_evidence: int = 0
    human: int = 0
    unrecorded: int = 0


class SessionStats(BaseModel):
    """One session credited in the range: its lines, the commits it wrote lines of, the model its
    transcript records (None when unknown), and how many of its lines have evidence on this machine
    (the transcript is found here and holds the crediting message)."""

    agent: str
    session_id: str
    model: str | None
    lines: int
    commits: int
    lines_with_evidence: int


class StatsReport(BaseModel):
    """`git intent stats --json`. Counts are of non-blank added lines (as notes count them) of the commits of
    `range` (a merge's: the lines new against every parent); `evidence_share` is `agent_lines_with_evidence /
    by_status.agent`, None when no line is an agent's. `problems` has one sentence per note that cannot be
    read."""

    range: str
    commits: int
    commits_recorded: int
    lines_added: int
    by_class: ClassCounts
    by_status: StatusCounts
    by_agent: dict[str, int]
    by_trailer_agent: dict[str, int]  # the `trailer` lines by the agent the trailers name
    by_model: dict[str, int]
    by_person: dict[str, int]
    sessions: list[SessionStats]
    agent_lines_with_evidence: int
    evidence_share: float | None
    problems: list[str]


@dataclass
class _Tally:
    status: Counter[str] = field(default_factory=Counter)
    classes: Counter[str] = field(default_factory=Counter)
    person: Counter[str] = field(default_factory=Counter)
    trailer: Counter[str] = field(default_factory=Counter)  # agent named by a trailer -> lines
    # (agent, session_id) -> model -> lines; -> lines with evidence here; -> commits
    models: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    evidence: Counter[tuple[str, str]] = field(default_factory=Counter)
    commits: dict[tuple[str, str], set[str]] = field(default_factory=dict)


def range_stats(repo: Repository, revision_range: str = "HEAD") -> StatsReport:
    """Count the added lines of `revision_range` (default: all of HEAD's history).

    Raises IntentError when the range names nothing in this repository.
    """
    if not repo.succeeds("rev-parse", "--verify", "-q", "HEAD"):
        raise IntentError("This repository has no commits yet, so there are no lines to count.")
    if revision_range.startswith("-"):
        raise IntentError(
            f"{revision_range!r} is not a revision or range of this repository.",
            hint="Examples: HEAD, main~5..main, v1.0..",
        )
    found = classify_range(repo, revision_range)
    authors = _authors(repo, revision_range)
    tally = _Tally()
    problems: dict[str, None] = {}
    for line in found.lines():
        tally.classes[line.line_class] += 1
        resolution, attribution = line.resolution, line.resolution.attribution
        if resolution.status == "agent" and attribution is not None and attribution.method == "trailer":
            tally.status["trailer"] += 1
            tally.trailer[attribution.agent] += 1
        elif resolution.status == "agent" and attribution is not None:
            key = (attribution.agent, attribution.session_id)
            tally.status["agent"] += 1
            tally.models.setdefault(key, Counter())[found.resolver.model(attribution) or UNKNOWN_MODEL] += 1
            tally.evidence[key] += line.line_class == "agent_with_evidence"
            tally.commits.setdefault(key, set()).add(line.commit)
        else:
            tally.status["human" if resolution.status == "human" else "unrecorded"] += 1
            tally.person[authors.get(line.commit, "")] += 1
            if resolution.status == "unreadable" and resolution.reason:
                problems[
                    f"{resolution.reason.rstrip('.')}; the lines of that commit count as unrecorded."
                ] = None
    recorded = sum(1 for c in found.commits if isinstance(found.resolver.note(c.sha), Note))
    return _report(revision_range, len(found.commits), recorded, tally, list(problems))


def _authors(repo: Repository, revision_range: str) -> dict[str, str]:
    """commit -> author name, for the commits of the range."""
    out = repo.git("log", "--format=%H%x00%an", "--end-of-options", revision_range, "--", check=False)
    return dict(line.split("\0", 1) for line in out.splitlines() if "\0" in line)


def _report(
    revision_range: str, commits: int, recorded: int, tally: _Tally, problems: list[str]
) -> StatsReport:
    sessions: list[SessionStats] = []
    by_agent: Counter[str] = Counter()
    by_model: Counter[str] = Counter()
    for (agent, session_id), models in tally.models.items():
        lines = sum(models.values())
        by_agent[agent] += lines
        by_model.update(models)
        known = [m for m, _ in models.most_common() if m != UNKNOWN_MODEL]
        sessions.append(
            SessionStats(
                agent=agent,
                session_id=session_id,
                model=known[0] if known else None,
                lines=lines,
                commits=len(tally.commits[(agent, session_id)]),
                lines_with_evidence=tally.evidence[(agent, session_id)],
            )
        )
    sessions.sort(key=lambda s: (-s.lines, s.agent, s.session_id))
    agent_lines = tally.status["agent"]
    with_evidence = sum(s.lines_with_evidence for s in sessions)
    return StatsReport(
        range=revision_range,
        commits=commits,
        commits_recorded=recorded,
        lines_added=sum(tally.status.values()),
        by_class=ClassCounts(**tally.classes),
        by_status=StatusCounts(
            agent=agent_lines,
            human=tally.status["human"],
            unrecorded=tally.status["unrecorded"],
            trailer=tally.status["trailer"],
        ),
        by_agent=dict(by_agent.most_common()),
        by_trailer_agent=dict(tally.trailer.most_common()),
        by_model=dict(by_model.most_common()),
        by_person=dict(tally.person.most_common()),
        sessions=sessions,
        agent_lines_with_evidence=with_evidence,
        evidence_share=round(with_evidence / agent_lines, 4) if agent_lines else None,
        problems=problems,
    )
