"""Progress bars on stderr for long commands (import, backfill, index): click's bar, one per stage, shown only
when stderr is a terminal and never with `--json`, so nothing reaches stdout or a log."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

import click

__all__ = ["Bars"]


class Bars:
    """Successive progress bars: `stage(label, total)` closes the current bar and starts the next (a long step
    with no count, like reading every checkpoint before the first commit is recorded, gets a bar of its own);
    `advance(n)` moves the current one; `update` is `advance` (the one-argument callback the library takes).
    A context manager: the last bar is closed on leaving."""

    def __init__(self, *, hidden: bool = False) -> None:
        self.hidden = hidden or not sys.stderr.isatty()
        self._bar: Any = None

    def stage(self, label: str, total: int) -> None:
        self.close()
        if not self.hidden:
            self._bar = click.progressbar(length=total, label=label, file=sys.stderr)
            self._bar.__enter__()

    def advance(self, count: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(count)

    update = advance

    def close(self) -> None:
        if self._bar is not None:
            bar, self._bar = self._bar, None
            bar.__exit__(None, None, None)

    def __enter__(self) -> Bars:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
