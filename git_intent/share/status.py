"""The sharing level and what the local evidence store holds (`git intent share`)."""

from __future__ import annotations

from pydantic import BaseModel

from ..git.repo import Repository
from ..notes import evidence_ref as store
from .collect import LEVELS, share_level


class SharingStatus(BaseModel):
    """`share --json`: the level, and the sessions (all, whole), commits and forgotten sessions stored."""

    level: str
    sessions: int
    sessions_full: int
    commits: int
    forgotten: int


def set_level(repo: Repository, level: str) -> None:
    """Set `intent.share` in this repository's git config. Raises ValueError for an unknown level."""
    if level not in LEVELS:
        raise ValueError(level)
    repo.git("config", "intent.share", level)


def sharing_status(repo: Repository) -> SharingStatus:
    """The level and the counts of the local refs/intent/evidence."""
    _, entries = store.read_entries(repo)
    sessions = store.sessions_in(entries)
    return SharingStatus(
        level=share_level(repo),
        sessions=len(sessions),
        sessions_full=sum(1 for levels in sessions.values() if "sessions" in levels),
        commits=sum(1 for path in entries if path.startswith("commits/")),
        forgotten=len(store.id_lines(repo, entries.get(store.FORGOTTEN))),
    )


def forget_session(repo: Repository, session_id: str) -> list[str]:
    """Remove a shared session from the local store (see `evidence_ref.forget_sessions`)."""
    return store.forget_sessions(repo, session_id)
