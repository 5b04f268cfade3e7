"""The candidate sessions' edits for many commits (backfill): mapped onto the work tree and sorted by time
once, then sliced by binary search for each commit's window, instead of every edit of every session being
checked and mapped again for each commit (issue 14, item 2).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from ..models import Edit, Session
from ..sessions.path_mapping import PathMapper
from .attribute import MappedEdit

# Commit times have one-second resolution while edit timestamps have milliseconds.
WINDOW_SLACK = timedelta(seconds=2)

# (time, agent, session id, edit index, session, edit, path)
_Entry = tuple[float, str, str, int, Session, Edit, str]


def _key(entry: _Entry) -> tuple[float, str, str, int]:
    return entry[:4]


class EditTimeline:
    """The edits of `sessions` whose paths `mapper` maps into the work tree, in one total order that does not
    depend on the order the sessions were found in (the same transcripts give the same notes whichever route
    found them: hook, `record`, `backfill`, `import`): by time (edits without one first), then agent, then
    session id, then the edit's place in its session. Kept per mapped path too; `record.mapped_edits` is one
    window of it."""

    def __init__(self, sessions: Sequence[Session], mapper: PathMapper) -> None:
        entries: list[_Entry] = []
        for session in sessions:
            for e_index, edit in enumerate(session.edits):
                path = mapper.to_repo(edit.path, session.cwd)
                if path is not None:
                    stamp = edit.timestamp.timestamp() if edit.timestamp is not None else float("-inf")
                    entries.append((stamp, session.agent, session.session_id, e_index, session, edit, path))
        entries.sort(key=_key)
        self._all = _Slice(entries)
        by_path: dict[str, list[_Entry]] = {}
        for entry in entries:
            by_path.setdefault(entry[6], []).append(entry)
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
            chosen.sort(key=_key)
        fuzzy_after = after + timedelta(seconds=1) if after else None
        return [MappedEdit(session=session, edit=edit, path=path, order=order,
                           fuzzy=fuzzy_after is None or (edit.timestamp is not None and edit.timestamp > fuzzy_after))
                for order, (_, _, _, _, session, edit, path) in enumerate(chosen)]


class _Slice:
    """Entries in the timeline's order, searchable by time."""

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
