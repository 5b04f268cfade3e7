"""Regular expressions matched in time linear in the text, for text git-intent did not write.

Python's `re` backtracks: on a crafted text a pattern with overlapping repetition (`(?:y|[a-z])\\b\\s*)+`)
takes exponential time (a 51-character prompt took 21 s), and one that scans ahead from every start
(`<x>.*?</x>`, a run that must end in a character it never meets) quadratic time. RE2 (`google-re2`) matches
with automata: one search is linear in the text. A pattern read from a transcript, a note, evidence, a
work-tree file, a commit message or a model's answer either is proven linear under `re` where it is defined (a
comment says why) or is compiled here; tests/test_linear_patterns.py measures every one.

RE2 takes Go's syntax: no lookarounds or backreferences, and `\\w \\d \\s \\b` are ASCII (write `[\\pL\\pN_]`
where a word may be Unicode). UTF-8 is its encoding, which cannot hold a lone surrogate: a text holding one is
matched with each replaced by U+FFFD, which keeps every offset (spans stay spans of the text given).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, Protocol

_SURROGATE = re.compile("[\ud800-\udfff]")  # one character class: linear under `re`
# Inside a character class, what Python's Unicode `\s` and `\w` match (RE2's are ASCII); checked against every
# assigned code point (tests/test_linear_patterns.py).
SPACE = r"\s\x{0b}\x{1c}-\x{1f}\x{85}\pZ"
WORD = r"\pL\pN_"


class Match(Protocol):
    """What git-intent reads of a match: the part of `re.Match` that RE2's matches share."""

    string: str

    def group(self, *groups: int | str) -> str | Any: ...

    def groups(self, default: Any = None) -> tuple[str | Any, ...]: ...

    def groupdict(self, default: Any = None) -> dict[str, str | Any]: ...

    def span(self, group: int | str = 0) -> tuple[int, int]: ...

    def start(self, group: int | str = 0) -> int: ...

    def end(self, group: int | str = 0) -> int: ...

    def __getitem__(self, group: int | str) -> str | Any: ...


def _encodable(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


class Pattern:
    """One RE2 expression with the methods of `re.Pattern` git-intent uses, taking and returning the same.

    Compiled on first use; raises ValueError then when `pattern` is not RE2 syntax (a lookaround, a
    backreference)."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: Any = None

    @property
    def _regexp(self) -> Any:
        """The RE2 object, compiled on first use: importing google-re2 costs ~3 ms, which blame's start-up and
        the hook need not pay for patterns they never run (tests/test_linear_patterns.py runs every one)."""
        if self._compiled is None:
            import re2  # google-re2

            options = re2.Options()
            options.log_errors = False  # the error is raised; RE2 would also print it to stderr
            try:
                self._compiled = re2.compile(self.pattern, options)
            except re2.error as exc:
                raise ValueError(f"RE2 cannot compile {self.pattern[:60]!r}: {exc}.") from exc
        return self._compiled

    def search(self, text: str, pos: int = 0) -> Match | None:
        """The first match in `text[pos:]`, or None."""
        try:
            found: Match | None = self._regexp.search(text, pos)
        except UnicodeEncodeError:
            found = self._regexp.search(_encodable(text), pos)
        return found

    def match(self, text: str, pos: int = 0) -> Match | None:
        """A match starting at `pos`, or None."""
        try:
            found: Match | None = self._regexp.match(text, pos)
        except UnicodeEncodeError:
            found = self._regexp.match(_encodable(text), pos)
        return found

    def fullmatch(self, text: str) -> Match | None:
        """A match of the whole of `text`, or None."""
        try:
            found: Match | None = self._regexp.fullmatch(text)
        except UnicodeEncodeError:
            found = self._regexp.fullmatch(_encodable(text))
        return found

    def finditer(self, text: str) -> Iterator[Match]:
        """Each non-overlapping match, in order (RE2 encodes the text before the first: an error comes
        first)."""
        try:
            yield from self._regexp.finditer(text)
        except UnicodeEncodeError:
            yield from self._regexp.finditer(_encodable(text))

    def findall(self, text: str) -> list[Any]:
        """As `re.findall`: the matches, their one group, or their groups as tuples."""
        try:
            found: list[Any] = self._regexp.findall(text)
        except UnicodeEncodeError:
            found = self._regexp.findall(_encodable(text))
        return found

    def sub(self, repl: str | Callable[[Match], str], text: str, count: int = 0) -> str:
        """`text` with matches replaced (`\\1` and `\\g<name>` in a string; a function's result)."""
        try:
            out: str = self._regexp.sub(repl, text, count)
        except UnicodeEncodeError:
            out = self._regexp.sub(repl, _encodable(text), count)
        return out

    def subn(self, repl: str | Callable[[Match], str], text: str, count: int = 0) -> tuple[str, int]:
        """As `sub`, and how many matches were replaced."""
        try:
            out: tuple[str, int] = self._regexp.subn(repl, text, count)
        except UnicodeEncodeError:
            out = self._regexp.subn(repl, _encodable(text), count)
        return out

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        """`text` cut at each match (with the groups' text between, as `re.split`)."""
        try:
            out: list[str] = self._regexp.split(text, maxsplit)
        except UnicodeEncodeError:
            out = self._regexp.split(_encodable(text), maxsplit)
        return out


def compile(pattern: str) -> Pattern:  # noqa: A001  # `re.compile`'s name, for the same call
    """`pattern` for RE2 (inline flags: `(?i)`, `(?s)`, `(?m)`), compiled on first use (ValueError then
    when RE2 cannot)."""
    return Pattern(pattern)
