"""Per-turn annotations (Decant's schema, `values.TurnAnnotation`): a session's turns, the offline filler, the
blocks an agent writes itself, which annotation stands for each turn, and the topics they make.

A turn is what Decant calls one: a prompt (or the first message) and everything up to the next prompt, the
assistant's words, tool calls and their results; a turn of an agent working alone for long is cut at an
assistant message once it holds LONG_TURN messages. Every message belongs to one turn. An
annotation is keyed by the turn's content (`turn_digest`), so it is computed once for that content; the
order of precedence is agent over model over offline (a model annotation replaces an offline one, never the
reverse). The offline filler is today's segmentation (`topics.segment_topics`) in the same shape, so every
consumer reads one shape; rendered from offline annotations alone, a session is exactly what it was before.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..core.values import ANNOTATION_RANK, AnnotationSource, Message, Session, TurnAnnotation, validate
from .topics import Topic, display_path, message_tokens, segment_topics, summarize_message

__all__ = [
    "FENCE",
    "RANK",
    "Turn",
    "agent_annotations",
    "annotated_topics",
    "effective_annotations",
    "offline_annotations",
    "parse_annotation",
    "session_turns",
    "shared_annotations",
    "snake_label",
    "turn_digest",
]

FENCE = "intent-annotation"  # the info string of the fenced JSON block an agent appends to its reply
RANK = ANNOTATION_RANK
_WORD = re.compile(r"[a-z0-9]+")
# Messages after which an autonomous turn is cut at the next assistant message: one sentence still says
# what 40 messages did (~2 messages per tool call), and a model reads the turn clipped anyway.
LONG_TURN = 40


@dataclass(frozen=True)
class Turn:
    """Consecutive messages of a session: `turn_id` is the first one's id, `digest` its content's SHA-256."""

    turn_id: str
    messages: tuple[Message, ...]
    digest: str

    @property
    def message_ids(self) -> tuple[str, ...]:
        return tuple(m.message_id for m in self.messages)

    @property
    def reply(self) -> Message | None:
        """The turn's first assistant message (the one its summary stands for), or None."""
        return next((m for m in self.messages if m.role == "assistant"), None)


def turn_digest(messages: Iterable[Message]) -> str:
    """SHA-256 (hex) of the turn's content: each message's role, prompt flag and parts (kind, tool, call id,
    text). Ids and times are left out: the same words make the same turn."""
    content = [
        [m.role, m.is_prompt, [[p.kind, p.tool, p.call_id, p.text] for p in m.parts]] for m in messages
    ]
    return hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8", "replace")).hexdigest()


def session_turns(session: Session) -> list[Turn]:
    """The turns of `session`, in order (see the module's docstring)."""
    groups: list[list[Message]] = []
    for message in session.messages:
        current = groups[-1] if groups else None
        if (
            current is None
            or (message.is_prompt and any(not m.is_prompt for m in current))
            or (message.role == "assistant" and len(current) >= LONG_TURN and current[-1].role != "assistant")
        ):
            groups.append([message])
        else:
            current.append(message)
    return [Turn(g[0].message_id, tuple(g), turn_digest(g)) for g in groups]


def snake_label(text: str, words: int = 6) -> str:
    """`text` as a snake_case topic label: its first `words` words, lower case, letters and digits only."""
    found = _WORD.findall(text.lower())[:words]
    label = "_".join(found)[:64].strip("_") or "untitled_work"
    return label if label[0].isalpha() else f"t_{label}"[:64]


def offline_annotations(session: Session, topics: Sequence[Topic] | None = None) -> list[TurnAnnotation]:
    """One annotation per turn from the offline segmentation (source "offline"): the topic the turn ends in,
    with its summary and placeholder, whether a topic starts in the turn, and the key facts said in it (the
    segmentation may cut a long turn in two topics; the turn is annotated as one)."""
    topics = list(topics) if topics is not None else segment_topics(session)
    topic_of = {message_id: topic for topic in topics for message_id in topic.message_ids}
    out = []
    for turn in session_turns(session):
        topic = topic_of.get(turn.message_ids[-1]) or topics[0]
        ids = set(turn.message_ids)
        head = turn.reply or turn.messages[0]
        out.append(
            TurnAnnotation(
                topic=snake_label(topic.label),
                is_new_topic=any(t.message_ids and t.message_ids[0] in ids for t in topics),
                message_summary=summarize_message(head, root=session.cwd),
                topic_summary=topic.summary,
                placeholder=topic.placeholder,
                key_facts=tuple(f.text for t in topics for f in t.key_facts if f.message_id in ids),
                source="offline",
                turn_id=turn.turn_id,
                digest=turn.digest,
            )
        )
    return out


def parse_annotation(data: Any, *, source: AnnotationSource, turn: Turn) -> TurnAnnotation:
    """A decoded annotation (the six fields of Decant's schema; a `turn` id, and the stored `turn_id`,
    `digest` and `source`, are ignored) validated by pydantic, for `turn`: another field is an error.

    Raises ValueError (pydantic's ValidationError) when it is not one."""
    if not isinstance(data, dict):
        raise ValueError("an annotation is a JSON object")
    fields = {k: v for k, v in data.items() if k not in ("turn", "turn_id", "digest", "source")}
    return validate(
        TurnAnnotation, {**fields, "source": source, "turn_id": turn.turn_id, "digest": turn.digest}
    )


