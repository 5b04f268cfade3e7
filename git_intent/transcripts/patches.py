"""Patch formats shared by adapters: the apply_patch envelope (Codex), unified diffs, and text diffs.

Each function returns the lines an edit produced (`AddedLine`), with their new line numbers when the
format gives them. Pure functions, no I/O.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import takewhile
from operator import eq, truth

from ..core.values import AddedLine

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class FilePatch:
    """One file section of an apply_patch envelope (Codex `*** Begin Patch` format)."""

    path: str
    kind: str  # "update" | "create" | "delete"
    move_to: str | None = None
    old_lines: list[str] = field(default_factory=list)
    new_lines: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


def parse_apply_patch(text: str) -> list[FilePatch]:
    """Parse a Codex apply_patch envelope (`*** Begin Patch` ... `*** End Patch`).

    Sections: `*** Add File: P` (every line `+`), `*** Update File: P` (optional `*** Move to: Q`,
    then `@@` chunks of ` `, `-`, `+` lines), `*** Delete File: P`. Text outside the envelope and
    malformed lines are ignored.
    """
    begin = text.find("*** Begin Patch")
    if begin < 0:
        return []
    patches: list[FilePatch] = []
    current: FilePatch | None = None
    for line in text[begin:].split("\n")[1:]:
        if line.startswith("*** End Patch"):
            break
        header = _section_header(line)
        if header is not None:
            current = FilePatch(path=header[1], kind=header[0])
            patches.append(current)
            continue
        if current is None:
            continue
        if line.startswith("*** Move to: "):
            current.move_to = line[len("*** Move to: ") :].strip()
        elif line.startswith("*** End of File") or line.startswith("@@"):
            continue
        elif line.startswith("+"):
            current.added.append(line[1:])
            current.new_lines.append(line[1:])
        elif line.startswith("-"):
            current.old_lines.append(line[1:])
        elif line.startswith(" ") or line == "":
            current.old_lines.append(line[1:])
            current.new_lines.append(line[1:])
    return patches


def _section_header(line: str) -> tuple[str, str] | None:
    for prefix, kind in (
        ("*** Add File: ", "create"),
        ("*** Update File: ", "update"),
        ("*** Delete File: ", "delete"),
    ):
        if line.startswith(prefix):
            return kind, line[len(prefix) :].strip()
    return None


def unified_diff_added(diff: str) -> list[AddedLine]:
    """Added lines of a unified diff with their new-side line numbers (`@@ -a,b +c,d @@` hunks).

    Hunk bodies are counted from the header, so a body line such as `--- x` (a removed SQL comment)
    is never mistaken for a file header.
    """
    added: list[AddedLine] = []
    new_line = old_left = new_left = 0
    for line in diff.split("\n"):
        if old_left <= 0 and new_left <= 0:
            match = HUNK_HEADER.match(line)
            if match:
                old_left = int(match.group(2)) if match.group(2) is not None else 1
                new_left = int(match.group(4)) if match.group(4) is not None else 1
                new_line = int(match.group(3))
            continue
        if line.startswith("\\"):
            continue
        if line.startswith("+"):
            added.append(AddedLine(text=line[1:], line=new_line))
            new_line += 1
            new_left -= 1
        elif line.startswith("-"):
            old_left -= 1
        else:
            new_line += 1
            old_left -= 1
            new_left -= 1
    return added


def text_diff_added(before: str, after: str, *, numbered: bool = True) -> list[AddedLine]:
    """Lines of `after` that are not carried over from `before` (difflib opcodes `insert`/`replace`).

    With `numbered`, each line carries its 1-based line number in `after`; pass False when `after` is a
    fragment (an `old_string`/`new_string` pair) whose position in the file is unknown.

    Only the part between the common leading and trailing lines (or the part after the leading lines, or
    before the trailing ones) is diffed when that provably gives difflib's own answer on the whole texts
    (`_common_ends`); otherwise the whole texts are. Before, every Claude Code edit diffed its whole file
    here, 68-75% of `record`'s CPU; on entireio/cli's 270 real transcripts 74 of 3,697 edits still do.
    """
    old, new = before.splitlines(), after.splitlines()
    start, old_end, new_end = _common_ends(old, new)
    matcher = difflib.SequenceMatcher(a=old[start:old_end], b=new[start:new_end], autojunk=False)
    added: list[AddedLine] = []
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("insert", "replace"):
            for j in range(start + j1, start + j2):
                added.append(AddedLine(text=new[j], line=j + 1 if numbered else None))
    return added


def _common_ends(old: list[str], new: list[str]) -> tuple[int, int, int]:
    """(start, old_end, new_end): the slices `old[start:old_end]`, `new[start:new_end]` whose difflib
    matching blocks, shifted by `start`, plus the common leading and trailing lines, are exactly the
    matching blocks `SequenceMatcher(a=old, b=new, autojunk=False)` finds; (0, len(old), len(new)) when
    that cannot be shown cheaply.

    Why it holds: SequenceMatcher takes the longest matching block (the earliest in `old`, then in `new`, on
    a tie), then recurses on each side. Every maximal block other than the leading block (diagonal 0) and
    the trailing one (diagonal len(new) - len(old)) pairs each of its lines with a line of `old` at another
    position or with a line of the new middle. The longer end (each cut to leave room for the other, the
    longer one whole) is picked first when no run of such `old` lines is as long (the leading block wins a
    tie: it starts at 0). Then, on the side holding the other end, that end is picked when no run of `old`
    lines on that side is as long whose lines occur in the new middle or among that end's lines at another
    position (a block there can pair a line with nothing else). What is left is the middle.

    The first version asked the second pick's question of the whole file, with every repeated
    line (`}`, blank) qualifying; 553 of 3,697 edits of entireio/cli's 270 real transcripts then diffed their
    whole file (files of 1,000-3,200 lines), 59% of the diff time.
    """
    n, m = len(old), len(new)
    whole = (0, n, m)
    short = min(n, m)
    # Counted in C (map, takewhile): a Python loop over the lines was a third of this function's time.
    lead = len(list(takewhile(truth, map(eq, old, new))))
    if lead == n == m:
        return whole  # nothing changed: difflib finds no insert either way
    trail = min(short, len(list(takewhile(truth, map(eq, reversed(old), reversed(new))))))
    if lead == 0 and trail == 0:
        return whole
    leading_first = lead >= trail
    if leading_first:
        trail = min(trail, short - lead)
    else:
        lead = min(lead, short - trail)
    middle = set(new[lead : m - trail])
    if leading_first:
        # Leading block first (it wins ties), then the trailing one within old[lead:] x new[lead:].
        if _has_run(old, middle, lead + 1):
            return whole
        if trail and _has_run_near(old, lead, n, middle, n - trail, trail):
            return lead, n, m  # difflib's second step, on what follows the leading block
    else:
        # Trailing block first (a block as long that starts earlier wins), then the leading one within
        # old[:n - trail] x new[:m - trail] (it wins ties there).
        if _has_run(old, middle, trail):
            return whole
        if lead and _has_run_near(old, 0, n - trail, middle, 0, lead + 1, end_span=lead):
            return 0, n - trail, m - trail  # difflib's second step, on what precedes the trailing block
    return lead, n - trail, m - trail


def _has_run_near(
    old: list[str],
    low: int,
    high: int,
    middle: set[str],
    end: int,
    limit: int,
    *,
    end_span: int | None = None,
) -> bool:
    """Whether `limit` consecutive lines of `old[low:high]` each occur in `middle` or among the end lines
    `old[end:end + end_span]` (`end_span` defaults to `limit`) at another position than their own.

    Probed as `_has_run` does: only positions p with (p - low) % limit == limit - 1, each widened."""
    span = limit if end_span is None else end_span
    ends = Counter(old[end : end + span])

    def qualifies(i: int) -> bool:
        line = old[i]
        return line in middle or ends[line] > (1 if end <= i < end + span else 0)

    return _probe(qualifies, low, high, limit)


def _has_run(old: list[str], middle: set[str], limit: int) -> bool:
    """Whether `limit` consecutive lines of `old` each occur twice in `old` or occur in `middle`.

    Any `limit` consecutive positions hold exactly one position p with p % limit == limit - 1, so only
    those are tried, each widened while its neighbours qualify: with the long common ends of a real
    edit that is a few lines, each checked by a C-level `list.count`, instead of a Python pass over the
    file (a 950-line file: ~0.3 ms less per edit). Short ends would try many positions: then one pass.
    """
    n = len(old)
    if n // limit > 32:
        counts = Counter(old)
        run = 0
        for line in old:
            run = run + 1 if counts[line] > 1 or line in middle else 0
            if run >= limit:
                return True
        return False

    def qualifies(i: int) -> bool:
        return old[i] in middle or old.count(old[i]) > 1

    return _probe(qualifies, 0, n, limit)


def _probe(qualifies: Callable[[int], bool], low: int, high: int, limit: int) -> bool:
    """Whether `limit` consecutive positions of [low, high) all qualify: only the positions p with
    (p - low) % limit == limit - 1 are tried (any `limit` consecutive positions hold exactly one), each
    widened while its neighbours qualify."""
    for p in range(low + limit - 1, high, limit):
        if not qualifies(p):
            continue
        first = last = p
        while last - first + 1 < limit and first > low and qualifies(first - 1):
            first -= 1
        while last - first + 1 < limit and last + 1 < high and qualifies(last + 1):
            last += 1
        if last - first + 1 >= limit:
            return True
    return False
