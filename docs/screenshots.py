"""Regenerate the screenshots of `git intent serve` in docs/ (serve-file.png, serve-session.png) and of
`git intent serve --org` (org-dashboard.png).

Builds the test repository from the linked fixtures (tests/support/review_repo.py: three real entire-cli
commits and their Claude Code sessions, in a temporary folder with HOME isolated), serves it, and photographs
two pages with Debian's headless Chromium (scripts/ensure-chromium installs it when missing). With `org`, it
loads a generated organisation (`org_shot.py`: eight repositories, twelve weeks, three agents) into a SQLite
org store and photographs its dashboard.

Run: .venv/bin/python docs/screenshots.py [org]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "docs"))

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from support.browser import chromium  # noqa: E402
from support.review_repo import CHUNKING, S8, build_review_repo, serving  # noqa: E402


def main() -> None:
    if sys.argv[1:] == ["org"]:
        from org_shot import org_dashboard

        org_dashboard(ROOT / "docs" / "org-dashboard.png")
        return
    binary, driver_path = chromium()
    with tempfile.TemporaryDirectory(prefix="intent-shots-") as folder:
        built = build_review_repo(Path(folder))
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for argument in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1400,860",
            "--hide-scrollbars",
            f"--user-data-dir={folder}/profile",
        ):
            options.add_argument(argument)
        browser = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
        try:
            with serving(built) as site:
                browser.get(site.address)  # the key's cookie, then the start page
                url = site.base
                shots = {
                    "serve-file.png": f"{url}file/{CHUNKING}?line={built.changed_line - 1}"
                    f"#L{built.changed_line - 1}",
                    "serve-session.png": f"{url}session/{S8}",
                }
                for name, page in shots.items():
                    browser.get(page)
                    browser.execute_script("return new Promise(r => requestAnimationFrame(() => r()))")
                    browser.save_screenshot(str(ROOT / "docs" / name))
                    print(f"wrote docs/{name}")
        finally:
            browser.quit()


if __name__ == "__main__":
    main()
