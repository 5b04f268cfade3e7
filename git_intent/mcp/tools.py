"""What each MCP tool answers: the same JSON object as the matching command's `--json`, so one schema
(`git intent schema NAME`) describes both. No MCP SDK here: the server module wraps these."""

from __future__ import annotations

from typing import Any

from ..core.errors import IntentError
from ..core.values import to_json
from ..git.repo import Repository

JSON = dict[str, Any] | list[Any]


class AnswerUnavailableError(IntentError):
    """This build has no why/ask library (git_intent.answer)."""


def blame(repo: Repository, path: str, line: int | None = None, end_line: int | None = None) -> JSON:
    """`git intent blame PATH[:LINE[-END]] --json` (no `line`: the whole file); PATH is relative to the
    repository root.

    Raises BadLocationError for a path or lines that do not exist.
    """
    from ..explain.blame import blame_lines

    location = path if line is None else f"{path}:{line}" + (f"-{end_line}" if end_line is not None else "")
    return blame_lines(repo, location, cwd=repo.root).contract()


def show(repo: Repository, session_id: str, message_id: str | None = None) -> JSON:
    """`git intent show SESSION[:MESSAGE] --json`: the session, or one of its messages, at full fidelity.

    Raises SessionNotFoundError for an unknown session or message.
    """
    from ..sessions.discovery import resolve_reference

    session, message = resolve_reference(repo, f"{session_id}:{message_id}" if message_id else session_id)
    shown: dict[str, Any] = to_json(message or session)
    return shown


def search(
    repo: Repository, query: str, agent: str | None = None, path: str | None = None, limit: int = 20
) -> JSON:
    """`git intent search QUERY --json`, after bringing the index up to date as the command does."""
    from ..index import ingest
    from ..index.search import search as run

    ingest(repo)
    return [h.model_dump(mode="json") for h in run(repo, query, agent=agent, file=path, limit=limit)]


def view_context(repo: Repository, session_id: str, budget: int = 8000) -> JSON:
    """`git intent context SESSION --budget N --json`."""
    from ..command_outputs import ContextOutput
    from ..fidelity.context import session_context
    from ..index.annotations import stored_for

    rendered, commits = session_context(repo, session_id, budget, stored_for(repo))
    return ContextOutput(**dict(rendered), topic_commits=commits).model_dump(mode="json")


def set_fidelity(repo: Repository, session_id: str, target: str, level: str) -> JSON:
    """`git intent fidelity SESSION TARGET LEVEL --json`, with the target topic's annotation (summary,
    placeholder, key facts). Raises FidelityError for an unknown target or level."""
    from ..command_outputs import FidelityChange, topic_annotation
    from ..fidelity.context import change_fidelity, find_topic
    from ..index.annotations import stored_for

    stored = stored_for(repo)
    state = change_fidelity(repo, session_id, target, level, stored)
    return FidelityChange(
        session=session_id,
        target=target,
        level=level,
        topics=state.topics,
        messages=state.messages,
        topic=topic_annotation(find_topic(repo, session_id, target, stored)),
    ).model_dump(mode="json")


def sessions(repo: Repository, agent: str | None = None) -> JSON:
    """`git intent sessions --json`."""
    from ..explain.session_list import list_sessions

    return [s.model_dump(mode="json") for s in list_sessions(repo, agent)]


def log(repo: Repository, revision_range: str | None = None) -> JSON:
    """`git intent log [RANGE] --json` (the newest 20 commits). Raises IntentError for a bad range."""
    from ..explain.log import log_commits

    return [e.model_dump(mode="json") for e in log_commits(repo, revision_range or "HEAD", 20)]


def why(repo: Repository, path: str, line: int, end_line: int | None = None) -> JSON:
    """`git intent why PATH:LINE[-END] --json` (offline unless a model is configured).

    Raises AnswerUnavailableError when this build has no why/ask library.
    """
    try:
        from ..answer.why_line import why as run  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise AnswerUnavailableError("why/ask are not available in this build.") from None
    location = f"{path}:{line}" + (f"-{end_line}" if end_line is not None else "")
    answer: Any = run(repo, location)
    answered: dict[str, Any] = to_json(answer)
    return answered


def ask(repo: Repository, question: str, path: str | None = None) -> JSON:
    """`git intent ask QUESTION [--file PATH] --json` (offline unless a model is configured).

    Raises AnswerUnavailableError when this build has no why/ask library.
    """
    try:
        from ..answer.ask_question import ask as run  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise AnswerUnavailableError("why/ask are not available in this build.") from None
    answer: Any = run(repo, question, path=path)
    answered: dict[str, Any] = to_json(answer)
    return answered


def recall(repo: Repository, question: str, budget: int = 1000) -> JSON:
    """`git intent memory` for a question or a path: the observations (constraints, decisions,
    conventions, rejected approaches, open questions, facts) that match, newest first, within `budget`
    tokens; a path (or PATH:LINES) is answered as `git intent memory PATH --json`. Brings the log up to
    date first, offline (a model observes in `git intent memory` only: a tool call must stay quick)."""
    from ..memory.recall import recall as run
    from ..memory.update import update_memory

    update_memory(repo, use_model=False)
    answered: dict[str, Any] = to_json(run(repo, question, budget=budget))
    return answered


def intent_for(
    repo: Repository, path: str, line: int, end_line: int | None = None, budget: int = 1000
) -> JSON:
    """`git intent memory PATH:LINE[-END] --json`: the prompts that asked for exactly those lines and the
    observations of the sessions that wrote them or naming the file, newest first, within `budget` tokens.

    Raises BadLocationError for a path or lines that do not exist. Brings the log up to date first,
    offline, as `recall` does.
    """
    from ..memory.recall import intent_for as run
    from ..memory.update import update_memory

    update_memory(repo, use_model=False)
    answered: dict[str, Any] = to_json(run(repo, path, line, end_line, budget=budget))
    return answered
