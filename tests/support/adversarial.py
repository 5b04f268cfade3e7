"""Adversarial inputs for a regular expression, built from its parse tree, and a timer that gives up.

The shapes that make a backtracking engine slow: a run of what the pattern repeats with nothing after it, or
with a character after it that fails the match ("y " * 24 + "zzz"); a prefix of a match repeated without the
end that would close it ("<a_b>" * 20000, "[" * 10000); runs of newlines, spaces and word characters.
"""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

# Characters tried, in order, for a character class: the first the class takes stands for it.
CANDIDATES = "aA0 _-.:/\"'`<>\n\t#=,;!?()[]{}@$%^&*+|~\\é“”\u200b"
GENERIC = (
    "\n",
    " ",
    "a",
    "a ",
    "a\n",
    " \n",
    "0",
    "a.",
    "a:",
    "a/",
    "'a",
    '"a',
    "a-",
    "[",
    "<",
    "<a_b>",
    "y ",
)
FAILING_ENDS = ("", "\x00", "zzz")  # after a pumped run: the end of the text, a control character, a word
MAX_PUMPS = 10


@dataclass(frozen=True)
class Shape:
    """`head`, then `body` repeated to the size asked, then `tail`; `str()` names it in a failure."""

    head: str
    body: str
    tail: str = ""

    def build(self, size: int) -> str:
        count = max(1, (size - len(self.head) - len(self.tail)) // len(self.body))
        return self.head + self.body * count + self.tail

    def __str__(self) -> str:
        return f"{self.head!r} + {self.body!r} * n + {self.tail!r}"


def _class_char(items: list[Any], flags: int) -> str:
    matcher = _compiled(sre_parse.SubPattern(sre_parse.State(), [(sre.IN, items)]), flags)
    return next((c for c in CANDIDATES if matcher.match(c)), None) or next(
        (chr(code) for code in range(32, 0x3000) if matcher.match(chr(code))), "a"
    )


def _compiled(sub: Any, flags: int) -> re.Pattern[str]:
    from re import _compiler  # type: ignore[attr-defined]

    compiled: re.Pattern[str] = _compiler.compile(sub, flags)
    return compiled


def _sample(
    nodes: list[Any], flags: int, before: str, pumps: list[tuple[str, str]], groups: dict[int, str]
) -> str:
    """A short text `nodes` match, recording each repetition's body with the text before it in `pumps`."""
    out: list[str] = []
    for op, av in nodes:
        here = before + "".join(out)
        if op is sre.LITERAL:
            out.append(chr(av))
        elif op is sre.NOT_LITERAL:
            out.append(next(c for c in CANDIDATES if c != chr(av)))
        elif op is sre.ANY:
            out.append("a")
        elif op is sre.IN:
            out.append(_class_char(av, flags))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, body = av
            text = _sample(list(body), flags, here, pumps, groups)
            if high > 1 and text:
                pumps.append((here, text))
            out.append(text * max(low, 1) if high >= 1 else "")
        elif op is sre.SUBPATTERN:
            group, add, _, body = av
            text = _sample(list(body), flags | add, here, pumps, groups)
            if group:
                groups[group] = text
            out.append(text)
        elif op is sre.ATOMIC_GROUP:
            out.append(_sample(list(av), flags, here, pumps, groups))
        elif op is sre.BRANCH:
            out.append([_sample(list(alt), flags, here, pumps, groups) for alt in av[1]][0])
        elif op is sre.GROUPREF:
            out.append(groups.get(av, ""))
        elif op is sre.GROUPREF_EXISTS:
            out.append(_sample(list(av[1]), flags, here, pumps, groups))
        # AT, ASSERT, ASSERT_NOT: no characters
    return "".join(out)


def python_syntax(pattern: str) -> str:
    """An RE2 pattern written in Python's syntax, near enough to build inputs from (`\\pL` as letters,
    `\\x{1c}` as `\\u001c`, ...)."""
    pattern = re.sub(r"\\x\{([0-9a-fA-F]+)\}", lambda m: f"\\U{int(m[1], 16):08x}", pattern)
    for re2_form, python_form in (
        (r"\p{Nd}", r"\d"),
        (r"\pL", "a-zA-Z\u00e9"),
        (r"\pN", "0-9"),
        (r"\pZ", "\u00a0"),
        (r"\z", r"\Z"),
    ):
        pattern = pattern.replace(re2_form, python_form)
    # Go allows flags anywhere (`a(?i)b`); Python only at the start.
    return re.sub(r"(?<!^)\(\?([imsU]+)\)", "", pattern)


def shapes(pattern: str, flags: int = 0) -> list[Shape]:
    """The adversarial shapes for `pattern`: the generic runs, prefixes of a match repeated, each repetition's
    body pumped after the text before it and followed by each of FAILING_ENDS, and a match repeated."""
    found = [Shape("", unit) for unit in GENERIC]
    try:
        tree = sre_parse.parse(pattern, flags)
    except (re.error, ValueError, OverflowError, RecursionError):
        return found
    pumps: list[tuple[str, str]] = []
    whole = _sample(list(tree), tree.state.flags, "", pumps, {})
    if whole:
        found.append(Shape("", whole))
        found += [
            Shape("", whole[:k])
            for k in sorted({1, 2, len(whole) // 2, len(whole) - 1})
            if 0 < k < len(whole)
        ]
    for head, body in pumps[:MAX_PUMPS]:
        found.append(Shape("", head + body))
        found += [Shape(head, body, tail) for tail in FAILING_ENDS]
    unique: dict[str, Shape] = {}
    for shape in found:
        unique.setdefault(str(shape), shape)
    return list(unique.values())


class TooSlow(Exception):
    """The timed call ran past its deadline."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise TooSlow in the block after `seconds` (SIGALRM: Python's `re` and Python code stop at it; a C call
    that holds the interpreter, such as one RE2 search, is stopped when it returns)."""

    def expire(signum: int, frame: Any) -> None:
        raise TooSlow

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed(run: Callable[[str], object], text: str, limit: float) -> float:
    """Seconds `run(text)` takes, or infinity past `limit`."""
    try:
        with deadline(limit):
            start = time.perf_counter()
            run(text)
            return time.perf_counter() - start
    except Exception as exc:  # TooSlow, or an error the code under test raised from it (the redactor wraps)
        if (
            isinstance(exc, TooSlow)
            or isinstance(exc.__context__, TooSlow)
            or isinstance(exc.__cause__, TooSlow)
        ):
            return float("inf")
        raise
