"""`git intent agents`: every agent whose transcripts git-intent reads, where it looks for them on this
machine, the newest agent version its fixtures cover, and what was found for this repository."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from ..adapters import all_adapters
from ..git.repo import Repository
from .backup import session_copies
from .discovery import candidate_sessions
from .drift import version_newer

__all__ = ["AgentReport", "agent_reports", "agents_text"]


class AgentReport(BaseModel):
    """One agent. `locations` are path patterns on this machine (its environment variables applied);
    `transcripts` counts the agent's own files found there that name this work tree, `sessions` the
    sessions of this repository read from them and from the backup (`.opencode/intent/`); `newest_seen` is
    the newest `agent_version` among those sessions (None when none records one), `newer_than_tested`
    whether it is past `newest_tested`, the newest version the adapter's fixtures cover."""

    agent: str
    plugin: bool
    locations: list[str]
    newest_tested: str | None
    transcripts: int
    sessions: int
    newest_seen: str | None
    newer_than_tested: bool


def agent_reports(repo: Repository) -> list[AgentReport]:
    """An `AgentReport` per registered adapter (built-ins first, in registry order, then plug-ins).

    Reads every transcript that names this work tree (what `record` would read, with no time limit): seconds
    on a machine with many (parses are kept by the parse cache). A file that cannot be read is skipped, as
    `record` skips it."""
    registry = all_adapters()
    read: list[tuple[str, Path]] = []
    sessions = candidate_sessions(repo, None, problems=[], read=read)
    copies = {str(path) for _, path in session_copies(repo)}
    transcripts = Counter(agent for agent, path in read if str(path) not in copies)
    counts = Counter(session.agent for session in sessions)
    newest: dict[str, str] = {}
    for session in sessions:
        version = session.agent_version
        if version and (session.agent not in newest or version_newer(version, newest[session.agent])):
            newest[session.agent] = version
    reports = []
    for name, registered in registry.items():
        seen = newest.get(name)
        reports.append(
            AgentReport(
                agent=name,
                plugin=registered.plugin,
                locations=registered.locations(repo.root),
                newest_tested=registered.NEWEST_TESTED,
                transcripts=transcripts[name],
                sessions=counts[name],
                newest_seen=seen,
                newer_than_tested=version_newer(seen, registered.NEWEST_TESTED),
            )
        )
    return reports


def agents_text(reports: list[AgentReport]) -> str:
    """The text `git intent agents` prints: a block per agent, those with sessions here first."""
    lines: list[str] = []
    for report in sorted(reports, key=lambda r: (r.sessions == 0, r.transcripts == 0)):
        tested = (
            f"fixtures to {report.newest_tested}" if report.newest_tested else "its fixtures name no version"
        )
        found = f"{report.transcripts} transcript(s), {report.sessions} session(s) here"
        if report.newest_seen:
            found += f", newest {report.newest_seen}"
            if report.newer_than_tested:
                found += " (newer than the fixtures)"
        lines.append(f"{report.agent}{' (plug-in)' if report.plugin else ''}: {found}; {tested}")
        lines += [f"  {place}" for place in report.locations] or [
            "  (the plug-in does not say where it looks)"
        ]
    return "\n".join(lines) + "\n"
