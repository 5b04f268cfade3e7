"""Where `git intent blame` is asked to look: `PATH`, `PATH:LINE`, `PATH:START-END`, or a path with git
blame's `-L` ranges, in the work tree or at a revision. Checked against the file before git runs."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import BadLocationError, GitError
from ..git.repo import Repository
from ..git.worktree import read_worktree_file

__all__ = ["Location", "parse_line_range", "parse_location"]

_LOCATION = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")
_LINE_RANGE = re.compile(r"^(?P<start>\d*)(?:,(?P<end>[+-]?\d*))?$")  # git blame's -L with line numbers


@dataclass(frozen=True)
class Location:
    """A parsed `PATH[:START[-END]]`: the path relative to the work tree root and 1-based inclusive lines
    (`whole` when no line was given: every line of the file). `spans`: git blame's `-L` ranges when given
    (`start..end` then covers them all)."""

    path: str  # relative to the work tree root, '/'-separated
    start: int
    end: int
    whole: bool = False
    spans: tuple[tuple[int, int], ...] = ()


def parse_location(
    repo: Repository,
    text: str,
    cwd: Path | None = None,
    *,
    revision: str | None = None,
    line_ranges: Sequence[str] = (),
) -> Location:
    """Parse `PATH`, `PATH:LINE` or `PATH:START-END` (PATH relative to `cwd`), or PATH and git blame's `-L`
    ranges (`line_ranges`, see `parse_line_range`), checking the file and lines: the work tree's file, or the
    file at `revision` (a commit; the path need not exist in the work tree).

    Lines are counted as git counts them: LF ends a line, a CR does not. Raises BadLocationError for a
    malformed argument, a path outside the work tree, a missing or binary file, or lines past its end, and its
    UnreadableFileError for a FIFO, device or file over `MAX_FILE_BYTES` (git/worktree.py).
    """
    base = cwd or Path.cwd()
    match = None if line_ranges else _LOCATION.match(text)
    if match is None or (
        _exists(repo, base, text, revision) and not _exists(repo, base, match["path"], revision)
    ):
        path_text, start, end = text, 1, None
    else:
        path_text, start = match["path"], int(match["start"])
        end = int(match["end"]) if match["end"] else start
        if start < 1 or end < start:
            raise BadLocationError(f"The line range {start}-{end} is empty; lines are numbered from 1.")
    full = _absolute(base, path_text, revision)
    if not full.is_relative_to(repo.root):
        raise BadLocationError(f"{path_text} lies outside the repository at {repo.root}.")
    if ".git" in full.relative_to(repo.root).parts:
        raise BadLocationError(f"{path_text} is inside .git, not a file of the work tree.")
    relative = full.relative_to(repo.root).as_posix()
    data = _read(repo, relative, revision)
    if data is None:
        if match is None and ":" in text and not line_ranges:
            raise BadLocationError(
                f"{text!r} is not PATH, PATH:LINE or PATH:START-END.", hint="Example: src/app.py:42-60"
            )
        raise BadLocationError(
            f"{path_text} is not a file in the work tree."
            if revision is None
            else f"{path_text} is not a file at commit {revision[:12]}."
        )
    if b"\0" in data[:8000]:
        raise BadLocationError(f"{path_text} is a binary file; blame explains text lines only.")
    count = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    if line_ranges:
        spans = tuple(parse_line_range(spec, count, path_text) for spec in line_ranges)
        return Location(
            path=relative, start=min(s for s, _ in spans), end=max(e for _, e in spans), spans=spans
        )
    if end is None:
        return Location(path=relative, start=1, end=count, whole=True)
    if end > count:
        raise BadLocationError(
            f"{path_text} has {count} line{'' if count == 1 else 's'}; line {end} is past its end."
        )
    return Location(path=relative, start=start, end=end)


def parse_line_range(spec: str, count: int, path: str = "the file") -> tuple[int, int]:
    """git blame's `-L` with line numbers, as (start, end), 1-based inclusive, for a file of `count` lines:
    `START,END`, `START,+COUNT`, `START,-COUNT`, `START` or `START,` (to the end), `,END` (from line 1); ends
    given the wrong way round are swapped, as git does. Raises BadLocationError for another form (git's
    `/regex/` and `:function` are not taken) or lines outside the file."""
    found = _LINE_RANGE.match(spec.strip())
    if found is None or (not found["start"] and not found["end"]):
        raise BadLocationError(
            f"-L {spec!r} is not a range of line numbers.",
            hint="Use -L START,END, START,+COUNT, START,-COUNT, START or ,END (git's /regex/ "
            "and :function forms are not taken).",
        )
    start = int(found["start"]) if found["start"] else 1
    end_text = found["end"] or ""
    if not end_text:
        end = count
    elif end_text[0] in "+-":
        offset = int(end_text[1:] or 0)
        if not offset:
            raise BadLocationError(f"-L {spec!r} counts no line.")
        # START,-COUNT ends at START and reaches back at most to line 1, as git's does
        start, end = (
            (start, start + offset - 1) if end_text[0] == "+" else (max(1, start - offset + 1), start)
        )
    else:
        end = int(end_text)
    start, end = min(start, end), max(start, end)
    if start < 1:
        raise BadLocationError(f"-L {spec!r} starts before line 1; lines are numbered from 1.")
    if end > count:
        raise BadLocationError(
            f"{path} has {count} line{'' if count == 1 else 's'}; line {end} is past its end."
        )
    return start, end


def _absolute(base: Path, path_text: str, revision: str | None) -> Path:
    """The absolute path of `path_text`: resolved on disk for the work tree; at a revision, where the path may
    not exist here, normalised as written (symbolic links in the work tree say nothing of that commit)."""
    if revision is None:
        return (base / path_text).resolve()
    return Path(os.path.normpath(base.resolve() / path_text))


def _read(repo: Repository, relative: str, revision: str | None) -> bytes | None:
    """The bytes of the file (the work tree's, or at `revision`); None when there is no such file. Raises
    UnreadableFileError for a work tree path that is no regular file or too large (`read_worktree_file`)."""
    if revision is None:
        return read_worktree_file(repo.root, relative)
    try:
        return repo.show_file(revision, relative)
    except GitError:
        return None


def _exists(repo: Repository, base: Path, path_text: str, revision: str | None) -> bool:
    full = _absolute(base, path_text, revision)
    if revision is None or not full.is_relative_to(repo.root):
        return full.is_file()
    return repo.succeeds("cat-file", "-e", f"{revision}:{full.relative_to(repo.root).as_posix()}")
