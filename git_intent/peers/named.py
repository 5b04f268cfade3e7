"""The sessions a commit names itself: through its `Entire-Checkpoint:` trailer (the checkpoint's sessions,
in its own ref or on the checkpoints branch), its `Claude-Session:` trailer, its git-ai note (refs/notes/ai)
and Aider's `> Commit <hash>` lines. When several sessions wrote the same line, a session the commit names
wins (docs/design.md, "How a line is attributed": the checkpoint's own trailer first), whichever route
records the commit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..adapters import aider
from ..core.errors import IntentError
from ..git.repo import Repository
from ..sessions.brought_in import BroughtIn
from .entire import TRAILER, checkpoint_session_ids
from .git_ai import NOTES_REF as GITAI_REF
from .git_ai import parse_gitai_note

_CLAUDE_SESSION = "claude-session"
_SESSION_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_.:-]{5,127}")

Named = dict[str, frozenset[str]]


def named_sessions(repo: Repository, commits: Sequence[str]) -> Named:
    """{commit: the session ids it names} for those of `commits` (40-hex ids) that name any, from one `git
    log` of their trailers, the checkpoints their trailers name, their git-ai notes and the Aider chat
    history. Ids are the agents' own (Entire's date prefix removed). Never raises: a record that cannot be
    read names nothing."""
    wanted = list(dict.fromkeys(commits))
    if not wanted:
        return {}
    found: dict[str, set[str]] = {}
    checkpoints: dict[str, list[str]] = {}
    for commit, key, value in _trailers(repo, wanted):
        if key == TRAILER.lower():
            checkpoints.setdefault(commit, []).append(value)
        elif key == _CLAUDE_SESSION and _SESSION_ID.fullmatch(value):
            found.setdefault(commit, set()).add(value)
    if checkpoints:
        sessions = checkpoint_session_ids(repo, [i for ids in checkpoints.values() for i in ids])
        for commit, ids in checkpoints.items():
            for checkpoint_id in ids:
                found.setdefault(commit, set()).update(sessions.get(checkpoint_id, ()))
    for more in (_gitai_sessions(repo, wanted), _aider_sessions(repo, wanted)):
        for commit, named in more.items():
            found.setdefault(commit, set()).update(named)
    return {commit: frozenset(ids) for commit, ids in found.items() if ids}


def _trailers(repo: Repository, commits: list[str]) -> list[tuple[str, str, str]]:
    """(commit, trailer key lowercased, value) of every trailer of `commits`."""
    out = repo.git(
        "log",
        "--no-walk=unsorted",
        "--format=%x00%H%x00%(trailers:unfold,only)",
        "--end-of-options",
        *commits,
        check=False,
    )
    parts = out.split("\0")[1:]
    rows: list[tuple[str, str, str]] = []
    for commit, body in zip(parts[0::2], parts[1::2], strict=False):
        for line in body.splitlines():
            key, sep, value = line.partition(":")
            if sep and value.strip():
                rows.append((commit, key.strip().lower(), value.strip()))
    return rows


def _gitai_sessions(repo: Repository, commits: list[str]) -> dict[str, set[str]]:
    """The agent session ids git-ai's notes on `commits` name (none when refs/notes/ai does not exist)."""
    if not repo.succeeds("rev-parse", "-q", "--verify", GITAI_REF):
        return {}
    wanted = set(commits)
    listing = repo.git("notes", "--ref", GITAI_REF, "list", check=False)
    pairs = [
        row for row in (line.split() for line in listing.splitlines()) if len(row) == 2 and row[1] in wanted
    ]
    found: dict[str, set[str]] = {}
    for (_, commit), (_, data) in zip(pairs, repo.cat_blobs([blob for blob, _ in pairs]), strict=True):
        if data is None:
            continue
        note = parse_gitai_note(data.decode("utf-8", "replace"))
        ids = {record.session_id for record in note.sessions.values() if record.session_id}
        if ids:
            found.setdefault(commit, set()).update(ids)
    return found


def _aider_sessions(repo: Repository, commits: list[str]) -> dict[str, set[str]]:
    """The Aider chats whose `> Commit <hash>` lines name one of `commits` (by hash prefix)."""
    history = aider.history(repo.root)
    if history is None:
        return {}
    brought = BroughtIn(repo)
    if brought.whole(history):
        return {}
    try:
        links = aider.commit_links(history)
        if brought.tracked(history):  # a history the clone brought names nothing; this user's additions do
            links = [link for link in links if brought.local(history, aider.NAME, link[0])]
    except (OSError, IntentError):
        return {}
    found: dict[str, set[str]] = {}
    for session_id, _, short in links:
        for commit in commits:
            if short and commit.startswith(short.lower()):
                found.setdefault(commit, set()).add(session_id)
    return found
