"""Debian's headless Chromium and its chromedriver for the browser tests and docs/screenshots.py, installed
through scripts/ensure-chromium when missing (a failure says why: the browser tests never skip)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ENSURE = Path(__file__).resolve().parents[2] / "scripts" / "ensure-chromium"


def chromium() -> tuple[str, str]:
    """Paths of chromium and chromedriver, installing them through scripts/ensure-chromium when missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser and driver:
        return browser, driver
    proc = subprocess.run([str(ENSURE)], capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0 or len(proc.stdout.split()) < 2:
        pytest.fail(
            "The browser tests need Debian's chromium and chromium-driver, and scripts/ensure-chromium "
            f"could not install them:\n{proc.stderr.strip()}"
        )
    browser, driver = proc.stdout.split()[-2:]
    return browser, driver


def headless_chrome(profile: str, size: str = "1400,900") -> Any:
    """A Selenium driver of Debian's headless Chromium with its profile (and HOME) in `profile`; the caller
    quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={size}",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        "--no-first-run",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(
        options=options,
        service=Service(executable_path=driver_path, env={"HOME": profile, "PATH": "/usr/bin:/bin"}),
    )
    driver.set_page_load_timeout(60)
    return driver
