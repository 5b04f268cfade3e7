"""The added lines of a revision range, each classified once (`classify.LineResolver`): what `stats` and
`audit` count, line for line alike.

Every commit of the range counts the lines it added: against its first parent, or, for a merge, the lines new
against every parent (a conflict's resolution; the merged branch's lines count in the commits that wrote
them), as `backfill` records them. Blank lines are not counted (notes do not count them either).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..capture.commit_range import RangeCommit, added_hunks_of, list_range
from ..git.objects import InProcessRepository
from ..git.repo import Hunk, Repository
from .classify import LineClass, LineResolver, Resolution


@dataclass(frozen=True)
class ClassifiedLine:
    """One added line: line `line` (1-based) of `path` as `commit` added it, and what is known of it."""

    commit: str
    path: str
    line: int
    text: str
    resolution: Resolution
    line_class: LineClass


@dataclass
class ClassifiedRange:
    """A range's commits (oldest first), their added lines (`hunks`) and, lazily, the lines classified;
    `resolver` answers more about them (sessions, evidence)."""

    commits: list[RangeCommit]
    hunks: dict[str, list[Hunk]]
    resolver: LineResolver

    def lines(self, *, blank: bool = False) -> Iterator[ClassifiedLine]:
        """Every non-blank added line of the range (every line with `blank`), commit by commit, hunk by
        hunk."""
        for commit in self.commits:
            sha = commit.sha
            for hunk in self.hunks[sha]:
                for offset, text in enumerate(hunk.lines):
                    if blank or text.strip():
                        found = self.resolver.resolve(sha, hunk.path, hunk.start + offset)
                        yield ClassifiedLine(
                            sha, hunk.path, hunk.start + offset, text, found, self.resolver.line_class(found)
                        )


def classify_range(repo: Repository, revision_range: str) -> ClassifiedRange:
    """The commits of `revision_range` (`git rev-list` syntax) ready to be classified: their notes read at
    once and the commits without one credited at once. Raises IntentError for a range git does not
    understand."""
    fast = InProcessRepository.of(repo)  # each note's ranges are checked against the blobs: in process
    commits = list_range(fast, revision_range)
    hunks = dict(added_hunks_of(fast, commits))
    resolver = LineResolver(fast, listing=True)
    resolver.prepare([c.sha for c in commits], hunks=hunks)
    return ClassifiedRange(commits, hunks, resolver)
