"""The sessions that may have written a commit, from the record cache: each transcript parsed once per
version of the file, and only the edits of the commit's window decoded. `record` asks here;
everything else finds sessions through `sessions.discovery`, which stays free of SQLite (blame's start-up)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path

from ..core.values import Session, utc_stamp
from ..git.repo import Repository
from ..sessions.discovery import (
    candidate_sessions,
    mentions_repository,
    read_readable,
    read_transcript,
    repository_needles,
    root_commit_of,
    session_sources,
)
from ..sessions.merge import merge_copies
from .edit_cache import CacheDamaged, Listed, RecordCache, Summary, discard, edit_message_models
from .queue import log


def window_sessions(
    repo: Repository,
    since: datetime | None,
    low: datetime,
    high: datetime,
    extra: Iterable[Path] = (),
    keep: Callable[[str, str, str, str | None], bool] | None = None,
) -> list[Session]:
    """`candidate_sessions(repo, since, extra)` for recording a commit: the same sessions, the copies of each
    merged as `candidate_sessions` merges them, but those of discovered transcripts and backup copies hold
    only their edits made in [low, high] or at no recorded time, and no messages; sessions without such edits
    are left out; with `keep(session_id, message_id, path, cwd)`, cached edits it refuses are left out too.
    Transcripts come from the record cache (`capture.edit_cache`): each file is parsed once per version. A
    damaged cache is deleted and rebuilt, with one line in hook.log; any other failure of the cache falls back
    to parsing every file. Raises TranscriptError for an unreadable `extra` file, as `candidate_sessions`
    does.
    """
    read_first = [s for path in extra for s in read_transcript(path)]
    for attempt in (1, 2):
        try:
            return _cached_window(repo, since, low, high, read_first, keep)
        except CacheDamaged as exc:
            discard(repo)
            if attempt == 1:
                _log(
                    repo,
                    f"record cache {repo.state_dir / 'record-cache.db'} was damaged ({exc}); it was "
                    "deleted and is being rebuilt",
                )
        except Exception as exc:  # a locked or unwritable cache must not stop a record: parse as before
            _log(repo, f"record cache unusable ({type(exc).__name__}: {exc}); transcripts parsed without it")
            break
    found: dict[tuple[str, str], Session] = {}
    merge_copies(found, read_first)
    merge_copies(found, candidate_sessions(repo, since))
    return list(found.values())


@dataclass
class _Candidate:
    """A session met while gathering: read whole (`session`), or cached (`summary`)."""

    messages: int
    session: Session | None = None
    summary: Summary | None = None

    def may_edit_in(self, low: str, high: str) -> bool:
        """Whether it can hold an edit made in [low, high] (`values.utc_stamp` texts) or at no recorded
        time."""
        if self.session is not None:
            return True
        s = self.summary
        return s is not None and (
            s.untimed or (s.low is not None and s.high is not None and s.low <= high and s.high >= low)
        )


def _cached_window(
    repo: Repository,
    since: datetime | None,
    low: datetime,
    high: datetime,
    read_first: list[Session],
    keep: Callable[[str, str, str, str | None], bool] | None,
) -> list[Session]:
    copies: dict[tuple[str, str], list[_Candidate]] = {}
    for session in read_first:
        copies.setdefault((session.agent, session.session_id), []).append(
            _Candidate(len(session.messages), session=session)
        )
    with RecordCache(repo) as cache:
        _gather(repo, cache, since, copies)
        cache.prune()
        low_stamp, high_stamp = utc_stamp(low), utc_stamp(high)
        # Every copy of a session that may hold an edit in the window: they are merged, as discovery merges
        # them, so the hook's record and backfill see the same edits.
        chosen = {
            key: group
            for key, group in copies.items()
            if any(c.may_edit_in(low_stamp, high_stamp) for c in group)
        }
        summaries = [c.summary for group in chosen.values() for c in group if c.session is None and c.summary]
        cached = iter(cache.sessions(summaries, low, high, keep))
        found: dict[tuple[str, str], Session] = {}
        for group in chosen.values():
            merge_copies(found, [c.session if c.session is not None else next(cached) for c in group])
    return [s for s in found.values() if s.edits or s.messages]


def _gather(
    repo: Repository,
    cache: RecordCache,
    since: datetime | None,
    found: dict[tuple[str, str], list[_Candidate]],
) -> None:
    """Every copy of every session of the sources written since `since` into `found`: the files an adapter
    reads alone through the cache (summaries only), the others (a store of many projects, a backup copy no
    adapter reads any more) read whole."""
    needles = repository_needles(repo)
    cache.needles_changed(hashlib.sha256(b"\0".join(needles)).hexdigest())
    root_commit = root_commit_of(repo)
    for source in session_sources(repo, since):
        adapter = source.adapter
        if adapter is not None and adapter.file_scoped:
            mentions = None if source.copy else partial(mentions_repository, source.path, needles)
            for summary in cache.sessions_of(
                source.path, partial(adapter.read, source.path), mentions=mentions
            ):
                if not source.local(summary.agent, summary.session_id):
                    continue
                found.setdefault((summary.agent, summary.session_id), []).append(
                    _Candidate(summary.messages, summary=summary)
                )
            continue
        if source.copy or adapter is None:  # only a backup copy can have no adapter left
            sessions = list(read_readable([(source.agent, source.path)]))
        elif not mentions_repository(source.path, needles):
            continue
        else:
            try:
                sessions = adapter.read_project(
                    source.path, project_id=root_commit, root=repo.root, since=since
                )
            except Exception:  # one odd file must not stop the others
                continue
        for session in source.keep(sessions):
            found.setdefault((session.agent, session.session_id), []).append(
                _Candidate(len(session.messages), session=session)
            )


@dataclass(frozen=True)
class ListedSession:
    """A session as `git intent sessions` lists it: from the record cache (no message decoded) or read whole
    (an OpenCode store, a backup copy of an agent no adapter reads)."""

    agent: str
    session_id: str
    transcript: Path
    cwd: str | None
    started_at: datetime | None
    ended_at: datetime | None
    messages: int
    edits: int
    files: list[str]
    message_models: dict[str, str | None]  # the edit messages' models (`edit_cache.edit_message_models`)


def listed_sessions(repo: Repository) -> list[ListedSession]:
    """Every session of this repository's transcripts and backup copies (the longest copy of each), for
    `git intent sessions`: transcripts are parsed once per version of the file through the record cache,
    where `candidate_sessions` parsed every one on every call (2.5 s on entireio/git-sync). A
    damaged cache is deleted and rebuilt, and any other failure of it falls back to parsing, as in
    `window_sessions`."""
    for _ in (1, 2):
        try:
            copies: dict[tuple[str, str], list[_Candidate]] = {}
            with RecordCache(repo) as cache:
                _gather(repo, cache, None, copies)
                longest = [max(group, key=lambda c: c.messages) for group in copies.values()]
                cached = iter(cache.listing([c.summary for c in longest if c.session is None and c.summary]))
                return [
                    _whole(c.session) if c.session is not None else _from_cache(next(cached)) for c in longest
                ]
        except CacheDamaged:
            discard(repo)
        except Exception as exc:
            _log(repo, f"record cache unusable ({type(exc).__name__}: {exc}); transcripts parsed without it")
            break
    return [_whole(s) for s in candidate_sessions(repo, None)]


def _whole(session: Session) -> ListedSession:
    return ListedSession(
        agent=session.agent,
        session_id=session.session_id,
        transcript=session.transcript,
        cwd=session.cwd,
        started_at=session.started_at,
        ended_at=session.ended_at,
        messages=len(session.messages),
        edits=len(session.edits),
        files=[e.path for e in session.edits],
        message_models=edit_message_models(session),
    )


def _from_cache(listed: Listed) -> ListedSession:
    s = listed.summary
    return ListedSession(
        agent=s.agent,
        session_id=s.session_id,
        transcript=Path(s.path),
        cwd=listed.cwd,
        started_at=listed.started_at,
        ended_at=listed.ended_at,
        messages=s.messages,
        edits=len(listed.files),
        files=listed.files,
        message_models=listed.message_models,
    )


def _log(repo: Repository, message: str) -> None:
    log(repo.state_dir, message)
