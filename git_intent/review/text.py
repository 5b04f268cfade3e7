"""`git intent review RANGE` as terminal text: the summary table, the sessions, then every file's hunks
with each group's author, request and reason, quoted and cited `[session:message]`. Pure functions."""

from __future__ import annotations

import textwrap

from ..explain.evidence import Evidence, best_reason
from ..explain.render import names_message, safe, short, trailer_credit
from ..sessions.prose import counted
from .values import ReviewAnswer, ReviewFile, ReviewGroup, SessionReview

QUOTE_CHARS = 240  # a quoted request or reason, whitespace collapsed
SHOWN_LINES = 3  # added lines shown under each group


def cite(session_id: str, message_id: str) -> str:
    """A citation as `[session:message]`, with the short ids `git intent show` accepts as prefixes."""
    return f"[{short(session_id)}:{short(message_id)}]"


def quote(item: Evidence, width: int = QUOTE_CHARS) -> str:
    """An evidence item's text on one line, shortened, in quotes, then its citation."""
    text = (
        textwrap.shorten(" ".join((item.passage or item.text).split()), width=width, placeholder=" …")
        or "(no text)"
    )
    return f"“{text}” {cite(item.session_id, item.message_id)}"


def reason_of(group: ReviewGroup) -> Evidence | None:
    """The assistant's stated reason for a group's edit: the reasoning the reason picker chose
    (explain/reasons.py). Never words said after the edit: they cannot be why it was made."""
    return best_reason(group.evidence)


def requests_of(group: ReviewGroup) -> list[Evidence]:
    """The user's requests that led to a group's edit: the prompt that opened the turn, then any the user
    typed while the agent worked."""
    return [e for e in group.evidence if e.kind == "request"]


def confirmed_of(group: ReviewGroup) -> Evidence | None:
    """The agent's proposal that the request, a bare "yes", confirmed (shown as blame shows it)."""
    return next((e for e in group.evidence if e.kind == "confirmed"), None)


def span(group: ReviewGroup) -> str:
    """`81` or `81-92`: the group's new-file lines."""
    return str(group.start) if group.start == group.end else f"{group.start}-{group.end}"


def review_text(answer: ReviewAnswer) -> str:
    """The whole review for a terminal (transcript text escaped: no control characters survive)."""
    out = [
        f"review {answer.range} · base {answer.base[:12]} · end {answer.end[:12]} · "
        f"{counted(len(answer.files), 'file')}, {counted(len(answer.sessions), 'session')}",
        "",
    ]
    width = max([len(row.path) for row in answer.summary] + [10])
    out.append(f"  {'file':<{width}}  {'agent':>6}  {'person':>6}  {'unrecorded':>10}  sessions")
    for row in [*answer.summary, answer.totals]:
        sessions = ", ".join(f"{s.split(':', 1)[0]} {short(s.split(':', 1)[1])}" for s in row.sessions)
        changed = f"{row.changed_by_person} changed an agent's lines" if row.changed_by_person else ""
        listed = "; ".join(x for x in (sessions if row.path != "total" else "", changed) if x)
        out.append(
            f"  {row.path:<{width}}  {row.agent:>6}  {row.human:>6}  {row.unrecorded:>10}  {listed}".rstrip()
        )
    if not answer.files:
        out += ["", f"No changes between {answer.base[:12]} and {answer.end[:12]}."]
    if answer.sessions:
        out += ["", "sessions"]
        for session in answer.sessions:
            out += _session(session)
    for review_file in answer.files:
        out += ["", *_file(review_file)]
    for problem in answer.problems:
        out.append(f"\nwarning: {problem}")
    return safe("\n".join(out).rstrip() + "\n")


def _session(session: SessionReview) -> list[str]:
    out = [
        f"  {session.agent} {session.session_id}  {counted(session.lines, 'line')} in "
        f"{counted(len(session.files), 'file')}, {counted(len(session.messages), 'message')}"
    ]
    if session.summary is not None:
        out += [f"    {line}" for line in textwrap.wrap(session.summary.text, 96)]
    asked = [item for item in session.requests if item.kind == "request"]
    shown = session.requests[: session.requests.index(asked[5])] if len(asked) > 5 else session.requests
    out += [f"    {'asked' if item.kind == 'request' else item.kind:<9} {quote(item)}" for item in shown]
    if len(asked) > 5:
        out.append(f"    … {len(asked) - 5} more requests")
    return out


