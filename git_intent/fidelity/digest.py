"""A session's digest: a small typed summary of its goals, decisions, changed files and open questions."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from ..core.values import Session
from ..sessions.prose import is_confirmation
from ..sessions.prose import request_text as _request_text
from .topics import KeyFact, Topic, clip, display_path, edit_line_counts, message_tokens

GOAL_CHARS = 300


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Goal(_Value):
    """A request that opened a topic: its text (clipped to 300 characters) and where it was said."""

    topic_id: str
    message_id: str
    text: str


class FileChange(_Value):
    """One file the session edited: lines added and removed over all its edits (a line diff of each
    edit's old and new text), how many edits, by which tools, in which topics."""

    path: str
    added: int
    removed: int
    edits: int
    created: bool = False
    deleted: bool = False
    tools: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()


class OpenQuestion(_Value):
    """A question the user asked that no edit and no assistant answer followed."""

    message_id: str
    text: str


class DigestCounts(_Value):
    """Sizes of a session; `tokens` is estimated as characters / 4."""

    messages: int = 0
    prompts: int = 0
    assistant: int = 0
    tool_calls: int = 0
    tool_results: int = 0
    edits: int = 0
    topics: int = 0
    tokens: int = 0


class Digest(_Value):
    """What a session was about, in a few fields: shown by `git intent show SESSION` and at the head of
    a rendered context."""

    agent: str
    session_id: str
    started_at: datetime | None = None
    ended_at: datetime | None = None
    goals: tuple[Goal, ...] = ()
    decisions: tuple[KeyFact, ...] = ()
    files: tuple[FileChange, ...] = ()
    open_questions: tuple[OpenQuestion, ...] = ()
    counts: DigestCounts = DigestCounts()


def session_digest(session: Session, topics: list[Topic]) -> Digest:
    """The digest of `session`, whose topics are `topics` (from `segment_topics`)."""
    topic_of = {message_id: topic.topic_id for topic in topics for message_id in topic.message_ids}
    by_id = {m.message_id: m for m in session.messages}
    goals = []
    for topic in topics:
        opening = next(
            (
                by_id[i]
                for i in topic.message_ids
                if i in by_id and by_id[i].is_prompt and not is_confirmation(by_id[i].text)
            ),
            None,
        )
        if opening is not None:
            goals.append(
                Goal(
                    topic_id=topic.topic_id,
                    message_id=opening.message_id,
                    text=clip(_request_text(opening), GOAL_CHARS),
                )
            )
    parts = [p for m in session.messages for p in m.parts]
    return Digest(
        agent=session.agent,
        session_id=session.session_id,
        started_at=session.started_at,
        ended_at=session.ended_at,
        goals=tuple(goals),
        decisions=tuple(f for t in topics for f in t.key_facts if f.source == "assistant"),
        files=tuple(_file_changes(session, topic_of)),
        open_questions=tuple(_open_questions(session)),
        counts=DigestCounts(
            messages=len(session.messages),
            prompts=sum(m.is_prompt for m in session.messages),
            assistant=sum(m.role == "assistant" for m in session.messages),
            tool_calls=sum(p.kind == "tool_call" for p in parts),
            tool_results=sum(p.kind == "tool_result" for p in parts),
            edits=len(session.edits),
            topics=len(topics),
            tokens=sum(message_tokens(m) for m in session.messages),
        ),
    )


def _file_changes(session: Session, topic_of: dict[str, str]) -> list[FileChange]:
    changes: dict[str, _Tally] = {}
    for edit in session.edits:
        tally = changes.setdefault(display_path(session, edit.path), _Tally())
        added, removed = edit_line_counts(edit)
        tally.added += added
        tally.removed += removed
        tally.edits += 1
        tally.created = tally.created or edit.kind == "create"
        tally.deleted = edit.kind == "delete"  # the last edit says whether the file still exists
        tally.tools.setdefault(edit.tool)
        if edit.message_id in topic_of:
            tally.topics.setdefault(topic_of[edit.message_id])
    return [
        FileChange(
            path=path,
            added=t.added,
            removed=t.removed,
            edits=t.edits,
            created=t.created,
            deleted=t.deleted,
            tools=tuple(t.tools),
            topics=tuple(t.topics),
        )
        for path, t in changes.items()
    ]


@dataclass
class _Tally:
    added: int = 0
    removed: int = 0
    edits: int = 0
    created: bool = False
    deleted: bool = False
    tools: dict[str, None] = field(default_factory=dict)  # dicts as ordered sets
    topics: dict[str, None] = field(default_factory=dict)


def _open_questions(session: Session) -> list[OpenQuestion]:
    """Prompts asking a question (a `?`) after which, up to the next prompt, the assistant neither
    answered in text nor edited a file."""
    edited = {e.message_id for e in session.edits}
    out: list[OpenQuestion] = []
    messages = session.messages
    for index, message in enumerate(messages):
        if not message.is_prompt or "?" not in message.text:
            continue
        answered = False
        for later in messages[index + 1 :]:
            if later.is_prompt:
                break
            if later.message_id in edited or (
                later.role == "assistant" and any(p.kind == "text" and p.text.strip() for p in later.parts)
            ):
                answered = True
                break
        if not answered:
            out.append(
                OpenQuestion(message_id=message.message_id, text=clip(_request_text(message), GOAL_CHARS))
            )
    return out
