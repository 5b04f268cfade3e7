"""Checking an observation's citations against the transcripts, as why's citations are checked.

A citation stays only when its message exists in that session and was shown to whoever wrote the
observation (offline: the whole session; a model: the messages of its prompt), and a quote the model
gave occurs in the first message cited. An observation left with no citation is dropped: nothing enters
the log that code could not trace to a message.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from ..answer.citations import Ref, quotable_text, verify_citations
from ..core.values import Session
from .log import observation_id
from .values import Observation


def shown(sessions: list[Session]) -> tuple[dict[Ref, str], dict[str, list[str]]]:
    """`(read, known)` for `verify_citations`: every message of `sessions` as shown, with its quotable
    text, and each session's message ids."""
    read = {(s.session_id, m.message_id): quotable_text(m) for s in sessions for m in s.messages}
    known = {s.session_id: [m.message_id for m in s.messages] for s in sessions}
    return read, known


def checked(
    observation: Observation,
    read: Mapping[Ref, str],
    known: Mapping[str, Collection[str]],
    quote: str | None = None,
) -> tuple[Observation | None, int]:
    """The observation with only its verified citations (full ids, in order, once each) and its id
    recomputed from them, or None when none holds; and how many citations were dropped."""
    marks = [f"[{c}]" for c in observation.citations]
    if not marks:
        return None, 0
    lead = f'"{quote}" ' if quote else ""
    text = f"{lead}{marks[0]}. " + " ".join(f"{m}." for m in marks[1:])
    _, kept, dropped = verify_citations(text, read, known)
    if quote and any(d.reason == "quote_mismatch" for d in dropped):
        return None, len(marks)  # a made-up quote discredits the observation, not only the citation
    refs = list(dict.fromkeys(f"{c.session_id}:{c.message_id}" for c in kept))
    if not refs:
        return None, len(dropped)
    update: dict[str, Any] = {
        "citations": refs,
        "id": observation_id(observation.kind, observation.text, refs),
    }
    return replace(observation, **update), len(dropped)
