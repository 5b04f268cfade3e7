"""Format drift: the record types that reading sessions passed over, per agent and version, and whether an
agent version is newer than the fixtures cover."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from ..adapters import adapter as named_adapter
from ..core.values import Session
from ..git.repo import Repository
from .discovery import SkippedFile, candidate_sessions

__all__ = ["NotRead", "describe", "drift_on_disk", "not_read", "version_newer"]

# Lines of text output that name skipped files; `--json` lists them all.
NAMED = 3


@dataclass
class NotRead:
    """Record types one agent version wrote that git-intent did not read: `record_types` maps each type to
    the records skipped, over `sessions` sessions. `newest_tested` is the newest version the adapter's
    fixtures cover; `newer` says `version` is past it."""

    agent: str
    version: str | None
    sessions: int = 0
    record_types: dict[str, int] = field(default_factory=dict)
    newest_tested: str | None = None
    newer: bool = False

    def text(self) -> str:
        """ "Claude Code 2.1.143: not read: last-prompt (42), permission-mode (14)", with a note when the
        version is newer than the fixtures'."""
        types = ", ".join(
            f"{kind} ({count})"
            for kind, count in sorted(self.record_types.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        line = f"{self.agent} {self.version or '(no version)'}: not read: {types or 'nothing'}"
        if self.newer:
            line += f" (newer than {self.newest_tested}, the newest version git-intent's fixtures cover)"
        return line


def not_read(sessions: Iterable[Session]) -> list[NotRead]:
    """Per (agent, version): the record types skipped while reading `sessions` (`ParseStats.unknown_types`),
    for the versions that skipped some or are newer than their adapter's `NEWEST_TESTED`; sorted by agent
    and version."""
    found: dict[tuple[str, str | None], NotRead] = {}
    for session in sessions:
        key = (session.agent, session.agent_version)
        entry = found.get(key)
        if entry is None:
            registered = named_adapter(session.agent)
            tested = registered.NEWEST_TESTED if registered is not None else None
            entry = found[key] = NotRead(
                session.agent,
                session.agent_version,
                newest_tested=tested,
                newer=version_newer(session.agent_version, tested),
            )
        entry.sessions += 1
        for kind, count in session.stats.unknown_types.items():
            entry.record_types[kind] = entry.record_types.get(kind, 0) + count
    return sorted(
        (e for e in found.values() if e.record_types or e.newer),
        key=lambda e: (e.agent, _version_key(e.version or "")),
    )


def version_newer(version: str | None, tested: str | None) -> bool:
    """Whether `version` ("2.1.150", "0.139.0", "0.126.0-alpha.8") is past `tested`; False when either is
    unknown."""
    if not version or not tested:
        return False
    return _version_key(version) > _version_key(tested)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version.split("-")[0])[:3])


def describe(entries: list[NotRead], skipped: list[SkippedFile]) -> list[str]:
    """Lines for text output: one per agent version with records not read, then the skipped files' count
    with the first `NAMED` of them and their reasons."""
    lines = [entry.text() for entry in entries]
    if skipped:
        lines.append(
            f"{len(skipped)} files below the --transcript folders are no transcript; skipped"
            + (" (all listed by --json):" if len(skipped) > NAMED else ":")
        )
        lines += [f"  {item.path}: {item.reason}" for item in skipped[:NAMED]]
    return lines


def drift_on_disk(repo: Repository, window: timedelta) -> list[NotRead]:
    """`not_read` of the sessions discovered for this work tree and written in the last `window` (what
    `doctor` reports). Parses those transcripts: seconds on a machine with many."""
    return not_read(candidate_sessions(repo, datetime.now(timezone.utc) - window))
