"""`git intent serve --org DB` in a real browser (Debian's headless Chromium through Selenium): three
repositories synced by `git intent org sync` into a SQLite store — the demo's real Claude Code session with
its evidence on two remotes (a fork shares the session), and a hooked repository — and their dashboard."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from support import git, run_cli
from support.browser import headless_chrome
from support.org_repos import DEMO_SESSION, hooked_repo, shared_demo
from support.review_repo import Site, isolated_env, serving

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Org:
    path: Path  # where serve runs: no repository
    env: dict[str, str]
    db: Path


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Org:
    root = tmp_path_factory.mktemp("org-browser")
    env = isolated_env(root / "home")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_INTENT", "XDG_CACHE_HOME"):
            patch.delenv(name, raising=False)
        demo = shared_demo(root)
        fork = root / "demo-fork.git"
        git(root, "clone", "-q", "--mirror", str(demo.remote), str(fork))
        hooked, _ = hooked_repo(root / "hooked")
        db = root / "org.db"
        sources = [str(demo.remote), str(fork), hooked.as_uri()]
        proc = run_cli("org", "sync", *sources, "--db", str(db), cwd=root)
        assert proc.returncode == 0, proc.stderr
    return Org(root, env, db)


@pytest.fixture(scope="module")
def site(org: Org) -> Iterator[Site]:
    with serving(org, "--org", str(org.db)) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    profile = tempfile.mkdtemp(prefix="intent-chromium-")
    driver = headless_chrome(profile)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def signed_in(browser: WebDriver, site: Site) -> None:
    browser.get(site.address)
    WebDriverWait(browser, 20).until(
        lambda d: d.current_url == site.base and d.find_elements(By.TAG_NAME, "h1")
    )


def section(browser: WebDriver, title: str) -> str:
    heading = browser.find_element(By.XPATH, f"//h2[normalize-space()='{title}']")
    return str(heading.find_element(By.XPATH, "..").text)


def test_the_dashboard_shows_the_chart_the_tables_and_the_spanning_session(
    browser: WebDriver, site: Site
) -> None:
    signed_in(browser, site)
    assert browser.find_element(By.TAG_NAME, "h1").text == "Organisation"
    assert [h.text for h in browser.find_elements(By.TAG_NAME, "h2")] == [
        "Agent share by week",
        "By repository",
        "By agent",
        "By model",
        "Sessions across repositories",
        "Repositories",
    ]
    bars = browser.find_elements(By.CSS_SELECTOR, "svg.chart g.week")
    assert bars and browser.find_elements(By.CSS_SELECTOR, "svg.chart rect.agent_with_evidence")
    rect = browser.find_element(By.CSS_SELECTOR, "svg.chart rect.agent_with_evidence")
    assert rect.size["height"] > 0 and rect.value_of_css_property("fill") == "rgb(78, 121, 167)"
    assert "claude-code" in section(browser, "By agent")
    assert "claude-opus-4-5-20251101" in section(browser, "By model")
    spanning = section(browser, "Sessions across repositories")
    assert DEMO_SESSION[:8] in spanning and "demo" in spanning and "demo-fork" in spanning
    assert all(name in section(browser, "Repositories") for name in ("demo", "demo-fork", "hooked"))
    # nothing came from another site: no script, every resource from this server
    entries = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert entries and all(str(e).startswith(site.base) for e in entries)
    assert browser.find_elements(By.TAG_NAME, "script") == []


def test_the_search_box_finds_a_shared_message(browser: WebDriver, site: Site) -> None:
    signed_in(browser, site)
    box = browser.find_element(By.CSS_SELECTOR, "form.orgsearch input[name=q]")
    box.send_keys("MaxChunkSize", Keys.ENTER)
    WebDriverWait(browser, 20).until(lambda d: "/search?q=MaxChunkSize" in d.current_url)
    rows = browser.find_elements(By.CSS_SELECTOR, "table.org tbody tr")
    assert rows and all("MaxChunkSize".lower() in r.text.lower() for r in rows[:1])
    assert DEMO_SESSION[:8] in browser.find_element(By.CSS_SELECTOR, "table.org").text
