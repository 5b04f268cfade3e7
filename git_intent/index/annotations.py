"""Stored per-turn annotations: the index's `annotations` table, keyed by session and turn content digest,
where a model's or an agent's annotation replaces an offline one and never the reverse.

The index is a cache (deleting it loses only what a model would be asked again); reading never creates it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..core.values import ANNOTATION_RANK, Session, TurnAnnotation, to_json, validate_json
from ..git.repo import Repository
from .base import now, stamp, transaction
from .store import index_path, open_index

__all__ = ["StoredAnnotation", "annotated_sessions", "save_annotations", "stored_annotations", "stored_for"]


@dataclass(frozen=True)
class StoredAnnotation:
    """An annotation as stored: the model that wrote it (or whose replies could not be read, for an offline
    one written after them; None otherwise) and the tokens its call spent, shared by the turns of a batch."""

    annotation: TurnAnnotation
    model: str | None = None
    tokens: int | None = None


def save_annotations(
    repo: Repository,
    agent: str,
    session_id: str,
    annotations: Iterable[TurnAnnotation],
    *,
    model: str | None = None,
    tokens: int | None = None,
) -> int:
    """Store `annotations` of one session; returns how many were written. One already stored for the same
    turn content from a higher source (agent > model > offline) is kept. Raises sqlite3.Error when the index
    cannot be written."""
    import json

    db = open_index(repo, [])
    written = 0
    try:
        with transaction(db):
            for item in annotations:
                row = db.execute(
                    "SELECT source FROM annotations WHERE agent = ? AND session_id = ? AND digest = ?",
                    [agent, session_id, item.digest],
                ).fetchone()
                if row is not None and ANNOTATION_RANK.get(row[0], 0) > ANNOTATION_RANK[item.source]:
                    continue
                db.execute(
                    "INSERT OR REPLACE INTO annotations (agent, session_id, digest, turn_id, source, model, "
                    "tokens, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        agent,
                        session_id,
                        item.digest,
                        item.turn_id,
                        item.source,
                        model,
                        tokens,
                        json.dumps(to_json(item), ensure_ascii=False, sort_keys=True),
                        stamp(now()),
                    ],
                )
                written += 1
    finally:
        db.close()
    return written


def stored_annotations(repo: Repository, agent: str, session_id: str) -> list[StoredAnnotation]:
    """The annotations stored for a session (any order); none when the index or its table does not exist.
    Rows that are not valid annotations (written by another version) are skipped."""
    return [s for s in _read(repo, "WHERE agent = ? AND session_id = ?", [agent, session_id])]


def stored_for(repo: Repository) -> Callable[[Session], list[TurnAnnotation]]:
    """A function giving the annotations stored for a session (what `fidelity.context` takes as `stored`)."""
    return lambda session: [s.annotation for s in stored_annotations(repo, session.agent, session.session_id)]


def annotated_sessions(repo: Repository) -> dict[tuple[str, str], dict[str, int]]:
    """(agent, session_id) → turns stored per source, for every session with stored annotations."""
    out: dict[tuple[str, str], dict[str, int]] = {}
    for stored in _read(repo, "", [], with_key=True):
        assert stored.key is not None
        counts = out.setdefault(stored.key, {})
        counts[stored.annotation.source] = counts.get(stored.annotation.source, 0) + 1
    return out


@dataclass(frozen=True)
class _Row(StoredAnnotation):
    key: tuple[str, str] | None = None


def _read(repo: Repository, where: str, args: list[str], *, with_key: bool = False) -> list[_Row]:
    path = index_path(repo)
    if not path.is_file():
        return []
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = db.execute(
                f"SELECT agent, session_id, body, model, tokens FROM annotations {where}", args
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error:  # no table yet (an index from before annotations), or unreadable: nothing stored
        return []
    out = []
    for agent, session_id, body, model, tokens in rows:
        try:
            annotation = validate_json(TurnAnnotation, body)
        except ValueError:
            continue
        out.append(_Row(annotation, model, tokens, (agent, session_id) if with_key else None))
    return out
