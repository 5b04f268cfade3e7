"""`git intent context` and `git intent fidelity`: a session's topic map, rendered within a budget, with
the fidelity choices kept per session in `<git common dir>/intent/fidelity/`."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from ..core.values import Session, TurnAnnotation
from ..git.repo import Repository
from ..notes.links import message_commits
from ..sessions.discovery import resolve_reference
from .annotations import annotated_topics, effective_annotations
from .budget import RenderedContext, render_context
from .choices import FidelityError, FidelityState, set_level
from .topics import Topic, segment_topics

DEFAULT_BUDGET = 8000
# The annotations stored for a session (the index's, `index.annotations.stored_for`): given by the caller,
# since the index and fidelity are sibling stages.
StoredAnnotations = Callable[[Session], Sequence[TurnAnnotation]]


def session_topics(session: Session, stored: StoredAnnotations | None = None) -> list[Topic]:
    """The topics of `session` as its annotations draw them (`annotations.annotated_topics`): the agent's own
    blocks, else the `stored` ones a model wrote, else the offline segmentation."""
    segmented = segment_topics(session)
    annotations = effective_annotations(session, stored(session) if stored else (), segmented)
    return annotated_topics(session, annotations, segmented)


def state_path(repo: Repository, session: Session) -> Path:
    """Where a session's fidelity choices live (derived state beside the index; never in git)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", f"{session.agent}-{session.session_id}")
    return repo.state_dir / "fidelity" / f"{safe}.json"


def session_context(
    repo: Repository, reference: str, budget: int = DEFAULT_BUDGET, stored: StoredAnnotations | None = None
) -> tuple[RenderedContext, dict[str, list[str]]]:
    """The session `reference` names, rendered within `budget` tokens from its annotations (`stored`: those
    of the index), and each topic's linked commits.

    Raises SessionNotFoundError for an unknown session, FidelityError for a damaged state file.
    """
    session, _ = resolve_reference(repo, reference.split(":", 1)[0])
    topics = session_topics(session, stored)
    state = FidelityState.load(state_path(repo, session))
    rendered = render_context(session, topics, state, budget_tokens=budget, session_ref=session.session_id)
    return rendered, topic_commits(repo, session, topics)


def change_fidelity(
    repo: Repository, reference: str, target: str, level: str, stored: StoredAnnotations | None = None
) -> FidelityState:
    """Set topic `target` ("t3") or message `target` (":MESSAGE_ID") of a session to `level` ("auto"
    removes the choice) and save it; topics are those `session_topics` draws. Raises FidelityError for an
    unknown level or target."""
    session, _ = resolve_reference(repo, reference.split(":", 1)[0])
    if target.startswith(":"):
        if session.message(target[1:]) is None:
            raise FidelityError(
                f"Session {session.session_id} has no message {target[1:]}.",
                hint=f"`git intent show {session.session_id} --brief` lists its messages.",
            )
        target = ":" + (session.message(target[1:]) or session.messages[0]).message_id
    elif target not in {t.topic_id for t in session_topics(session, stored)}:
        raise FidelityError(
            f"Session {session.session_id} has no topic {target}.",
            hint=f"`git intent context {session.session_id}` lists its topics.",
        )
    path = state_path(repo, session)
    state = set_level(FidelityState.load(path), target, level)
    state.save(path)
    return state


def find_topic(
    repo: Repository, reference: str, topic_id: str, stored: StoredAnnotations | None = None
) -> Topic | None:
    """Topic `topic_id` ("t3") of the session `reference` names, as `session_topics` draws it; None for a
    message target or an unknown topic. Raises SessionNotFoundError for an unknown session."""
    if not re.fullmatch(r"t[1-9]\d*", topic_id):
        return None
    session, _ = resolve_reference(repo, reference.split(":", 1)[0])
    return next((t for t in session_topics(session, stored) if t.topic_id == topic_id), None)


def topic_commits(repo: Repository, session: Session, topics: list[Topic]) -> dict[str, list[str]]:
    """topic id → commits whose notes credit a line to one of the topic's messages."""
    by_message = message_commits(repo, session.agent, session.session_id)
    return {t.topic_id: sorted({c for m in t.message_ids for c in by_message.get(m, ())}) for t in topics}