def fenced_blocks(text: str) -> list[str]:
    """The bodies of the ```intent-annotation fenced blocks of `text`, in order: a line opening with the
    fence and the info string, up to the next line holding only ``` (str.find, linear in the text: a regex
    with a lazy body was quadratic on many unclosed fences)."""
    out = []
    opening = "```" + FENCE
    start = text.find(opening)
    while start >= 0:
        if _rest_of_line(text, start + len(opening)).strip():  # another info string (```intent-annotations)
            start = text.find(opening, start + len(opening))
            continue
        body = text.find("\n", start) + 1
        close = text.find("\n```", body - 1)
        while close >= 0 and _rest_of_line(text, close + 4).strip():
            close = text.find("\n```", close + 4)
        if body == 0 or close < 0:
            break
        out.append(text[body:close])
        start = text.find(opening, close + 4)
    return out


def _rest_of_line(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[at:] if end < 0 else text[at:end]


def agent_annotations(session: Session, turns: Sequence[Turn] | None = None) -> list[TurnAnnotation]:
    """The annotations the agent wrote itself: the last ```intent-annotation fenced JSON block of each
    turn's assistant text (`git intent install --agent … --annotate` asks for one per turn). Blocks that are
    not valid annotations are ignored."""
    out = []
    for turn in turns if turns is not None else session_turns(session):
        blocks = [
            body
            for m in turn.messages
            if m.role == "assistant"
            for p in m.parts
            if p.kind == "text" and FENCE in p.text
            for body in fenced_blocks(p.text)
        ]
        for body in reversed(blocks):
            try:
                out.append(parse_annotation(json.loads(body), source="agent", turn=turn))
                break
            except ValueError:
                continue
    return out


def shared_annotations(session: Session, turns: Sequence[Turn] | None = None) -> dict[str, TurnAnnotation]:
    """turn id → the annotation shared with a session read from the evidence store (`SharedSession`), for
    its turns here; the shared objects are validated (others wrote them) and invalid ones skipped."""
    shared = getattr(session, "annotations", None)
    if not shared:
        return {}
    known = {t.turn_id: t for t in (turns if turns is not None else session_turns(session))}
    out = {}
    for item in shared:
        turn = known.get(str(item.get("turn_id")))
        source = item.get("source")
        if turn is None or source not in ("model", "agent"):
            continue
        try:
            out[turn.turn_id] = parse_annotation(item, source=source, turn=turn)
        except ValueError:
            continue
    return out


def effective_annotations(
    session: Session,
    stored: Iterable[TurnAnnotation] = (),
    topics: Sequence[Topic] | None = None,
    *,
    by_turn: Mapping[str, TurnAnnotation] | None = None,
) -> list[TurnAnnotation]:
    """One annotation per turn of `session`: the agent's own block, else the best of `stored` (matched by
    content digest; `by_turn`: matched by turn id, for shared sessions whose text redaction changed), else the
    offline filler (`topics`: the session's segmentation when already computed)."""
    turns = session_turns(session)
    by_turn = by_turn if by_turn is not None else shared_annotations(session, turns)
    best: dict[str, TurnAnnotation] = {}
    for item in [*agent_annotations(session, turns), *stored]:
        kept = best.get(item.digest)
        if kept is None or RANK[item.source] > RANK[kept.source]:
            best[item.digest] = item
    offline = {a.digest: a for a in offline_annotations(session, topics)}
    out = []
    for turn in turns:
        found = best.get(turn.digest) or by_turn.get(turn.turn_id)
        chosen = found if found is not None and found.source != "offline" else offline[turn.digest]
        out.append(replace(chosen, turn_id=turn.turn_id, digest=turn.digest))
    return out


def annotated_topics(
    session: Session, annotations: Sequence[TurnAnnotation], topics: Sequence[Topic] | None = None
) -> list[Topic]:
    """The topics of `session` as its annotations draw them: `topics` (the offline segmentation) when every
    annotation is offline; else a new topic wherever a turn says `is_new_topic` or changes `topic`, with the
    summary and placeholder of its last turn and the key facts of all its turns (`Topic.facts`, kept verbatim
    at every fidelity level). Turns without a model or agent annotation keep their offline one."""
    if all(a.source == "offline" for a in annotations):
        return list(topics) if topics is not None else segment_topics(session)
    turns = {t.turn_id: t for t in session_turns(session)}
    groups: list[list[tuple[Turn, TurnAnnotation]]] = []
    for annotation in annotations:
        turn = turns[annotation.turn_id]
        if not groups or annotation.is_new_topic or annotation.topic != groups[-1][-1][1].topic:
            groups.append([])
        groups[-1].append((turn, annotation))
    out = []
    for n, group in enumerate(groups, 1):
        messages = [m for turn, _ in group for m in turn.messages]
        last = group[-1][1]
        stamps = [m.timestamp for m in messages if m.timestamp is not None]
        ids = {m.message_id for m in messages}
        out.append(
            Topic(
                topic_id=f"t{n}",
                label=last.topic,
                summary=last.topic_summary,
                placeholder=last.placeholder,
                message_ids=tuple(m.message_id for m in messages),
                files=tuple(
                    dict.fromkeys(display_path(session, e.path) for e in session.edits if e.message_id in ids)
                ),
                token_estimate=sum(message_tokens(m) for m in messages),
                first_at=min(stamps) if stamps else None,
                last_at=max(stamps) if stamps else None,
                source="agent" if any(a.source == "agent" for _, a in group) else "model",
                facts=tuple(dict.fromkeys(f for _, a in group for f in a.key_facts)),
                turn_summaries=tuple(
                    (turn.reply.message_id, a.message_summary, turn.message_ids)
                    for turn, a in group
                    if a.source != "offline" and turn.reply is not None
                ),
            )
        )
    return out
