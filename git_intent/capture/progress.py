"""Where a long library call reports how far it is (`import`, `backfill`): the CLI draws a bar per stage on
stderr, anything else passes nothing and hears nothing."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """`stage` starts a step of `total` units (0: unknown); `advance` counts units done."""

    def stage(self, label: str, total: int) -> None: ...

    def advance(self, count: int = 1) -> None: ...


class Quiet:
    """A `Progress` that reports nowhere."""

    def stage(self, label: str, total: int) -> None:
        pass

    def advance(self, count: int = 1) -> None:
        pass
