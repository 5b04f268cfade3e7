"""The shared sessions of one mirror (`refs/intent/evidence`) as the org store holds them: each session's
messages as `MessageRow`s and the message ids its blob can show (what makes a credited line
`agent_with_evidence`, as `stats` counts it when the message can be read), and the model each assistant
message names.

The blobs are other people's data: `load_payload` caps and shape-checks each one, `session_from_payload`
validates it, and a blob that fails either is left out with one sentence in `problems`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.values import Session
from ..git.repo import Repository
from ..notes import evidence_ref
from ..sessions.shared import session_from_payload
from .rows import MessageRow

# A whole session shows every message an evidence blob shows: read it when both are shared.
_LEVELS = ("sessions", "evidence")


@dataclass
class SharedEvidence:
    """`readable`: session key (`evidence_ref.session_key`) -> the message ids its blob holds (messages and
    edits); `messages`: the rows of every readable session; `problems`: one sentence per refused blob."""

    readable: dict[str, frozenset[str]] = field(default_factory=dict)
    models: dict[tuple[str, str], str] = field(default_factory=dict)  # (session key, message id) -> model
    messages: list[MessageRow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def shows(self, agent: str, session_id: str, message_id: str) -> bool:
        """Whether the shared blob of (agent, session) holds `message_id`."""
        return message_id in self.readable.get(evidence_ref.session_key(agent, session_id), frozenset())

    def model(self, agent: str, session_id: str, message_id: str) -> str | None:
        """The model the shared message `message_id` of (agent, session) names, or None."""
        return self.models.get((evidence_ref.session_key(agent, session_id), message_id))

    def has(self, agent: str, session_id: str) -> bool:
        """Whether (agent, session) has a readable shared blob."""
        return evidence_ref.session_key(agent, session_id) in self.readable


def read_evidence(repo: Repository) -> SharedEvidence:
    """The sessions shared on `repo`'s `refs/intent/evidence` (empty when it has none)."""
    found = SharedEvidence()
    _, entries = evidence_ref.read_entries(repo)
    for key, levels in sorted(evidence_ref.sessions_in(entries).items()):
        level = next(name for name in _LEVELS if name in levels)
        where = f"{evidence_ref.EVIDENCE_REF}:{evidence_ref.session_path(level, key)}"
        payload, problem = evidence_ref.load_payload(repo, levels[level])
        session = None
        if payload is not None:
            try:
                session = session_from_payload(payload, where)
            except (ValueError, KeyError, TypeError, AttributeError):
                problem = "is not a readable session"
        if session is None or evidence_ref.session_key(session.agent, session.session_id) != key:
            found.problems.append(f"The shared blob {where} {problem or 'names another session'}; skipped.")
            continue
        found.readable[key] = frozenset(
            {m.message_id for m in session.messages} | {e.message_id for e in session.edits}
        )
        found.messages += message_rows(session)
        found.models.update({(key, m.message_id): m.model for m in session.messages if m.model})
    return found


def message_rows(session: Session) -> list[MessageRow]:
    """One row per message of `session` with any text: its text and reasoning parts, or for a tool's
    message the text of its other parts (a shared whole session keeps tool outputs), joined by blank
    lines."""
    rows = []
    for message in session.messages:
        text = message.text or "\n\n".join(p.text for p in message.parts if p.text)
        if text:
            rows.append(
                MessageRow(
                    agent=session.agent,
                    session_id=session.session_id,
                    message_id=message.message_id,
                    role=message.role,
                    at=int(message.timestamp.timestamp()) if message.timestamp else None,
                    text=text,
                )
            )
    return rows
