"""Whole-file answers: consecutive lines with one status and one attribution become a
range, so a 1,000-line file reads as a few dozen ranges. `runs` is the one grouper of consecutive lines
every surface uses (ranges here, blame's text groups, the offline answer, review's groups)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from ..core.values import Attribution

Status = Literal["agent", "human", "unrecorded", "uncommitted", "unreadable"]


class _Line(Protocol):
    @property
    def line(self) -> int: ...
    @property
    def status(self) -> Status: ...
    @property
    def attribution(self) -> Attribution | None: ...


@dataclass(kw_only=True)
class Range:
    """Lines `start..end` (1-based, inclusive) that share a status and an attribution (None for a
    person's, unrecorded, uncommitted or unreadable lines). A person's lines of several commits form
    one range; the lines themselves name their commits."""

    start: int
    end: int
    status: Status
    attribution: Attribution | None


T = TypeVar("T")


def runs(
    items: Iterable[T], same: Callable[[T, T], bool], *, joins: Callable[[T], bool] | None = None
) -> list[list[T]]:
    """`items` cut into runs, in order: an item goes on the current run when `same(anchor, item)`, the anchor
    being the run's last item that does not merely join; an item for which `joins` is true (a blank line) goes
    on the run before it, or starts a run that the next item then anchors."""
    out: list[list[T]] = []
    anchor: T | None = None
    for item in items:
        loose = joins is not None and joins(item)
        if out and (loose or anchor is None or same(anchor, item)):
            out[-1].append(item)
        else:
            out.append([item])
            anchor = None
        if not loose:
            anchor = item
    return out


def group_ranges(lines: Sequence[_Line]) -> list[Range]:
    """Runs of consecutive lines (by line number) with equal status and attribution, in order."""
    return [
        Range(start=run[0].line, end=run[-1].line, status=run[0].status, attribution=run[0].attribution)
        for run in runs(
            lines, lambda a, b: (a.line + 1, a.status, a.attribution) == (b.line, b.status, b.attribution)
        )
    ]
