"""`git intent why PATH:LINE[-END]`: why these lines exist, answered from the sessions that wrote them."""

from __future__ import annotations

from pathlib import Path

from ..config import model_settings
from ..explain.blame import LineAnswer, blame_lines
from ..git.repo import Repository
from ..sessions.discovery import SessionLookup
from .compose import hint_for, model_answer, offline_answer, wants_model
from .offline import why_prose
from .reading import Reading
from .values import WhyAnswer

MAX_SEED_SESSIONS = 3  # sessions whose topic map starts the sub-agent's reading


def why(
    repo: Repository,
    location: str,
    *,
    model: str | None = None,
    offline: bool = False,
    cwd: Path | None = None,
) -> WhyAnswer:
    """Why the lines of `location` (`PATH:LINE`, `PATH:START-END`, or a bare PATH for the whole file,
    relative to `cwd`, by default the work tree root) exist.

    Offline (no model configured, litellm missing, or `offline`): the evidence quoted and cited. With a
    model (`model`, else intent.model): the sub-agent starts from the blame answer and the topic maps of
    the sessions that wrote the lines, reads what it needs through its tools, and answers; a failing model
    falls back to the offline answer with `model_error`. Every citation is checked either way.

    Raises BadLocationError for a bad location, IntentError for a bad setting or unknown model string.
    """
    settings = model_settings(repo, model)
    sessions = SessionLookup(repo)  # blame looks the lines' sessions up; the reading then reuses them
    blame = blame_lines(repo, location, cwd or repo.root, sessions=sessions)
    lines = blame.lines
    question = f"Why does {_where(lines)} exist?"
    reading = Reading(repo, settings.max_tokens, sessions=sessions)
    prose = why_prose(reading, lines)
    if (
        not reading.sessions
    ):  # no line an agent wrote, or no transcript of it here: nothing for a model to read
        return offline_answer(question, prose, reading, lines, settings)
    if not wants_model(settings, offline):
        return offline_answer(question, prose, reading, lines, settings, hint=hint_for(settings, offline))
    from .tools import (
        MAX_BLAME_LINES,
        lines_json,
        seed_summary,
        topic_map,
    )  # the model's path only: fidelity rendering

    seeds = []
    for session_id in reading.order[:MAX_SEED_SESSIONS]:
        session = reading.sessions[session_id]
        topics = reading.topics(session)
        reading.send("\n".join(f"{t.label}\n{seed_summary(t)}" for t in topics))
        seeds.append((f"topic map of session {session_id}", topic_map(session, topics)))
    seeds.append((f"blame {_where(lines)}", lines_json(reading, lines[:MAX_BLAME_LINES])))
    return model_answer(question, seeds, prose, reading, lines, settings)


def _where(lines: list[LineAnswer]) -> str:
    first, last = lines[0], lines[-1]
    return f"{first.path}:{first.line}" + (f"-{last.line}" if last.line != first.line else "")
