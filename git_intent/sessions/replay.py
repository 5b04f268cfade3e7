"""Replaying a session's edits onto files: the texts before the session and after it, from `Session.edits`.

For the demo (and tests): an edit whose transcript recorded the whole file (`Edit.before`/`Edit.after`,
Claude Code's `toolUseResult.originalFile`) shows what each file held before the session's first edit of
it and after its last, so a repository can be rebuilt as it was. No transcript format is read here: the
adapters did that.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..core.values import Session

__all__ = ["Rebuild", "commit_replayed", "rebuild", "write_replayed"]


@dataclass
class Rebuild:
    """File texts before and after one session's successful edits, keyed by the recorded path."""

    pre: dict[str, str]  # recorded absolute path -> file text before the session's first edit of it
    post: dict[str, str]  # recorded absolute path -> file text after the session's last edit of it
    first_edit_at: str  # ISO-8601 timestamp of the first applied edit ("" when none was)
    last_edit_at: str  # ISO-8601 timestamp of the last applied edit ("" when none was)
    edits_applied: int


def rebuild(session: Session) -> Rebuild:
    """The files `session` edited, before and after, from its edits that carry whole-file texts.

    Edits without them (a shell write, an edit whose result never arrived, most agents' patches) are
    left out; when the file changed between two edits (a person, a formatter), `post` is the text after
    the last edit, changes included.
    """
    pre: dict[str, str] = {}
    post: dict[str, str] = {}
    stamps: list[str] = []
    for edit in session.edits:
        if edit.before is None or edit.after is None:
            continue
        pre.setdefault(edit.path, edit.before)
        post[edit.path] = edit.after
        stamps.append(edit.timestamp.isoformat() if edit.timestamp else "")
    return Rebuild(
        pre=pre,
        post=post,
        first_edit_at=stamps[0] if stamps else "",
        last_edit_at=stamps[-1] if stamps else "",
        edits_applied=len(stamps),
    )


def write_replayed(root: Path, files: dict[str, str], cwd: str) -> list[str]:
    """Write files recorded under `cwd` (often another machine's folder) at the same relative paths
    below `root`; returns those relative paths. Raises ValueError for a path outside `cwd`."""
    base = cwd.rstrip("/") + "/"
    written: list[str] = []
    for recorded, text in files.items():
        if not recorded.startswith(base):
            raise ValueError(f"{recorded} is not below the session's folder {cwd}.")
        relative = recorded[len(base) :]
        target = (root / relative).resolve()
        if not target.is_relative_to(root.resolve()):
            raise ValueError(f"{recorded} would be written outside {root}.")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")
        written.append(relative)
    return written


def commit_replayed(
    root: Path, message: str, when: datetime, author: str = "A Person <person@example.com>"
) -> str:
    """Commit everything in `root` at `when` as `author` (no hooks, no signing); returns the commit's sha."""
    name, _, email = author.partition(" <")
    stamp = when.isoformat()
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email.rstrip(">"),
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email.rstrip(">"),
    }
    options = ["-c", "commit.gpgsign=false", "-c", f"core.hooksPath={root / '.git' / 'no-hooks'}"]
    for args in (["add", "-A"], ["commit", "-q", "--allow-empty", "-m", message]):
        subprocess.run(["git", *options, *args], cwd=root, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
