"""`git intent annotate`: each turn of a session annotated once for its content, by the configured model
through litellm (batched, retried within limits, under a daily token budget), else by the agent's own blocks
or the offline filler, and stored in the index.

A turn already annotated for its content (by a model or the agent, or recorded offline after this model's
replies could not be read) costs no model call. A batch whose replies stay malformed after MAX_ATTEMPTS calls
is recorded offline; a model that fails (HTTP error, timeout) stops the run with one sentence and records
nothing for the turns left, so a later run tries them again.
"""

from __future__ import annotations

import importlib.util
import json
import re
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ..config import ModelSettings, annotate_settings, model_settings
from ..core.values import Session, TurnAnnotation
from ..fidelity.annotations import (
    Turn,
    agent_annotations,
    effective_annotations,
    offline_annotations,
    parse_annotation,
    session_turns,
)
from ..git.repo import Repository
from ..index.annotations import save_annotations, stored_annotations
from ..sessions.prose import estimate_tokens
from .annotate_prompt import RETRY, batch_message, system_prompt
from .daily_budget import spend, spent_today
from .prompt import new_boundary

BATCH_TURNS = 8  # turns per model call
BATCH_CHARS = 24_000  # characters of turn text per call (about 6,000 tokens)
MAX_ATTEMPTS = 3  # calls per batch: the first and two retries after a malformed reply
BACKGROUND_SECONDS = 600  # a background run (the capture worker's) starts no batch after this
BACKGROUND_SESSIONS = 5  # sessions one background run annotates (the ones a commit credits)
REPLY_TOKENS = 400  # completion tokens expected per turn, for the budget's look-ahead (Decant: 300-500)
_FENCED = re.compile(r"^```(?:json)?\s*\n(.*?)\n```\s*$", re.DOTALL)


class SessionAnnotation(BaseModel):
    """One session's annotation run: turns in all, and how each got its annotation this time — `model`
    (a model call now), `agent` (the agent's own block), `stored` (annotated before for the same content),
    `offline` (the offline filler: no model, or the model's replies stayed malformed), `left` (the budget
    or a failing model stopped the run before them)."""

    agent: str
    session_id: str
    turns: int = 0
    model: int = 0
    agent_blocks: int = 0
    stored: int = 0
    offline: int = 0
    left: int = 0


class AnnotateResult(BaseModel):
    """`git intent annotate --json`: the model used (None: offline), model calls made, tokens they spent
    (prompt + completion, as the provider counted), today's spending and the daily budget after the run,
    seconds, per session what happened, and `stopped`: the sentence saying why the run stopped early (the
    budget, a failing model), or None."""

    model: str | None = None
    calls: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    spent_today: int = 0
    budget: int = 0
    seconds: float = 0.0
    sessions: list[SessionAnnotation] = Field(default_factory=list)
    stopped: str | None = None


class _Stop(Exception):
    """The run stops: the budget is spent or the model failed (the message is the sentence)."""


def annotate_sessions(
    repo: Repository,
    sessions: Sequence[Session],
    *,
    model: str | None = None,
    offline: bool = False,
    progress: Callable[[int], None] | None = None,
    seconds: float | None = None,
) -> AnnotateResult:
    """Annotate every turn of `sessions` that has no annotation for its content yet, and store them.

    With a model (`model`, else intent.model; not with `offline` or without litellm) turns go to it in
    batches; without one the offline filler is stored. `progress(turns)` is called as turns are done; with
    `seconds`, no batch starts after that many seconds.
    Raises IntentError for a bad setting or an unknown model string; sqlite3.Error when the index cannot be
    written.
    """
    started = time.perf_counter()
    settings = model_settings(repo, model)
    budget = annotate_settings(repo).budget
    use_model = bool(settings.model) and not offline and importlib.util.find_spec("litellm") is not None
    if use_model:
        from .agent import check_model

        check_model(settings)
    result = AnnotateResult(model=settings.model if use_model else None, budget=budget)
    run = _Run(repo, settings if use_model else None, budget, result, progress or (lambda _n: None))
    run.deadline = time.monotonic() + seconds if seconds is not None else None
    for session in sessions:
        result.sessions.append(run.session(session))
    result.spent_today = spent_today(repo)
    result.seconds = round(time.perf_counter() - started, 3)
    return result


