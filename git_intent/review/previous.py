"""`previous`: for a line a person wrote, the agent-written line it replaced, when a note shows one.

The person's commit is diffed against its first parent (once per commit); within the hunk holding the
line, the removed line most like it (rapidfuzz ratio >= 60), else the one at the same offset, is the
line it replaced. That old line is blamed at the parent (one `git blame` per parent and file) and
explained like any blamed line: when an agent wrote it, the person's line carries `previous`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from rapidfuzz import fuzz

from ..blame import LineAnswer
from ..errors import IntentError
from ..repo import BlameLine, Repository, parse_porcelain
from .models import PreviousLine
from .ranges import DiffFile, diff_files

SIMILAR = 60.0  # rapidfuzz ratio above which a removed line is taken as the one a person's line rewrote

LineKey = tuple[str, str, int]  # (commit, path at that commit, 1-based line there)
Explain = Callable[[str, BlameLine], LineAnswer]


def find_previous(repo: Repository, lines: list[BlameLine], explain: Explain) -> dict[LineKey, PreviousLine]:
    """For each of `lines` (blamed lines a person wrote) that replaced a line an agent wrote: its
    `PreviousLine`, keyed by (commit, orig_path, orig_line). Lines of root commits, pure additions and
    lines whose predecessor no note or session credits are absent. Git failures skip the commit."""
    found: dict[LineKey, PreviousLine] = {}
    by_commit: dict[str, list[BlameLine]] = defaultdict(list)
    for line in lines:
        if line.commit is not None:
            by_commit[line.commit].append(line)
    for commit, blamed in by_commit.items():
        try:
            found.update(_previous_in_commit(repo, commit, blamed, explain))
        except IntentError:
            continue
    return found


def _previous_in_commit(repo: Repository, commit: str, lines: list[BlameLine], explain: Explain
                        ) -> dict[LineKey, PreviousLine]:
    parents = repo.parents(commit)
    if not parents:
        return {}
    files = {f.path: f for f in diff_files(repo, parents[0], commit)}
    wanted: dict[str, dict[int, BlameLine]] = defaultdict(dict)  # old path -> old line -> the new line
    for line in lines:
        diff_file = files.get(line.orig_path)
        replaced = _replaced(diff_file, line.orig_line, line.content) if diff_file else None
        if diff_file is not None and replaced is not None:
            wanted[diff_file.old_path or diff_file.path][replaced] = line
    found: dict[LineKey, PreviousLine] = {}
    for old_path, by_old in wanted.items():
        ranges = [arg for number in sorted(by_old) for arg in ("-L", f"{number},{number}")]
        for old in parse_porcelain(repo.git("blame", "--porcelain", *ranges, parents[0], "--", old_path)):
            answer = explain(old_path, old)
            new = by_old.get(old.final_line)
            if new is None or old.commit is None or answer.status != "agent" or answer.attribution is None:
                continue
            found[(commit, new.orig_path, new.orig_line)] = PreviousLine(
                commit=old.commit, path=old.orig_path, line=old.orig_line, content=old.content,
                attribution=answer.attribution)
    return found


def _replaced(diff_file: DiffFile, line: int, content: str) -> int | None:
    """The 1-based old line number that new line `line` replaced in its hunk, or None (a pure addition)."""
    for hunk in diff_file.hunks:
        if not hunk.removed or not hunk.new_start <= line < hunk.new_start + hunk.new_lines:
            continue
        offset = line - hunk.new_start
        scores = [fuzz.ratio(old, content) for old in hunk.removed]
        best = max(range(len(scores)), key=lambda i: scores[i])
        if scores[best] >= SIMILAR:
            return hunk.old_start + best
        return hunk.old_start + offset if offset < len(hunk.removed) else None
    return None
