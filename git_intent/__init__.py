"""git-intent: why is this line here? Links commits to the coding-agent sessions and messages that wrote them.

The façade below is loaded lazily so that `python -m git_intent.capture.hook` (the post-commit fast path)
imports only the standard library.
"""

from __future__ import annotations

from .core.version import __version__

# Not `from typing import TYPE_CHECKING`: importing typing costs the resident process's client (launch.py)
# ~4 ms of the ~25 it spends; type checkers take this constant as typing's.
TYPE_CHECKING = False

__all__ = [
    "Repository",
    "blame_lines",
    "find_session",
    "install",
    "log_commits",
    "read_transcript",
    "record_commit",
    "uninstall",
    "__version__",
]

_EXPORTS = {
    "Repository": "git_intent.git.repo",
    "blame_lines": "git_intent.explain.blame",
    "find_session": "git_intent.sessions.discovery",
    "read_transcript": "git_intent.sessions.discovery",
    "record_commit": "git_intent.capture.record",
    "log_commits": "git_intent.explain.log",
    "install": "git_intent.capture.install",
    "uninstall": "git_intent.capture.install",
}

if TYPE_CHECKING:
    from typing import Any

    from .capture.install import install, uninstall
    from .capture.record import record_commit
    from .explain.blame import blame_lines
    from .explain.log import log_commits
    from .git.repo import Repository
    from .sessions.discovery import find_session, read_transcript


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'git_intent' has no attribute {name!r}")
