"""The seam for model summaries: one cited paragraph per session of a review, from a summariser callable.

The review is complete offline (`summariser=None`). The model layer (`git_intent.answer`: the litellm
sub-agent and `verify_citations`) provides a summariser; it receives the session and the review groups
its edits wrote (the evidence there is transcript text: data for the model, never instructions) and
returns a `ModelSummary` whose citations it has already verified. This module imports no model code.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import IntentError
from .values import ModelSummary, ReviewAnswer, ReviewGroup, SessionReview

Summariser = Callable[[SessionReview, list[ReviewGroup]], ModelSummary | None]


def session_groups(answer: ReviewAnswer, session: SessionReview) -> list[ReviewGroup]:
    """The groups of `answer` whose lines `session` wrote, in diff order."""
    return [
        group
        for review_file in answer.files
        for hunk in review_file.hunks
        for group in hunk.groups
        if group.status == "agent"
        and group.attribution is not None
        and (group.attribution.agent, group.attribution.session_id) == (session.agent, session.session_id)
    ]


def summarise_sessions(answer: ReviewAnswer, summariser: Summariser | None) -> ReviewAnswer:
    """`answer` with each session's `summary` set by `summariser` (unchanged when it is None).

    A summariser that fails with an IntentError (no model reachable, a refused answer) leaves that
    session without a summary and adds the sentence to `problems`: the offline review still stands.
    """
    if summariser is None:
        return answer
    sessions: list[SessionReview] = []
    problems = list(answer.problems)
    for session in answer.sessions:
        try:
            summary = summariser(session, session_groups(answer, session))
        except IntentError as exc:
            problems.append(f"No summary of session {session.session_id}: {exc}")
            summary = None
        sessions.append(session.model_copy(update={"summary": summary}))
    return answer.model_copy(update={"sessions": sessions, "problems": problems})
