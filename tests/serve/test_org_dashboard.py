"""The org dashboard's pieces: the server-drawn chart of agent share by week (exact geometry, hostile labels
escaped) and the pages behind serve's guard, on rows as the store gives them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from starlette.testclient import TestClient

from git_intent.serve.org_app import OrgQueries, cell, create_org_app, table, week_shares
from git_intent.serve.org_chart import HEIGHT, WeekShare, share_chart
from git_intent.serve.security import UNAUTHORIZED

PLOT = HEIGHT - 40 - 12  # the plot's height: below the top margin, above the week labels


def test_each_week_is_a_bar_stacked_by_evidence_in_proportion_to_its_lines() -> None:
    svg = str(
        share_chart(
            [
                WeekShare("2026-W01", 30, 10, 80),
                WeekShare("2026-W02", 0, 0, 5),
                WeekShare("2026-W03", 7, 0, 7),
            ]
        )
    )
    rects = re.findall(r'<rect class="(\w+)" x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"/>', svg)
    base = 12 + PLOT
    assert rects == [
        ("agent_with_evidence", f"{base - PLOT * 30 / 80:.1f}", f"{PLOT * 30 / 80:.1f}"),
        ("agent_without_evidence", f"{base - PLOT * 40 / 80:.1f}", f"{PLOT * 10 / 80:.1f}"),
        ("agent_with_evidence", f"{base - PLOT:.1f}", f"{PLOT:.1f}"),
    ]
    assert re.findall(r"<title>([^<]*)</title>", svg) == [
        "2026-W01: 50% by agents (30 lines with evidence, 10 without, of 80)",
        "2026-W02: 0% by agents (0 lines with evidence, 0 without, of 5)",
        "2026-W03: 100% by agents (7 lines with evidence, 0 without, of 7)",
    ]
    assert "<script" not in svg and "http" not in svg.replace('xmlns="http', "")


def test_a_hostile_label_is_text_and_no_week_is_a_note() -> None:
    svg = str(share_chart([WeekShare('<script>alert(1)</script>"', 1, 0, 2)]))
    assert "<script>" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;&#x27;" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;" in svg
    assert str(share_chart([])) == '<p class="muted">No week has counted lines yet.</p>'


def test_cells_and_tables_show_the_stores_rows() -> None:
    assert [cell(v, c) for v, c in [(None, "x"), (True, "x"), (0.4567, "agent_share"), (12345, "lines")]] == [
        "",
        "yes",
        "45.7%",
        "12,345",
    ]
    assert cell(["a", "b"], "repos") == "a, b"
    shown = table("By agent", [{"agent": "codex", "lines": 3}, {"agent": "claude-code", "lines": 1200}])
    assert (shown.columns, shown.rows) == (("agent", "lines"), (("codex", "3"), ("claude-code", "1,200")))
    assert week_shares(
        [{"week": "2026-W02", "lines": 4}, {"week": "2026-W01", "agent_with_evidence": 2, "lines": 2}]
    ) == [
        WeekShare("2026-W01", 2, 0, 2),
        WeekShare("2026-W02", 0, 0, 4),
    ]


class RowsStore:
    """Rows as the store answers them, for the pages (the store itself is tested on its own)."""

    def __init__(self) -> None:
        self.searched: list[tuple[str, int]] = []

    def stats(self, by: str, since: int | None) -> list[dict[str, Any]]:
        if by == "week":
            return [
                {"week": "2026-W05", "agent_with_evidence": 32, "agent_without_evidence": 4, "lines": 369}
            ]
        return [{by: f"<b>{by}</b>", "lines": 369, "agent_share": 36 / 369}]

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        self.searched.append((query, limit))
        return [{"repo": "demo", "session_id": "0a0314fb", "text": "MaxChunkSize <i>split</i>"}]

    def spanning_sessions(self) -> list[dict[str, Any]]:
        return [{"session_id": "s-1", "repos": ["a", "b"], "commits": 3}]

    def repositories(self) -> list[dict[str, Any]]:
        return [{"name": "demo", "commits": 2}]


def test_the_pages_need_the_key_and_show_every_section_escaped() -> None:
    rows = RowsStore()

    @contextmanager
    def opener() -> Iterator[OrgQueries]:
        yield rows

    app = create_org_app(opener, "org.db", "t" * 32, "k" * 32)
    anonymous = TestClient(app, base_url="http://127.0.0.1")
    assert (anonymous.get("/").status_code, anonymous.get("/").text) == (401, UNAUTHORIZED + "\n")
    client = TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {'k' * 32}"})
    page = client.get("/")
    assert page.status_code == 200
    assert re.findall(r"<h2>([^<]*)</h2>", page.text) == [
        "Agent share by week",
        "By repository",
        "By agent",
        "By model",
        "Sessions across repositories",
        "Repositories",
    ]
    assert '<svg class="chart"' in page.text and "<title>2026-W05: 10% by agents" in page.text
    assert "&lt;b&gt;agent&lt;/b&gt;" in page.text and "<b>" not in page.text
    assert "<td>9.8%</td>" in page.text and "<td>a, b</td>" in page.text
    found = client.get("/search", params={"q": "MaxChunkSize"})
    assert found.status_code == 200 and "MaxChunkSize &lt;i&gt;split&lt;/i&gt;" in found.text
    assert rows.searched == [("MaxChunkSize", 50)]
    assert "No shared message" not in found.text
    assert client.get("/search").text.count("<table") == 0
