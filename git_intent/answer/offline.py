"""Offline answers: deterministic prose assembled from the evidence, quoted and cited.

For each run of lines written by one edit: what was asked (the user's words), what the agent said it would
do and why, what the edit did, and what happened next. Quotes are exact text of the cited message,
whitespace-normalised, so the same citation check as a model's answer verifies every one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.values import MOVE_KINDS, Edit, Message, Session
from ..explain.blame import LineAnswer
from ..explain.evidence import Evidence, best_reason
from ..explain.file_ranges import runs
from ..explain.reasons import is_request
from ..explain.render import when
from ..sessions.prose import clip_units, estimate_tokens, plural, request_text, units
from .citations import Ref, normalize, quotable_text, quote_occurs
from .reading import Reading

QUOTE_CHARS = 300
MAX_GROUPS = 6  # runs of lines explained in one answer; the rest are counted


@dataclass
class Prose:
    """Sentences being written, and what their quotes read: (session, message) → quotable text."""

    sentences: list[str] = field(default_factory=list)
    read: dict[Ref, str] = field(default_factory=dict)
    tokens: int = 0

    def quote(self, session: Session, message: Message, text: str, limit: int = QUOTE_CHARS) -> str:
        """`"text" [S:M]` for a span of `message` (clipped to `limit` characters), or just `[S:M]` when no
        part of `text` can be quoted exactly."""
        return self.quote_or_none(session, message, text, limit) or self.cite(session, message)

    def quote_or_none(
        self, session: Session, message: Message, text: str, limit: int = QUOTE_CHARS
    ) -> str | None:
        """`"text" [S:M]`, or None when `text` is not (clipped) text of `message`."""
        whole = quotable_text(message)
        span = clip_quote(text, limit)
        if not span or not quote_occurs(span, whole):
            return None
        self.read[(session.session_id, message.message_id)] = whole
        self.tokens += estimate_tokens(span)
        return f"{delimit(span)} {self.cite(session, message)}"

    def cite(self, session: Session, message: Message) -> str:
        """`[S:M]`, the message counted as read (its text is the evidence cited)."""
        self.read[(session.session_id, message.message_id)] = quotable_text(message)
        return f"[{session.session_id}:{message.message_id}]"

    def extend(self, other: Prose) -> None:
        """Append `other`'s sentences, reads and tokens."""
        self.sentences += [s for s in other.sentences if s]
        self.read.update(other.read)
        self.tokens += other.tokens

    def text(self) -> str:
        """The sentences, one paragraph per blank entry."""
        return "\n".join(self.sentences).strip()


