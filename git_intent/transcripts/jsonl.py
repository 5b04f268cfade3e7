"""Reading transcript files: tolerant JSON Lines streaming (glued, torn and oversized lines are skipped and
counted), text made encodable where it is read, and selecting files by modification time."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.values import ParseStats

_DECODER = json.JSONDecoder()
# Failed decoding attempts allowed per line. Resyncing after a torn record retries at later `{"`, and each
# failure costs time linear in the line (the decoder scans, and its error counts newlines up to the failure):
# unbounded, one 600 KB line of `{"a":` cost 75-167 s. A real torn record fails once per object
# enclosing the cut (complete nested objects are skipped whole), a handful; with the cap any line costs time
# linear in its length, and a line that reaches it has its remaining records counted as one unreadable.
MAX_FAILURES = 64
SNIFF_LINE = 256 * 1024  # characters: a longer line is not decoded while sniffing
_SNIFF_SKIP = 16 * 1024 * 1024  # characters of long lines a sniff passes over before it gives up
_BLANK = re.compile(r"\s*")
_RECORD_FOLLOWS = re.compile(r"\s*(?:\{|\Z)")
# A JSON escape of a UTF-16 surrogate: decoding one that is not half of a pair yields a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def iter_records(path: Path, stats: ParseStats | None = None) -> Iterator[dict[str, Any]]:
    """Yield every JSON object in a JSON Lines file, in file order, its strings made encodable (`clean`).

    Real transcripts hold glued lines (two objects with no newline between them) and torn lines (an
    object cut short): 12 of 546 Claude Code files and 13 of 323 Codex rollouts measured (docs/design.md).
    Each line is decoded with `raw_decode` in a loop; what cannot be decoded is skipped up to the next
    `{"` and counted in `stats.unreadable`. Non-object values are counted too. The time a line costs is
    linear in its length (`MAX_FAILURES`). Never raises on content; raises OSError only when the file
    cannot be opened.
    """
    stats = stats if stats is not None else ParseStats()
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for line in handle:
            yield from _decode_line(line, stats)


def loads(text: str | bytes) -> Any:
    """`json.loads` for text read from a transcript, its strings made encodable (`clean`).

    Raises ValueError when `text` is not JSON, and for nesting deeper than the interpreter's recursion
    limit (no real record nests that deep).
    """
    # Bytes are decoded here, invalid UTF-8 replaced: json.loads would decode them with 'surrogatepass',
    # letting encoded surrogates through.
    source = text if isinstance(text, str) else text.decode("utf-8", "replace")
    try:
        value = json.loads(source)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc
    return clean(value) if _SURROGATE_ESCAPE.search(source) else value


def clean(value: Any) -> Any:
    """`value` with every lone UTF-16 surrogate in its strings (keys too) replaced by U+FFFD.

    Node cuts a string mid-emoji and `JSON.stringify` writes the half as `"\\ud83d"`; Python decodes it
    to a lone surrogate, which no encoder accepts, so one such message made `show`, `index` and
    `search` fail. Text is mended once, where it is read. Raises ValueError for nesting
    deeper than the recursion limit.
    """
    try:
        return _mend(value)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


def _mend(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_mend(k): _mend(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mend(v) for v in value]
    return value


# What reading a malformed record raises: a field of the wrong type (`"type": {}` is unhashable, `"content":
# 5` is not iterable), a missing key, or nesting too deep to walk. Anything else is a bug and is not hidden.
RECORD_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError)


@contextmanager
def one_record(stats: ParseStats) -> Iterator[None]:
    """Read one record inside this block: if the record is malformed (`RECORD_ERRORS`), it is skipped and
    counted in `stats.unreadable`, and the rest of the session stands.

    Adapters check types as they read; this is the backstop for a shape no one foresaw, so that one bad
    record never drops a whole session (a real Codex rollout plus one `"type": {}` lost 45 of 45 credited
    lines).
    """
    try:
        yield
    except RECORD_ERRORS:
        stats.unreadable += 1


def written_since(paths: Iterable[Path], since: datetime | None) -> Iterator[Path]:
    """The `paths` last modified at or after `since` (all of them when `since` is None); unreadable ones
    are skipped."""
    cutoff = since.timestamp() if since else None
    for path in paths:
        try:
            if cutoff is None or path.stat().st_mtime >= cutoff:
                yield path
        except OSError:
            continue


def head_text(path: Path, size: int = 4096) -> str | None:
    """The first `size` characters of a text file, less a byte-order mark and leading white space, for
    sniffing a whole-document format; None when it cannot be read."""
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            return handle.read(size).lstrip("\ufeff \t\r\n")
    except OSError:
        return None


def head_records(path: Path, limit: int = 20, max_bytes: int = 1 << 20) -> list[dict[str, Any]]:
    """The first `limit` objects of a JSON Lines file, for sniffing; [] when unreadable.

    Lines longer than `SNIFF_LINE` are passed over undecoded, and lines holding no object do not count
    (a pasted log, a damaged line: they say nothing of the format and must not end a sniff at its byte
    budget); at most `max_bytes` of lines holding objects, and `_SNIFF_SKIP` of the others, are read.
    """
    found: list[dict[str, Any]] = []
    stats = ParseStats()
    budget, skipped = max_bytes, 0
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            while len(found) < limit and budget > 0 and skipped < _SNIFF_SKIP:
                line = handle.readline(SNIFF_LINE)
                if not line:
                    break
                if len(line) == SNIFF_LINE and not line.endswith("\n"):
                    skipped += len(line) + _skip_line(handle)
                    continue
                records = list(_decode_line(line, stats))
                if records:
                    budget -= len(line)
                    found.extend(records)
                else:
                    skipped += len(
                        line
                    )  # a damaged line says nothing of the format: it does not end the sniff
    except OSError:
        return []
    return found[:limit]


def _skip_line(handle: Any) -> int:
    """Read to the end of the current line; returns the characters passed over."""
    passed = 0
    while True:
        chunk = handle.readline(SNIFF_LINE)
        passed += len(chunk)
        if not chunk or chunk.endswith("\n") or passed > _SNIFF_SKIP:
            return passed


def mostly(records: list[dict[str, Any]], looks_right: Callable[[dict[str, Any]], bool]) -> bool:
    """Whether the first records of a file look like one agent's: all of them but at most one, and at least
    one.

    For sniffing: one damaged record among the first few must not make a whole transcript unrecognised
    (its session would be lost for one bad record).
    """
    good = sum(1 for record in records if looks_right(record))
    return good >= 1 and good >= len(records) - 1


def recognised(
    records: list[dict[str, Any]],
    shaped: Callable[[dict[str, Any]], bool],
    marked: Callable[[dict[str, Any]], bool],
    foreign: Callable[[dict[str, Any]], bool] | None = None,
) -> bool:
    """Whether the first records of a file are one agent's by their structure, not by a list of types: all
    but one (one may be damaged) `shaped` as the agent's records of any type, and more of them `marked` as
    surely the agent's (a message with its ids) than `foreign`, marked as another agent's (at least one). An
    unknown record type at the head of a file, as Claude Code 2.1.14x's `last-prompt`, must not make the file
    unrecognised, nor may one record that happens to carry another agent's field: the majority decides."""
    mine = sum(1 for record in records if marked(record))
    theirs = sum(1 for record in records if foreign(record)) if foreign is not None else 0
    return mostly(records, shaped) and mine >= 1 and mine > theirs


