"""The hook shims' entry point (`python -P -m git_intent.hook drain`, the `git-intent-hook` script): hooks
installed by any version call this path, so it stays here; the work is `capture.hook`. Standard library
only."""

from __future__ import annotations

import sys

from .capture.hook import main, shim_main

__all__ = ["main", "shim_main"]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
