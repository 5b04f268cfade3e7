"""Crediting many commits at once from one set of sessions: backfill's loop, and the credits `record` would
write now for commits that have no note (blame, review, stats and audit answer their lines with them).

Each commit is credited exactly as `record.attribute_commit` credits it alone (tests hold the two equal): its
own window of the sessions' edits (`timeline.EditTimeline`), mapped onto its own tree, the sessions it names,
its earlier note's credits and those it carries. What is shared is only the work: the sessions are read once,
the edits sorted once, the added lines of every commit come from one streamed `git log -p`, and path mappings
are kept across commits (`path_mapping.MappingCache`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from ..config import lookback, window_start
from ..core.values import Session
from ..git.repo import Hunk, Repository
from ..peers.named import named_sessions
from ..sessions.path_mapping import MappingCache, PathMapper, file_name
from .attribute import LineCredit
from .carry import carried_edits
from .commit_range import RangeCommit, added_hunks_of, range_commits
from .record import attribute_commit, credit_lines, implicit_sources, own_edits
from .timeline import WINDOW_SLACK, EditTimeline


@dataclass(frozen=True)
class Span:
    """When a commit's edits may have been made: after its first parent's commit time `after` (None for a root
    commit), by its author date `authored`, and not before `earliest` (`config.window_start`)."""

    after: datetime | None
    authored: datetime
    earliest: datetime


def spans(
    repo: Repository, commits: Sequence[RangeCommit], window: timedelta | None = None
) -> dict[str, Span]:
    """The `Span` of each commit; `window` is the look-back (default `config.lookback`)."""
    window = lookback(repo) if window is None else window
    times = {c.sha: c.time for c in commits}
    found: dict[str, Span] = {}
    for commit in commits:
        after = None
        if commit.parents:
            parent = commit.parents[0]
            after = times[parent] if parent in times else repo.commit_time(parent)
        authored = repo.commit_times(commit.sha)[1]
        found[commit.sha] = Span(after, authored, window_start(after, commit.time, authored, window))
    return found


def credit_commits(
    repo: Repository,
    commits: Sequence[RangeCommit],
    sessions: Sequence[Session],
    windows: dict[str, Span],
    noted: set[str],
    hunks: dict[str, list[Hunk]] | None = None,
) -> Iterator[tuple[str, list[LineCredit]]]:
    """(sha, credits) for each of `commits` in order, from `sessions` (their edits in each commit's window).
    `noted` are the commits that have a note (only those carry credits or keep earlier ones); `hunks`, each
    commit's added lines when the caller has them (else read here, `commit_range.added_hunks_of`)."""
    timeline = EditTimeline(sessions)
    mapped: MappingCache = {}  # shared by the commits' mappers: each maps against its own commit's tree
    stream = ((c.sha, hunks[c.sha]) for c in commits) if hunks is not None else added_hunks_of(repo, commits)
    named = named_sessions(repo, [c.sha for c in commits])
    for commit in commits:
        sha, added = next(stream)
        span = windows[sha]
        # Only a commit with a note can carry credits (from the commits its note names, and its own); the
        # others, nearly all of a first backfill, skip reading one.
        carried = carried_edits(repo, implicit_sources(repo, sha), sha) if sha in noted else []
        own = own_edits(repo, sha) if sha in noted else []
        # Without carried credits only the edits of the files the commit added lines to can count; a
        # carried credit's live twin may be an edit of another file of the same message.
        paths = None if carried or own else {h.path for h in added}
        mapper = PathMapper(repo.root, repo.tree_files(sha), repo.worktrees, mapped)
        fresh = timeline.window(span.earliest, span.after, commit.time, mapper, paths)
        yield (
            sha,
            credit_lines(
                added,
                carried,
                fresh,
                span.authored + WINDOW_SLACK if fresh else None,
                named=named.get(sha, frozenset()),
                file_lines=partial(repo.file_lines, sha),
                own=own,
            ),
        )


def unnoted_credits(
    repo: Repository, shas: Sequence[str], hunks: dict[str, list[Hunk]] | None = None
) -> dict[str, list[LineCredit]]:
    """The credits `record` would write now for each of `shas` (commits without a note), writing nothing: the
    sessions on this machine, read through the record cache. One commit is credited by `attribute_commit`
    itself; several share one reading of the sessions (`credit_commits`; `hunks`: their added lines, when the
    caller has them). Raises GitError for a sha that names no commit."""
    wanted = list(dict.fromkeys(shas))
    if len(wanted) <= 1:
        return {sha: attribute_commit(repo, sha) for sha in wanted}
    from ..git.objects import InProcessRepository
    from .candidate_sessions import window_sessions

    fast = InProcessRepository.of(repo)
    commits = range_commits(fast, wanted)
    windows = spans(fast, commits)
    low = min(s.earliest for s in windows.values())
    high = max(c.time for c in commits)
    paths = (
        {h.path for sha in wanted for h in hunks[sha]} if hunks is not None else _added_paths(fast, commits)
    )
    names = {file_name(path) for path in paths}
    # A path maps only onto files of its own name (`path_mapping.file_name`): edits of other names cannot
    # count.
    sessions = window_sessions(
        fast,
        low,
        low - WINDOW_SLACK,
        high + WINDOW_SLACK,
        keep=lambda _s, _m, path, _c: file_name(path) in names,
    )
    return dict(credit_commits(fast, commits, sessions, windows, noted=set(), hunks=hunks))


def _added_paths(repo: Repository, commits: Sequence[RangeCommit]) -> set[str]:
    """The paths the commits add or change files at (`git log --name-only`, merges against every parent)."""
    out = repo.git(
        "log",
        "--no-walk=unsorted",
        "--format=",
        "--name-only",
        "--no-renames",
        "--diff-filter=AMT",
        "-z",
        "--diff-merges=combined",
        "--end-of-options",
        *[c.sha for c in commits],
        check=False,
    )
    return {path.strip("\n") for path in out.split("\0") if path.strip("\n")}
