"""Named crash points for fault tests: `GIT_INTENT_CRASH_AT=<name>` ends the process there at once."""

from __future__ import annotations

import os

CRASH_EXIT = 86


def crash_point(name: str) -> None:
    """Exit immediately (no cleanup, like a kill -9) when `GIT_INTENT_CRASH_AT` names this point."""
    if os.environ.get("GIT_INTENT_CRASH_AT") == name:
        os._exit(CRASH_EXIT)
