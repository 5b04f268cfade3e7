"""The annotator's daily token budget (`intent.annotateBudget`): tokens a model spent today, kept in private
state (`<git common dir>/intent/annotate-budget.json`, written whole under a lock)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from ..core.state_files import locked, private_dir, replace_file
from ..git.repo import Repository

BUDGET_FILE = "annotate-budget.json"


def _today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def _path(repo: Repository) -> Path:
    return private_dir(repo.state_dir) / BUDGET_FILE


def spent_today(repo: Repository) -> int:
    """Model tokens the annotator spent today (UTC day); 0 when nothing is recorded for today."""
    try:
        data = json.loads(_path(repo).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    if not isinstance(data, dict) or data.get("day") != _today():
        return 0
    tokens = data.get("tokens")
    return tokens if isinstance(tokens, int) and tokens > 0 else 0


def spend(repo: Repository, tokens: int) -> int:
    """Add `tokens` to today's spending; returns the total spent today. Raises OSError when the state folder
    cannot be written."""
    path = _path(repo)
    with locked(path.with_name(BUDGET_FILE + ".lock")):
        total = spent_today(repo) + max(0, tokens)
        replace_file(path, json.dumps({"day": _today(), "tokens": total}).encode("utf-8"))
    return total
