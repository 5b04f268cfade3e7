"""The JSON objects commands print that no single library function returns whole (shared by the CLI and
the MCP server, so both print the same thing and one schema describes it)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from .fidelity.budget import RenderedContext
from .fidelity.choices import Level, MessageLevel
from .fidelity.topics import Topic


class ContextOutput(RenderedContext):
    """`git intent context SESSION --json`: the rendering, plus the commits each topic's edits are in
    (topic id -> 40-hex commits)."""

    topic_commits: dict[str, list[str]]


class TopicAnnotation(BaseModel):
    """A topic as its annotations describe it: label, summary, placeholder, the key facts kept verbatim at
    every level, and who wrote them (offline segmentation, a model, or the agent)."""

    topic_id: str
    label: str
    summary: str
    placeholder: str
    key_facts: list[str]
    source: Literal["offline", "model", "agent"]


class FidelityChange(BaseModel):
    """`git intent fidelity SESSION TARGET LEVEL --json`: the choice made and every choice the session now
    has (topic id -> level, message id -> level); `auto` removes `target`'s choice. `topic`: the target
    topic's annotation (None for a message)."""

    session: str
    target: str
    level: str
    topics: dict[str, Level]
    messages: dict[str, MessageLevel]
    topic: TopicAnnotation | None = None


def topic_annotation(topic: Topic | None) -> TopicAnnotation | None:
    """`topic` (from `fidelity.context.find_topic`) as a TopicAnnotation; None for None."""
    if topic is None:
        return None
    return TopicAnnotation(
        topic_id=topic.topic_id,
        label=topic.label,
        summary=topic.summary,
        placeholder=topic.placeholder,
        key_facts=list(topic.facts) if topic.source != "offline" else [f.text for f in topic.key_facts],
        source=topic.source,
    )


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
