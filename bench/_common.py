"""What the benchmarks share: an isolated HOME, git config and agent folders, so no run touches yours."""

from __future__ import annotations

import os
from pathlib import Path


def isolate(root: Path) -> Path:
    """Point HOME, git's global config and the agents' folders into `root`; returns the fake HOME."""
    home = root / "home"
    home.mkdir()
    os.environ.update({
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        # With no global config, `git notes add` (inside record_commit) needs an identity from somewhere;
        # run_demo sets its own only for its two commits.
        "GIT_AUTHOR_NAME": "Bench Person", "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "Bench Person", "GIT_COMMITTER_EMAIL": "bench@example.com",
    })
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_INTENT", "GIT_INTENT_HOOK_SYNC"):
        os.environ.pop(name, None)
    return home
