"""`git intent review RANGE --format markdown`: a paste-ready pull-request comment. Pure functions.

Everything from a transcript, a path, an author or a model goes out escaped: quoted messages inside
code fences longer than any backtick run they contain, everything else as HTML entities (`<`, `&`,
`|`, `@` so nobody is mentioned, brackets so no link or image is made). Only the tags written here
(`details`, `summary`, `code`, `sub`, `b`) are raw HTML. The comment stays within GitHub's limit of
65,536 characters: files that do not fit lose their quotes, then are left out behind a line that says
how to see the rest.
"""

from __future__ import annotations

import re

from ..explain.evidence import Evidence
from ..explain.render import names_message, safe, short, trailer_credit
from ..sessions.prose import counted
from .text import cite, confirmed_of, first_quote, reason_of, requests_of, span
from .values import ReviewAnswer, ReviewFile, ReviewGroup, SessionReview

GITHUB_LIMIT = 65_536  # characters in one issue or pull-request comment
TABLE_ROWS = 150
SESSIONS_SHOWN = 30
REQUEST_CHARS = 1200
REASON_CHARS = 800
_ENTITIES = str.maketrans({c: f"&#{ord(c)};" for c in "&<>\"'|@`[]\\*_~#!"} | {"\n": " ", "\r": " "})


def inline(text: str) -> str:
    """Text for a Markdown line or an HTML element: every character Markdown or HTML would act on as a
    numeric entity, line breaks as spaces, control characters as `\\xNN`."""
    return safe(text).translate(_ENTITIES)


def fenced(text: str, limit: int, pointer: str, language: str = "text") -> str:
    """`text` (cut to `limit` characters, then a `git intent show` pointer) in a code fence longer than
    any run of backticks inside it, so nothing in it is read as Markdown or HTML."""
    text = safe(text.replace("\r\n", "\n").strip())
    if len(text) > limit:
        text = text[:limit].rstrip() + f" … [clipped; full text: git intent show {pointer}]"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}\n"


def _code(text: str) -> str:
    return f"<code>{inline(text)}</code>"


def _cite(session_id: str, message_id: str) -> str:
    return _code(cite(session_id, message_id).strip("[]"))


def review_markdown(answer: ReviewAnswer, limit: int = GITHUB_LIMIT) -> str:
    """The review as a GitHub comment of at most `limit` characters: a header and the summary table,
    the sessions, then one collapsible section per file. When everything does not fit, every file is
    listed without quotes first and quotes come back, in diff order, while they fit; when even that
    does not fit, the files that fit are shown and a last line points to `git intent review RANGE`."""
    head = _header(answer) + _sessions(answer) + ("" if answer.files else "No changes in this range.\n")
    full = [_file(f, quotes=True) for f in answer.files]
    if len(head) + sum(map(len, full)) <= limit:
        return head + "".join(full)
    blocks = [_file(f, quotes=False) for f in answer.files]
    total = len(head) + sum(map(len, blocks))
    if total <= limit:
        for i, block in enumerate(full):
            if total + len(block) - len(blocks[i]) <= limit:
                total += len(block) - len(blocks[i])
                blocks[i] = block
        return head + "".join(blocks)
    out, shown = head, 0
    for block in blocks:
        if len(out) + len(block) + len(_trailer(answer, shown + 1)) > limit:
            break
        out += block
        shown += 1
    return (out + _trailer(answer, shown))[:limit]  # the cut never bites: every block was measured


def _trailer(answer: ReviewAnswer, shown: int) -> str:
    return (
        f"\n> <b>Truncated</b> to fit GitHub's 65,536-character comment limit: {shown} of "
        f"{len(answer.files)} files shown. Run {_code('git intent review ' + answer.range)} to see the "
        f"whole review.\n"
    )


def _header(answer: ReviewAnswer) -> str:
    t = answer.totals
    out = [
        f"### git-intent review of {_code(answer.range)}",
        "",
        f"<sub>base {_code(answer.base[:12])} → end {_code(answer.end[:12])} · {len(answer.files)} files · "
        f"{t.agent} agent, {t.human} person, {t.unrecorded} unrecorded lines (non-blank added lines)</sub>",
        "",
        "| file | agent | person | unrecorded | sessions |",
        "|---|--:|--:|--:|---|",
    ]
    for row in answer.summary[:TABLE_ROWS]:
        changed = f" ({row.changed_by_person} changed an agent's)" if row.changed_by_person else ""
        sessions = ", ".join(
            f"{inline(s.split(':', 1)[0])} {_code(short(s.split(':', 1)[1]))}" for s in row.sessions
        )
        out.append(
            f"| {_code(row.path)} | {row.agent} | {row.human}{changed} | {row.unrecorded} | {sessions} |"
        )
    if len(answer.summary) > TABLE_ROWS:
        out.append(f"| … {len(answer.summary) - TABLE_ROWS} more files | | | | |")
    out.append(f"| <b>total</b> | {t.agent} | {t.human} | {t.unrecorded} | {len(answer.sessions)} sessions |")
    return "\n".join(out) + "\n\n"


