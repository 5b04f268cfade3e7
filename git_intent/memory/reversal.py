"""Which earlier decision or constraint a new observation reverses ("actually, use Redis instead of
SQLite" after "let's use SQLite for the cache"): marked with `supersedes`, never deleted.

A reversal is a decision, constraint or rejection that says so ("instead", "no longer", "switch to",
"actually", "rather than", "scratch that", "revert", "anymore") and shares at least `MIN_SHARED`
distinctive words with an earlier, still active decision or constraint: the one sharing most (the newest
of equals) is reversed.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .values import Observation, Remembered

MIN_SHARED = 2
_REVERSAL = re.compile(
    r"\b(?:instead|no longer|switch(?:ed)? (?:back )?to|actually|rather than|scratch that|change of plan|"
    r"revert|anymore|any more|not .{1,40} after all|drop (?:the|that))\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_STOP = frozenset(
    """this that with from into instead actually rather than should would could their there them they
    what when where which while about after before again also always never must have been being don't
    does doesn make sure please let's lets going want need just only more some then keep use using used
    code file files change switch back longer anymore scratch revert drop after""".split()
)


def terms(text: str) -> frozenset[str]:
    """The distinctive words of a text, lower-cased."""
    return frozenset(w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP)


def mark_reversals(new: list[Observation], earlier: list[Remembered]) -> list[Observation]:
    """`new` (in time order) with `supersedes` set on each reversal, against `earlier` (the log's view)
    and the new observations before it."""
    active = [o for o in earlier if o.superseded_by is None and o.kind in ("decision", "constraint")]
    pool: list[Observation] = sorted(active, key=lambda o: (o.observed_at is None, o.observed_at or 0, o.id))
    out: list[Observation] = []
    for observation in new:
        target = _reversed(observation, pool) if observation.supersedes is None else None
        if target is not None:
            observation = replace(observation, supersedes=target.id)
            pool = [o for o in pool if o.id != target.id]
        out.append(observation)
        if observation.kind in ("decision", "constraint"):
            pool.append(observation)
    return out


def _reversed(observation: Observation, pool: list[Observation]) -> Observation | None:
    if observation.kind not in ("decision", "constraint", "rejected") or not _REVERSAL.search(
        observation.text
    ):
        return None
    mine = terms(observation.text)
    best: tuple[int, int] | None = None
    found = None
    for n, other in enumerate(pool):
        if other.id == observation.id or _later(other, observation):
            continue
        shared = len(mine & terms(other.text))
        if shared >= MIN_SHARED and (best is None or (shared, n) > best):
            best, found = (shared, n), other
    return found


def _later(one: Observation, other: Observation) -> bool:
    """Whether `one` was said after `other` (unknown times: never later)."""
    return (
        one.observed_at is not None and other.observed_at is not None and one.observed_at > other.observed_at
    )