class _Run:
    def __init__(
        self,
        repo: Repository,
        settings: ModelSettings | None,
        budget: int,
        result: AnnotateResult,
        progress: Callable[[int], None],
    ) -> None:
        self.repo, self.settings, self.budget, self.result, self.progress = (
            repo,
            settings,
            budget,
            result,
            progress,
        )
        self.boundary = new_boundary()  # one per run: the system prompt stays the same for every call
        self.deadline: float | None = None

    def session(self, session: Session) -> SessionAnnotation:
        turns = session_turns(session)
        out = SessionAnnotation(agent=session.agent, session_id=session.session_id, turns=len(turns))
        stored = {
            s.annotation.digest: s for s in stored_annotations(self.repo, session.agent, session.session_id)
        }
        model = self.settings.model if self.settings else None
        own = agent_annotations(session, turns)
        blocks = [a for a in own if a.digest not in stored or stored[a.digest].annotation.source != "agent"]
        self._save(session, blocks, None, None)
        out.agent_blocks = len(blocks)
        by_agent = {a.digest for a in own}

        def done(turn: Turn) -> bool:
            found = stored.get(turn.digest)
            return turn.digest in by_agent or (
                found is not None
                and (found.annotation.source != "offline" or (model is not None and found.model == model))
            )

        todo = [t for t in turns if not done(t)]
        out.stored = len(turns) - len(todo) - len(blocks)
        self.progress(len(turns) - len(todo))
        if not todo:
            return out
        offline = {a.digest: a for a in offline_annotations(session)}
        if self.settings is None or self.result.stopped:
            if self.settings is None:
                self._save(session, [offline[t.digest] for t in todo], None, None)
                out.offline = len(todo)
            else:
                out.left = len(todo)
            self.progress(len(todo))
            return out
        current = effective_annotations(session, [s.annotation for s in stored.values()])
        running = {a.turn_id: a for a in current}
        order = [t.turn_id for t in turns]
        for batch in _batches(todo):
            if self.deadline is not None and time.monotonic() > self.deadline:
                self.result.stopped = (
                    f"Background annotation stops after {BACKGROUND_SECONDS} s; the turns left are annotated "
                    "after the next commit, or by `git intent annotate`."
                )
                out.left += len(todo) - out.model - out.offline
                self.progress(len(todo) - out.model - out.offline)
                return out
            index = order.index(batch[0].turn_id)
            before = running.get(order[index - 1]) if index > 0 else None
            try:
                made = self._ask(session, batch, before)
            except _Stop as stop:
                self.result.stopped = str(stop)
                out.left += len(todo) - out.model - out.offline
                self.progress(len(todo) - out.model - out.offline)
                return out
            if made is None:
                self._save(session, [offline[t.digest] for t in batch], self.settings.model, None)
                out.offline += len(batch)
            else:
                out.model += len(batch)
                running.update({a.turn_id: a for a in made})
            self.progress(len(batch))
        return out

    def _ask(
        self, session: Session, batch: list[Turn], before: TurnAnnotation | None
    ) -> list[TurnAnnotation] | None:
        """The model's annotations of `batch` (stored), or None when its replies stayed malformed."""
        from .agent import ModelError, chat

        assert self.settings is not None
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system_prompt(self.boundary)},
            {"role": "user", "content": batch_message(self.boundary, batch, before, session.cwd)},
        ]
        spent = 0
        for attempt in range(MAX_ATTEMPTS):
            self._check_budget(messages, len(batch))
            try:
                text, prompt_tokens, completion_tokens = chat(self.settings, messages)
            except ModelError as exc:
                raise _Stop(
                    f"{exc} The turns left keep their offline annotations; run `git intent annotate` again."
                ) from exc
            self.result.calls += 1
            self.result.retries += attempt > 0
            self.result.prompt_tokens += prompt_tokens
            self.result.completion_tokens += completion_tokens
            spent += prompt_tokens + completion_tokens
            spend(self.repo, prompt_tokens + completion_tokens)
            try:
                made = parse_reply(text, batch)
            except ValueError as exc:
                messages += [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": RETRY.format(error=_first_line(exc))},
                ]
                continue
            self._save(session, made, self.settings.model, spent)
            return made
        return None

    def _check_budget(self, messages: list[dict[str, Any]], turns: int) -> None:
        today = spent_today(self.repo)
        ahead = estimate_tokens("".join(str(m["content"]) for m in messages)) + turns * REPLY_TOKENS
        if today + ahead > self.budget:
            raise _Stop(
                f"The annotation budget of {self.budget:,} tokens a day (intent.annotateBudget) is spent "
                f"({today:,} used today, the next call needs ~{ahead:,}); the turns left keep their offline "
                f"annotations until a later run."
            )

    def _save(
        self, session: Session, items: list[TurnAnnotation], model: str | None, tokens: int | None
    ) -> None:
        if items:
            save_annotations(self.repo, session.agent, session.session_id, items, model=model, tokens=tokens)


