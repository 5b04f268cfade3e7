"""Agent transcript adapters: one module per format, all satisfying `Adapter`, listed in `ADAPTERS`.

An adapter discovers an agent's transcripts for a work tree, sniffs whether a file is its format, and
reads a file into sessions. Adapters do no git and no SQLite. Third-party adapters may register a module
(or any object satisfying `Adapter`) under the entry-point group `git_intent.adapters`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Protocol

from ..models import Session
from . import aider, claude_code, codex, cursor, gemini_cli, opencode


class Adapter(Protocol):
    """What every transcript format provides."""

    NAME: str

    def discover(self, root: Path, since: datetime | None = None) -> Iterator[Path]:
        """Transcript files that may hold sessions of the work tree `root`, touched at or after `since`."""
        ...

    def sniff(self, path: Path) -> bool:
        """Whether `path` looks like a transcript of this agent (reads at most a few KB)."""
        ...

    def read(self, path: Path) -> list[Session]:
        """Every session in the file; unreadable records are skipped and counted in `Session.stats`."""
        ...


ADAPTERS: dict[str, Adapter] = {
    "claude-code": claude_code,
    "codex": codex,
    "opencode": opencode,
    "gemini-cli": gemini_cli,
    "cursor": cursor,
    "aider": aider,
}


@lru_cache(maxsize=1)
def all_adapters() -> dict[str, Adapter]:
    """Built-in adapters plus those registered under the `git_intent.adapters` entry-point group.

    Cached: scanning installed distributions for entry points costs ~2.5 ms a call.
    """
    found = dict(ADAPTERS)
    for point in entry_points(group="git_intent.adapters"):
        if point.name not in found:
            try:
                found[point.name] = point.load()
            except Exception:  # a broken plug-in must not break blame; it is simply absent
                continue
    return found


def sniff(path: Path) -> Adapter | None:
    """The adapter whose format `path` is in, or None."""
    for adapter in all_adapters().values():
        if adapter.sniff(path):
            return adapter
    return None
