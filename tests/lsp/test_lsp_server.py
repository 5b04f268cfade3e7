"""`git intent lsp` through pygls's own client on the demo repository (a real Claude Code session recorded by
the real hook): hover, code lenses resolved lazily, the showMessage command, `git-intent:` documents, and
unsaved edits mapped back through the buffer's diff."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_client import Session, run_server, uri

from git_intent.demo import run_demo

SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"
MESSAGE = "b2f3c599-0740-40d5-9f43-d4f2332d829c"
FILE = "cmd/entire/cli/agent/chunking.go"
REQUEST = "handle if a single jsonl line is bigger then chunk size"


@pytest.fixture(scope="module")
def demo_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lsp") / "demo"
    run_demo(folder)
    return folder
