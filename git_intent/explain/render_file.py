"""Whole-file blame as text: a compact gutter (line number, a short label on the first
line of each range, the line) and a legend that names each label's session and message once. Pure."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sessions.prose import counted
from .render import names_message, safe, short, trailer_credit

if TYPE_CHECKING:
    from .blame import BlameAnswer, LineAnswer
    from .file_ranges import Range

LABEL_WIDTH = 30
_PLAIN = {
    "human": "person",
    "unrecorded": "unrecorded",
    "uncommitted": "not committed",
    "unreadable": "unreadable",
}
MAX_NOTES = 20  # history lines ("replaced an agent's line") listed under the legend
MAX_REASONS = 3  # distinct reasons for unrecorded lines (one per commit without a note) listed


def label(item: Range | LineAnswer) -> str:
    """A range's short label: `AGENT SESSION8:MESSAGE8` (`≈` when found by content, no note), or the
    status."""
    attribution = item.attribution
    if attribution is None:
        return _PLAIN.get(item.status, item.status)
    if not names_message(attribution):  # a trailer's credit: no session, no message
        return f"{attribution.agent} ({attribution.method})"
    mark = "≈" if attribution.method == "content" else ""
    return f"{attribution.agent} {attribution.session_id[:8]}:{short(attribution.message_id)[:8]}{mark}"


def gutter_text(answer: BlameAnswer) -> str:
    """Every line as `NUMBER │ LABEL │ LINE` (the label on a range's first line only), then the legend."""
    if not answer.lines:
        return "The file is empty.\n"
    path = answer.lines[0].path
    digits = len(str(answer.lines[-1].line))
    width = min(LABEL_WIDTH, max(len(label(r)) for r in answer.ranges))
    starts = {r.start: label(r) for r in answer.ranges}
    out = [_summary(path, answer)]
    for line in answer.lines:
        tag = starts.get(line.line, "")
        tag = tag if len(tag) <= width else tag[: width - 1] + "…"
        out.append(f"{line.line:>{digits}} │ {tag:<{width}} │ {line.content}")
    out += ["", *_legend(answer)]
    return safe("\n".join(out).rstrip() + "\n")


def _summary(path: str, answer: BlameAnswer) -> str:
    counts: dict[str, int] = {}
    for line in answer.lines:
        key = line.attribution.agent if line.attribution else _PLAIN.get(line.status, line.status)
        counts[key] = counts.get(key, 0) + 1
    parts = ", ".join(f"{n} {key}" for key, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    ranges = counted(len(answer.ranges), "range")
    return f"{path} · {counted(len(answer.lines), 'line')} · {ranges} · {parts}"


def _legend(answer: BlameAnswer) -> list[str]:
    """One line per label: its lines, and for an agent the tool, model and where to read the message; the
    reason for each commit's unrecorded lines once; then the people's lines that replaced an agent's line."""
    spans: dict[str, list[Range]] = {}
    for item in answer.ranges:
        spans.setdefault(label(item), []).append(item)
    out: list[str] = []
    readable = {line.attribution.session_id for line in answer.lines if line.attribution and line.evidence}
    for name, items in spans.items():
        lines = ", ".join(f"{r.start}" if r.start == r.end else f"{r.start}-{r.end}" for r in items[:8])
        lines += f" (+{len(items) - 8} ranges)" if len(items) > 8 else ""
        attribution = items[0].attribution
        if attribution is None:
            out.append(f"{name:<{LABEL_WIDTH}}  lines {lines}")
            continue
        if not names_message(attribution):
            commits = list(
                dict.fromkeys(
                    line.commit
                    for line in answer.lines
                    if line.commit and line.attribution is not None and label(line) == name
                )
            )
            out.append(f"{name:<{LABEL_WIDTH}}  lines {lines}  {trailer_credit(commits)}")
            continue
        how = " · found by content, no note" if attribution.method == "content" else ""
        model = f" · {attribution.model}" if attribution.model else ""
        # `show` only where it works: the session's transcript (or its shared evidence) is here.
        more = (
            f"  → git intent show {attribution.session_id}:{short(attribution.message_id)}"
            if attribution.session_id in readable
            else ""
        )
        out.append(f"{name:<{LABEL_WIDTH}}  lines {lines}  {attribution.tool}{model}{how}{more}")
    # Unreadable notes are warnings on stderr, printed there once.
    by_commit: dict[str | None, str] = {}
    for line in answer.lines:
        if line.status == "unrecorded" and line.reason:
            by_commit.setdefault(line.commit, f"unrecorded: {line.reason}")
    reasons = list(by_commit.values())
    out += [f"  {reason}" for reason in reasons[:MAX_REASONS]]
    if len(reasons) > MAX_REASONS:
        out.append(
            f"  … and {len(reasons) - MAX_REASONS} more unrecorded commits (--json gives every line's reason)"
        )
    replaced = [line for line in answer.lines if line.previous is not None]
    for line in replaced[:MAX_NOTES]:
        was = line.previous
        assert was is not None
        by = was.attribution
        out.append(
            f"  line {line.line} (a person's) replaced a line {by.agent} wrote: session {by.session_id} "
            f"message {short(by.message_id)}, commit {was.commit[:12]}"
        )
    if len(replaced) > MAX_NOTES:
        out.append(f"  … {len(replaced) - MAX_NOTES} more lines replaced an agent's line (--json lists them)")
    return out
