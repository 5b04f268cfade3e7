"""What one answer has read: the sessions it loaded, the messages shown to the model, and the distinct
transcript text sent (counted in tokens, characters / 4, against `intent.maxTokens`)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from ..core.errors import IntentError, SessionNotFoundError
from ..core.values import Message, Session
from ..fidelity.topics import Topic, message_tokens
from ..git.repo import Repository
from ..sessions.discovery import SessionLookup, find_session
from ..sessions.prose import estimate_tokens
from .citations import Ref, quotable_text

# Lines of a rendered context that name a message: "[ID] role…", "⇒ [ID] …", "Decided [ID]: …",
# "Open question [ID]: …" (fidelity.py's formats). Topic ranges "[A…B]" and back references
# ("same … as [ID] above") do not match: they show no text of that message.
_SHOWN = re.compile(r"(?:^|⇒ |^Decided |^Open question )\[(?P<id>[A-Za-z0-9._-]+)\]", re.MULTILINE)
# Framing lines of a rendered context (not transcript text): the header, the data notice, topic heads.
_FRAMING = re.compile(r"^(?:# Session |Quoted session data|## t\d+ · |### Recent turns).*$", re.MULTILINE)
_PREFIX = re.compile(
    r"^\[[A-Za-z0-9._-]+\] (?:user|assistant|tool|system)(?: \([a-z ,;:]+\))?:? ?", re.MULTILINE
)


class Reading:
    """Sessions loaded for one answer (by full id), the messages read (full ids → quotable text) and
    the transcript tokens sent. `order` lists the sessions consulted, first consulted first."""

    def __init__(self, repo: Repository, max_tokens: int, *, sessions: SessionLookup | None = None) -> None:
        """`sessions`: a lookup that already holds the sessions blame found (`why`), so none is read twice."""
        self.repo = repo
        self.lookup = sessions or SessionLookup(repo)
        self.max_tokens = max_tokens
        self.sessions: dict[str, Session] = {}
        self.order: list[str] = []
        self.read: dict[Ref, str] = {}
        self.tokens_read = 0
        self._topics: dict[str, list[Topic]] = {}
        self._sent: set[str] = set()
        self._sent_of: dict[Ref, int] = {}  # characters of a message's own text sent so far

    # -- sessions -------------------------------------------------------------------------------------

    def session(self, session_id: str, agent: str | None = None, *, exact: bool = False) -> Session:
        """The session with this id (or unique prefix unless `exact`), loaded once and consulted.
        Raises SessionNotFoundError when no transcript holds it."""
        if session_id in self.sessions:
            return self.sessions[session_id]
        found = [s for s in self.sessions.values() if not exact and s.session_id.startswith(session_id)]
        if len(found) == 1:
            return found[0]
        session = self.lookup.find(session_id, agent) if exact else find_session(self.repo, session_id, agent)
        self.sessions[session.session_id] = session
        self.order.append(session.session_id)
        return session

    def forget(self, session_id: str) -> None:
        """Drop a loaded session that turned out not to be consulted (nothing of it was read)."""
        self.sessions.pop(session_id, None)
        self._topics.pop(session_id, None)
        if session_id in self.order:
            self.order.remove(session_id)

    def try_session(self, session_id: str, agent: str | None = None) -> Session | None:
        """`session(session_id, agent, exact=True)`, or None when its transcript cannot be read."""
        try:
            return self.session(session_id, agent, exact=True)
        except IntentError:
            return None

    def topics(self, session: Session) -> list[Topic]:
        """The session's topics as its annotations draw them (`fidelity.context.session_topics`: the agent's
        own, a model's stored in the index, else the offline segmentation), computed once."""
        if session.session_id not in self._topics:
            # here, not at import: an offline `why` reads no topics and must not load the index
            from ..fidelity.context import session_topics
            from ..index.annotations import stored_for

            self._topics[session.session_id] = session_topics(session, stored_for(self.repo))
        return self._topics[session.session_id]

    @property
    def known(self) -> dict[str, list[str]]:
        """Every loaded session id → all its message ids (what a citation may name)."""
        return {sid: [m.message_id for m in s.messages] for sid, s in self.sessions.items()}

    def session_tokens(self) -> int:
        """Tokens of the whole of every session consulted (characters / 4 of every part)."""
        return sum(message_tokens(m) for s in self.sessions.values() for m in s.messages)

    # -- reading --------------------------------------------------------------------------------------

    @property
    def remaining(self) -> int:
        """Transcript tokens this answer may still read."""
        return max(0, self.max_tokens - self.tokens_read)

    def mark(self, session: Session, message: Message) -> None:
        """Record that `message`'s text (or its summary) was sent to the model."""
        self.read[(session.session_id, message.message_id)] = quotable_text(message)

    def mark_ids(self, session: Session, message_ids: Iterable[str]) -> None:
        """`mark` each message of `session` named by an id or unique prefix; unknown ids are ignored."""
        for message_id in message_ids:
            message = session.message(message_id)
            if message is not None:
                self.mark(session, message)

    def send(self, text: str, ref: Ref | None = None) -> int:
        """Count `text` (transcript text about to be sent) unless the same text was sent before in this
        answer; returns the tokens added. With `ref`, `text` is (a clipped part of) that message's own
        text: only what exceeds the longest part of it sent before counts (a clip, then the whole)."""
        if ref is not None:
            before = self._sent_of.get(ref, 0)
            self._sent_of[ref] = max(before, len(text))
            added = estimate_tokens(text[before:]) if len(text) > before else 0
            self.tokens_read += added
            return added
        key = hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()
        if not text.strip() or key in self._sent:
            return 0
        self._sent.add(key)
        tokens = estimate_tokens(text)
        self.tokens_read += tokens
        return tokens

    def send_rendered(self, session: Session, text: str) -> None:
        """Count a rendered context (`fidelity.render_context` text) and mark the messages it shows."""
        self.mark_ids(session, (m["id"] for m in _SHOWN.finditer(text)))
        self.send(_PREFIX.sub("", _FRAMING.sub("", text)))


def resolve_message(reading: Reading, session_id: str, message_id: str) -> tuple[Session, Message]:
    """The session and message two ids (or unique prefixes) name. Raises SessionNotFoundError."""
    session = reading.session(session_id)
    message = session.message(message_id)
    if message is None:
        raise SessionNotFoundError(
            f"Session {session.session_id} has no message {message_id} (or the prefix is ambiguous)."
        )
    return session, message