def _file(review_file: ReviewFile) -> list[str]:
    renamed = f" from {review_file.old_path}" if review_file.old_path else ""
    out = [f"{review_file.path} ({review_file.change}{renamed})"]
    if review_file.binary:
        return out + ["  binary file: no lines to explain"]
    quoted: dict[tuple[str, str], int] = {}  # (session, message) -> first line quoted for it in this file
    for hunk in review_file.hunks:
        out.append(
            f"  @@ -{hunk.old_start},{hunk.old_lines} +{hunk.new_start},{hunk.new_lines} @@"
            + ("" if hunk.groups else f"  ({counted(hunk.removed, 'line')} removed)")
        )
        for group in hunk.groups:
            out += _group(group, quoted)
    return out


def first_quote(group: ReviewGroup, quoted: dict[tuple[str, str], int]) -> int | None:
    """The line where this group's message was already quoted in the file (None: quote it now, and
    remember it): one message's request and reason are quoted once per file."""
    if group.attribution is None:
        return None
    key = (group.attribution.session_id, group.attribution.message_id)
    if key in quoted:
        return quoted[key]
    quoted[key] = group.start
    return None


def _group(group: ReviewGroup, quoted: dict[tuple[str, str], int]) -> list[str]:
    head = f"  {span(group):<9} "
    pad = " " * 12
    a = group.attribution
    if group.status == "agent" and a is not None and not names_message(a):  # a trailer's: no session to quote
        symbol = f" · in {group.symbol}" if group.symbol else ""
        out = [
            f"{head}{a.agent} · {counted(group.counted, 'line')}{symbol}",
            f"{pad}{trailer_credit(group.commits)}",
        ]
    elif group.status == "agent" and a is not None:
        out = [
            f"{head}{a.agent} · session {short(a.session_id)} · message {short(a.message_id)} · {a.tool}"
            + (f" · {a.method}" if a.method != "note" else "")
            + f" · {counted(group.counted, 'line')}"
            + (f" · in {group.symbol}" if group.symbol else "")
        ]
        requests, confirmed, reason = requests_of(group), confirmed_of(group), reason_of(group)
        earlier = first_quote(group, quoted)
        if earlier is not None:
            out.append(f"{pad}same request and reason as line {earlier} above")
        elif requests:
            out.append(f"{pad}{'asked':<9} {quote(requests[0])}")
            if confirmed is not None:
                out.append(f"{pad}{'confirmed':<9} {quote(confirmed)}")
            out += [f"{pad}{'then':<9} {quote(item)}" for item in requests[1:]]
        if earlier is None and reason is not None:
            out.append(f"{pad}{'because':<9} {quote(reason)}")
        if earlier is None and not requests and reason is None:
            out.append(f"{pad}{group.reason or 'the session is not on this machine: no words to quote'}")
    elif group.status == "human":
        commits = ", ".join(c[:12] for c in group.commits)
        out = [
            f"{head}person {group.author or 'unknown'} · commit {commits} · {counted(group.counted, 'line')}"
        ]
        for line in group.changed[:5]:
            p = line.previous
            assert p is not None
            out.append(
                f"{pad}! line {line.line} changed a line {p.attribution.agent} wrote "
                f"{cite(p.attribution.session_id, p.attribution.message_id)}: {p.content.strip()[:80]}"
            )
    else:
        out = [f"{head}{group.status} · {group.reason or ''}".rstrip(" ·")]
    shown = [line for line in group.lines if line.content.strip()][:SHOWN_LINES]
    out += [f"{pad}│ {line.content[:100]}" for line in shown]
    if group.counted > len(shown):
        out.append(f"{pad}│ … {group.counted - len(shown)} more")
    return out
