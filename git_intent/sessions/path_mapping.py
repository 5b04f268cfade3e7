"""Mapping paths recorded in transcripts onto the work tree, including paths from other machines.

A recorded path is credited to the work tree when it lies inside it on this machine, or, when it was recorded
on a machine where it does not exist here, when its suffix matches a tracked file (absolute paths from another
machine are never compared literally). A path that exists on this machine outside the work tree belongs to
another repository and is never mapped.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path, PurePosixPath, PureWindowsPath

MappingCache = dict[tuple[str, str | None, tuple[str, ...]], str | None]


def file_name(recorded: str) -> str:
    """The file name of a recorded path (a Windows path's too): a path maps only onto tracked files of this
    name."""
    return posix_path(recorded).rsplit("/", 1)[-1]


class PathMapper:
    """Maps recorded paths onto paths relative to `root` ('/'-separated), or None when they are not ours.

    The answer for a path depends on the tracked files only through those of its file name (`file_name`), so
    mappers of several trees (one per commit: each commit's paths are mapped against its own tree, whichever
    route records it) may share one `cache`, keyed by those files."""

    def __init__(
        self,
        root: Path,
        tracked: Iterable[str],
        worktrees: Iterable[Path] = (),
        cache: MappingCache | None = None,
    ) -> None:
        self.root = root
        self.roots = {os.path.normpath(str(root)), os.path.realpath(str(root))}
        # Other worktrees of the same repository: their paths map onto this tree by relative path.
        self.roots |= {os.path.normpath(str(w)) for w in worktrees} | {
            os.path.realpath(str(w)) for w in worktrees
        }
        self.tracked = frozenset(tracked)
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self.tracked):
            self.by_name[path.rsplit("/", 1)[-1]].append(path)
        # Sessions edit few distinct paths many times, and each mapping asks the file system (realpath,
        # isdir): backfill called realpath once per edit per commit, so every (recorded, cwd) is mapped once
        # per set of tracked files of its name.
        self._mapped: MappingCache = {} if cache is None else cache

    def to_repo(self, recorded: str, cwd: str | None = None) -> str | None:
        """The work-tree-relative path for `recorded`, resolved against the session's `cwd` when relative.
        Answers are remembered (the file system is read once per path and cwd)."""
        key = (recorded, cwd, tuple(self.by_name.get(file_name(recorded), ())))
        if key not in self._mapped:
            self._mapped[key] = self._to_repo(recorded, cwd)
        return self._mapped[key]

    def _to_repo(self, recorded: str, cwd: str | None) -> str | None:
        if not recorded:
            return None
        path, cwd = posix_path(recorded), posix_path(cwd) if cwd else cwd
        if not os.path.isabs(path):
            if cwd is None or not os.path.isabs(cwd):
                return path if path in self.tracked else self._suffix(PurePosixPath(path).parts)
            path = os.path.join(cwd, path)
        local = self._inside(path)
        if local is not None:
            return local
        if self._exists_here(path, cwd):
            return None  # another directory on this machine: another repository's work
        return self._foreign(path, cwd)

    def _inside(self, path: str) -> str | None:
        for candidate in {os.path.normpath(path), os.path.realpath(path)}:
            for root in self.roots:
                if candidate.startswith(root + os.sep):
                    rel = candidate[len(root) + 1 :].replace(os.sep, "/")
                    return rel if ".." not in rel.split("/") else None
        return None

    @staticmethod
    def _exists_here(path: str, cwd: str | None) -> bool:
        if cwd and os.path.isdir(cwd):
            return True
        parent = os.path.dirname(path)
        return os.path.isdir(parent)

    def _foreign(self, path: str, cwd: str | None) -> str | None:
        if cwd:
            base = os.path.normpath(cwd)
            if path.startswith(base + "/"):
                rel = path[len(base) + 1 :]
                if rel in self.tracked:
                    return rel
                below = [t for t in self.by_name.get(rel.rsplit("/", 1)[-1], []) if t.endswith("/" + rel)]
                if len(below) == 1:
                    return below[0]
            folder = os.path.dirname(path)
            if not (base == folder or base.startswith(folder + "/")):
                # Outside the session's project (e.g. ~/.claude/CLAUDE.md): a file name alone is no match.
                return self._suffix(PurePosixPath(path).parts, top_level=False)
        return self._suffix(PurePosixPath(path).parts)

    def _suffix(self, parts: tuple[str, ...], top_level: bool = True) -> str | None:
        """The tracked path sharing the longest suffix with `parts`, if unique: at least two components,
        or the whole path of a top-level file when `top_level`."""
        if not parts:
            return None
        best: list[str] = []
        best_len = 0
        for candidate in self.by_name.get(parts[-1], []):
            cparts = candidate.split("/")
            n = 0
            while n < min(len(cparts), len(parts)) and cparts[-1 - n] == parts[-1 - n]:
                n += 1
            if n > best_len:
                best, best_len = [candidate], n
            elif n == best_len:
                best.append(candidate)
        whole = top_level and best_len == len(best[0].split("/")) if best else False
        if len(best) == 1 and best_len >= 1 and (best_len >= 2 or whole):
            return best[0]
        return None


def posix_path(path: str) -> str:
    """A Windows path (`C:\\Users\\me\\app.py`) as a POSIX one (`/C/Users/me/app.py`); others unchanged."""
    if len(path) > 2 and path[1] == ":" and path[0].isalpha():
        return "/" + PureWindowsPath(path).as_posix().replace(":", "", 1)
    return path
