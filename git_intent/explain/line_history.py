"""A line's history: the agent's line that a person's line replaced, when the note of an
earlier commit shows it.

For a person's line, the commit's diff against the parent git blame names (porcelain `previous`) tells
which line of the parent it replaced; a blame of the parent at that line gives the commit that wrote it,
whose note may credit an agent's session and message.
"""

from __future__ import annotations

import difflib
import re
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..core.errors import IntentError
from ..core.values import Attribution
from ..git.repo import PINNED, BlameLine, Repository

MAX_COMMITS = 100  # person's commits whose diffs are read per blame call (a whole-file blame is bounded)
SIMILAR = 0.5  # difflib ratio a replaced line needs when a hunk removed and added different counts
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

Credit = Callable[[str, BlameLine], Attribution | None]
"""(path, a blamed line of the parent) -> the attribution of that line when an agent wrote it, else None."""


@dataclass(kw_only=True)
class Previous:
    """The agent's line that a person's line replaced: where it stood (the commit that wrote it, its path
    and 1-based line there), its text, and blame's `attribution` for it. The same shape as a review's
    `previous` (review/values.py `PreviousLine`)."""

    commit: str
    path: str
    line: int
    content: str
    attribution: Attribution


@dataclass(frozen=True)
class _Hunk:
    old_start: int
    old: tuple[str, ...]
    new_start: int
    new_count: int


def replaced_lines(repo: Repository, lines: Sequence[BlameLine], credit: Credit) -> dict[int, Previous]:
    """For each of `lines` (a person's lines, from `git blame --porcelain`) that replaced a line an agent
    wrote (as `credit` says of the parent's line), that line as `Previous`, keyed by the line's `final_line`.

    One diff per commit and one multi-range blame of its parent; at most `MAX_COMMITS` commits. Git
    failures (a parent gone in a shallow clone) mean no history, not an error."""
    groups: dict[tuple[str, str, str, str], list[BlameLine]] = {}
    for line in lines:
        if line.commit is not None and line.previous is not None:
            groups.setdefault((line.commit, line.orig_path, *line.previous), []).append(line)
    found: dict[int, Previous] = {}
    for (commit, path, parent, parent_path), members in list(groups.items())[:MAX_COMMITS]:
        hunks = _hunks(repo, f"{parent}:{parent_path}", f"{commit}:{path}")
        wanted = {
            line.final_line: old
            for line in members
            if (old := _replaced(hunks, line.orig_line, line.content)) is not None
        }
        if not wanted:
            continue
        try:
            origins = {
                b.final_line: b for b in repo.blame(parent_path, rev=parent, ranges=_spans(wanted.values()))
            }
        except IntentError:
            continue
        for final, old in wanted.items():
            origin = origins.get(old)
            attribution = credit(parent_path, origin) if origin is not None and origin.commit else None
            if origin is not None and origin.commit is not None and attribution is not None:
                found[final] = Previous(
                    commit=origin.commit,
                    path=origin.orig_path,
                    line=origin.orig_line,
                    content=origin.content,
                    attribution=attribution,
                )
    return found


def _hunks(repo: Repository, old: str, new: str) -> list[_Hunk]:
    """The hunks of `git diff -U0 OLD NEW` (two blobs), read as bytes split on LF only."""
    proc = subprocess.run(
        ["git", *PINNED, "diff", "-U0", "--no-color", "--no-ext-diff", old, new],
        cwd=repo.root,
        capture_output=True,
    )
    if proc.returncode not in (0, 1):
        return []
    hunks: list[_Hunk] = []
    rows = proc.stdout.split(b"\n")
    index = 0
    while index < len(rows):
        match = _HUNK.match(rows[index])
        index += 1
        if not match:
            continue
        old_count = int(match[2]) if match[2] is not None else 1
        new_count = int(match[4]) if match[4] is not None else 1
        body: list[bytes] = []
        while len(body) < old_count + new_count and index < len(rows):
            if not rows[index].startswith(b"\\"):  # "\ No newline at end of file" is not a body line
                body.append(rows[index])
            index += 1
        removed = tuple(r[1:].decode("utf-8", "replace") for r in body if r.startswith(b"-"))
        hunks.append(_Hunk(int(match[1]), removed, int(match[3]), new_count))
    return hunks


def _replaced(hunks: list[_Hunk], line: int, content: str) -> int | None:
    """The line of the old file that new line `line` replaced: the same position when the hunk removed
    as many lines as it added, else the most similar removed line; None for a pure addition."""
    for hunk in hunks:
        if hunk.new_start <= line < hunk.new_start + hunk.new_count and hunk.old:
            offset = line - hunk.new_start
            if len(hunk.old) == hunk.new_count:
                return hunk.old_start + offset
            scores = [difflib.SequenceMatcher(None, old.strip(), content.strip()).ratio() for old in hunk.old]
            best = max(range(len(scores)), key=lambda i: scores[i])
            return hunk.old_start + best if scores[best] >= SIMILAR else None
    return None


def _spans(numbers: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted line numbers merged into inclusive (start, end) runs, for `git blame -L`."""
    spans: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if spans and number == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], number)
        else:
            spans.append((number, number))
    return spans