def _sessions(answer: ReviewAnswer) -> str:
    if not answer.sessions:
        return ""
    out = ["#### Sessions", ""]
    for session in answer.sessions[:SESSIONS_SHOWN]:
        out.append(_session(session))
    if len(answer.sessions) > SESSIONS_SHOWN:
        out.append(f"… and {len(answer.sessions) - SESSIONS_SHOWN} more sessions.\n")
    return "\n".join(out) + "\n#### Files\n\n"


def _session(session: SessionReview) -> str:
    out = [
        f"<details><summary>{inline(session.agent)} {_code(short(session.session_id))} · {session.lines} "
        f"lines in {len(session.files)} files</summary>",
        "",
    ]
    if session.summary is not None:
        out += [inline(session.summary.text), ""]
    asked = [item for item in session.requests if item.kind == "request"]
    for item in session.requests[: session.requests.index(asked[3])] if len(asked) > 3 else session.requests:
        pointer = f"{session.session_id}:{item.message_id}"
        label, text = (
            ("asked", item.text) if item.kind == "request" else (item.kind, item.passage or item.text)
        )
        out += [
            f"{label} {_cite(item.session_id, item.message_id)}:",
            "",
            fenced(text, REQUEST_CHARS, pointer),
        ]
    out.append("</details>\n")
    return "\n".join(out)


def _file(review_file: ReviewFile, quotes: bool) -> str:
    agent = sum(g.counted for h in review_file.hunks for g in h.groups if g.status == "agent")
    human = sum(g.counted for h in review_file.hunks for g in h.groups if g.status == "human")
    other = sum(g.counted for h in review_file.hunks for g in h.groups) - agent - human
    renamed = f" from {_code(review_file.old_path)}" if review_file.old_path else ""
    out = [
        f"<details><summary>{_code(review_file.path)} · {review_file.change}{renamed} · {agent} agent, "
        f"{human} person, {other} unrecorded</summary>",
        "",
    ]
    if review_file.binary:
        out.append("Binary file: no lines to explain.\n")
    quoted: dict[tuple[str, str], int] = {}
    for hunk in review_file.hunks:
        out.append(
            f"<b>@@ -{hunk.old_start},{hunk.old_lines} +{hunk.new_start},{hunk.new_lines} @@</b>"
            + ("" if hunk.groups else f" ({counted(hunk.removed, 'line')} removed)")
            + "\n"
        )
        for group in hunk.groups:
            out.append(_group(group, quotes, quoted))
    if not quotes and any(g.status == "agent" for h in review_file.hunks for g in h.groups):
        out.append("<sub>Quotes left out to fit the comment limit.</sub>\n")
    out.append("</details>\n")
    return "\n".join(out) + "\n"


def _quoted(label: str, item: Evidence, text: str, limit: int) -> list[str]:
    """`label [S:M]:` and `text` fenced, cut to `limit` characters with a pointer to the whole message."""
    return [
        f"{label} {_cite(item.session_id, item.message_id)}:\n",
        fenced(text, limit, f"{item.session_id}:{item.message_id}"),
    ]


def _group(group: ReviewGroup, quotes: bool, quoted: dict[tuple[str, str], int]) -> str:
    where = f"{'line' if group.start == group.end else 'lines'} {span(group)}" + (
        f" in {inline(group.symbol)}" if group.symbol else ""
    )
    a = group.attribution
    if group.status == "agent" and a is not None and not names_message(a):  # a trailer's: no session to cite
        return f"{where} · {inline(a.agent)}, {inline(trailer_credit(group.commits))}\n"
    if group.status == "agent" and a is not None:
        out = [
            f"{where} · {inline(a.agent)} {_cite(a.session_id, a.message_id)} · {inline(a.tool)}"
            + (f" · matched by {inline(a.method)}" if a.method != "note" else "")
            + "\n"
        ]
        requests, confirmed, reason = requests_of(group), confirmed_of(group), reason_of(group)
        earlier = first_quote(group, quoted)
        if quotes and earlier is not None:
            out.append(f"same request and reason as line {earlier} above\n")
        elif quotes and requests:
            out += _quoted("asked", requests[0], requests[0].text, REQUEST_CHARS)
            if confirmed is not None:
                out += _quoted("confirmed", confirmed, confirmed.passage or confirmed.text, REASON_CHARS)
            for item in requests[1:]:
                out += _quoted("then asked", item, item.text, REQUEST_CHARS)
        if quotes and earlier is None and reason is not None:
            out += _quoted("because", reason, reason.passage or reason.text, REASON_CHARS)
        return "\n".join(out)
    if group.status == "human":
        commits = ", ".join(_code(c[:12]) for c in group.commits)
        out = [f"{where} · person {inline(group.author or 'unknown')} · commit {commits}\n"]
        for line in group.changed[:10]:
            p = line.previous
            assert p is not None
            out.append(
                f"⚠️ line {line.line} changed a line {inline(p.attribution.agent)} wrote "
                f"{_cite(p.attribution.session_id, p.attribution.message_id)}\n"
            )
        return "\n".join(out)
    return f"{where} · {group.status}: {inline(group.reason or 'no record')}\n"
