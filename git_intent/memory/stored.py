"""What an update leaves in `<git common dir>/intent/memory/` besides the log, read back cheaply: the project
state, the files each session edited, and the JSON helpers (no session is read here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.values import validate_json
from ..git.repo import Repository
from .log import log_path, read_log, view
from .reflect import derive_state
from .share import shared_observations
from .values import ProjectState

CURSOR = "observed.json"  # per session: messages observed offline and by the model, files edited
STATE = "state.json"  # the project state derived at the last update
GUARD = "guard.json"  # the edit guard's index (guard.py)


def project_state(repo: Repository) -> ProjectState:
    """The state derived at the last update (derived now from the log when none was written yet)."""
    path = repo.state_dir / "memory" / STATE
    try:
        return validate_json(ProjectState, path.read_bytes())
    except (OSError, ValueError):
        log = read_log(log_path(repo))
        return derive_state(view([*log, *shared_observations(repo)]), len(log))


def edited_files(repo: Repository) -> dict[str, list[str]]:
    """session id → repository files the session edited (as of the last update)."""
    edited = load_json(repo.state_dir / "memory" / CURSOR).get("edited", {})
    return edited if isinstance(edited, dict) else {}


def load_json(path: Path) -> dict[str, Any]:
    """A JSON object from `path`, or {} when it is missing, unreadable or not an object."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
