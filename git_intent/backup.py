"""The local backup under `<work tree>/.opencode/intent/`: a journal of every link and session copies.

The copies keep the why answerable after an agent deletes its transcript (Claude Code deletes after 30
days by default). The folder is listed in `.git/info/exclude` so it is never committed; files are 0600.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from .models import Session
from .repo import Repository

EXCLUDE_LINE = "/.opencode/intent/"
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$")


def ensure_excluded(repo: Repository) -> bool:
    """Add the backup folder to `<common dir>/info/exclude`; True when the file was changed."""
    exclude = repo.common_dir / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    current = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    if EXCLUDE_LINE in current.splitlines():
        return False
    with exclude.open("a", encoding="utf-8") as handle:
        handle.write(("" if not current or current.endswith("\n") else "\n") + EXCLUDE_LINE + "\n")
    return True


def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def append_journal(repo: Repository, entry: dict[str, Any]) -> None:
    """Append one JSON line to `journal.jsonl` (created 0600)."""
    ensure_excluded(repo)
    folder = _private_dir(repo.backup_dir)
    fd = os.open(folder / "journal.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, sort_keys=True) + "\n")


def session_copy_path(repo: Repository, agent: str, session_id: str) -> Path | None:
    """Where the copy of a session lives, or None when the id is not a safe file name."""
    if not _SAFE_ID.match(session_id) or not _SAFE_ID.match(agent):
        return None
    path = repo.backup_dir / "sessions" / agent / f"{session_id}.jsonl"
    return path if path.resolve().is_relative_to(repo.backup_dir.resolve()) else None


def copy_session(repo: Repository, session: Session) -> Path | None:
    """Copy the session's transcript into the backup when it is new or has grown; returns the copy."""
    dest = session_copy_path(repo, session.agent, session.session_id)
    if dest is None:
        return None
    source = session.transcript
    try:
        if source.resolve() == dest.resolve():
            return dest
        if dest.exists() and dest.stat().st_size >= source.stat().st_size:
            return dest
        ensure_excluded(repo)
        _private_dir(dest.parent)
        tmp = dest.with_suffix(".tmp")
        shutil.copyfile(source, tmp)
        os.chmod(tmp, 0o600)
        os.replace(tmp, dest)
    except OSError:
        return None
    return dest


def session_copies(repo: Repository) -> list[tuple[str, Path]]:
    """Every (agent, copy path) in the backup."""
    base = repo.backup_dir / "sessions"
    if not base.is_dir():
        return []
    return [(folder.name, path) for folder in sorted(base.iterdir()) if folder.is_dir()
            for path in sorted(folder.glob("*.jsonl"))]
