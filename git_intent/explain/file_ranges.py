"""Whole-file answers: consecutive lines with one status and one attribution become a
range, so a 1,000-line file reads as a few dozen ranges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from ..models import Attribution

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


def group_ranges(lines: Sequence[_Line]) -> list[Range]:
    """Runs of consecutive lines (by line number) with equal status and attribution, in order."""
    ranges: list[Range] = []
    for line in lines:
        last = ranges[-1] if ranges else None
        if last is not None and last.end + 1 == line.line and last.status == line.status \
                and last.attribution == line.attribution:
            last.end = line.line
        else:
            ranges.append(Range(start=line.line, end=line.line, status=line.status, attribution=line.attribution))
    return ranges
