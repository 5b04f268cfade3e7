"""The screenshot of `git intent serve --org` (docs/org-dashboard.png): a generated organisation loaded into a
SQLite org store through the store's own `replace_repository`, served, and photographed in headless Chromium.

The organisation is made up (seeded, so the picture is the same each run): eight repositories over twelve
weeks, people and three agents (five models), some lines with shared evidence, two sessions that made commits
in two repositories each, and a few shared messages to search. Run through `docs/screenshots.py org`.
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

from support.browser import headless_chrome
from support.review_repo import isolated_env, serving

from git_intent.org.rows import CommitRow, CreditRow, MessageRow, RepoSnapshot
from git_intent.org.store import open_store

REPOSITORIES = ("api", "web", "billing", "infra", "mobile", "search", "docs-site", "data-pipeline")
AGENTS = {
    "claude-code": ("claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929"),
    "codex": ("gpt-5.1-codex", "gpt-5.1-codex-mini"),
    "cursor": ("composer-1",),
}
PEOPLE = ("Ana Lima <ana@acme.test>", "Bo Chen <bo@acme.test>", "Chidi Okafor <chidi@acme.test>")
START = 1_761_523_200  # Monday 2025-10-27 00:00 UTC
WEEK = 7 * 24 * 3600
REQUESTS = (
    "Retry the webhook delivery with exponential backoff, at most 5 attempts",
    "Split the invoice export into pages of 500 rows",
    "Add a circuit breaker around the search client",
    "Why does the nightly job time out on large tenants?",
)


@dataclass(frozen=True)
class Served:
    path: Path
    env: dict[str, str]


def generated_org(seed: int = 36) -> list[RepoSnapshot]:
    """The organisation's snapshots, one per repository (agents' share grows over the twelve weeks)."""
    rng = random.Random(seed)
    spanning = {
        "api": "5f0c2a7e-span-api-web",
        "web": "5f0c2a7e-span-api-web",
        "billing": "9b41d3c0-span-b-d",
    }
    spanning["data-pipeline"] = spanning["billing"]
    found = []
    for index, name in enumerate(REPOSITORIES):
        commits, credits, messages = [], [], []
        for number in range(rng.randint(40, 70)):
            week = rng.randrange(12)
            sha = f"{index:02x}{number:06x}".ljust(40, "0")
            added = rng.randint(10, 160)
            commits.append(
                CommitRow(sha, START + week * WEEK + rng.randrange(WEEK), rng.choice(PEOPLE), added)
            )
            agent_share = min(0.15 + week * 0.05 + rng.uniform(-0.1, 0.1), 0.9)
            agent_lines = int(added * agent_share) if rng.random() < 0.8 else 0
            if agent_lines:
                agent = rng.choice(list(AGENTS))
                session = spanning.get(name) if number < 2 else f"{agent[:2]}-{index}-{number // 4}"
                evidence = rng.random() < 0.6
                line_class = "agent_with_evidence" if evidence else "agent_without_evidence"
                model = rng.choice(AGENTS[agent])
                credits.append(CreditRow(sha, agent, model, session, line_class, agent_lines, evidence))
                if evidence and number % 4 == 0:
                    messages.append(
                        MessageRow(
                            agent,
                            session or "",
                            f"m-{sha[:10]}",
                            "user",
                            commits[-1].committed_at,
                            rng.choice(REQUESTS),
                        )
                    )
            if added - agent_lines:
                credits.append(CreditRow(sha, None, None, None, "human", added - agent_lines, False))
        found.append(
            RepoSnapshot(
                f"https://git.acme.test/acme/{name}",
                name,
                f"generated-{seed}",
                tuple(commits),
                tuple(credits),
                tuple(messages),
            )
        )
    return found


def org_dashboard(target: Path) -> None:
    """Load the generated organisation, serve it, and save the dashboard's screenshot at `target`."""
    with tempfile.TemporaryDirectory(prefix="intent-org-shot-") as folder:
        root = Path(folder)
        db = root / "org.db"
        with open_store(db) as store:
            for snapshot in generated_org():
                store.replace_repository(snapshot)
        browser = headless_chrome(str(root / "profile"), size="1400,2040")
        try:
            with serving(Served(root, isolated_env(root / "home")), "--org", str(db)) as site:
                browser.get(site.address)
                browser.get(site.base)
                browser.execute_script("return new Promise(r => requestAnimationFrame(() => r()))")
                browser.save_screenshot(str(target))
                print(f"wrote {target}")
        finally:
            browser.quit()
