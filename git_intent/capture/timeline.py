"""The candidate sessions' edits for many commits (backfill): mapped onto the work tree and sorted by time
once, then sliced by binary search for each commit's window, instead of every edit of every session being
checked and mapped again for each commit (issue 14, item 2). An edit of a file an agent later moved or copied
is there under each path the file went to as well (`moved_copies`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from ..models import Edit, Session
from ..sessions.path_mapping import PathMapper
from .attribute import MappedEdit
from .moves import MOVE_KINDS, NO_TIME, Moves, move_of

# Commit times have one-second resolution while edit timestamps have milliseconds.
WINDOW_SLACK = timedelta(seconds=2)

_Entry = tuple[float, int, int, Session, Edit, str]  # (time, session index, edit index, session, edit, path)


class EditTimeline:
    """The edits of `sessions` whose paths `mapper` maps into the work tree, by time (edits without one
    first), then session, then edit; kept per mapped path too. `record.mapped_edits` is one window of it."""

    def __init__(self, sessions: Sequence[Session], mapper: PathMapper) -> None:
        entries: list[_Entry] = []
        for s_index, session in enumerate(sessions):
            for e_index, edit in enumerate(session.edits):
                path = mapper.to_repo(edit.path, session.cwd)
                if path is not None:
                    stamp = edit.timestamp.timestamp() if edit.timestamp is not None else float("-inf")
                    entries.append((stamp, s_index, e_index, session, edit, path))
        for s_index, e_index, path in moved_copies(sessions, mapper):
            session = sessions[s_index]
            edit = session.edits[e_index]
            stamp = edit.timestamp.timestamp() if edit.timestamp is not None else float("-inf")
            entries.append((stamp, s_index, e_index, session, edit, path))
        entries.sort(key=lambda entry: entry[:3])
        self._all = _Slice(entries)
        by_path: dict[str, list[_Entry]] = {}
        for entry in entries:
            by_path.setdefault(entry[5], []).append(entry)
        self._by_path = {path: _Slice(group) for path, group in by_path.items()}

    def window(self, earliest: datetime, after: datetime | None, before: datetime,
               paths: Collection[str] | None = None) -> list[MappedEdit]:
        """The edits made in (earliest, before] (with `WINDOW_SLACK`), those before the parent commit time
        `after` limited to exact matches. With `paths`, only the edits of those paths, numbered in the same order: what
        `attribute` needs for hunks of those paths, since it matches a hunk against its own path's edits
        only (a 7-day look-back holds thousands of edits of other files). Each path's window is a binary
        search; the rest is linear in the edits inside it."""
        low, high = (earliest - WINDOW_SLACK).timestamp(), (before + WINDOW_SLACK).timestamp()
        if paths is None:
            chosen = self._all.between(low, high)
        else:
            chosen = [e for p in paths if p in self._by_path for e in self._by_path[p].between(low, high)]
            chosen.sort(key=lambda entry: entry[:3])
        fuzzy_after = after + timedelta(seconds=1) if after else None
        return [MappedEdit(session=session, edit=edit, path=path, order=order,
                           fuzzy=fuzzy_after is None or (edit.timestamp is not None and edit.timestamp > fuzzy_after))
                for order, (_, _, _, session, edit, path) in enumerate(chosen)]


def moved_copies(sessions: Sequence[Session], mapper: PathMapper) -> list[tuple[int, int, str]]:
    """(session index, edit index, work-tree path) for each edit that also stands for a path its file was
    moved or copied to after it, by any of `sessions` (`capture.moves`), other than the edit's own path, when
    that path is a file of `mapper`'s tree; [] at once when no session moved anything. The copies keep the
    edit itself (its time and ids): attribution and the content fallback see it under the new path as under
    the old."""
    moves = Moves(move for session in sessions for index, edit in enumerate(session.edits)
                  if edit.kind in MOVE_KINDS
                  and (move := move_of(edit, (session.agent, session.session_id), index, session.cwd)) is not None)
    if not moves:
        return []
    found: dict[tuple[int, int, str], None] = {}
    for s_index, session in enumerate(sessions):
        owner = (session.agent, session.session_id)
        for e_index, edit in enumerate(session.edits):
            if not edit.added or edit.kind in MOVE_KINDS:
                continue  # nothing to credit under another path
            when = edit.timestamp.timestamp() if edit.timestamp is not None else NO_TIME
            places = moves.places(edit.path, session.cwd, when, owner, e_index)
            if not places:
                continue
            own = mapper.to_repo(edit.path, session.cwd)
            for place, cwd in places:
                # Only files of the tree: a hunk's file always is one, and a folder a move may have gone into
                # must not stand for a file (`mv a.md docs` is read both ways).
                path = mapper.to_repo(place, cwd)
                if path is not None and path != own and path in mapper.tracked:
                    found[(s_index, e_index, path)] = None
    return list(found)


class _Slice:
    """Entries sorted by (time, session, edit), searchable by time."""

    def __init__(self, entries: list[_Entry]) -> None:
        undated = sum(1 for entry in entries if entry[0] == float("-inf"))
        self.undated = entries[:undated]  # no timestamp: in every window
        self.dated = entries[undated:]
        # Floats keep the order of the datetimes: at today's epoch seconds a float resolves ~0.24 µs, finer
        # than a datetime's microsecond, so `low <= when` holds for the floats exactly when for the datetimes.
        self.stamps = [entry[0] for entry in self.dated]

    def between(self, low: float, high: float) -> list[_Entry]:
        """The undated entries, then the dated ones with low <= time <= high."""
        found = self.dated[bisect_left(self.stamps, low):bisect_right(self.stamps, high)]
        return [*self.undated, *found] if self.undated else found
