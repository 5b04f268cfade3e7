"""`git intent sessions` lists this repository's sessions with their commits, and none of another's."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from conftest import git, run_cli
from support import ClaudeSession, Clock


def test_sessions_lists_this_repositorys_sessions_and_their_commits(repo: Path, tmp_path: Path) -> None:
    root = repo.resolve()
    start = datetime.now(timezone.utc) - timedelta(minutes=30)
    mine = ClaudeSession(cwd=root, clock=Clock(start))
    mine.prompt("Add a helper")
    mine.write("Writing it.", root / "helper.py", "def helper_function(value):\n    return value * 3\n")
    mine.save()
    other_root = tmp_path / "other"
    other_root.mkdir()
    theirs = ClaudeSession(cwd=other_root, clock=Clock(start))
    theirs.prompt("Elsewhere")
    theirs.write("Writing there.", other_root / "x.py", "x = 1\n")
    theirs.save()
    git(root, "add", "helper.py")
    git(root, "commit", "-q", "-m", "helper")
    sha = git(root, "rev-parse", "HEAD").strip()
    assert run_cli("record", cwd=root).returncode == 0
    proc = run_cli("sessions", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert [(s["agent"], s["session_id"], s["commits"], s["files"], s["messages"], s["edits"]) for s in listed] == [
        ("claude-code", mine.session_id, [sha], ["helper.py"], 3, 1)]
    text = run_cli("sessions", cwd=root).stdout
    assert mine.session_id in text and sha[:12] in text
    assert json.loads(run_cli("sessions", "--agent", "codex", "--json", cwd=root).stdout) == []
