"""Which line of the file on disk each line of an editor's unsaved buffer is: the buffer's diff against the
work tree file, so a hover in a changed buffer is answered for the line git blamed."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class LineMap:
    """Buffer lines → disk lines, both 1-based. `to_disk[n - 1]` is the disk line buffer line `n` shows,
    or None when the buffer added or changed it (not committed). `to_buffer` is the inverse."""

    to_disk: tuple[int | None, ...]
    to_buffer: dict[int, int]

    def disk_line(self, buffer_line: int) -> int | None:
        """The disk line for buffer line `buffer_line`; None past the buffer's end or for a line it added."""
        if 1 <= buffer_line <= len(self.to_disk):
            return self.to_disk[buffer_line - 1]
        return None

    @property
    def identical(self) -> bool:
        """Whether the buffer is the disk file, line for line."""
        return all(disk == n for n, disk in enumerate(self.to_disk, 1)) and len(self.to_buffer) == len(
            self.to_disk
        )


def split_lines(text: str) -> list[str]:
    """Lines as git counts them: LF ends a line; a final LF opens no extra line (CR stays in the line)."""
    if not text:
        return []
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def map_lines(disk: Sequence[str], buffer: Sequence[str]) -> LineMap:
    """The LineMap of `buffer` against `disk` (lists of lines without their LF).

    Equal lists cost one comparison; otherwise difflib's matching blocks (no junk heuristic, so blank and
    repeated lines still match where they stand)."""
    if list(disk) == list(buffer):
        same = tuple(range(1, len(buffer) + 1))
        return LineMap(to_disk=same, to_buffer={n: n for n in same})
    to_disk: list[int | None] = [None] * len(buffer)
    matcher = difflib.SequenceMatcher(None, list(disk), list(buffer), autojunk=False)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            to_disk[block.b + offset] = block.a + offset + 1
    to_buffer = {disk_line: n for n, disk_line in enumerate(to_disk, 1) if disk_line is not None}
    return LineMap(to_disk=tuple(to_disk), to_buffer=to_buffer)
