"""`git intent ask "QUESTION"`: a reviewer's provenance question, answered from the matching sessions."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ..config import model_settings
from ..core.errors import IntentError
from ..core.values import Message, Session
from ..explain.reasons import is_request
from ..explain.render import when
from ..git.repo import Repository
from ..index.search import Hit
from ..sessions.prose import clip_units, request_text, units
from .candidates import Candidate, Found, find_candidates, query_text, relative, touches
from .compose import hint_for, model_answer, offline_answer, wants_model
from .offline import Prose, why_prose
from .reading import Reading
from .values import WhyAnswer

MAX_SESSIONS = 3  # sessions an answer quotes (and whose topic maps start the sub-agent)
HITS_QUOTED = 3
LINES_EXPLAINED = 2


def ask(
    repo: Repository,
    question: str,
    *,
    path: str | None = None,
    since: datetime | None = None,
    model: str | None = None,
    offline: bool = False,
    cwd: Path | None = None,
) -> WhyAnswer:
    """Answer `question` from this repository's sessions: those matching it in the index, and those that
    wrote the code it names, limited to `path` (a file or folder, relative to `cwd`, by default the work
    tree root) and to messages at
    or after `since` (naive means UTC). `sessions` lists the best match first. Offline, the best cited
    evidence is quoted; with a model the sub-agent starts from the same evidence (see `why`).

    Raises IntentError for an empty question, BadLocationError for a path outside the work tree, and
    IntentError for a bad setting or an unknown model string.
    """
    if not question.strip():
        raise IntentError(
            "The question is empty.", hint='git intent ask "why does fetch_json retry 3 times?"'
        )
    settings = model_settings(repo, model)
    folder = relative(repo, path, cwd or repo.root)
    found = find_candidates(repo, question, path=folder, since=since)
    reading = Reading(repo, settings.max_tokens)
    ranked = _ranked(reading, found, folder, since)
    prose = ask_prose(reading, found, ranked)
    lines = [line for candidate, _ in ranked for line in candidate.lines]
    if not wants_model(settings, offline):
        return offline_answer(question, prose, reading, lines, settings, hint=hint_for(settings, offline))
    from .tools import lines_json, seed_summary, topic_map  # the model's path only: fidelity rendering

    seeds = []
    for _, session in ranked:
        topics = reading.topics(session)
        reading.send("\n".join(f"{t.label}\n{seed_summary(t)}" for t in topics))
        seeds.append((f"topic map of session {session.session_id}", topic_map(session, topics)))
    hits = [hit for candidate, _ in ranked for hit in candidate.hits[:HITS_QUOTED]]
    if hits:
        seeds.append(("search hits", _hits_text(reading, ranked, hits)))
    if lines:
        seeds.append(("blame of the code the question names", lines_json(reading, lines)))
    return model_answer(question, seeds, prose, reading, lines, settings, since)


def _ranked(
    reading: Reading, found: Found, folder: str | None, since: datetime | None
) -> list[tuple[Candidate, Session]]:
    """The best MAX_SESSIONS candidates whose transcript is here, in the folder asked about, recent enough."""
    out: list[tuple[Candidate, Session]] = []
    for candidate in found.candidates:
        if len(out) == MAX_SESSIONS:
            break
        session = reading.try_session(candidate.session_id, candidate.agent)
        if session is None:
            continue
        edited = any(touches(e.path, folder) for e in session.edits) if folder else True
        recent = since is None or session.ended_at is None or session.ended_at >= _aware(since)
        if (candidate.lines or edited) and recent:
            out.append((candidate, session))
        else:
            reading.forget(session.session_id)
    return out


def ask_prose(reading: Reading, found: Found, ranked: list[tuple[Candidate, Session]]) -> Prose:
    """The offline answer: the best session, the lines of it the question names, its best hits quoted;
    then one sentence for each other matching session."""
    prose = Prose()
    if not ranked:
        named = ", ".join(found.identifiers + found.paths)
        prose.sentences.append(
            f"I could not find out: no session of this repository matches the question (searched the session "
            f"index for “{found.searched}”" + (f" and the code for {named}" if named else "") + ")."
        )
        return prose
    for n, (candidate, session) in enumerate(ranked):
        span = f"{when(session.started_at)} → {when(session.ended_at)}"
        head = "The best match is" if n == 0 else "Also matching:"
        prose.sentences.append(
            f"{head} {session.agent} session {session.session_id} ({span}, {len(session.messages)} "
            f"messages, {len(session.edits)} edits)."
        )
        if candidate.lines:
            prose.extend(why_prose(reading, candidate.lines[:LINES_EXPLAINED]))
        before = len(prose.sentences)
        spoken = [h for h in candidate.hits if h.role in ("user", "assistant")]
        for hit in spoken[: HITS_QUOTED if n == 0 else 1]:
            if (session.session_id, hit.message_id) not in prose.read:  # an answer quoted with its question
                _hit(prose, session, hit, found.searched, spoken)
        if len(prose.sentences) == before and candidate.hits:  # only tool output matched: name its request
            _request_of(prose, session, candidate.hits[0])
        prose.sentences.append("")
    return prose


def _hit(prose: Prose, session: Session, hit: Hit, query: str, hits: list[Hit]) -> None:
    """One sentence quoting a hit: the user's prompt with the agent's answer to it, or the agent's sentence
    nearest the query with the request it answered. Tool calls and results are not quoted (their text is code
    and output)."""
    message = session.message(hit.message_id)
    if message is None or message.role not in ("user", "assistant") or not message.text.strip():
        return
    if message.is_prompt:
        asked = prose.quote(session, message, request_text(message), 240)
        reply = _reply(session, message, {h.message_id for h in hits})
        said = (
            prose.quote_or_none(session, reply, _nearest_sentences(reply.text, query), 240) if reply else None
        )
        prose.sentences.append(f"The user asked {asked}" + (f"; the agent answered {said}." if said else "."))
        return
    quoted = prose.quote_or_none(session, message, _nearest_sentences(message.text, query), 240)
    if quoted is None:
        return
    index = session.messages.index(message)
    request = next(
        (session.messages[i] for i in range(index, -1, -1) if is_request(session.messages[i])), None
    )
    if request is not None and (session.session_id, request.message_id) not in prose.read:
        prose.sentences.append(
            f"Asked {prose.quote(session, request, request_text(request), 200)}, the agent said {quoted}."
        )
    else:
        prose.sentences.append(f"The agent said {quoted}.")


def _reply(session: Session, prompt: Message, hits: set[str]) -> Message | None:
    """The agent's answer to `prompt`: of its turn's assistant messages with text, one the search matched (the
    first), else the last, the turn's closing words."""
    index = session.messages.index(prompt)
    turn = []
    for message in session.messages[index + 1 :]:
        if is_request(message):
            break
        if message.role == "assistant" and any(p.kind == "text" and p.text.strip() for p in message.parts):
            turn.append(message)
    return next((m for m in turn if m.message_id in hits), turn[-1] if turn else None)


