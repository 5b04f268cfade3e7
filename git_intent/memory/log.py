"""The observation log on disk: `<git common dir>/intent/memory/observations.jsonl`, append-only, one
`Observation` per line, and the view every reader takes of it.

Appends hold `memory.lock` (`core.state_files.locked`) and write whole lines through `append_text`, so two
updates never interleave; a torn or unreadable line is skipped on read, never fatal. Nothing is ever
rewritten: a reversal is a new observation with `supersedes`, a reflection a new one with `compacts`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..core.state_files import append_text, locked, private_dir
from ..core.values import parse_timestamp, to_json
from ..git.repo import Repository
from .values import KINDS, Observation, Remembered

LOG = "observations.jsonl"
_SOURCES = ("offline", "model", "reflection", "shared")


def memory_dir(repo: Repository) -> Path:
    """`<git common dir>/intent/memory`, created 0700."""
    return private_dir(repo.state_dir, "memory")


def log_path(repo: Repository) -> Path:
    """The log file (it may not exist yet)."""
    return repo.state_dir / "memory" / LOG


@contextmanager
def memory_lock(repo: Repository) -> Iterator[None]:
    """Hold the repository-wide lock on memory updates (`memory/memory.lock`)."""
    with locked(memory_dir(repo) / "memory.lock"):
        yield


def observation_id(kind: str, text: str, citations: Iterable[str]) -> str:
    """16 hex digits of SHA-256 over kind, whitespace-normalised text and the sorted citations."""
    key = "\0".join([kind, " ".join(text.split()), *sorted(citations)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def read_log(path: Path) -> list[Observation]:
    """Every readable observation of a log file, in file order (a line that is not one is skipped)."""
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    found: list[Observation] = []
    for line in raw.splitlines():
        try:
            row = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        observation = from_row(row)
        if observation is not None:
            found.append(observation)
    return found


def from_row(row: Any) -> Observation | None:
    """A log line's decoded JSON as an Observation, or None when any field has the wrong shape. The log is
    this clone's own state: checked field by field here (pydantic's validator would cost every
    `memory PATH` its ~100 ms import); a teammate's shared log goes through pydantic (`share.py`)."""
    if not isinstance(row, dict):
        return None
    texts = ("id", "kind", "text")
    lists = ("paths", "symbols", "citations", "compacts")
    if not all(isinstance(row.get(k), str) for k in texts) or row["kind"] not in KINDS:
        return None
    if not all(
        isinstance(row.get(k, []), list) and all(isinstance(v, str) for v in row.get(k, [])) for k in lists
    ):
        return None
    supersedes, source, level = row.get("supersedes"), row.get("source", "offline"), row.get("level", 0)
    if (
        not (supersedes is None or isinstance(supersedes, str))
        or source not in _SOURCES
        or level not in (0, 1)
    ):
        return None
    stamp = row.get("observed_at")
    return Observation(
        id=row["id"],
        kind=row["kind"],
        text=row["text"],
        paths=list(row.get("paths", [])),
        symbols=list(row.get("symbols", [])),
        citations=list(row.get("citations", [])),
        observed_at=parse_timestamp(stamp),
        supersedes=supersedes,
        compacts=list(row.get("compacts", [])),
        level=level,
        source=source,
    )


def to_row(observation: Observation) -> dict[str, Any]:
    """An observation as its log line's JSON: empty lists, None and default fields left out."""
    row: dict[str, Any] = to_json(observation)
    return {
        k: v
        for k, v in row.items()
        if v not in (None, []) and not (k == "level" and v == 0) and not (k == "source" and v == "offline")
    }


def append_observations(repo: Repository, observations: list[Observation]) -> int:
    """Append the observations whose id the log lacks; returns how many were written. Call it under
    `memory_lock`. Raises OSError when the log cannot be written."""
    path = memory_dir(repo) / LOG
    have = {o.id for o in read_log(path)}
    fresh = [o for o in dict((o.id, o) for o in observations).values() if o.id not in have]
    if fresh:
        with append_text(path) as out:
            out.write("".join(json.dumps(to_row(o), ensure_ascii=False) + "\n" for o in fresh))
    return len(fresh)


def view(observations: Iterable[Observation]) -> list[Remembered]:
    """What the log says now: each observation once (first copy of an id wins), those a reflection folded
    into a denser one left out, reversed ones marked `superseded_by` (the newest reversal), newest first
    (ties: by id, so the order is total)."""
    rows = list(dict((o.id, o) for o in observations).values())
    folded = {i for o in rows for i in o.compacts}
    reversed_by: dict[str, Observation] = {}
    for o in rows:
        if o.supersedes and (
            o.supersedes not in reversed_by or _stamp(o) > _stamp(reversed_by[o.supersedes])
        ):
            reversed_by[o.supersedes] = o
    shown = [
        Remembered(
            **{f.name: getattr(o, f.name) for f in fields(Observation)},
            superseded_by=reversed_by[o.id].id if o.id in reversed_by else None,
        )
        for o in rows
        if o.id not in folded
    ]
    return sorted(shown, key=lambda r: (_stamp(r), r.id), reverse=True)


def _stamp(o: Observation) -> str:
    return o.observed_at.isoformat() if o.observed_at else ""


def dumps(observations: Iterable[Observation]) -> str:
    """Observations as JSON Lines (the log's own form)."""
    return "".join(json.dumps(to_row(o), ensure_ascii=False) + "\n" for o in observations)
