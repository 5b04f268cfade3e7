"""Settings: `git config intent.<key>`, overridden by the environment variable `GIT_INTENT_<KEY>`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from .core.errors import IntentError
from .git.repo import Repository

DEFAULT_LOOKBACK_DAYS = 7.0
# How far a rebase or cherry-pick may have moved work past its author date and still be found from it: the
# rebased commits of entireio/git-sync moved 7.4-13.7 days. A commit authored longer before (a
# cherry-pick of old work) is not searched back to then: that would read every transcript since.
REBASE_REACH = timedelta(days=30)


def setting(repo: Repository, key: str) -> str | None:
    """The raw value of `intent.<key>` (env `GIT_INTENT_<KEY>` first, camelCase → SNAKE_CASE), or None."""
    env = "GIT_INTENT_" + re.sub(r"(?<!^)(?=[A-Z])", "_", key).upper()
    if env in os.environ:
        return os.environ[env]
    value = repo.git("config", "--get", f"intent.{key}", check=False).strip()
    return value or None


def window_start(
    after: datetime | None, committed: datetime, authored: datetime, look_back: timedelta
) -> datetime:
    """The earliest time an edit may have been made to explain a line of a commit: `look_back` before its
    first parent's commit time `after` (its own commit time `committed` for a root commit, or for the
    content fallback), or before its author date `authored` when that is earlier, by `REBASE_REACH` at
    most. A rebase or cherry-pick keeps the author date of the work and moves it onto a newer parent:
    entireio/git-sync d851ee02ef08 was authored on 2026-04-15, when its session made the edits, and rebased
    onto a parent committed on 04-24, so a look-back from the parent alone missed all its 366 lines. Edits
    made by `after` (and its slack) still explain exact matches only
    (`capture/timeline.EditTimeline.window`)."""
    anchor = after or committed
    return max(min(anchor, authored), anchor - REBASE_REACH) - look_back


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
        raise IntentError(
            f"intent.lookbackDays must be a number of days, not {raw!r}.",
            hint="git config intent.lookbackDays 7",
        )
    return timedelta(days=days)


DEFAULT_MAX_STEPS = 8
DEFAULT_MAX_TOKENS = 20000  # transcript tokens (characters / 4) one answer may read
DEFAULT_TIMEOUT = 60.0  # seconds per model call


@dataclass(frozen=True)
class ModelSettings:
    """The sub-agent's settings: `model` is a litellm model string or None (answer offline);
    `api_base` a server URL passed to litellm (a local OpenAI-compatible server); `max_steps` model calls
    per answer; `max_tokens` transcript tokens read per answer; `timeout` seconds per model call."""

    model: str | None
    api_base: str | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    max_tokens: int = DEFAULT_MAX_TOKENS
    timeout: float = DEFAULT_TIMEOUT


def model_settings(repo: Repository, model: str | None = None) -> ModelSettings:
    """Settings from `intent.model`, `intent.apiBase`, `intent.maxSteps`, `intent.maxTokens` and
    `intent.timeout` (each overridable by `GIT_INTENT_<KEY>`); `model` (the `--model` flag) wins.
    Raises IntentError for a limit that is not a positive number."""
    return ModelSettings(
        model=model or setting(repo, "model") or None,
        api_base=setting(repo, "apiBase") or None,
        max_steps=int(_positive(repo, "maxSteps", DEFAULT_MAX_STEPS, whole=True)),
        max_tokens=int(_positive(repo, "maxTokens", DEFAULT_MAX_TOKENS, whole=True)),
        timeout=_positive(repo, "timeout", DEFAULT_TIMEOUT, whole=False),
    )


def _positive(repo: Repository, key: str, default: float, *, whole: bool) -> float:
    raw = setting(repo, key)
    if raw is None:
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        value = 0
    if value <= 0:
        kind = "a whole number" if whole else "a number of seconds"
        raise IntentError(
            f"intent.{key} must be {kind} above 0, not {raw!r}.",
            hint=f"git config intent.{key} {int(default) if whole else default:g}",
        )
    return float(value)


# Model tokens a day for annotations: ~210 turns at the 950 tokens a turn bench/annotate_cost.py measured (830
# prompt, 120 completion; a model writing Decant's 300-500 completion tokens a turn halves that).
DEFAULT_ANNOTATE_BUDGET = 200_000


@dataclass(frozen=True)
class AnnotateSettings:
    """Annotation settings: `background` (`intent.annotate`: the capture worker annotates the sessions it
    recorded) and `budget` (`intent.annotateBudget`: model tokens, prompt and completion, a day)."""

    background: bool = False
    budget: int = DEFAULT_ANNOTATE_BUDGET


def annotate_settings(repo: Repository) -> AnnotateSettings:
    """`intent.annotate` (true/false, git's boolean words) and `intent.annotateBudget`, each overridable by
    `GIT_INTENT_<KEY>`. Raises IntentError for a value that is neither."""
    raw = (setting(repo, "annotate") or "false").strip().lower()
    if raw not in ("true", "yes", "on", "1", "false", "no", "off", "0"):
        raise IntentError(
            f"intent.annotate must be true or false, not {raw!r}.", hint="git config intent.annotate true"
        )
    return AnnotateSettings(
        background=raw in ("true", "yes", "on", "1"),
        budget=int(_positive(repo, "annotateBudget", DEFAULT_ANNOTATE_BUDGET, whole=True)),
    )