def _batches(turns: list[Turn]) -> list[list[Turn]]:
    """Consecutive turns in batches of at most BATCH_TURNS turns and about BATCH_CHARS characters."""
    from .annotate_prompt import turn_text

    out: list[list[Turn]] = []
    size = 0
    for turn in turns:
        length = len(turn_text(turn))
        if not out or len(out[-1]) >= BATCH_TURNS or (size + length > BATCH_CHARS and out[-1]):
            out.append([])
            size = 0
        out[-1].append(turn)
        size += length
    return out


def parse_reply(text: str, batch: Sequence[Turn]) -> list[TurnAnnotation]:
    """The model's reply for `batch` as annotations (source "model"), one per turn in order.

    Raises ValueError (a sentence) when the reply is not JSON, holds another number of records, names
    another turn, or a record breaks Decant's schema."""
    body = text.strip()
    fenced = _FENCED.match(body)
    data = json.loads(fenced.group(1) if fenced else body)  # json's error is a ValueError
    items = data.get("annotations") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError('the reply is not {"annotations": [...]}')
    if len(items) != len(batch):
        raise ValueError(f"the reply holds {len(items)} records for {len(batch)} turns")
    out = []
    for item, turn in zip(items, batch, strict=True):
        if isinstance(item, dict) and "turn" in item and str(item["turn"]) != turn.turn_id:
            raise ValueError(f"a record names turn {item['turn']!r} where {turn.turn_id!r} was expected")
        out.append(parse_annotation(item, source="model", turn=turn))
    return out


def _first_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


def select_sessions(
    repo: Repository, references: Sequence[str], *, every: bool = False, since: datetime | None = None
) -> list[Session]:
    """The sessions to annotate: those `references` name, or (`every`) every session of this repository,
    or those active since `since`. Raises SessionNotFoundError for an unknown reference."""
    from ..sessions.discovery import candidate_sessions, resolve_reference

    if references:
        return [resolve_reference(repo, ref.split(":", 1)[0])[0] for ref in references]
    found = candidate_sessions(repo, since)
    if since is not None:  # transcripts written since then, holding a message since then
        found = [s for s in found if any(m.timestamp and m.timestamp >= since for m in s.messages)]
    return sorted(found, key=lambda s: (s.started_at is None, s.started_at, s.session_id))


def background_run(repo: Repository, keys: Sequence[str]) -> None:
    """The capture worker's run when intent.annotate is on: the sessions `keys` name (`agent:session_id`,
    at most BACKGROUND_SESSIONS), with the configured model only, one run at a time (another one holding the
    lock: nothing), for at most BACKGROUND_SECONDS; one line on stdout (the hook log). Never raises."""
    import sys

    from ..core.errors import IntentError
    from ..core.state_files import locked, private_dir
    from ..sessions.discovery import find_session

    try:
        if not annotate_settings(repo).background or not model_settings(repo).model:
            return
        with locked(private_dir(repo.state_dir) / "annotate.lock", wait=False) as held:
            if not held:
                return
            sessions = []
            for key in keys[:BACKGROUND_SESSIONS]:
                agent, _, session_id = key.partition(":")
                try:
                    sessions.append(find_session(repo, session_id, agent or None, exact=True))
                except IntentError:
                    continue
            result = annotate_sessions(repo, sessions, seconds=BACKGROUND_SECONDS)
            made = sum(s.model for s in result.sessions)
            print(
                f"annotate: {made} turn(s) of {len(sessions)} session(s) annotated by {result.model} "
                f"({result.calls} calls, {result.prompt_tokens + result.completion_tokens:,} tokens)."
                + (f" {result.stopped}" if result.stopped else ""),
                flush=True,
            )
    except Exception as exc:  # the hook log gets one line; a commit never hears of it
        print(f"annotate failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
