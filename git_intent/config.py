"""Settings: `git config intent.<key>`, overridden by the environment variable `GIT_INTENT_<KEY>`."""

from __future__ import annotations

import os
import re
from datetime import timedelta

from .errors import IntentError
from .repo import Repository

DEFAULT_LOOKBACK_DAYS = 7.0


def setting(repo: Repository, key: str) -> str | None:
    """The raw value of `intent.<key>` (env `GIT_INTENT_<KEY>` first, camelCase → SNAKE_CASE), or None."""
    env = "GIT_INTENT_" + re.sub(r"(?<!^)(?=[A-Z])", "_", key).upper()
    if env in os.environ:
        return os.environ[env]
    value = repo.git("config", "--get", f"intent.{key}", check=False).strip()
    return value or None


def lookback(repo: Repository) -> timedelta:
    """How far before the parent commit an agent's edit may still explain a line of the commit
    (`intent.lookbackDays`, default 7): people commit an agent's work in pieces, hours or days later.
    Raises IntentError for a value that is not a non-negative number."""
    raw = setting(repo, "lookbackDays")
    if raw is None:
        return timedelta(days=DEFAULT_LOOKBACK_DAYS)
    try:
        days = float(raw)
    except ValueError:
        days = -1.0
    if days < 0:
        raise IntentError(f"intent.lookbackDays must be a number of days, not {raw!r}.",
                          hint="git config intent.lookbackDays 7")
    return timedelta(days=days)