def _decode_line(line: str, stats: ParseStats) -> Iterator[dict[str, Any]]:
    scan = _Scan(line)
    mend = _SURROGATE_ESCAPE.search(line) is not None
    i, n = 0, len(line)
    while True:
        i = _BLANK.match(line, i).end()  # type: ignore[union-attr]  # `\s*` matches everywhere
        if i >= n:
            return
        found = scan.decode(i)
        if found is None:
            stats.unreadable += 1
            i = scan.resync(i + 1)
            if i < 0:
                return
            continue
        value, i = found
        if not isinstance(value, dict):
            stats.unreadable += 1
            continue
        try:
            record = clean(value) if mend else value
        except ValueError:
            stats.unreadable += 1
            continue
        stats.records += 1
        yield record


class _Scan:
    """One line under decoding, with the failed attempts it may still make."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.failures = 0

    def decode(self, start: int) -> tuple[Any, int] | None:
        """(value, end) of the JSON value at `start`, or None when none decodes there or the line has used up
        its failures."""
        if self.failures >= MAX_FAILURES:
            return None
        try:
            return _DECODER.raw_decode(self.line, start)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the interpreter's limit
            self.failures += 1
            return None

    def resync(self, start: int) -> int:
        """Where the next whole record starts after a torn one, or -1.

        A torn record can hold complete nested objects (a Claude Code `progress` record carries a whole
        message); restarting at any `{"` would yield those as records. A record starts where an object
        decodes and is followed by the end of the line or by another object. No record starts inside a
        complete nested object, so the search goes on after it.
        """
        line = self.line
        nxt = line.find('{"', start)
        while nxt >= 0 and self.failures < MAX_FAILURES:
            found = self.decode(nxt)
            if found is None:
                nxt = line.find('{"', nxt + 1)
            elif _RECORD_FOLLOWS.match(line, found[1]):
                return nxt
            else:
                nxt = line.find('{"', found[1])
        return -1
