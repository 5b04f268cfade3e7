"""Debian's headless Chromium and its chromedriver for the browser tests and docs/screenshots.py, installed
through scripts/ensure-chromium when missing (a failure says why: the browser tests never skip)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

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
