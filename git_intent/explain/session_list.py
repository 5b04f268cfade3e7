"""`git intent sessions`: every session found for this repository, by agent, with the commits it wrote."""

from __future__ import annotations

import os
from datetime import datetime

from pydantic import BaseModel

from ..git.repo import Repository
from ..notes.links import linked_commits
from ..sessions.path_mapping import PathMapper


class SessionSummary(BaseModel):
    """One session: agent, id, time span, size, the files it edited here, and the commits crediting it."""

    agent: str
    session_id: str
    started_at: datetime | None
    ended_at: datetime | None
    messages: int
    edits: int
    files: list[str]
    commits: list[str]
    transcript: str


def list_sessions(repo: Repository, agent: str | None = None) -> list[SessionSummary]:
    """Sessions of this work tree (transcripts on disk that name it, and backup copies), newest first.

    A session is listed when it edited a file of the work tree, started in it, or is credited by a note.
    """
    links = linked_commits(repo)
    head = repo.tree_files("HEAD") if repo.succeeds("rev-parse", "-q", "--verify", "HEAD") else frozenset()
    mapper = PathMapper(repo.root, head, repo.worktrees)
    from ..capture.candidate_sessions import listed_sessions  # SQLite: only for the listing, not `context`

    found: list[SessionSummary] = []
    for session in listed_sessions(repo):
        if agent and session.agent != agent:
            continue
        files = sorted({p for path in session.files if (p := mapper.to_repo(path, session.cwd))})
        commits = links.get((session.agent, session.session_id), [])
        inside = session.cwd is not None and _within(session.cwd, str(repo.root))
        if not (files or commits or inside):
            continue
        found.append(
            SessionSummary(
                agent=session.agent,
                session_id=session.session_id,
                started_at=session.started_at,
                ended_at=session.ended_at,
                messages=session.messages,
                edits=session.edits,
                files=files,
                commits=commits,
                transcript=str(session.transcript),
            )
        )
    return sorted(
        found, key=lambda s: (s.started_at is None, -(s.started_at.timestamp() if s.started_at else 0))
    )


def _within(path: str, root: str) -> bool:
    normal = os.path.normpath(path)
    return normal == root or normal.startswith(root + os.sep)
