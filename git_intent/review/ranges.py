"""A review's input: a `git diff` range resolved to two commits, and its diff parsed into files and hunks.

One `git diff -U0 -M` of the range gives every hunk (old and new line numbers, removed and added text);
one `git diff --name-status -z` of the same range gives each file's exact path and kind of change in
the same order, so paths with spaces or quotes never have to be read back out of the patch headers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from ..core.errors import IntentError
from ..git.repo import EMPTY_TREE, Repository

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
Change = Literal["added", "modified", "deleted", "renamed", "copied", "type-changed"]
_CHANGES: dict[str, Change] = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "type-changed",
}
_DIFF = ("diff", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/")


class RangeError(IntentError):
    """A review range names no commits of this repository."""


@dataclass(frozen=True)
class Range:
    """A resolved range: the user's `spec`, and the two 40-hex commits compared (`base` may be git's
    empty tree, for a root commit)."""

    spec: str
    base: str
    end: str


@dataclass
class DiffHunk:
    """One `-U0` hunk: 1-based starts and line counts on each side, and the removed and added text."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


@dataclass
class DiffFile:
    """One file of a diff: its path after the change (before, for a deletion), the path before a rename
    or copy, the kind of change (`added`, `modified`, `deleted`, `renamed`, `copied`, `type-changed`),
    and its hunks (none for a binary file)."""

    path: str
    old_path: str | None
    change: Change
    binary: bool = False
    hunks: list[DiffHunk] = field(default_factory=list)


def resolve_range(repo: Repository, spec: str) -> Range:
    """`A..B`, `A...B` (from their merge base), `A..` / `..B` (HEAD on the empty side), or one commit
    (compared with its first parent; a root commit with the empty tree), as `git diff` reads them.

    Raises RangeError when a side names no commit, or `A...B` has no merge base.
    """
    spec = spec.strip()
    try:
        if "..." in spec:
            left, right = (side or "HEAD" for side in spec.split("...", 1))
            end = repo.resolve(right)
            base = repo.git("merge-base", repo.resolve(left), end, check=False).strip()
            if not base:
                raise RangeError(
                    f"{left} and {right} have no common ancestor, so {spec!r} names no changes.",
                    hint=f"Compare them directly: git intent review {left}..{right}",
                )
            return Range(spec, base, end)
        if ".." in spec:
            left, right = (side or "HEAD" for side in spec.split("..", 1))
            return Range(spec, repo.resolve(left), repo.resolve(right))
        end = repo.resolve(spec)
    except RangeError:
        raise
    except IntentError as exc:
        raise RangeError(
            f"{spec!r} is not a range of this repository: {exc}",
            hint="Examples: main..feature, HEAD~3.., a1b2c3d (one commit)",
        ) from exc
    parents = repo.parents(end)
    return Range(spec, parents[0] if parents else EMPTY_TREE, end)


def diff_files(repo: Repository, base: str, end: str) -> list[DiffFile]:
    """The files `end` changed against `base`, in `git diff` order, with their `-U0` hunks."""
    listed = repo.git(*_DIFF, "--name-status", "-z", base, end).split("\0")
    files: list[DiffFile] = []
    i = 0
    while i < len(listed) and listed[i]:
        letter = listed[i][0]
        if letter in "RC":
            files.append(DiffFile(path=listed[i + 2], old_path=listed[i + 1], change=_CHANGES[letter]))
            i += 3
        else:
            files.append(DiffFile(path=listed[i + 1], old_path=None, change=_CHANGES.get(letter, "modified")))
            i += 2
    patch = repo.git(*_DIFF, "-U0", base, end)
    sections = re.split(r"^diff --git ", patch, flags=re.MULTILINE)[1:]
    for diff_file, section in zip(files, sections, strict=False):
        _parse_section(diff_file, section)
    return files


def _parse_section(diff_file: DiffFile, section: str) -> None:
    """Fill `diff_file` from one file's part of a `-U0` patch. With -U0 a hunk body is exactly its old
    plus new line counts, so body lines that look like headers are read as body."""
    body = 0
    hunk: DiffHunk | None = None
    for raw in section.split("\n")[1:]:
        if raw.startswith("\\"):  # "\ No newline at end of file": not counted in the hunk header
            continue
        if body > 0 and hunk is not None:
            body -= 1
            if raw.startswith("-"):
                hunk.removed.append(raw[1:])
            elif raw.startswith("+"):
                hunk.added.append(raw[1:])
            continue
        match = _HUNK.match(raw)
        if match:
            old_lines = int(match[2]) if match[2] is not None else 1
            new_lines = int(match[4]) if match[4] is not None else 1
            hunk = DiffHunk(int(match[1]), old_lines, int(match[3]), new_lines)
            diff_file.hunks.append(hunk)
            body = old_lines + new_lines
        elif raw.startswith("Binary files ") and raw.endswith(" differ"):
            diff_file.binary = True
