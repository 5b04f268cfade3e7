"""No pattern is worse than linear on text git-intent did not write.

Every regular expression a module of the package compiles at import (`re`, or RE2 through
`git_intent.core.linear`) is run on adversarial texts built from its own parse tree (`adversarial.shapes`:
runs of what it repeats with nothing or a failing character after them, prefixes of a match repeated, runs of
newlines, spaces and words) at 4 KB and 64 KB: sixteen times the text must cost at most a linear bound (with
room for a loaded machine), where a quadratic pattern costs 256 times and an exponential one never ends (each
call is cut at two seconds). The attacks a review found are measured through the functions that run them, at
10 KB and 1 MB.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.adversarial import python_syntax, shapes, timed

import git_intent
from git_intent.answer.citations import quote_spans
from git_intent.core import linear

SMALL, LARGE = 4_000, 64_000
LIMIT = 2.0  # seconds: past this a call is cut, and counts as too slow


def _patterns() -> Iterator[tuple[str, Any]]:
    """(module.NAME, compiled pattern) of every module-level pattern of the package."""
    seen: set[int] = set()
    for info in pkgutil.walk_packages(git_intent.__path__, "git_intent."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern | linear.Pattern) and id(value) not in seen:
                if isinstance(value, re.Pattern) and not isinstance(value.pattern, str):
                    continue  # a bytes pattern runs on git's own output, never on a transcript's text
                seen.add(id(value))
                yield f"{info.name}.{name}", value


PATTERNS = sorted(_patterns(), key=lambda item: item[0])
# Patterns the code only ever tries at one position (`match` on a word, a line, or at an offset), never scans
# with: measured that way, as one attempt, which must read its text a bounded number of times.
ANCHORED = {
    # at the end of a decoded record: is another one glued on?
    "git_intent.transcripts.jsonl._RECORD_FOLLOWS",
    "git_intent.transcripts.shell.run._ASSIGNMENT",  # on one shell word
}
ANCHORED_IDS = {
    id(getattr(importlib.import_module(module), attribute))
    for module, _, attribute in (name.rpartition(".") for name in ANCHORED)
}


def _cost(run: Callable[[str], object], text: str, repeats: int = 1, limit: float = LIMIT) -> float:
    return min(timed(run, text, limit) for _ in range(repeats))


def test_the_package_compiles_many_patterns() -> None:
    """The walk finds the patterns (a walk that found none would pass every check below)."""
    names = {name for name, _ in PATTERNS}
    assert len(PATTERNS) > 80
    assert {
        "git_intent.sessions.prose._CONFIRM",
        "git_intent.explain.reasons._LISTED",
        "git_intent.sessions.prose._TAG",
    } <= names


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=[name for name, _ in PATTERNS])
def test_every_pattern_is_linear_on_adversarial_text(name: str, pattern: Any) -> None:
    source = python_syntax(pattern.pattern) if isinstance(pattern, linear.Pattern) else pattern.pattern
    flags = pattern.flags if isinstance(pattern, re.Pattern) else 0

    def run(text: str) -> object:
        if id(pattern) in ANCHORED_IDS:
            return pattern.match(text)
        return [m.span() for m in pattern.finditer(text)]

    for shape in shapes(source, flags & ~re.UNICODE if isinstance(pattern, re.Pattern) else 0):
        small = _cost(run, shape.build(SMALL), repeats=3)
        large = _cost(run, shape.build(LARGE))
        if large > 16 * 8 * small + 0.05:  # measured again: a busy machine stalls one run, never all three
            large = min(large, _cost(run, shape.build(LARGE), repeats=2))
        assert large <= 16 * 8 * small + 0.05, (
            f"{name} ({source[:80]!r}) on {shape}: {small * 1000:.2f} ms at {SMALL} characters, "
            f"{large * 1000:.2f} ms at {LARGE}"
        )


def _redaction(text: str) -> object:
    from git_intent.redaction.redact import redact_text

    return redact_text(text)


def _confirmation(text: str) -> object:
    from git_intent.sessions import prose

    return prose._CONFIRM.match(text)


def _listed(text: str) -> object:
    from git_intent.explain import reasons

    return reasons._listed_prompts(text)


def _tag_blocks(text: str) -> object:
    from git_intent.sessions import prose

    return prose._without_tag_blocks(text)


# (the attack, the function that ran it, the text's repeated unit, its head)
ATTACKS = [
    ("a teammate's confirmation-like prompt: 21 s at 51 characters", _confirmation, "y ", ""),
    ("one long line of secret assignments: 37 s at 2 MB", _redaction, 'A_SECRET="x1y2z3w4" ', ""),
    ("a compaction summary's prompt list of newlines: 17.7 s at 150k", _listed, "\n", "All user messages:\n"),
    ("unclosed tag blocks: 5 s at 20,000", _tag_blocks, "<a_b>", ""),
    ("unclosed quotes in an answer: every mark read 2,000 characters on", quote_spans, "“a", ""),
]


@pytest.mark.parametrize(
    ("attack", "run", "unit", "head"), ATTACKS, ids=[a[0].split(":")[0] for a in ATTACKS]
)
def test_the_attacks_found_are_linear_from_10_kb_to_1_mb(
    attack: str, run: Callable[[str], object], unit: str, head: str
) -> None:
    small = _cost(run, head + unit * (10_000 // len(unit)) + "zzz", repeats=3)
    # A megabyte takes the redactor ~1.4 s on an idle machine: the cut is generous (a loaded CI machine), the
    # ratio below is what tells linear from quadratic (quadratic took 37 s at 2 MB).
    large = _cost(run, head + unit * (1_000_000 // len(unit)) + "zzz", limit=30 * LIMIT)
    if large >= 100 * 4 * small + 0.5:  # measured again: a busy machine stalls one run, never all three
        large = min(large, _cost(run, head + unit * (1_000_000 // len(unit)) + "zzz", 2, 30 * LIMIT))
    assert large < 100 * 4 * small + 0.5, f"{attack}: {small:.4f} s at 10 KB, {large:.4f} s at 1 MB"


@pytest.mark.parametrize(
    "text",
    [
        'export WEBHOOK_SECRET="amber falcon river."',
        "WEBHOOK_SECRET='amber falcon river!'",
        '{"webhook_secret": "amber falcon river."}',
        'webhook_secret: "amber falcon river."',
        'API_TOKEN="blue sky, green tea?"',
    ],
)
def test_a_secret_named_variables_whole_quoted_value_is_redacted(text: str) -> None:
    """Whatever its words, spaces and final punctuation, every time (the redactor has no chance in it)."""
    for _ in range(5):
        out = _redaction(text).text  # type: ignore[attr-defined]
        assert "amber" not in out and "falcon" not in out and "sky" not in out and "[REDACTED:" in out, out
