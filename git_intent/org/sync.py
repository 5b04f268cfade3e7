"""`git intent org sync`: read each source's git-intent refs into a `RepoSnapshot` and hand it to the org
store, skipping a source whose refs are as the store last loaded them.

Each source is mirrored bare under the cache (`mirror.py`: git-intent's refs whole, the noted commits without
trees or blobs); its notes become `CommitRow`s and `CreditRow`s (`credits.py`), its shared sessions
`MessageRow`s (`evidence.py`). A source that fails is reported with one sentence and the others go on.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel

from ..core.errors import IntentError
from ..core.state_files import locked, private_dir
from ..explain.trailers import trailer_agents
from ..notes import read_notes
from .credits import commit_metadata, note_credits
from .evidence import read_evidence
from .mirror import MirrorRepository, fetch_commits, fetch_refs, open_mirror, refs_digest, remote_refs
from .rows import CommitRow, CreditRow, RepoSnapshot
from .sources import Source, org_cache, parse_source, shown

TRAILER_BATCH = 1000  # commit ids per `git log` command line


class SyncStore(Protocol):
    """What sync needs of the org store (`store.OrgStore` is one)."""

    def last_head(self, key: str) -> str | None: ...

    def replace_repository(self, snapshot: RepoSnapshot) -> None: ...


class Progress(Protocol):
    """A progress display (`cli.progress.Bars` is one): a stage with a total, then steps."""

    def stage(self, label: str, total: int) -> None: ...

    def advance(self, count: int = 1) -> None: ...


class SourceResult(BaseModel):
    """One source of an `org sync`: `status` "loaded" (its rows replaced the store's), "unchanged" (its
    git-intent refs are as last loaded: nothing fetched or written) or "failed" (`problem` says why, one
    sentence); the counts are of the rows loaded (0 unless loaded). `problems`: notes or shared blobs that
    could not be read, each left out."""

    source: str
    key: str | None
    name: str | None
    status: Literal["loaded", "unchanged", "failed"]
    commits: int = 0
    credits: int = 0
    messages: int = 0
    problem: str | None = None
    problems: list[str] = []


class SyncReport(BaseModel):
    """`git intent org sync --json`: one result per source, in the order given, and the totals."""

    sources: list[SourceResult]
    loaded: int
    unchanged: int
    failed: int


def snapshot(source: str | Source, cache_dir: Path | None = None) -> RepoSnapshot:
    """Fetch `source` (a URL or local path, `sources.parse_source`) into its mirror under `cache_dir`
    (default `org_cache()`) and read it whole. Raises IntentError (GitError when git cannot reach it)."""
    found = _read(_source(source), cache_dir or org_cache(), None)[0]
    assert found is not None  # only a store's last head makes `_read` skip a source
    return found


def sync(
    sources: Iterable[str],
    store: SyncStore,
    progress: Progress | None = None,
    cache_dir: Path | None = None,
    jobs: int = 1,
) -> SyncReport:
    """Load every source into `store` (each in its own store transaction), fetching and reading up to `jobs`
    sources at once; the store is only asked and written from the calling thread, in the order given. A
    source that fails is reported in its result and counted, and the others go on."""
    given = list(sources)
    cache = cache_dir or org_cache()
    if progress is not None:
        progress.stage("Syncing repositories", len(given))
    results: list[SourceResult] = []
    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        # a window of at most 2 x jobs sources read ahead: memory stays that many snapshots, however many
        # sources there are
        window: deque[tuple[str, Source | None, Future[_Read] | str]] = deque()
        words = iter(given)
        while True:
            while len(window) < 2 * max(jobs, 1) and (word := next(words, None)) is not None:
                window.append(_start(pool, word, store, cache))
            if not window:
                break
            results.append(_finish(*window.popleft(), store))
            if progress is not None:
                progress.advance()
    count = {s: sum(r.status == s for r in results) for s in ("loaded", "unchanged", "failed")}
    return SyncReport(sources=results, **count)


_Read = tuple[RepoSnapshot | None, list[str]]


def _start(
    pool: ThreadPoolExecutor, word: str, store: SyncStore, cache: Path
) -> tuple[str, Source | None, Future[_Read] | str]:
    """(word, its source, the read under way), or (word, None, why it cannot be read) at once."""
    try:
        source = parse_source(word)
    except IntentError as exc:
        return word, None, _sentence(exc)
    return word, source, pool.submit(_read, source, cache, store.last_head(source.key))


def _finish(word: str, source: Source | None, read: Future[_Read] | str, store: SyncStore) -> SourceResult:
    if isinstance(read, str) or source is None:
        return SourceResult(source=shown(word), key=None, name=None, status="failed", problem=str(read))
    try:
        found, problems = read.result()
    except (IntentError, OSError) as exc:
        return SourceResult(
            source=shown(word), key=source.key, name=source.name, status="failed", problem=_sentence(exc)
        )
    if found is None:
        return SourceResult(source=shown(word), key=source.key, name=source.name, status="unchanged")
    store.replace_repository(found)
    return SourceResult(
        source=shown(word),
        key=source.key,
        name=source.name,
        status="loaded",
        commits=len(found.commits),
        credits=len(found.credits),
        messages=len(found.messages),
        problems=problems,
    )


def _read(source: Source, cache: Path, last_head: str | None) -> _Read:
    """The snapshot of `source` and the problems met reading it; (None, []) when `last_head` (what the store
    last loaded, None: nothing) is the digest of the refs the source has now."""
    folder = private_dir(cache)
    with locked(folder / f"{source.mirror_name}.lock"):  # two syncs of one source share its mirror
        mirror = open_mirror(source, folder)
        refs = remote_refs(mirror)
        head = refs_digest(refs)
        if last_head is not None and last_head == head:
            return None, []
        fetch_refs(mirror, refs)
        return _snapshot(mirror, source, head)


def _snapshot(mirror: MirrorRepository, source: Source, head: str) -> tuple[RepoSnapshot, list[str]]:
    notes = read_notes(mirror)
    problems = [
        f"The note on {commit[:12]} holds no git-intent record; skipped."
        for commit, note in notes.items()
        if not note.records
    ]
    noted = {commit: note for commit, note in notes.items() if note.records}
    gone = set(fetch_commits(mirror, list(noted)))
    if gone:
        problems.append(f"{len(gone)} noted commits are not on the source any more; skipped.")
    metadata = commit_metadata(mirror, [c for c in noted if c not in gone])
    evidence = read_evidence(mirror)
    trailers = _trailers(mirror, [c for c, note in noted.items() if c in metadata and not note.lines])
    commits: list[CommitRow] = []
    credits: list[CreditRow] = []
    for commit, note in sorted(noted.items()):
        if commit not in metadata:
            continue
        added, rows = note_credits(note, evidence, trailers.get(commit), mirror)
        committed_at, author = metadata[commit]
        commits.append(CommitRow(sha=commit, committed_at=committed_at, author=author, lines_added=added))
        credits += rows
    return (
        RepoSnapshot(
            key=source.key,
            name=source.name,
            head=head,
            commits=tuple(commits),
            credits=tuple(credits),
            messages=tuple(evidence.messages),
        ),
        problems + evidence.problems,
    )


def _trailers(mirror: MirrorRepository, commits: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for start in range(0, len(commits), TRAILER_BATCH):
        found.update(trailer_agents(mirror, commits[start : start + TRAILER_BATCH]))
    return found


def _source(source: str | Source) -> Source:
    return source if isinstance(source, Source) else parse_source(source)


def _sentence(exc: BaseException) -> str:
    """One line saying why a source failed, without credentials a URL in git's message may carry."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return re.sub(r"(?<=://)[^/@\s]*@", "", text)


__all__ = ["Progress", "SourceResult", "SyncReport", "SyncStore", "snapshot", "sync"]
