"""Human-readable text for blame answers, sessions, messages, logs and record results. Pure functions."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.terminal import terminal_safe
from ..core.values import Attribution, Message, Session
from ..sessions.prose import counted
from .file_ranges import runs

safe = terminal_safe  # every text renderer escapes through here

if TYPE_CHECKING:  # types only: rendering must not import attribution (rapidfuzz) for a blame
    from ..fidelity.budget import RenderedContext
    from ..fidelity.digest import Digest
    from ..index.search import Hit
    from .blame import BlameAnswer, LineAnswer
    from .evidence import Evidence
    from .log import LogEntry
    from .session_list import SessionSummary

_LABELS = {
    "request": "asked",
    "confirmed": "confirmed",
    "reasoning": "reasoning",
    "edit": "edit",
    "follow-up": "then said",
}


def when(stamp: datetime | None) -> str:
    """A timestamp as `YYYY-MM-DD HH:MM UTC` (or with its own offset, `+02:00`), or "unknown time": a time
    without its zone reads as local time and is off by hours for most readers."""
    if stamp is None:
        return "unknown time"
    offset = stamp.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else None
    zone = (
        ""
        if minutes is None
        else "UTC"
        if minutes == 0
        else f"{'+' if minutes > 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    )
    return f"{stamp.strftime('%Y-%m-%d %H:%M')} {zone}".rstrip()


def cut(text: str, width: int) -> str:
    """`text` on one line, shortened at a word to `width` characters; a cut row ends with "…"."""
    return textwrap.shorten(text, width=width, placeholder=" …")


def short(message_id: str) -> str:
    """A message id as people read it: uuids cut to 8 characters (`show` accepts unique prefixes)."""
    return message_id[:8] if len(message_id) >= 32 else message_id


def names_message(attribution: Attribution) -> bool:
    """Whether a credit names a session and a message (a trailer's names only the agent): only then is there
    an id to print or a message to link to."""
    return bool(attribution.session_id and attribution.message_id)


def trailer_credit(commits: Sequence[str]) -> str:
    """What a credit by a commit's trailer (no session, no message) says after the agent's name, the same on
    every surface: the commits (12 hex each, three at most) and that nothing more is known. "named by a
    trailer of commit be54402997b4; no transcript here, so no session or message to show"."""
    shown = ", ".join(c[:12] for c in commits[:3]) + (
        f" and {len(commits) - 3} more" if len(commits) > 3 else ""
    )
    which = f"commit {shown}" if len(commits) == 1 else f"commits {shown}" if commits else "its commit"
    return f"named by a trailer of {which}; no transcript here, so no session or message to show"


def blame_text(answer: BlameAnswer, width: int = 100) -> str:
    """Lines grouped by commit and attribution; each group shows who, when, why, and where to read more."""
    out: list[str] = []
    for group in runs(answer.lines, _same):
        out += _group(group, width)
        out.append("")
    return safe("\n".join(out).rstrip() + "\n")


def _same(a: LineAnswer, b: LineAnswer) -> bool:
    return (
        a.commit == b.commit
        and a.status == b.status
        and a.attribution == b.attribution
        and a.previous == b.previous
        and a.moved_in == b.moved_in
        and a.symbol == b.symbol
    )


def _group(group: list[LineAnswer], width: int) -> list[str]:
    first, last = group[0], group[-1]
    span = f"{first.path}:{first.line}" + (f"-{last.line}" if last.line != first.line else "")
    out = [f"{span}  in {first.symbol}" if first.symbol else span]
    out += [f"  {line.line:>5} │ {line.content}" for line in group[:12]]
    if len(group) > 12:
        out.append(f"        … {len(group) - 12} more {'line' if len(group) == 13 else 'lines'}")
    if first.commit:
        out.append(
            f"  commit    {first.commit[:12]}  {first.author or ''}  authored {when(first.authored_at)}"
        )
    attribution = first.attribution
    if attribution is None:
        out.append(
            f"  written   by a person: {first.reason}"
            if first.status == "human"
            else f"  status    {first.status}"
            if first.status == "unreadable"  # its warning is on stderr
            else f"  status    {first.status}: {first.reason}"
        )
        if first.previous is not None:
            was, by = first.previous, first.previous.attribution
            out.append(
                f"  replaced  a line {by.agent} wrote · session {by.session_id} · message "
                f"{short(by.message_id)} · commit {was.commit[:12]} ({was.path}:{was.line})"
            )
            out.append(f"            was: {was.content.strip()}")
            out.append(f"  more      git intent show {by.session_id}:{short(by.message_id)}")
        return out
    if (
        not attribution.session_id
    ):  # a trailer or a trace record: the reason is the sentence, no session to show
        out.append(
            f"  written   by {attribution.agent}"
            + (f" · {attribution.model}" if attribution.model else "")
            + f" · {first.reason} · confidence {attribution.confidence:.2f}"
        )
        return out
    how = " · found by content (no note)" if attribution.method == "content" else ""
    out.append(
        f"  written   by {attribution.agent} · session {attribution.session_id} · message "
        f"{short(attribution.message_id)} · {attribution.tool}"
        + (f" · {attribution.model}" if attribution.model else "")
        + how
        + (f" · confidence {attribution.confidence:.2f}" if attribution.confidence < 1 else "")
    )
    if first.moved_in:
        out.append(f"  moved     here by commit {first.moved_in[:12]} (git blame -M -C)")
    for item in first.evidence:
        out += _evidence(item, width)
    if first.reason:
        out.append(f"  note      {first.reason}")
    if first.evidence:  # `show` works only where the session can be read: no dead pointer
        out.append(f"  more      git intent show {attribution.session_id}:{short(attribution.message_id)}")
    return out


def _evidence(item: Evidence, width: int) -> list[str]:
    label = _LABELS[item.kind]
    if item.kind == "edit":
        body = item.text.splitlines()[:16]
    else:  # the passage the reason picker chose, when it chose one
        text = textwrap.shorten(" ".join((item.passage or item.text).split()), width=320, placeholder=" …")
        body = textwrap.wrap(text, width=max(40, width - 12)) or [""]
    shared = (" (shared, redacted)" if item.redacted else " (shared)") if item.source == "shared" else ""
    head = f"  {label:<9} {when(item.timestamp)} [{short(item.message_id)}]{shared}"
    return [head] + [f"            {line}" for line in body]


def session_text(session: Session, *, full: bool = True, root: Path | None = None) -> str:
    """A session header, then every message (full text, or one line each); edits' paths inside the work
    tree `root` are printed relative to it."""
    out = [
        f"session   {session.agent} {session.session_id}",
        f"transcript {session.transcript}",
        f"cwd       {session.cwd or 'unknown'}",
        f"span      {when(session.started_at)} → {when(session.ended_at)} · {len(session.messages)} "
        f"messages · {len(session.edits)} edits",
    ]
    if session.stats.unreadable:
        out.append(f"skipped   {session.stats.unreadable} unreadable record(s)")
    out.append("")
    for message in session.messages:
        out += message_text(message, session, root).splitlines() if full else [_one_line(message)]
        if full:
            out.append("")
    return safe("\n".join(out).rstrip() + "\n")


def message_text(message: Message, session: Session | None = None, root: Path | None = None) -> str:
    """One message at full fidelity: a header, then each part. With its `session`, a tool call that edited
    files shows each edit as a unified diff (explain/edit_diff.py) after the arguments the diff does not;
    a path inside the work tree `root` is printed relative to it, as git prints it."""
    from .edit_diff import call_arguments, call_edits, edit_diff

    edits = call_edits(session, message) if session is not None else {}
    flags = " (prompt)" if message.is_prompt else " (summary)" if message.is_summary else ""
    out = [f"── {message.message_id} · {message.role}{flags} · {when(message.timestamp)}"]
    for part in message.parts:
        if part.kind == "tool_call":
            out.append(f"[tool call {part.tool} {part.call_id or ''}]")
            made = edits.get(part.call_id or "", [])
            arguments = call_arguments(part.text, made)
            out += [arguments] if arguments is not None else []
            for edit in made:
                out += edit_diff(edit, root=root)
            continue
        if part.kind == "tool_result":
            out.append(f"[tool result {part.call_id or ''}{' error' if part.is_error else ''}]")
        elif part.kind == "reasoning":
            out.append("[reasoning]")
        out.append(part.text)
    return safe("\n".join(out))


def _one_line(message: Message) -> str:
    text = message.text or " ".join(f"[{p.kind} {p.tool or ''}]".strip() for p in message.parts)
    return f"{message.message_id:<38} {message.role:<9} {cut(' '.join(text.split()), 80)}"


def log_text(entries: list[LogEntry]) -> str:
    """One block per commit: sha, date, subject, then its sessions."""
    out: list[str] = []
    for entry in entries:
        out.append(
            f"{entry.commit[:12]}  committed {when(entry.committed_at)}  {entry.author}  {entry.subject}"
        )
        if entry.problem:
            out.append(f"    {entry.problem}")
        elif not entry.recorded:
            out.append("    not recorded")
        elif not entry.sessions:
            out.append(f"    no agent lines ({entry.lines_added or 0} added lines by people)")
        for credit in entry.sessions:
            out.append(f"    {credit.agent:<12} {credit.session_id}  {counted(credit.lines, 'line')}")
    return safe("\n".join(out) + ("\n" if out else ""))


def sessions_text(found: list[SessionSummary]) -> str:
    """One block per session: agent, id, span, size, then its commits and files."""
    if not found:
        return "No sessions of this repository were found on this machine.\n"
    out: list[str] = []
    for s in found:
        out.append(
            f"{s.agent:<12} {s.session_id}  {when(s.started_at)} → {when(s.ended_at)}  {s.messages} "
            f"messages, {s.edits} edits"
        )
        if s.commits:
            out.append(f"    commits  {' '.join(c[:12] for c in s.commits)}")
        if s.files:
            more = f" (+{len(s.files) - 6})" if len(s.files) > 6 else ""
            out.append(f"    files    {', '.join(s.files[:6])}{more}")
    return safe("\n".join(out) + "\n")


def digest_text(digest: Digest) -> str:
    """The session digest: goals, decisions, files and what changed, open questions."""
    out = ["digest"]
    out += [f"  goal      {cut(' '.join(g.text.split()), 110)}" for g in digest.goals[:6]]
    out += [f"  decided   {cut(' '.join(d.text.split()), 110)}" for d in digest.decisions[:5]]
    out += [f"  file      {f.path}  +{f.added} -{f.removed}" for f in digest.files[:10]]
    out += [f"  open      {cut(' '.join(q.text.split()), 110)}" for q in digest.open_questions[:3]]
    return safe("\n".join(out) + "\n\n")


def context_text(rendered: RenderedContext, commits: dict[str, list[str]]) -> str:
    """The topic map (size, share, fidelity, linked commits), then the rendering."""
    out = [
        f"topics of {rendered.agent} {rendered.session_id}: {rendered.tokens} of {rendered.budget_tokens} "
        f"tokens" + ("" if rendered.fits else " (your choices exceed the budget)")
    ]
    for entry in rendered.topic_map:
        linked = " ".join(c[:12] for c in commits.get(entry.topic_id, []))
        out.append(
            f"  {entry.topic_id:<4} {entry.fidelity:<11} {entry.share:>5.0%} {entry.tokens:>7} tok  "
            f"{cut(entry.label, 60)}" + (f"  [{linked}]" if linked else "")
        )
    out += [f"warning: {w}" for w in rendered.warnings]
    return safe("\n".join(out) + "\n\n" + rendered.text.rstrip() + "\n")


def hits_text(hits: list[Hit]) -> str:
    """One block per hit: score, agent, time, the reference to open it, and the snippet."""
    if not hits:
        return "No message of this repository's sessions matches.\n"
    out: list[str] = []
    for hit in hits:
        out.append(f"{hit.score:.2f}  {hit.agent:<12} {when(hit.timestamp)}  git intent show {hit.show}")
        out.append(f"      {cut(hit.snippet, 200)}")
    return safe("\n".join(out) + "\n")
