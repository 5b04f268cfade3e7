"""The candidate sessions' edits for many commits (backfill): sorted once, then sliced by binary search for
each commit's window and file names, and mapped onto that commit's tree, instead of every edit of every
session being checked again for each commit. An edit of a file an agent later moved or copied is there under
each path the file went to as well (`moved_copies`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from ..core.values import Edit, Session
from ..sessions.path_mapping import PathMapper, file_name
from .attribute import MappedEdit
from .moves import MOVE_KINDS, NO_TIME, Moves, Owner, Place, move_of

# Commit times have one-second resolution while edit timestamps have milliseconds.
WINDOW_SLACK = timedelta(seconds=2)

# (time, agent, session id, edit index, recorded path, session, edit, cwd to map the path by, moved there): an
# edit is there under its own path, and under each path a move took its file to (`moved_copies`).
_Entry = tuple[float, str, str, int, str, Session, Edit, str | None, bool]


def _key(entry: _Entry) -> tuple[float, str, str, int, str]:
    return entry[:5]


class EditTimeline:
    """The edits of `sessions` in one total order that does not depend on the order the sessions were found
    in (the same transcripts give the same notes whichever route found them: hook, `record`, `backfill`,
    `import`): by time (edits without one first), then agent, then session id, then the edit's place in its
    session, then the recorded path (an edit a move took elsewhere is there under each path). Kept per file
    name too; `window` maps the recorded paths onto one commit's tree."""

    def __init__(self, sessions: Sequence[Session]) -> None:
        entries: list[_Entry] = []
        for session in sessions:
            for e_index, edit in enumerate(session.edits):
                stamp = edit.timestamp.timestamp() if edit.timestamp is not None else float("-inf")
                entries.append(
                    (
                        stamp,
                        session.agent,
                        session.session_id,
                        e_index,
                        edit.path,
                        session,
                        edit,
                        session.cwd,
                        False,
                    )
                )
        for session, e_index, (place, cwd) in moved_copies(sessions):
            edit = session.edits[e_index]
            stamp = edit.timestamp.timestamp() if edit.timestamp is not None else float("-inf")
            entries.append(
                (stamp, session.agent, session.session_id, e_index, place, session, edit, cwd, True)
            )
        entries.sort(key=_key)
        self._all = _Slice(entries)
        by_name: dict[str, list[_Entry]] = {}
        for entry in entries:
            by_name.setdefault(file_name(entry[4]), []).append(entry)
        self._by_name = {name: _Slice(group) for name, group in by_name.items()}

    def window(
        self,
        earliest: datetime,
        after: datetime | None,
        before: datetime,
        mapper: PathMapper,
        paths: Collection[str] | None = None,
    ) -> list[MappedEdit]:
        """The edits made in (earliest, before] (with `WINDOW_SLACK`) whose paths `mapper` (the commit's
        tree) maps into the work tree; those the parent's window holds (made by the parent commit time `after`
        plus `WINDOW_SLACK`) limited to exact matches. With `paths`, only the edits of those paths, numbered
        in the same order: what `attribute` needs for hunks of those paths, since it matches a hunk against
        its own path's edits only (a 7-day look-back holds thousands of edits of other files). Each file
        name's window is a binary search; the rest is linear in the edits inside it."""
        low, high = (earliest - WINDOW_SLACK).timestamp(), (before + WINDOW_SLACK).timestamp()
        if paths is None:
            chosen = self._all.between(low, high)
        else:
            names = {path.rsplit("/", 1)[-1] for path in paths}
            chosen = [
                e for name in names if name in self._by_name for e in self._by_name[name].between(low, high)
            ]
            chosen.sort(key=_key)
        # Only an edit no window of the parent could hold may explain a near match: the parent's window
        # reaches `WINDOW_SLACK` past its whole-second commit time, so an edit stamped in those seconds (an
        # agent's clock a little ahead, or a commit made as the edit landed) may be credited in the parent's
        # note, and were it fuzzy here too, a line a person rewrote in this commit would go to it as a near
        # match of the line it wrote there. Every edit the parent's note credits from a live session is
        # therefore exact-only here: it still explains lines whose text it wrote (people commit an agent's
        # work in pieces), never a different line. A rule reading the parent's note would instead depend on
        # whether and when the parent was recorded, and the same history must give the same note by any
        # route; it would spare only the edits of those two seconds the parent did not credit.
        fuzzy_after = after + WINDOW_SLACK if after else None
        mapped: list[MappedEdit] = []
        seen: set[tuple[int, str]] = set()  # an edit once per path, whichever places it reached it by
        for _, _, _, _, recorded, session, edit, cwd, moved in chosen:
            path = mapper.to_repo(recorded, cwd)
            if path is None or (paths is not None and path not in paths) or (id(edit), path) in seen:
                continue
            if moved and path not in mapper.tracked:
                # a folder a move may have gone into (`mv a.md docs` is read both ways) is not a file
                continue
            seen.add((id(edit), path))
            mapped.append(
                MappedEdit(
                    session=session,
                    edit=edit,
                    path=path,
                    order=len(mapped),
                    fuzzy=(
                        fuzzy_after is None or (edit.timestamp is not None and edit.timestamp > fuzzy_after)
                    ),
                )
            )
        return mapped


def moved_copies(sessions: Sequence[Session]) -> list[tuple[Session, int, Place]]:
    """(session, edit index, place) for each place (recorded path, cwd to map it by) an edit of `sessions`
    also stands for: every path a move or copy made after it, by any of them, took its file to
    (`capture.moves`); [] at once when none moved anything. The edit itself is kept (its time and ids):
    attribution and the credits of commits without a note see it under the new path as under the old."""
    moves = Moves(
        move
        for session in sessions
        for index, edit in enumerate(session.edits)
        if edit.kind in MOVE_KINDS
        and (move := move_of(edit, (session.agent, session.session_id), index, session.cwd)) is not None
    )
    if not moves:
        return []
    found: list[tuple[Session, int, Place]] = []
    for session in sessions:
        owner: Owner = (session.agent, session.session_id)
        for e_index, edit in enumerate(session.edits):
            if (
                edit.added and edit.kind not in MOVE_KINDS
            ):  # a move or a deletion has no line to credit elsewhere
                when = edit.timestamp.timestamp() if edit.timestamp is not None else NO_TIME
                found += [
                    (session, e_index, place)
                    for place in moves.places(edit.path, session.cwd, when, owner, e_index)
                ]
    return found


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
        found = self.dated[bisect_left(self.stamps, low) : bisect_right(self.stamps, high)]
        return [*self.undated, *found] if self.undated else found
