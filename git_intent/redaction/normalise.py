"""Hidden forms of a secret for the detectors to see: text without invisible format characters, and runs of
%XX, hex or \\xNN escapes decoded (a GitHub token with a zero-width space inside, or written as hex
or as %XX escapes, reached the remote's git objects).

Each view maps back to the original text, so the redactor replaces the original characters: a secret found
in a view is removed whole, escapes and invisible characters included.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Iterator

# google-re2: the "is there any?" scans, ~5x faster than `re` on text with no match (the common case)
import re2

from ..core.terminal import INVISIBLE as _INVISIBLE

# The format characters a reader does not see (`terminal.INVISIBLE`, which text output shows as escapes) and
# the bidi overrides and isolates. Deleted before matching: a token with one inside is still the token.
INVISIBLE = re.compile(
    "["
    + "".join(
        re.escape(chr(c)) for c in sorted({*_INVISIBLE, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})
    )
    + "]"
)
# Runs start only where a run can start (the lookbehind): a scan from every position would be quadratic.
_PERCENT = re.compile(
    r"(?<![A-Za-z0-9._~+/=%-])(?:[A-Za-z0-9._~+/=-]*%[0-9A-Fa-f]{2}){3,}[A-Za-z0-9._~+/=-]*"
)
# Printable ASCII is 0x20-0x7e: each byte's first hex digit is 2-7 (a SHA fails within a few bytes). No
# lookbehind: a pattern that starts with a character class is scanned for fast; the edges are checked after.
_HEX = re.compile(r"(?:[2-7][0-9A-Fa-f]){12,}")
_BACKSLASH_X = re.compile(r"(?:\\x[2-7][0-9A-Fa-f]){6,}")
_PRINTABLE = re.compile(r"[\x20-\x7e\t\n\r]+")
_ANY_INVISIBLE = re2.compile(INVISIBLE.pattern)
_ANY_HEX = re2.compile(_HEX.pattern)

Finder = Callable[[str], list[tuple[str, int, int]]]  # text -> (rule, start, end) of its secrets


def without_invisible(text: str) -> tuple[str, list[int]] | None:
    """`(text without INVISIBLE characters, original index of each kept character)`, or None when `text`
    holds none (the common case, one regex scan)."""
    if _ANY_INVISIBLE.search(text) is None:
        return None
    kept: list[int] = []
    out: list[str] = []
    at = 0
    for match in INVISIBLE.finditer(text):
        out.append(text[at : match.start()])
        kept += range(at, match.start())
        at = match.end()
    out.append(text[at:])
    kept += range(at, len(text))
    return "".join(out), kept


def invisible_spans(text: str, find: Finder) -> list[tuple[str, int, int]]:
    """Secrets `find` reports in `text` once its invisible characters are deleted, as spans of `text` (the
    invisible characters inside a secret are part of its span)."""
    view = without_invisible(text)
    if view is None:
        return []
    stripped, kept = view
    spans = []
    for rule, start, end in find(stripped):
        if end > start:
            spans.append((rule, kept[start], kept[end - 1] + 1))
    return spans


def encoded_runs(text: str) -> Iterator[tuple[int, int, str]]:
    """`(start, end, decoded text)` of each run of `text` written as %XX escapes, hex digits or `\\xNN`
    escapes that decodes to printable ASCII (a SHA or a digest decodes to bytes that are not: it is not a
    run)."""
    if "%" in text:
        for match in _PERCENT.finditer(text):
            decoded = urllib.parse.unquote(match.group(0), errors="replace")
            if decoded != match.group(0):
                yield match.start(), match.end(), decoded
    for pattern, decode in ((_HEX, _from_hex), (_BACKSLASH_X, _from_backslash_x)):
        if (pattern is _BACKSLASH_X and "\\x" not in text) or (
            pattern is _HEX and _ANY_HEX.search(text) is None
        ):
            continue
        for match in pattern.finditer(text):
            if pattern is _HEX and not _alone(text, match.start(), match.end()):
                continue
            plain = decode(match.group(0))
            if plain is not None:
                yield match.start(), match.end(), plain


def _alone(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is not part of a longer run of letters and digits."""
    return (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum())


def _from_hex(run: str) -> str | None:
    text = bytes.fromhex(run).decode("ascii", "replace")
    return text if _PRINTABLE.fullmatch(text) else None


def _from_backslash_x(run: str) -> str | None:
    return _from_hex(run.replace("\\x", ""))


def encoded_spans(text: str, find: Finder) -> list[tuple[str, int, int]]:
    """Encoded runs of `text` whose decoded text holds a secret `find` reports: the whole run is the span."""
    return [
        (rules[0][0], start, end) for start, end, decoded in encoded_runs(text) if (rules := find(decoded))
    ]
