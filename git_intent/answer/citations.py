"""Checking an answer's `[session_id:message_id]` citations and quotes, and stripping links: pure, no I/O.

A citation counts only when the message exists in that session and was read
during this answer; a quoted span `"…"` belongs to the citation right after it in the same sentence and
must occur in that message (whitespace-normalised, `…` between fragments allowed). Anything else is
removed from the text, with the quote it carried, and listed with a fixed reason code.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core import linear
from ..core.values import Message
from .values import Citation, DroppedCitation, DropReason

Ref = tuple[str, str]  # (session_id, message_id), full ids

# A citation-shaped bracket: ids without spaces, several joined by "," or ";"; "[Note: text]" is prose.
_ITEM = r"[^\[\]\s,;]+"
CANDIDATE = re.compile(rf"\[(?P<body>{_ITEM}(?:\s*[,;]\s*{_ITEM})*)\]")
_ID = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_VALID = re.compile(rf"^(?P<session>{_ID}):(?P<message>{_ID})$")
QUOTE_CHARS = 2000  # the longest quote read as one: a longer run between quote marks is not a quotation
_CLOSING = {'"': '"', "“": "”"}
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
_ELLIPSIS = linear.compile(rf"[{linear.SPACE}]*(?:…|\.\.\.)[{linear.SPACE}]*")
_FOLD = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})

# RE2 (`linear`) where a run may cross the character a match starts with (`[`, `<`, a space, a letter): under
# `re` each start scanned to the end of that run, quadratic ("[" * 10000: 0.7 s, "<i" * 5000: over 2 s). The
# others are linear under `re`: a run that cannot hold where a match starts, or a lookbehind that lets only a
# run's first character start one.
_IMAGE = linear.compile(r"!\[[^\]\n]*\]\([^)\n]*\)|!\[[^\]\n]*\]\[[^\]\n]*\]")
_LINK = linear.compile(r"\[(?P<text>[^\]\n]*)\]\((?P<url>[^)\n]*)\)")
_DEFINITION = re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$", re.MULTILINE)
# Tags that load or link by themselves, and any tag with an attribute holding a URL or a style (an
# `<object data=//host/…>` once survived).
_TAG = linear.compile(
    r"(?i)<(?:img|a|iframe|script|link|source|video|audio|object|embed|form|svg|math|meta|base|style|"
    r"frame|frameset|applet|track|image|use|input|button|area|picture|portal)\b[^>]*>|"
    rf"</(?:a|object|form|svg|math|style|script|iframe|button|frameset|applet|video|audio)[{linear.SPACE}]*>|"
    r"<[a-z][a-z0-9-]*\b[^>]*?\b(?:href|src|data|action|formaction|srcset|poster|background|style|"
    rf"codebase|cite|ping|xlink:href)[{linear.SPACE}]*=[^>]*>"
)
# Script URLs (no `//`), a parenthesised argument list kept whole: `javascript:alert('a b')`.
_SCRIPT_URL = re.compile(
    r"\b(?:java|vb|live)script:(?:\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)|[^\s<>()])*", re.IGNORECASE
)
# Protocol-relative `//host.tld/…` (a renderer fetches it over the page's scheme); `// comment` and `a//b` are
# not.
_SCHEMELESS = re.compile(r"(?<![\w:/.])//[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?::\d+)?(?:[/?#][^\s<>\"'`)\]]*)?")
_AUTOLINK = linear.compile(rf"(?i)<(?:[a-z][a-z0-9+.-]*:|www\.)[^>{linear.SPACE}]*>")
_URL = linear.compile(
    rf"(?i)\b(?:[a-z][a-z0-9+.-]*://|www\.|mailto:|data:[a-z]+/)"
    rf"(?:[^{linear.SPACE}<>\"'`)\]]*[^{linear.SPACE}<>\"'`)\].,;:!?])?"
)
LINK_REMOVED = "(link removed)"


def normalize(text: str) -> str:
    """`text` with runs of whitespace made one space and typographic quotes made straight, stripped."""
    return " ".join(text.translate(_FOLD).split())


def quotable_text(message: Message) -> str:
    """Everything a quote of `message` may come from: its text and reasoning, its tool calls' argument
    values (JSON decoded, so a quoted line of code matches without JSON escapes), and its tool results."""
    pieces: list[str] = []
    for part in message.parts:
        if part.kind == "tool_call":
            try:
                pieces += _strings(json.loads(part.text))
            except ValueError:
                pieces.append(part.text)
        else:
            pieces.append(part.text)
    return "\n".join(p for p in pieces if p)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def quote_occurs(quote: str, text: str) -> bool:
    """Whether `quote` occurs in `text`, whitespace-normalised; fragments around `…` (or `...`) must
    occur in order."""
    haystack = normalize(text)
    at = 0
    fragments = [f for f in _ELLIPSIS.split(normalize(quote)) if f]
    if not fragments:
        return False
    for fragment in fragments:
        found = haystack.find(fragment, at)
        if found < 0:
            return False
        at = found + len(fragment)
    return True


def strip_links(text: str) -> tuple[str, int]:
    """`text` without URLs and images (model-written prose must not carry data out through a
    link a renderer would fetch): images and HTML tags removed, markdown links reduced to their text
    (a citation-shaped text keeps its brackets), bare URLs, `javascript:` URLs and protocol-relative
    `//host/…` links replaced by "(link removed)". Returns the text and how many links or
    images were removed."""

    def link(match: linear.Match) -> str:
        inner = match["text"]
        return f"[{inner}]" if ":" in inner and CANDIDATE.fullmatch(f"[{inner}]") else inner

    text, count = _IMAGE.subn("", text)
    text, n = _LINK.subn(link, text)
    count += n
    replacements: list[tuple[linear.Pattern | re.Pattern[str], str]] = [
        (_DEFINITION, ""),
        (_TAG, ""),
        (_AUTOLINK, LINK_REMOVED),
        (_URL, LINK_REMOVED),
        (_SCRIPT_URL, LINK_REMOVED),
        (_SCHEMELESS, LINK_REMOVED),
    ]
    for pattern, replacement in replacements:
        text, n = pattern.subn(replacement, text)
        count += n
    if count:  # close the gaps left inside lines (indentation at a line's start is kept)
        text = re.sub(r"(?<=\S)[ \t]{2,}", " ", text)
    return text, count


@dataclass
class _Marker:
    start: int
    end: int
    items: list[str]
    quotes: list[tuple[int, int, str]] = field(default_factory=list)  # owned by the first item


def verify_citations(
    text: str, read: Mapping[Ref, str], known: Mapping[str, Collection[str]]
) -> tuple[str, list[Citation], list[DroppedCitation]]:
    """Check every citation of `text`.

    `read` maps (session_id, message_id) of each message shown to the model in this answer to the text
    quotes are checked against (`quotable_text`); `known` maps each session id that can be cited to all
    its message ids. Unique prefixes of both ids are accepted and reported as full ids.

    Returns the text with verified markers rewritten to full ids and dropped ones removed (with the quotes
    they carried), the verified citations (one per quote, deduplicated) and the dropped ones in order.
    """
    markers = _markers(text)
    edits: list[tuple[int, int, str]] = []
    citations: list[Citation] = []
    dropped: list[DroppedCitation] = []
    for marker in markers:
        kept: list[str] = []
        for n, item in enumerate(marker.items):
            quotes = [q for _, _, q in marker.quotes] if n == 0 else []
            ref, reason = _check(item, quotes, read, known)
            session_id, _, message_id = item.partition(":")
            if reason is not None or ref is None:
                dropped.append(
                    DroppedCitation(
                        session_id=ref[0] if ref else session_id,
                        message_id=ref[1] if ref else message_id,
                        reason=reason or "malformed",
                        marker=f"[{item}]",
                        quote=quotes[-1] if quotes else None,
                    )
                )
                if n == 0:
                    edits += [(start, end, "") for start, end, _ in marker.quotes]
                continue
            kept.append(f"[{ref[0]}:{ref[1]}]")
            spans: list[str | None] = list(quotes) or [None]
            for quote in spans:
                citation = Citation(session_id=ref[0], message_id=ref[1], quote=quote)
                if citation not in citations:
                    citations.append(citation)
        edits.append((marker.start, marker.end, "".join(kept)))
    return _apply(text, edits), citations, dropped


def quote_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, words) of each quotation in `text`, left to right and not overlapping: `"…"` or `“…”`
    on one line, 1 to `QUOTE_CHARS` characters inside (what `re.finditer` of
    `"([^"\n]{1,2000})"|“([^”\n]{1,2000})”` finds). Linear in the text: each kind of mark and the newlines
    are searched for once from each place, where a bounded pattern tried at every unclosed mark read up to
    2,000 characters each time."""
    found: list[tuple[int, int, str]] = []
    seen: dict[str, int] = {}

    def following(mark: str, after: int) -> int:
        """The first `mark` after `after` (len(text) when none); `after` never decreases between calls."""
        if seen.get(mark, -1) <= after:
            at = text.find(mark, after + 1)
            seen[mark] = at if at >= 0 else len(text)
        return seen[mark]

    at = 0
    while True:
        start = min(following('"', at - 1), following("“", at - 1))
        if start >= len(text):
            return found
        end = following(_CLOSING[text[start]], start)
        if end < following("\n", start) and 1 <= end - start - 1 <= QUOTE_CHARS:
            found.append((start, end + 1, text[start + 1 : end]))
            at = end + 1
        else:
            at = start + 1


