"""`git intent serve` in a real browser: Debian's headless Chromium driven by Selenium (chromedriver from
the same Debian release). scripts/ensure-chromium installs both when they are missing; when it cannot,
these tests fail with its message, never skip."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.error import HTTPError
from urllib.parse import urlsplit

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait
from support.browser import ENSURE, chromium
from support.review_repo import (
    CHUNKING,
    S0,
    S8,
    SCRIPT_FILE,
    SCRIPT_PROMPT,
    ReviewRepo,
    Site,
    build_review_repo,
    isolated_env,
    levels,
    serving,
    serving_opened,
)

from git_intent.demo import run_demo
from git_intent.serve.security import UNAUTHORIZED

pytestmark = pytest.mark.slow
REQUEST_S0 = "Handle single lines exceeding MaxChunkSize (error or split) in chunking.go:84"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> ReviewRepo:
    return build_review_repo(tmp_path_factory.mktemp("browser"))


@pytest.fixture(scope="module")
def site(built: ReviewRepo) -> Iterator[Site]:
    with serving(built) as running:
        yield running


def signed_in(browser: WebDriver, site: Site) -> str:
    """The base URL of `site`, once the browser opened the address serve printed (it goes on to the base URL
    without the key, and the browser holds the key's cookie from then on)."""
    browser.get(site.address)
    arrived(browser, site.base)
    return site.base


def arrived(browser: WebDriver, address: str) -> None:
    """Wait until the page the sign-in page's refresh goes on to is `address` and has loaded: the refresh runs
    after `get` returns, so the address can change while the new page is still being parsed."""
    wait(
        browser,
        lambda d: (
            d.current_url == address
            and d.execute_script("return document.readyState") == "complete"
            and d.find_elements(By.TAG_NAME, "h1")
        ),
    )


@pytest.fixture(scope="module")
def url(site: Site, browser: WebDriver) -> str:
    return signed_in(browser, site)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    binary, driver_path = chromium()
    profile = tempfile.mkdtemp(prefix="intent-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,900",
        f"--user-data-dir={profile}",
        "--no-first-run",
        # DNS rebinding, simulated: a hostile name that resolves to this machine
        "--host-resolver-rules=MAP evil.example 127.0.0.1",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(
        options=options,
        service=Service(executable_path=driver_path, env={"HOME": profile, "PATH": "/usr/bin:/bin"}),
    )
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait(browser: WebDriver, condition: object, timeout: float = 20) -> object:
    return WebDriverWait(browser, timeout).until(condition)  # type: ignore[arg-type]


def shown_panel(browser: WebDriver) -> str:
    panels = [p for p in browser.find_elements(By.CSS_SELECTOR, "#panels .panel") if p.is_displayed()]
    assert len(panels) == 1, [p.get_attribute("id") for p in panels]
    return panels[0].text


def test_clicking_a_gutter_line_shows_the_request_behind_it(
    browser: WebDriver, url: str, built: ReviewRepo
) -> None:
    browser.get(f"{url}file/{CHUNKING}")
    assert browser.find_element(By.ID, "hint").is_displayed()
    legend = browser.find_element(By.CSS_SELECTOR, "ul.legend").text
    assert (
        "claude-code session 0a0314fb" in legend
        and "written by a person" in legend
        and "unrecorded" in legend
    )

    agent_line = built.changed_line - 1
    browser.find_element(By.CSS_SELECTOR, f"#L{agent_line} td.gutter a").click()
    panel = shown_panel(browser)
    assert panel.startswith("claude-code · session 0a0314fb · message b2f3c599 · Edit")
    request = browser.find_element(By.CSS_SELECTOR, "#panels .panel:not([hidden]) figure.request blockquote")
    assert request.text.startswith(REQUEST_S0)
    assert "REASONING" in panel and "EDIT" in panel and "THEN SAID" in panel
    assert not browser.find_element(By.ID, "hint").is_displayed()
    assert urlsplit(browser.current_url).query == f"line={agent_line}"

    # keyboard: the next line is the one Pat changed
    browser.find_element(By.ID, "code").send_keys(Keys.ARROW_DOWN)
    assert "selected" in (browser.find_element(By.ID, f"L{built.changed_line}").get_attribute("class") or "")
    assert "Written by a person (Pat Person)" in shown_panel(browser)
    browser.find_element(By.CSS_SELECTOR, "#L1 td.gutter a").click()
    assert f"Commit {built.unrecorded[:12]} has no git-intent note" in shown_panel(browser)

    # the panel links to the full message
    browser.find_element(By.CSS_SELECTOR, f"#L{agent_line} td.gutter a").click()
    browser.find_element(By.LINK_TEXT, "Full message").click()
    wait(browser, lambda d: "/message/" in d.current_url)
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("assistant")
    assert f"git intent show {S0}:b2f3c599-0740-40d5-9f43-d4f2332d829c" in browser.page_source


def test_the_fidelity_control_changes_the_stored_choice(
    browser: WebDriver, url: str, built: ReviewRepo
) -> None:
    browser.get(f"{url}session/{S8}")
    rows = browser.find_elements(By.CSS_SELECTOR, "table.topics tbody tr")
    assert [r.get_attribute("id") for r in rows] == ["topic-t1", "topic-t2"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.bar rect")) == 2
    assert levels(built) == {}

    old = browser.find_element(By.TAG_NAME, "h1")
    Select(browser.find_element(By.CSS_SELECTOR, "select[data-topic=t2]")).select_by_value("hidden")
    wait(browser, lambda d: not _attached(old))  # the form submitted itself and the page came back
    assert levels(built) == {"t2": "hidden"}
    assert browser.find_element(By.CSS_SELECTOR, ".fid-state[data-topic=t2]").text == "hidden (your choice)"
    assert (
        Select(browser.find_element(By.CSS_SELECTOR, "select[data-topic=t2]")).first_selected_option.text
        == "hidden"
    )

    old = browser.find_element(By.TAG_NAME, "h1")
    Select(browser.find_element(By.CSS_SELECTOR, "select[data-topic=t2]")).select_by_value("auto")
    wait(browser, lambda d: not _attached(old))
    assert levels(built) == {}


def _attached(element: object) -> bool:
    try:
        element.is_enabled()  # type: ignore[attr-defined]
        return True
    except Exception:
        return False


def test_a_transcript_holding_script_renders_inert(browser: WebDriver, url: str, built: ReviewRepo) -> None:
    literal = "<script>window.__pwned = 1</script>"
    for path in (
        f"session/{built.script_session}",
        f"message/{built.script_session}/{built.script_prompt}",
        f"message/{built.script_session}/{built.script_edit}",
        f"file/{SCRIPT_FILE}?line=3",
        "review?range=HEAD",
        "search?q=pwned",
    ):
        browser.get(url + path)
        assert browser.execute_script("return window.__pwned") is None, path
        scripts = [s.get_attribute("src") for s in browser.find_elements(By.TAG_NAME, "script")]
        assert scripts == [f"{url}static/intent.js"], path
        assert literal in browser.find_element(By.TAG_NAME, "main").text, path
    # The Write that put it in the file reads as a diff, the transcript's `<script>` as text on an added line.
    browser.get(f"{url}message/{built.script_session}/{built.script_edit}")
    added = [line.text for line in browser.find_elements(By.CSS_SELECTOR, "pre.diff span.add")]
    assert f'+Keep {literal} literal & "quoted".' in added
    browser.get(f"{url}session/{built.script_session}")
    goal = browser.find_element(By.CSS_SELECTOR, "dd.goal").text
    assert goal.startswith(SCRIPT_PROMPT)  # the user's words as written, `<script>` included


def test_a_rebinding_host_name_is_refused(
    browser: WebDriver, url: str, site: Site, built: ReviewRepo
) -> None:
    port = urlsplit(url).port
    browser.get(f"http://evil.example:{port}/?token={site.key}")
    assert browser.find_element(By.TAG_NAME, "body").text.startswith(
        "Forbidden: git intent serve answers only requests to localhost"
    )
    browser.get(f"http://localhost:{port}/?token={site.key}")  # another host name: a cookie of its own
    arrived(browser, f"http://localhost:{port}/")
    assert browser.find_element(By.TAG_NAME, "h1").text == built.path.name


def test_without_the_key_the_browser_sees_no_page(
    browser: WebDriver, url: str, site: Site, built: ReviewRepo
) -> None:
    # another account's browser: it never opened the printed address
    browser.execute_cdp_cmd(
        "Network.deleteCookies", {"name": site.cookie.split("=")[0], "domain": "127.0.0.1"}
    )
    try:
        for page in ("", f"file/{CHUNKING}", f"session/{S8}", "static/intent.js"):
            browser.get(url + page)
            assert browser.find_element(By.TAG_NAME, "body").text == UNAUTHORIZED, page
        browser.get(f"{url}?token={'x' * len(site.key)}")
        assert browser.find_element(By.TAG_NAME, "body").text == UNAUTHORIZED
    finally:
        assert signed_in(browser, site) == url
    assert browser.find_element(By.TAG_NAME, "h1").text == built.path.name
    assert site.key not in browser.current_url


def test_open_signs_the_browser_in_through_its_file(
    browser: WebDriver, built: ReviewRepo, tmp_path: Path
) -> None:
    """The page --open hands the browser (a `file:` page) goes on to the address with the key, which sets the
    SameSite=Strict cookie and goes on to the start page: the cookie is sent there, though the first step came
    from another site."""
    with serving_opened(built, tmp_path) as (other, opened):
        browser.get(opened)
        arrived(browser, other.base)
        assert browser.find_element(By.TAG_NAME, "h1").text == built.path.name
        browser.get(f"{other.base}session/{S8}")
        assert browser.find_element(By.CSS_SELECTOR, "table.topics") is not None


def test_pages_read_without_javascript(browser: WebDriver, url: str, built: ReviewRepo) -> None:
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(f"{url}file/{CHUNKING}")
        browser.find_element(By.CSS_SELECTOR, f"#L{built.changed_line - 1} td.gutter a").click()
        wait(browser, lambda d: "line=" in d.current_url)
        assert REQUEST_S0 in shown_panel(browser)
        browser.get(f"{url}session/{S8}")
        assert browser.find_element(By.CSS_SELECTOR, "form.fidelity button").text == "Set"
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_ensure_chromium_is_idempotent_and_fast() -> None:
    chromium()  # installs them when missing, like the fixture
    for _ in range(2):
        proc = subprocess.run([str(ENSURE)], capture_output=True, text=True, timeout=30)
        assert proc.returncode == 0, proc.stderr
        browser, driver = proc.stdout.split()
        assert Path(browser).name in ("chromium", "chromium-browser") and Path(driver).name == "chromedriver"
        assert proc.stderr == ""  # nothing to install the second time


@dataclass
class TrailerRepo:
    """The demo repository plus tool.py, committed with a `Co-Authored-By: Claude` trailer and no
    transcript."""

    path: Path
    env: dict[str, str]
    commit: str


@pytest.fixture(scope="module")
def trailer_repo(tmp_path_factory: pytest.TempPathFactory) -> TrailerRepo:
    root = tmp_path_factory.mktemp("trailer")
    env = isolated_env(root / "home")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        run_demo(root / "demo")
    full = {**__import__("os").environ, **env}
    (root / "demo" / "tool.py").write_text("def tool():\n    return 42\n", encoding="utf-8")
    subprocess.run(["git", "add", "tool.py"], cwd=root / "demo", env=full, check=True)
    subprocess.run(
        ["git", "commit", "-q", "-m", "add the tool\n\nCo-Authored-By: Claude <noreply@anthropic.com>"],
        cwd=root / "demo",
        env=full,
        check=True,
    )
    sha = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root / "demo", env=full, capture_output=True, text=True, check=True
    ).stdout.strip()
    return TrailerRepo(path=root / "demo", env=full, commit=sha)


@pytest.fixture(scope="module")
def trailer_site(trailer_repo: TrailerRepo) -> Iterator[Site]:
    with serving(trailer_repo) as running:
        yield running


@pytest.fixture(scope="module")
def trailer_url(trailer_site: Site, browser: WebDriver) -> str:
    return signed_in(browser, trailer_site)


def opens(href: str, site: Site) -> int:
    try:
        with urllib.request.urlopen(
            urllib.request.Request(href, headers={"Cookie": site.cookie}), timeout=60
        ) as response:
            return int(response.status)
    except HTTPError as exc:
        return exc.code


def test_a_trailer_credit_says_agent_and_commit_and_links_nowhere_dead(
    browser: WebDriver, trailer_url: str, trailer_site: Site, trailer_repo: TrailerRepo
) -> None:
    sha = trailer_repo.commit[:12]
    browser.get(f"{trailer_url}file/tool.py")
    assert browser.find_element(By.CSS_SELECTOR, "ul.legend").text == (
        "claude-code by a commit's trailer (no transcript) (2 lines)"
    )
    browser.find_element(By.CSS_SELECTOR, "#L1 td.gutter a").click()
    panel = shown_panel(browser)
    author = subprocess.run(
        ["git", "log", "-1", "--format=%an"],
        cwd=trailer_repo.path,
        env=trailer_repo.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert panel.splitlines() == [
        f"claude-code · named by a trailer of commit {sha}; no transcript here, so no session or message "
        "to show",
        "in def tool",
        f"commit {sha} · {author}",
        "agent-assisted by the commit's trailer; no transcript here",
        "matched by trailer (confidence 0.50)",
    ]
    assert browser.find_elements(By.LINK_TEXT, "Full message") == []

    browser.get(f"{trailer_url}review?range={trailer_repo.commit}")
    assert (
        f"lines 1–2 · claude-code, named by a trailer of commit {sha}; no transcript here, so no session or "
        "message to show"
    ) in browser.find_element(By.TAG_NAME, "main").text
    for page in ("file/tool.py", f"review?range={trailer_repo.commit}", f"file/{CHUNKING}"):
        browser.get(trailer_url + page)
        hrefs = {a.get_attribute("href") or "" for a in browser.find_elements(By.TAG_NAME, "a")}
        cited = sorted(h for h in hrefs if "/message/" in h or "/session/" in h)
        assert all(not h.endswith(("/message//", "/session/")) and "/message//" not in h for h in cited), (
            cited
        )
        assert {h: opens(h, trailer_site) for h in cited} == {h: 200 for h in cited}, page

    # The agent's edit in the demo session, as a diff with the file's line numbers, not one line of JSON.
    browser.get(f"{trailer_url}message/{S0}/b2f3c599-0740-40d5-9f43-d4f2332d829c")
    diff = browser.find_element(By.CSS_SELECTOR, "pre.diff")

    def lines(kind: str) -> list[str]:  # as written (`.text` would fold the tabs)
        return [
            e.get_attribute("textContent") or "" for e in diff.find_elements(By.CSS_SELECTOR, f"span.{kind}")
        ]

    assert lines("hunk") == ["@@ -78,9 +78,15 @@"]
    assert "+\t\tif len(lineWithNewline) > maxSize {" in lines("add")
    assert lines("del") == ["-\tfor _, line := range lines {"]
    assert "old_string" not in browser.find_element(By.TAG_NAME, "main").text
