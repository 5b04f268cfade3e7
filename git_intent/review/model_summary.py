"""The model summariser for `review`: one cited paragraph per session, asked of the `ask` sub-agent.

Each session's paragraph is `ask`'s answer to "what was this session asked and what did it do in these
files", limited to those files: the same sub-agent, read-only tools and code-checked citations as
`git intent ask`, so a review never shows a citation the code did not verify.
"""

from __future__ import annotations

from ..answer import ask
from ..config import model_settings
from ..core.errors import IntentError
from ..git.repo import Repository
from .summaries import Summariser
from .values import ModelSummary, ReviewGroup, SessionReview


def model_summariser(repo: Repository, model: str | None = None) -> Summariser | None:
    """A summariser when a model is configured (`intent.model`, GIT_INTENT_MODEL or `model`), else None.

    The summariser raises IntentError when the model did not answer (an offline fallback is not a model
    summary): `summarise_sessions` turns that into a line of the review's `problems`."""
    settings = model_settings(repo, model)
    if settings.model is None:
        return None

    def summarise(session: SessionReview, groups: list[ReviewGroup]) -> ModelSummary | None:
        files = ", ".join(session.files[:5])
        question = (
            f"What was {session.agent} session {session.session_id} asked, and what did it do in {files}? "
            f"Answer in one paragraph."
        )
        answer = ask(
            repo, question, path=session.files[0] if len(session.files) == 1 else None, model=settings.model
        )
        if answer.mode != "model":
            raise IntentError(answer.model_error or "the model did not answer.")
        return ModelSummary(
            text=answer.answer,
            citations=[f"{c.session_id}:{c.message_id}" for c in answer.citations],
            dropped=[f"{d.session_id}:{d.message_id} ({d.reason})" for d in answer.dropped_citations],
        )

    return summarise
