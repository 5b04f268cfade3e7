"""The org dashboard's chart of agent share by week, drawn here as inline SVG: no script, no CDN, nothing
fetched (the page's Content-Security-Policy allows none), colours from the stylesheet's classes."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

WIDTH, HEIGHT = 720, 220
LEFT, BOTTOM, TOP = 40, 40, 12
LABEL_WIDTH = 44  # px one week's label needs at 11 px (`MM-DD`)
AGENT_CLASSES = ("agent_with_evidence", "agent_without_evidence")


@dataclass(frozen=True)
class WeekShare:
    """One week: `week` its label (e.g. "2026-W05"), `agent_with_evidence` and `agent_without_evidence`
    the lines agents wrote (with and without shared evidence), `lines` all counted lines."""

    week: str
    agent_with_evidence: int
    agent_without_evidence: int
    lines: int

    @property
    def share(self) -> float:
        """Agent lines / all lines, 0 for a week without lines."""
        return (self.agent_with_evidence + self.agent_without_evidence) / self.lines if self.lines else 0.0


def share_chart(weeks: Sequence[WeekShare]) -> Markup:
    """An SVG bar per week (oldest first, as given): the share of lines agents wrote, stacked as with and
    without evidence, over gridlines at 0, 50 and 100 %; each bar titled with its counts. Empty: a note."""
    if not weeks:
        return Markup('<p class="muted">No week has counted lines yet.</p>')
    plot_w, plot_h = WIDTH - LEFT - 8, HEIGHT - BOTTOM - TOP
    step = plot_w / len(weeks)
    bar = max(min(step * 0.7, 48.0), 2.0)
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'aria-label="Share of lines written by agents, by week">'
    ]
    for fraction in (0.0, 0.5, 1.0):
        y = TOP + plot_h * (1 - fraction)
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - 8}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(
            f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{fraction:.0%}</text>'
        )
    every = max(1, math.ceil(LABEL_WIDTH / step))  # labels never overlap: every k-th bar is labelled
    for index, week in enumerate(weeks):
        x = LEFT + step * index + (step - bar) / 2
        base = float(TOP + plot_h)
        title = escape(
            f"{week.week}: {week.share:.0%} by agents ({week.agent_with_evidence} lines with evidence, "
            f"{week.agent_without_evidence} without, of {week.lines})"
        )
        parts.append(f'<g class="week" data-week="{escape(week.week)}"><title>{title}</title>')
        for name in AGENT_CLASSES:
            lines = getattr(week, name)
            height = plot_h * lines / week.lines if week.lines else 0.0
            if height > 0:
                base -= height
                parts.append(
                    f'<rect class="{name}" x="{x:.1f}" y="{base:.1f}" width="{bar:.1f}" '
                    f'height="{height:.1f}"/>'
                )
        parts.append("</g>")
        if index % every == 0:
            parts.append(
                f'<text class="axis" x="{x + bar / 2:.1f}" y="{HEIGHT - BOTTOM + 16}" '
                f'text-anchor="middle">{escape(_short(week.week))}</text>'
            )
    parts.append("</svg>")
    return Markup("".join(parts))


def _short(week: str) -> str:
    """A week's label under its bar: `MM-DD` of a `YYYY-MM-DD` Monday (the year is in the bar's title)."""
    return week[5:] if re.fullmatch(r"\d{4}-\d{2}-\d{2}", week) else week
