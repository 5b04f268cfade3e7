"""The org dashboard's pieces: the server-drawn chart of agent share by week (exact geometry, hostile labels
escaped) and the pages behind serve's guard, on rows as the store gives them."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from git_intent.org.rows import CommitRow, CreditRow, MessageRow, RepoSnapshot
from git_intent.org.store import open_store
from git_intent.serve.org_app import cell, create_org_app, table, week_shares
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
    many = str(
        share_chart([WeekShare(f"2026-{m:02}-{d:02}", 1, 0, 2) for m in range(1, 7) for d in (5, 12, 19, 26)])
    )
    labels = re.findall(r'text-anchor="middle">([^<]*)</text>', many)
    # 24 bars of 28 px: every other one labelled, as MM-DD
    assert labels == [f"{m:02}-{d:02}" for m in range(1, 7) for d in (5, 19)]


def test_a_hostile_label_is_text_and_no_week_is_a_note() -> None:
    svg = str(share_chart([WeekShare('<script>alert(1)</script>"', 1, 0, 2)]))
    assert "<script>" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;&#x27;" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;" in svg
    assert str(share_chart([])) == '<p class="muted">No week has counted lines yet.</p>'


def test_cells_and_tables_show_the_stores_rows() -> None:
    values = [(None, "agent"), (None, "key"), (True, "x"), (0.4567, "agent_share"), (12345, "lines")]
    assert [cell(v, c) for v, c in values] == ["", "(none)", "yes", "45.7%", "12,345"]
    assert (cell(["a", "b"], "repositories"), cell(1769112019, "first_at")) == ("a, b", "2026-01-22 20:00")
    shown = table(
        "By agent",
        [{"key": "codex", "lines": 3}, {"key": None, "lines": 1200}],
        [("key", "agent"), ("lines", "lines")],
    )
    assert (shown.columns, shown.rows) == (("agent", "lines"), (("codex", "3"), ("(none)", "1,200")))
    weeks = [
        {"key": "2026-01-26", "lines": 4, "lines_by_class": {"human": 4}},
        {"key": "2026-01-19", "lines": 3, "lines_by_class": {"agent_with_evidence": 2, "unrecorded": 1}},
        {"key": None, "lines": 9, "lines_by_class": {"human": 9}},
    ]
    assert week_shares(weeks) == [WeekShare("2026-01-19", 2, 0, 3), WeekShare("2026-01-26", 0, 0, 4)]


MONDAY = 1_768_780_800  # 2026-01-19 00:00 UTC, a Monday


def organisation(db: Path) -> None:
    """Two repositories in a real SQLite store: one session with commits in both, a hostile agent name."""
    with open_store(db) as store:
        for name, when in (("api", MONDAY + 3600), ("web", MONDAY + 8 * 86400)):
            sha = (name * 20)[:40]
            store.replace_repository(
                RepoSnapshot(
                    key=f"https://git.test/{name}",
                    name=name,
                    head="h",
                    commits=(CommitRow(sha, when, "A <a@t>", 40),),
                    credits=(
                        CreditRow(
                            sha, "claude-code", "claude-opus-4-5", "s-span", "agent_with_evidence", 30, True
                        ),
                        CreditRow(sha, "<b>agent</b>", None, f"s-{name}", "agent_without_evidence", 4, False),
                        CreditRow(sha, None, None, None, "human", 6, False),
                    ),
                    messages=(
                        MessageRow(
                            "claude-code",
                            "s-span",
                            f"m-{name}",
                            "user",
                            when,
                            "Split MaxChunkSize <i>lines</i>",
                        ),
                    ),
                )
            )


def test_the_pages_need_the_key_and_show_every_section_escaped(tmp_path: Path) -> None:
    db = tmp_path / "org.db"
    organisation(db)
    app = create_org_app(lambda: open_store(db), "org.db", "t" * 32, "k" * 32)
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
    assert re.findall(r"<title>([^<]*)</title>", page.text)[1:] == [
        "2026-01-19: 85% by agents (30 lines with evidence, 4 without, of 40)",
        "2026-01-26: 85% by agents (30 lines with evidence, 4 without, of 40)",
    ]
    assert "<td>&lt;b&gt;agent&lt;/b&gt;</td>" in page.text and "<b>" not in page.text
    assert (
        "<td>s-span</td><td>claude-code</td><td>api, web</td><td>2</td><td>60</td><td>yes</td>" in page.text
    )
    by_agent = "<td>claude-code</td><td>2</td><td>2</td><td>1</td><td>60</td><td>60</td><td>100.0%</td>"
    by_repo = "<td>api</td><td>1</td><td>2</td><td>40</td><td>34</td><td>85.0%</td><td>88.2%</td>"
    assert by_agent in page.text and by_repo in page.text
    found = client.get("/search", params={"q": "maxchunksize"})
    assert found.status_code == 200
    assert found.text.count("<tr><td>") == 2 and "&lt;i&gt;lines&lt;/i&gt;" in found.text
    assert client.get("/search").text.count("<table") == 0
    nothing = client.get("/search", params={"q": "?!"})
    assert (nothing.status_code, "has no word to look for" in nothing.text) == (400, True)