def clip_quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` on one line, cut at a word before `limit` characters with a closing "…", and cut before
    any character that would end the quote early (both `"` and `”` inside)."""
    line = normalize(text)
    if '"' in line and "”" in line:
        line = line[: line.index('"')].rstrip()
    if len(line) <= limit:
        return line
    cut = line[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + " …"


def delimit(span: str) -> str:
    """The span in straight double quotes, or in curly ones when it holds a straight one."""
    return f"“{span}”" if '"' in span else f'"{span}"'


def why_prose(reading: Reading, lines: list[LineAnswer]) -> Prose:
    """The offline answer for blamed `lines` (one paragraph per run of lines from one edit)."""
    prose = Prose()
    groups = _groups(lines)
    explained: set[tuple[str, str]] = set()
    for group in groups[:MAX_GROUPS]:
        attribution = group[0].attribution
        key = (attribution.session_id, attribution.message_id) if attribution else None
        session = reading.try_session(key[0], attribution.agent) if key and attribution else None
        message = session.message(key[1]) if session and key else None
        if key in explained and session is not None and message is not None:
            prose.sentences.append(
                f"{_span(group)} {'comes' if len(group) == 1 else 'come'} from the same edit "
                f"{prose.quote(session, message, _content(group), 160)}."
            )
        else:
            _group(prose, reading, group)
        if key is not None:
            explained.add(key)
        prose.sentences.append("")
    if len(groups) > MAX_GROUPS:
        rest = sum(len(g) for g in groups[MAX_GROUPS:])
        prose.sentences.append(
            f"{rest} more {plural(rest, 'line')} {'comes' if rest == 1 else 'come'} from other "
            "edits; `git intent blame` lists them all."
        )
    return prose


def _groups(lines: list[LineAnswer]) -> list[list[LineAnswer]]:
    return runs(
        lines,
        lambda a, b: (
            (a.path, a.line + 1, a.commit, a.status, a.attribution, a.symbol)
            == (b.path, b.line, b.commit, b.status, b.attribution, b.symbol)
        ),
    )


def _group(prose: Prose, reading: Reading, group: list[LineAnswer]) -> None:
    first = group[0]
    span = f"{_span(group)} {'was' if len(group) == 1 else 'were'}"
    commit = (
        (
            f"commit {first.commit[:12]}"
            + (f" by {first.author}" if first.author else "")
            + (f" on {when(first.authored_at)}" if first.authored_at else "")
        )
        if first.commit
        else ""
    )
    attribution = first.attribution
    if attribution is None:
        if first.status == "human":
            prose.sentences.append(
                f"{span} written by a person ({commit}): no agent edit recorded for that commit wrote it."
            )
            _replaced(prose, reading, first)
        else:
            prose.sentences.append(f"I could not find out why: {first.reason or first.status}")
        return
    if not attribution.session_id:  # a trailer's or a trace record's credit: no session to read
        prose.sentences.append(
            f"{span} {first.reason} ({commit}; {attribution.agent}, confidence {attribution.confidence:.2f})."
        )
        return
    matched = (
        (
            f" The commit has no note; the line was matched by its exact text (confidence "
            f"{attribution.confidence:.2f})."
        )
        if attribution.method == "content"
        else ""
    )
    prose.sentences.append(
        f"{span} written by {attribution.agent} in session {attribution.session_id} ({commit}) with "
        f"{attribution.tool}.{matched}"
    )
    session = reading.try_session(attribution.session_id, attribution.agent)
    index = (
        next((i for i, m in enumerate(session.messages) if m.message_id == attribution.message_id), None)
        if session
        else None
    )
    if session is None or index is None:
        reason = first.reason or "the session's transcript is not on this machine."
        prose.sentences.append(f"I could not find out why: {reason}")
        return
    _asked(prose, session, first.evidence)
    _reasoning(prose, session, first.evidence)
    _edit(prose, session, index, group)
    _next(prose, session, index, group)


def _replaced(prose: Prose, reading: Reading, line: LineAnswer) -> None:
    """A person's line that replaced an agent's: what the agent wrote there, as blame shows it."""
    was = line.previous
    if was is None:
        return
    by = was.attribution
    session = reading.try_session(by.session_id, by.agent)
    message = session.message(by.message_id) if session else None
    cited = (
        f" {prose.cite(session, message)}"
        if session is not None and message is not None
        else f" (session {by.session_id})"
    )
    prose.sentences.append(
        f"It replaced a line {by.agent} wrote in commit {was.commit[:12]}{cited}, was: "
        f"{delimit(clip_quote(was.content, 160))}."
    )


def _asked(prose: Prose, session: Session, evidence: list[Evidence]) -> None:
    """The request the reason picker found (explain/reasons.py), with what a bare confirmation confirmed and
    what the user added while the agent worked."""
    requests = [e for e in evidence if e.kind == "request"]
    message = session.message(requests[0].message_id) if requests else None
    if message is None:
        return
    request = requests[0]
    if request.passage:  # a continued session: quoted from its compaction summary
        prose.sentences.append(
            f"The user asked {prose.quote(session, message, request.passage)} (as the "
            "compaction summary lists it)."
        )
    else:
        said = prose.quote(session, message, request_text(message))
        confirmed = next((e for e in evidence if e.kind == "confirmed"), None)
        proposal = session.message(confirmed.message_id) if confirmed else None
        if confirmed is not None and proposal is not None:
            prose.sentences.append(
                f"The user answered {said} to the agent's "
                f"{prose.quote(session, proposal, confirmed.passage or proposal.text)}."
            )
        else:
            prose.sentences.append(f"The user asked {said}.")
    for item in requests[1:]:
        added = session.message(item.message_id)
        if added is not None:
            prose.sentences.append(
                f"While the agent worked, the user added {prose.quote(session, added, request_text(added))}."
            )


def _reasoning(prose: Prose, session: Session, evidence: list[Evidence]) -> None:
    """The passage of the reason the picker chose: the agent's words nearest the edit that name it."""
    reason = best_reason(evidence)
    message = session.message(reason.message_id) if reason else None
    if reason is None or message is None:
        return
    text = reason.passage or clip_units(units(message.text)[:2], QUOTE_CHARS)
    prose.sentences.append(f"The agent explained {prose.quote(session, message, text)}.")


def _edit(prose: Prose, session: Session, index: int, group: list[LineAnswer]) -> None:
    message = session.messages[index]
    edit = _edit_of(session, message.message_id, group[0].path)
    what = f"{edit.tool} on {group[0].path}" if edit else group[0].path
    prose.sentences.append(f"The edit ({what}) wrote {prose.quote(session, message, _content(group), 160)}.")


def _next(prose: Prose, session: Session, index: int, group: list[LineAnswer]) -> None:
    after = session.messages[index + 1 :]
    said = next(
        (
            m
            for m in after
            if m.role == "assistant" and any(p.kind == "text" and p.text.strip() for p in m.parts)
        ),
        None,
    )
    prompt = next((m for m in after if is_request(m)), None)
    if said is not None and (prompt is None or after.index(said) < after.index(prompt)):
        text = " ".join(p.text for p in said.parts if p.kind == "text")
        words = clip_units(units(text)[:2], QUOTE_CHARS)
        prose.sentences.append(f"Afterwards the agent said {prose.quote(session, said, words)}.")
    content = {ln.content.strip() for ln in group if len(ln.content.strip()) >= 8}
    later = [
        e
        for e in session.edits
        if _after(session, e, index)
        and e.path.endswith(group[0].path)
        and e.old_text
        and any(c in e.old_text and c not in e.new_text for c in content)
    ]
    if later:
        message = session.message(later[-1].message_id)
        if message is not None:
            changed = next(c for c in content if c in (later[-1].old_text or ""))
            prose.sentences.append(
                f"Later in the session an edit changed {prose.quote(session, message, changed)} "
                "again; the committed line is the one above."
            )


def _span(group: list[LineAnswer]) -> str:
    first, last = group[0], group[-1]
    where = f" (in {first.symbol})" if first.symbol else ""
    return (
        f"Line {first.line} of {first.path}{where}"
        if first is last
        else f"Lines {first.line}-{last.line} of {first.path}{where}"
    )


def _content(group: list[LineAnswer]) -> str:
    """The first line of the group worth quoting (8 characters or more), stripped."""
    return next(
        (ln.content.strip() for ln in group if len(ln.content.strip()) >= 8), group[0].content.strip()
    )


def _edit_of(session: Session, message_id: str, path: str) -> Edit | None:
    found = [e for e in session.edits if e.message_id == message_id]
    found = [e for e in found if e.kind not in MOVE_KINDS] or found  # a move beside its update writes no line
    same = [e for e in found if e.path.replace("\\", "/").endswith(path)]
    return (same or found)[0] if same or found else None


def _after(session: Session, edit: Edit, index: int) -> bool:
    position = next((i for i, m in enumerate(session.messages) if m.message_id == edit.message_id), -1)
    return position > index
