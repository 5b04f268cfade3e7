"""Reflection: when the log holds more than `reflect_at` live observations, the older ones are folded
into denser level-1 observations that keep every citation; and the project state, derived from the log.

A fold groups observations of one kind about the same files, drops near-repeats (rapidfuzz
`token_set_ratio` >= `REPEAT`, the newest kept) and joins the rest, up to `FOLD_CHARS` characters per
folded observation. Reversed decisions and the reversals themselves are never folded: they stay
marked as they are. The folded observations stay in the log (`compacts` names them); readers skip them.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

from .log import observation_id
from .values import KINDS, Kind, Observation, ProjectState, Remembered, StateItem

REPEAT = 90
FOLD_CHARS = 600


def live(observations: Iterable[Remembered]) -> list[Remembered]:
    """Level-0 observations a fold may take: not reversed and not reversing anything."""
    return [o for o in observations if o.level == 0 and o.superseded_by is None and o.supersedes is None]


def reflect(shown: list[Remembered], reflect_at: int) -> list[Observation]:
    """The level-1 observations that fold the older half of the live observations of `shown` (the log's
    view, newest first), when there are more than `reflect_at` of them; [] otherwise."""
    candidates = live(shown)
    if len(candidates) <= reflect_at:
        return []
    older = candidates[reflect_at // 2 :]
    groups: dict[tuple[Kind, tuple[str, ...]], list[Remembered]] = {}
    for o in older:
        groups.setdefault((o.kind, tuple(o.paths)), []).append(o)
    folded: list[Observation] = []
    for (kind, paths), members in groups.items():
        if len(members) >= 2:
            folded += _fold(kind, list(paths), members)
    return folded


def _fold(kind: Kind, paths: list[str], members: list[Remembered]) -> list[Observation]:
    """Members (newest first) as few observations of at most FOLD_CHARS characters each."""
    from rapidfuzz import fuzz

    texts: list[str] = []
    for o in members:
        if not any(fuzz.token_set_ratio(o.text, t) >= REPEAT for t in texts):
            texts.append(o.text)
    chunks: list[list[str]] = [[]]
    for text in texts:
        if chunks[-1] and len(" · ".join([*chunks[-1], text])) > FOLD_CHARS:
            chunks.append([])
        chunks[-1].append(text)
    out: list[Observation] = []
    for n, chunk in enumerate(chunks):
        # Each fold takes every member's citations once (the first fold also the near-repeats'), so no
        # citation is lost whatever the split.
        takes = members if n == 0 else [o for o in members if o.text in chunk]
        citations = list(dict.fromkeys(c for o in takes for c in o.citations))
        text = " · ".join(chunk)
        stamps = [o.observed_at for o in takes if o.observed_at is not None]
        out.append(
            Observation(
                id=observation_id(kind, text, citations),
                kind=kind,
                text=text,
                paths=paths,
                symbols=list(dict.fromkeys(s for o in takes for s in o.symbols))[:12],
                citations=citations,
                observed_at=max(stamps) if stamps else None,
                compacts=[o.id for o in takes],
                level=1,
                source="reflection",
            )
        )
    return out


def derive_state(shown: list[Remembered], log_lines: int) -> ProjectState:
    """The typed project state of the log's view (newest first in each list)."""
    state = ProjectState(derived_at=datetime.now(timezone.utc), observations=log_lines)
    lists = {
        "convention": state.conventions,
        "decision": state.decisions,
        "constraint": state.constraints,
        "rejected": state.rejected,
        "open_question": state.open_questions,
        "fact": state.facts,
    }
    assert set(lists) == set(KINDS)
    for o in shown:
        item = StateItem(
            id=o.id,
            text=o.text,
            paths=o.paths,
            citations=o.citations,
            observed_at=o.observed_at,
            superseded_by=o.superseded_by,
        )
        (state.superseded if o.superseded_by else lists[o.kind]).append(item)
    return state