def _markers(text: str) -> list[_Marker]:
    """Citation markers outside quotes, each with the quotes before it in its sentence."""
    quotes = quote_spans(text)
    starts = [start for start, _, _ in quotes]

    def inside_quote(at: int) -> bool:
        k = bisect_right(starts, at) - 1
        return k >= 0 and at < quotes[k][1]

    markers = [
        _Marker(m.start(), m.end(), [i.strip() for i in re.split(r"[,;]", m["body"])])
        for m in CANDIDATE.finditer(text)
        if ":" in m["body"] and not inside_quote(m.start())
    ]
    ends = [
        m.start()
        for m in _SENTENCE_END.finditer(text)
        if not inside_quote(m.start()) and not any(k.start <= m.start() < k.end for k in markers)
    ]
    events = sorted(
        [(s, 0, q) for q in quotes for s in [q[0]]]
        + [(e, 1, None) for e in ends]
        + [(k.start, 2, k) for k in markers],
        key=lambda event: (event[0], event[1]),
    )
    pending: list[tuple[int, int, str]] = []
    for _, kind, value in events:
        if kind == 0:
            pending.append(value)  # type: ignore[arg-type]
        elif kind == 1:
            pending = []
        else:
            value.quotes = pending  # type: ignore[union-attr]
            pending = []
    return markers


