"""The candidate sessions' edits for many commits (backfill): mapped onto the work tree and sorted by time
once, then sliced by binary search for each commit's window, instead of every edit of every session being
checked and mapped again for each commit (issue 14, item 2).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from datetime import datetime, timedelta

from .attribute import MappedEdit
from .models import Edit, Session
from .paths import PathMapper
from .record import WINDOW_SLACK

_Entry = tuple[float, int, int, Session, Edit, str]  # (time, session index, edit index, session, edit, path)


class EditTimeline:
    """The edits of `sessions` whose paths `mapper` maps into the work tree, in the order `record.mapped_edits`
    gives them: by time (edits without one first), then session, then edit."""

    def __init__(self, sessions: Sequence[Session], mapper: PathMapper) -> None:
        entries: list[_Entry] = []
        for s_index, session in enumerate(sessions):
            for e_index, edit in enumerate(session.edits):
                path = mapper.to_repo(edit.path, session.cwd)
                if path is not None:
                    stamp = edit.timestamp.timestamp() if edit.timestamp is not None else float("-inf")
                    entries.append((stamp, s_index, e_index, session, edit, path))
        entries.sort(key=lambda entry: entry[:3])
        undated = sum(1 for entry in entries if entry[0] == float("-inf"))
        self._undated = entries[:undated]  # no timestamp: in every window, as in `mapped_edits`
        self._dated = entries[undated:]
        # Floats keep the order of the datetimes: at today's epoch seconds a float resolves ~0.24 µs, finer
        # than a datetime's microsecond, so `low <= when` holds for the floats exactly when for the datetimes.
        self._stamps = [entry[0] for entry in self._dated]

    def window(self, earliest: datetime, after: datetime | None, before: datetime) -> list[MappedEdit]:
        """`record.mapped_edits(…, earliest, after, before, mapper)` for these sessions: the edits made in
        (earliest, before] (with `WINDOW_SLACK`), those before the parent commit time `after` limited to
        exact matches. O(log n) to find the window, then linear in the edits inside it."""
        low = bisect_left(self._stamps, (earliest - WINDOW_SLACK).timestamp())
        high = bisect_right(self._stamps, (before + WINDOW_SLACK).timestamp())
        fuzzy_after = after + timedelta(seconds=1) if after else None
        chosen = [*self._undated, *self._dated[low:high]] if self._undated else self._dated[low:high]
        return [MappedEdit(session=session, edit=edit, path=path, order=order,
                           fuzzy=fuzzy_after is None or (edit.timestamp is not None and edit.timestamp > fuzzy_after))
                for order, (_, _, _, session, edit, path) in enumerate(chosen)]
