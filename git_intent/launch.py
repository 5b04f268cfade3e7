"""The `git-intent` console script: the resident process when asked for and able (`resident.py`), else the CLI.

Standard library only until the CLI is needed, so a call the resident process answers costs about as much
as starting Python (bench/blame_latency.py, rows b and k).
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    """Entry point: hand read-only commands to the resident process with GIT_INTENT_RESIDENT=1."""
    if os.environ.get("GIT_INTENT_RESIDENT") == "1":
        from .resident import ask_resident, enabled

        argv = sys.argv[1:]
        if enabled(argv):
            code = ask_resident(argv)
            if code is not None:
                sys.exit(code)
    from .cli import main as cli_main

    cli_main()
