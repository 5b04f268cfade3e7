"""Lines of commits no hook saw (a squash-merge made on a forge, a clone's history): credited as `git intent
record` would credit them now, from the sessions on this machine, without writing anything
(`capture.bulk.unnoted_credits`).

One truth: the answer for such a line is the note `record` would write, whatever asks (blame, review, stats,
audit, the web view, the editor) and whether or not the session index exists; the record cache only makes it
faster. A line credited this way says `method: "content"`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..core.errors import IntentError
from ..git.repo import Repository

if TYPE_CHECKING:
    from ..capture.attribute import LineCredit
    from ..git.repo import Hunk

# Below a note's: the line was credited now, not when the commit was made.
CONTENT_CONFIDENCE = 0.7


class UnnotedLines:
    """The credits of the added lines of commits without a note, computed once per commit (several at once
    with `prepare`) and kept for this object's life."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._credits: dict[str, dict[tuple[str, int], LineCredit] | None] = {}

    def prepare(self, commits: Iterable[str], hunks: dict[str, list[Hunk]] | None = None) -> None:
        """Credit at once the commits not credited yet (one reading of the sessions for all of them); `hunks`,
        their added lines when the caller has them."""
        wanted = [c for c in dict.fromkeys(commits) if c not in self._credits]
        if not wanted:
            return
        from ..capture.bulk import unnoted_credits  # the capture stage loads only when a commit has no note

        try:
            found = unnoted_credits(
                self.repo, wanted, hunks if hunks is not None and all(c in hunks for c in wanted) else None
            )
        except (
            IntentError
        ):  # a commit git cannot diff (a shallow clone's boundary): its lines stay unrecorded
            found = {}
            for commit in wanted:
                try:
                    found.update(unnoted_credits(self.repo, [commit]))
                except IntentError:
                    self._credits[commit] = None
        for commit, credits in found.items():
            self._credits[commit] = {(c.path, c.line): c for c in credits}

    def credit(self, commit: str, path: str, line: int) -> LineCredit | None:
        """The credit of line `line` of `path` as added by `commit`, or None (nobody here wrote it)."""
        self.prepare([commit])
        credits = self._credits.get(commit)
        found = credits.get((path, line)) if credits else None
        return found if found is not None and found.credit is not None else None


def confidence(credit: LineCredit) -> float:
    """The confidence of a line credited without a note: `CONTENT_CONFIDENCE` scaled by the match's own."""
    return round(CONTENT_CONFIDENCE * (credit.confidence or 1.0), 2)
