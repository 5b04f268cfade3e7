"""The JSON objects commands print that no single library function returns whole (shared by the CLI and
the MCP server, so both print the same thing and one schema describes it)."""

from __future__ import annotations

from pydantic import BaseModel

from .fidelity.budget import RenderedContext
from .fidelity.choices import Level, MessageLevel


class ContextOutput(RenderedContext):
    """`git intent context SESSION --json`: the rendering, plus the commits each topic's edits are in
    (topic id -> 40-hex commits)."""

    topic_commits: dict[str, list[str]]


class FidelityChange(BaseModel):
    """`git intent fidelity SESSION TARGET LEVEL --json`: the choice made and every choice the session now
    has (topic id -> level, message id -> level); `auto` removes `target`'s choice."""

    session: str
    target: str
    level: str
    topics: dict[str, Level]
    messages: dict[str, MessageLevel]


class StatePaths(BaseModel):
    """`git intent path --json`: where git-intent keeps this repository's records and state. `fallback_queue`
    is the hooks' queue when `state` is not writable (None when HOME is unset); `session_cache` holds parsed
    sessions for every repository of this user (a cache: safe to delete)."""

    notes: str
    backup: str
    state: str
    hooks: str
    hook_log: str
    fallback_queue: str | None
    session_cache: str
