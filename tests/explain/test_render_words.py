"""What the text renderers say about themselves: times carry their zone, counts agree with
their noun, a cut row ends with "…", and `more:` points only at a command that works here."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

from git_intent.core.values import Attribution
from git_intent.explain.blame import BlameAnswer, LineAnswer
from git_intent.explain.log import LogEntry
from git_intent.explain.render import blame_text, cut, log_text, when
from git_intent.sessions.prose import counted as count

STAMP = datetime(2026, 1, 22, 20, 0, tzinfo=timezone.utc)


def test_times_carry_their_zone() -> None:
    assert when(STAMP) == "2026-01-22 20:00 UTC"
    assert when(STAMP.astimezone(timezone(timedelta(hours=5, minutes=30)))) == "2026-01-23 01:30 +05:30"
    assert when(STAMP.astimezone(timezone(timedelta(hours=-7)))) == "2026-01-22 13:00 -07:00"
    assert when(None) == "unknown time"


def test_counts_and_cut_rows() -> None:
    assert (count(1, "line"), count(0, "line"), count(1200, "line")) == ("1 line", "0 lines", "1,200 lines")
    assert cut("word " * 40, 30).endswith(" …") and len(cut("word " * 40, 30)) <= 30
    assert cut("short", 30) == "short"


def _line(evidence: bool) -> LineAnswer:
    from git_intent.explain.evidence import Evidence

    items = (
        [
            Evidence(
                session_id="s1", message_id="m1", role="user", timestamp=STAMP, text="do it", kind="request"
            )
        ]
        if evidence
        else []
    )
    return LineAnswer(
        path="a.py",
        line=3,
        content="x = 1",
        commit="c" * 40,
        author="Ann",
        authored_at=STAMP,
        attribution=Attribution(
            agent="codex", session_id="s1", message_id="m1", tool="apply_patch", method="note", confidence=1.0
        ),
        evidence=items,
        status="agent",
        reason=None if evidence else "No transcript of session s1 is on this machine.",
        symbol="def main",
    )


def test_blame_says_which_date_and_points_at_show_only_when_show_works() -> None:
    readable = blame_text(BlameAnswer(lines=[_line(True)]))
    assert readable.splitlines()[0] == "a.py:3  in def main"
    assert f"  commit    {'c' * 12}  Ann  authored 2026-01-22 20:00 UTC\n" in readable
    assert "  more      git intent show s1:m1\n" in readable
    gone = blame_text(BlameAnswer(lines=[_line(False)]))
    assert "more " not in gone and "No transcript of session s1" in gone


def test_log_says_which_date_it_shows() -> None:
    entry = LogEntry(
        commit="d" * 40, committed_at=STAMP, author="Ann", subject="fix", recorded=True, sessions=[]
    )
    assert log_text([entry]).startswith(f"{'d' * 12}  committed 2026-01-22 20:00 UTC  Ann  fix\n")


def test_the_whole_file_legend_points_at_show_only_for_sessions_that_can_be_read() -> None:
    from git_intent.explain.file_ranges import group_ranges
    from git_intent.explain.render_file import gutter_text

    here, gone = _line(True), replace(_line(False), line=4)
    gone.attribution = replace(gone.attribution, session_id="s2")  # type: ignore[union-attr]
    text = gutter_text(BlameAnswer(lines=[here, gone], ranges=group_ranges([here, gone]), whole_file=True))
    legend = [row for row in text.splitlines() if "lines 3" in row or "lines 4" in row]
    assert len(legend) == 2, text
    assert legend[0].endswith("→ git intent show s1:m1") and "git intent show" not in legend[1]
    assert "a.py · 2 lines · " in text