def _request_of(prose: Prose, session: Session, hit: Hit) -> None:
    message = session.message(hit.message_id)
    index = session.messages.index(message) if message else -1
    request = next(
        (session.messages[i] for i in range(index, -1, -1) if is_request(session.messages[i])), None
    )
    if message is not None and request is not None:
        prose.sentences.append(
            f"The best matching message {prose.cite(session, message)} answers the request "
            f"{prose.quote(session, request, request_text(request), 240)}."
        )


def _nearest_sentences(text: str, query: str) -> str:
    """The sentence (or list item) of `text` sharing most content words with `query`, and the next one, whole
    within the 240 characters a hit's quote may take."""
    words = {w.lower() for w in query_text(query).split()}
    found = units(text)
    if not found:
        return text
    best = max(
        range(len(found)),
        key=lambda i: (len(words & {w.lower().strip(".,:;`()") for w in found[i].split()}), -i),
    )
    return clip_units(found[best : best + 2], 240)


def _hits_text(reading: Reading, ranked: list[tuple[Candidate, Session]], hits: list[Hit]) -> str:
    """Search hits as the search tool shows them; marks and counts them as read."""
    sessions = {session.session_id: session for _, session in ranked}
    out = []
    for hit in hits:
        session = sessions.get(hit.session_id)
        message = session.message(hit.message_id) if session else None
        if session is not None and message is not None:
            reading.mark(session, message)
        reading.send(hit.snippet)
        out.append(
            f"[{hit.session_id}:{hit.message_id}] {hit.agent} {hit.role or ''} {when(hit.timestamp)} score "
            f"{hit.score:.2f}: {hit.snippet}"
        )
    return "\n".join(out)


def _aware(stamp: datetime) -> datetime:
    from datetime import timezone

    return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)
