"""Turning a question's evidence into a WhyAnswer: offline prose, or the sub-agent with an offline fallback.

Both modes end in the same citation check and the same JSON shape. A failing model never fails
the question: its sentence goes to `model_error` and the offline answer is given.
"""

from __future__ import annotations

import importlib.util
import re
from datetime import datetime

from ..config import ModelSettings
from ..core.errors import IntentError
from ..explain.blame import LineAnswer
from ..sessions.discovery import find_session
from .citations import CANDIDATE, strip_links, verify_citations
from .offline import Prose
from .prompt import first_message, new_boundary, system_prompt
from .reading import Reading
from .values import Limits, Usage, WhyAnswer

NO_MODEL_HINT = (
    "Answered offline from the recorded evidence; for a model's answer: git config intent.model <litellm "
    "model> (needs pip install 'git-intent-provenance[agent]')."
)
MAX_LOOKUPS = 5  # sessions looked up only to tell `not_read` from `unknown_message` in one answer
NO_EXTRA_HINT = (
    "intent.model is set but litellm is not installed: pip install 'git-intent-provenance[agent]'."
)


def litellm_installed() -> bool:
    """Whether litellm (the `agent` extra) is installed, without importing it."""
    return importlib.util.find_spec("litellm") is not None


def wants_model(settings: ModelSettings, offline: bool) -> bool:
    """Whether to ask the sub-agent; raises IntentError for a model string litellm does not know."""
    if offline or not settings.model or not litellm_installed():
        return False
    from .agent import check_model  # imports litellm (seconds): only when a model will be asked

    check_model(settings)
    return True


def hint_for(settings: ModelSettings, offline: bool) -> str | None:
    """The one line telling how to get a model's answer, when none was asked for by configuration."""
    if offline:
        return None
    if not settings.model:
        return NO_MODEL_HINT
    return None if litellm_installed() else NO_EXTRA_HINT


def offline_answer(
    question: str,
    prose: Prose,
    reading: Reading,
    lines: list[LineAnswer],
    settings: ModelSettings,
    *,
    hint: str | None = None,
    model_error: str | None = None,
    steps: int = 0,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    reached: str | None = None,
) -> WhyAnswer:
    """The offline answer: `prose` checked like a model's answer (its quotes were read from the messages)."""
    text, citations, dropped = verify_citations(prose.text(), prose.read, reading.known)
    return WhyAnswer(
        question=question,
        mode="offline",
        model=settings.model if model_error else None,
        answer=text,
        citations=citations,
        dropped_citations=dropped,
        lines=lines,
        sessions=list(reading.order),
        steps=steps,
        usage=Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            transcript_tokens_read=prose.tokens,
            session_tokens_total=reading.session_tokens(),
        ),
        limits=Limits(max_steps=settings.max_steps, max_tokens=settings.max_tokens, reached=reached),  # type: ignore[arg-type]  # "steps" | "tokens" | None
        model_error=model_error,
        hint=hint,
    )


def model_answer(
    question: str,
    seeds: list[tuple[str, str]],
    prose: Prose,
    reading: Reading,
    lines: list[LineAnswer],
    settings: ModelSettings,
    since: datetime | None = None,
) -> WhyAnswer:
    """Ask the sub-agent, starting from `seeds` ((label, text) data blocks already counted in `reading`);
    fall back to the offline `prose` when the model fails or gives no answer within its limits."""
    from .agent import run_agent
    from .tools import Toolbox

    boundary = new_boundary()
    toolbox = Toolbox(reading, since)
    run = run_agent(
        settings,
        system_prompt(boundary, settings.max_steps, settings.max_tokens),
        first_message(boundary, question, seeds),
        toolbox,
        boundary,
    )
    if run.text is None:
        error = run.error or (
            f"The model {settings.model} gave no answer within {settings.max_steps} calls (intent.maxSteps)."
            if run.reached != "tokens"
            else f"The model {settings.model} gave no answer after reading {settings.max_tokens} transcript "
            "tokens (intent.maxTokens)."
        )
        return offline_answer(
            question,
            prose,
            reading,
            lines,
            settings,
            model_error=error,
            steps=run.steps,
            prompt_tokens=run.prompt_tokens,
            completion_tokens=run.completion_tokens,
            reached=run.reached,
        )
    text, _ = strip_links(run.text)
    clean, citations, dropped = verify_citations(text, reading.read, _known(reading, text))
    return WhyAnswer(
        question=question,
        mode="model",
        model=settings.model,
        answer=clean.strip(),
        citations=citations,
        dropped_citations=dropped,
        lines=lines,
        sessions=list(reading.order),
        steps=run.steps,
        usage=Usage(
            prompt_tokens=run.prompt_tokens,
            completion_tokens=run.completion_tokens,
            transcript_tokens_read=reading.tokens_read,
            session_tokens_total=reading.session_tokens(),
        ),
        limits=Limits(
            max_steps=settings.max_steps,
            max_tokens=settings.max_tokens,
            reached=run.reached,  # type: ignore[arg-type]
        ),
    )


def _known(reading: Reading, text: str) -> dict[str, list[str]]:
    """The sessions a citation may name: those read, and any other session of this repository a marker
    names (looked up, not consulted), so citing one of its real messages is `not_read`, not unknown."""
    known = reading.known
    lookups = MAX_LOOKUPS
    for marker in CANDIDATE.finditer(text):
        for item in re.split(r"[,;]", marker["body"]):
            session_id = item.strip().partition(":")[0]
            if not session_id or any(s.startswith(session_id) for s in known) or lookups <= 0:
                continue
            lookups -= 1
            try:
                session = find_session(reading.repo, session_id)
            except IntentError:
                continue
            known[session.session_id] = [m.message_id for m in session.messages]
    return known
