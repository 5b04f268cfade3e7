"""Regenerate the man pages (docs/man/git-intent*.1) from the CLI with click-man, so `git intent --help` (git
runs `man git-intent`) opens a real page; the wheel installs them under share/man/man1 (pyproject.toml).

Run: .venv/bin/python docs/gen_man.py   (tests/test_docs.py fails when a page is stale)
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from click_man.core import write_man_pages

from git_intent import __version__
from git_intent.cli import cli

OUT = Path(__file__).with_name("man")
DATE = "2026-11-28"  # fixed, so a page changes only when the CLI does


def render() -> dict[str, str]:
    """{file name: page} for `git-intent` and each `git-intent-COMMAND`."""
    with tempfile.TemporaryDirectory() as tmp:
        write_man_pages("git-intent", cli, version=__version__, target_dir=tmp, date=DATE)
        return {p.name: p.read_text(encoding="utf-8") for p in sorted(Path(tmp).glob("*.1"))}


if __name__ == "__main__":
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir()
    for name, page in render().items():
        (OUT / name).write_text(page, encoding="utf-8")
    print(f"wrote {len(list(OUT.glob('*.1')))} pages to {OUT}")
