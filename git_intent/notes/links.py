"""Which commits credit a session: the links `sessions` lists and `context` maps onto topics."""

from __future__ import annotations

from ..git.repo import Repository
from .store import read_notes

__all__ = ["linked_commits", "message_commits"]


def linked_commits(repo: Repository) -> dict[tuple[str, str], list[str]]:
    """(agent, session_id) → commits whose git-intent note credits that session, from one batch read."""
    links: dict[tuple[str, str], list[str]] = {}
    for commit, note in read_notes(repo).items():
        for session in note.sessions:
            links.setdefault(session.key, []).append(commit)
    return links


def message_commits(repo: Repository, agent: str, session_id: str) -> dict[str, set[str]]:
    """message id → commits whose notes credit a line to that message of the session."""
    commits = linked_commits(repo).get((agent, session_id), [])
    by_message: dict[str, set[str]] = {}
    for commit, note in read_notes(repo, commits).items():
        for record in note.lines:
            if record.session_id == session_id and record.message_id:
                by_message.setdefault(record.message_id, set()).add(commit)
    return by_message