def _check(
    item: str, quotes: list[str], read: Mapping[Ref, str], known: Mapping[str, Collection[str]]
) -> tuple[Ref | None, DropReason | None]:
    match = _VALID.match(item)
    if match is None:
        return None, "malformed"
    session_id, ambiguous = _resolve(match["session"], known.keys())
    if ambiguous:
        return None, "malformed"
    if session_id is None:
        return None, "unknown_message"
    message_id, ambiguous = _resolve(match["message"], known[session_id])
    if ambiguous:
        return None, "malformed"
    if message_id is None:
        return (session_id, match["message"]), "unknown_message"
    ref = (session_id, message_id)
    if ref not in read:
        return ref, "not_read"
    if any(not quote_occurs(quote, read[ref]) for quote in quotes):
        return ref, "quote_mismatch"
    return ref, None


def _resolve(given: str, ids: Collection[str]) -> tuple[str | None, bool]:
    """The id `given` names (itself, or the one id it is a prefix of) and whether it is ambiguous."""
    if given in ids:
        return given, False
    found = [i for i in ids if i.startswith(given)]
    return (found[0] if len(found) == 1 else None), len(found) > 1


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Replace the spans of `edits` (non-overlapping), taking a removed span's leading space with it."""
    for start, end, replacement in sorted(edits, reverse=True):
        if (
            not replacement
            and start > 0
            and text[start - 1] == " "
            and (end >= len(text) or text[end] in " .,;:!?)\n")
        ):
            start -= 1
        text = text[:start] + replacement + text[end:]
    return text
