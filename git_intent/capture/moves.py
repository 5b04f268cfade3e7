"""Files an agent moved or copied: the edits made to a file before a move also stand for its new path.

A move (`mv`, `git mv`, Codex's `*** Move to:`, OpenCode's `movePath`) or a copy (`cp`) is an `Edit` of kind
"move" or "copy" whose `path` is the destination and `source` the file or folder it came from, both as the
transcript recorded them. Without it, a file an agent wrote and then moved was credited to nobody: its lines
were written under the old path, and only the new one is committed (entireio/cli's
docs/architecture/checkpoint-scenarios.md, written by a `Write` to docs/ and moved by `mv`).

Moves are followed on recorded paths, before any mapping onto the work tree: a recorded path is made absolute
against the session's cwd (`recorded_path`), a move of a folder carries every path below it, and the paths
reached are then mapped like any other. An edit counts for the places its file was moved or copied to by
moves made after it: in its own session, moves later in the session's order; in another session, moves made
at or after its time. Moves chain (a -> b -> c) in time order; a copy leaves the edit where it was as well.
When the text does not say whether the destination is a folder (`mv a.md docs/architecture`), both readings
are kept; only one can name a file of the tree. Pure: no I/O.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from ..core.values import MOVE_KINDS, Edit
from ..sessions.path_mapping import posix_path

__all__ = ["MOVE_KINDS", "NO_TIME", "Move", "Moves", "move_of", "recorded_path"]
# Each destination a folder might be doubles the places an edit stands for; a chain of such moves is rare,
# and past this many places the rest are left out rather than grown without bound.
MAX_PLACES = 16
NO_TIME = float("-inf")

Owner = tuple[str, str]  # (agent, session_id): which session made an edit or a move
Place = tuple[str, str | None]  # (recorded path, the cwd to map it by)


def recorded_path(path: str, cwd: str | None) -> str:
    """`path` as one comparable string (a Windows `C:\\x` as `/C/x`, as the path mapper reads it), made
    absolute against `cwd` when it is relative and `cwd` is absolute, normalized (a trailing '/' dropped)."""
    path = posix_path(path)
    if not path.startswith("/") and cwd:
        base = posix_path(cwd)
        if base.startswith("/"):
            path = posixpath.join(base, path)
    return posixpath.normpath(path) if path else path


@dataclass(frozen=True)
class Move:
    """One move or copy, its paths as `recorded_path` gives them. `into`: the destination is a folder for
    certain (the edit's path ends with '/': several sources, `mv -t DIR`); `when`: POSIX seconds
    (`NO_TIME` when unrecorded); `owner` and `index`: the session that made it and the edit's index in it."""

    source: str
    destination: str
    copy: bool
    into: bool
    when: float
    owner: Owner
    index: int
    cwd: str | None


def move_of(edit: Edit, owner: Owner, index: int, cwd: str | None) -> Move | None:
    """The move an edit records (kind "move" or "copy" with a `source`), or None for any other edit."""
    if edit.kind not in MOVE_KINDS or not edit.source or not edit.path:
        return None
    return Move(
        source=recorded_path(edit.source, cwd),
        destination=recorded_path(edit.path, cwd),
        copy=edit.kind == "copy",
        into=posix_path(edit.path).endswith("/"),
        when=edit.timestamp.timestamp() if edit.timestamp is not None else NO_TIME,
        owner=owner,
        index=index,
        cwd=cwd,
    )


class Moves:
    """The moves of a set of sessions, in time order (then session, then their order in it), asked where
    an edit's file went."""

    def __init__(self, moves: Iterable[Move]) -> None:
        self.moves = sorted(moves, key=lambda m: (m.when, m.owner, m.index))
        self.sources = {m.source for m in self.moves}

    def __bool__(self) -> bool:
        return bool(self.moves)

    def places(self, path: str, cwd: str | None, when: float, owner: Owner, index: int) -> list[Place]:
        """The other places (recorded path, cwd to map it by) an edit of `path` (recorded, in a session whose
        cwd is `cwd`), made at `when` by `owner` as its `index`-th edit, stands for: every path the moves made
        after it took its file to, in the order they did; [] when none did. A place's cwd is that of the
        session that moved the file there."""
        start = recorded_path(path, cwd)
        if not self._moved(start):
            return []
        places: list[Place] = [(start, cwd)]  # where the file is after each move
        visited: dict[
            Place, None
        ] = {}  # every place it went to: a commit made between two moves has it there
        for move in self.moves:
            if not _before(when, owner, index, move):
                continue
            following: list[Place] = []
            for place in places:
                rest = _below(place[0], move.source)
                if rest is None:
                    following.append(place)
                    continue
                if move.copy:
                    following.append(place)
                targets = [target + rest for target in _targets(move)]
                following += [(target, move.cwd) for target in targets]
                visited.update(dict.fromkeys((target, move.cwd) for target in targets))
            places = list(dict.fromkeys(following))[:MAX_PLACES]
            if len(visited) >= MAX_PLACES:
                break
        return [place for place in visited if place[0] != start][:MAX_PLACES]

    def _moved(self, path: str) -> bool:
        """Whether a move's source is `path` or a folder above it (the only way its file can go anywhere)."""
        while True:
            if path in self.sources:
                return True
            parent = posixpath.dirname(path)
            if parent == path or not parent:
                return False
            path = parent


def _targets(move: Move) -> list[str]:
    """Where a move may have put its source: the destination itself, or inside it (`Move.into`)."""
    inside = posixpath.join(move.destination, posixpath.basename(move.source))
    return [inside] if move.into else [move.destination, inside]


def _before(when: float, owner: Owner, index: int, move: Move) -> bool:
    """Whether an edit was made before `move`: in the same session, earlier in its order; else no later."""
    if owner == move.owner:
        return index < move.index
    return when <= move.when


def _below(path: str, folder: str) -> str | None:
    """The rest of `path` below `folder` ("" when they are equal, "/x/y" below it), None when not below."""
    if path == folder:
        return ""
    if path.startswith(folder + "/") or folder == "/":
        return path[len(folder.rstrip("/")) :]
    return None
