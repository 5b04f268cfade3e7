"""A chat log the clone brought in is not evidence of itself: a committed `.aider.chat.history.md` that
names the clone's path and quotes a forged request credits nothing on a fresh clone, while what this user's
own aider appends to it still does, and `import --from aider` (on purpose) still reads it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from support import git, make_repo, run_cli

FORGED = "security approved disabling verification"
CODE = "def fetch(url):\n    return get(url, verify=False)\n"


def _session(started: datetime, request: str, path: str, code: str, clone: Path, commit: str = "") -> str:
    lines = "".join(code.splitlines(keepends=True))
    committed = f"> Commit {commit} edit {path}  \n" if commit else ""
    return (
        f"\n# aider chat started at {started:%Y-%m-%d %H:%M:%S}\n\n"
        f"> Aider v0.48.0  \n> Git repo: {clone}/.git  \n\n"
        f"#### {request}  \n\n"
        f"{path}\n```python\n<<<<<<< SEARCH\n=======\n{lines}>>>>>>> REPLACE\n```\n\n"
        f"> Applied edit to {path}  \n{committed}"
    )


def _blame(root: Path, where: str) -> dict[str, Any]:
    proc = run_cli("blame", where, "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["lines"][0]  # type: ignore[no-any-return]


def _forged_clone(tmp_path: Path) -> Path:
    """A repository whose author committed the code and a history "proving" an agent wrote it on request,
    naming the path the victim will clone to; then the victim's fresh clone."""
    clone = tmp_path / "clone"
    origin = make_repo(tmp_path / "origin")
    (origin / "net.py").write_text(CODE)
    started = datetime.now() - timedelta(hours=2)
    (origin / ".aider.chat.history.md").write_text(
        _session(started, f"{FORGED}, turn it off in fetch", "net.py", CODE, clone.resolve())
    )
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "fetch without verification")
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return clone.resolve()


def test_a_committed_history_credits_nothing_on_a_fresh_clone(tmp_path: Path) -> None:
    clone = _forged_clone(tmp_path)
    line = _blame(clone, "net.py:2")
    assert line["line_class"] == "unrecorded" and line["attribution"] is None
    assert FORGED not in json.dumps(line)
    why = run_cli("why", "net.py:2", cwd=clone)
    assert why.returncode == 0 and FORGED not in why.stdout
    sessions = run_cli("sessions", "--json", cwd=clone)
    assert sessions.returncode == 0 and "aider" not in sessions.stdout


def test_what_this_users_aider_appends_to_a_tracked_history_still_counts(tmp_path: Path) -> None:
    clone = _forged_clone(tmp_path)
    local = "def retry(times):\n    return max(times, 1)\n"
    (clone / "retry.py").write_text(local)
    history = clone / ".aider.chat.history.md"
    history.write_text(
        history.read_text()
        + _session(datetime.now() - timedelta(minutes=5), "add a retry helper", "retry.py", local, clone)
    )
    git(clone, "add", "retry.py")
    git(clone, "commit", "-q", "-m", "retry helper")
    mine = _blame(clone, "retry.py:2")
    assert mine["line_class"] != "unrecorded" and mine["attribution"]["agent"] == "aider"
    assert "add a retry helper" in json.dumps(mine)
    forged = _blame(clone, "net.py:2")
    assert forged["attribution"] is None and FORGED not in json.dumps(forged)


def test_import_reads_a_tracked_history_on_purpose(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    (origin / "net.py").write_text(CODE)
    git(origin, "add", "net.py")
    git(origin, "commit", "-q", "-m", "fetch")
    short = git(origin, "rev-parse", "--short", "HEAD").strip()
    (origin / ".aider.chat.history.md").write_text(
        _session(
            datetime.now() - timedelta(hours=1), "make fetch skip verification", "net.py", CODE, origin, short
        )
    )
    git(origin, "add", ".aider.chat.history.md")
    git(origin, "commit", "-q", "-m", "keep the chat")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    assert _blame(clone, "net.py:2")["attribution"] is None
    proc = run_cli("import", "--from", "aider", "--json", cwd=clone)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["lines_attributed"] == 2
    line = _blame(clone, "net.py:2")
    assert line["attribution"]["agent"] == "aider" and "skip verification" in json.dumps(line)
