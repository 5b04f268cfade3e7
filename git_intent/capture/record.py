"""Linking a commit to the sessions that wrote it: attribution, the note, and the local backup."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import partial
from pathlib import Path

from ..config import lookback, window_start
from ..core.errors import IntentError
from ..core.values import Session
from ..core.version import __version__
from ..git.repo import Hunk, Repository
from ..notes import Credit, CreditedLine, NoteRecord, SessionRecord, build_note, read_note, write_note
from ..peers.named import named_sessions
from ..sessions.backup import append_journal, copy_session, trusted_backup
from ..sessions.path_mapping import PathMapper
from .attribute import AnyEdit, CarriedEdit, LineCredit, MappedEdit, attribute
from .candidate_sessions import window_sessions
from .carry import carried_edits
from .queue import log
from .timeline import WINDOW_SLACK, EditTimeline


@dataclass
class RecordResult:
    """What `record_commit` did: counts of added and credited lines, and the sessions credited."""

    commit: str
    lines_added: int
    lines_attributed: int
    sessions: dict[str, int] = field(default_factory=dict)  # "agent:session_id" -> lines
    note_written: bool = False

    def text(self) -> str:
        """One sentence on what `record` did."""
        head = (
            f"{self.commit[:12]}: {self.lines_attributed} of {self.lines_added} added lines credited to "
            f"agent sessions"
        )
        sessions = "; ".join(f"{key} ({n} line{'' if n == 1 else 's'})" for key, n in self.sessions.items())
        tail = "note written" if self.note_written else "note unchanged"
        return f"{head}{': ' + sessions if sessions else ''}. {tail[0].upper() + tail[1:]}.\n"


def record_commit(
    repo: Repository,
    rev: str = "HEAD",
    *,
    transcripts: Iterable[Path] = (),
    sources: Iterable[str] = (),
    live: bool = True,
    outside: Sequence[CarriedEdit] = (),
    credited_only: bool = False,
) -> RecordResult:
    """Credit the added lines of `rev` to this repository's sessions and write its note.

    `sources`: commits whose notes' credits carry over to identical lines (amend, rebase, squash,
    cherry-pick, `git intent carry`); each carried range keeps a `derived_from` pointer. `live`: whether
    the agents' sessions may explain lines (False when replaying older work, so no live session is
    stamped onto a rebased commit). `outside`: session-less credits another tool's record gives lines of this
    commit (an imported Agent Trace record, `interop.importers`): they credit only lines no transcript and no
    carried credit does, on this run and every later one. `credited_only`: write nothing when no line is
    credited (an import that chose the commit by time alone must not call its lines a person's).

    Candidate edits are those of sessions whose paths map into the work tree, made before this commit
    and after the parent commit, or the author date when earlier (a rebased commit), minus the look-back
    (`config.lookback`, `config.window_start`; edits the parent's window holds, up to `WINDOW_SLACK` after
    it, only explain exact matches: people commit an agent's work in pieces, and an edit the parent's note
    credits must not take a line a person changed here). Deterministic: the same transcripts and history
    give the same note whatever the route and however often it runs, and an identical note is not
    rewritten. A line the commit's earlier note credits keeps that credit when it was carried from another
    commit or when its session is not among this run's (a transcript since deleted, a note recorded on
    another machine).
    Raises GitError for a bad revision, TranscriptError for an unreadable `transcripts` file, NoteError when
    the written note does not read back.
    """
    commit = repo.resolve(rev)
    sources = list(sources)
    credits = attribute_commit(
        repo, commit, transcripts=transcripts, sources=sources, live=live, outside=outside
    )
    result = summarize(commit, credits)
    if credited_only and not result.lines_attributed:
        return result
    records = note_records(commit, credits)
    result.note_written = write_note(repo, commit, records)
    # Also when the note was already there: a retry after a crash between the two must still back up.
    back_up(repo, commit, credits, result, journal=result.note_written)
    if sources:
        attest_carried_records(repo, commit, sources)
    return result


def attest_carried_records(repo: Repository, commit: str, sources: Sequence[str]) -> None:
    """Attest `commit` when a commit its records were carried from is attested (`attest.make.attest_carried`),
    naming that attestation; a failure is logged to hook.log, never raised: the note is written already."""
    from ..attest.make import attest_carried

    try:
        attest_carried(repo, commit, [s if len(s) == 40 else repo.resolve(s) for s in sources])
    except (IntentError, OSError) as exc:
        log(repo.state_dir, f"{commit[:12]}: the carried records were not attested: {exc}")


def attribute_commit(
    repo: Repository,
    commit: str,
    *,
    transcripts: Iterable[Path] = (),
    sources: Iterable[str] = (),
    live: bool = True,
    sessions: list[Session] | None = None,
    mapper: PathMapper | None = None,
    window: timedelta | None = None,
    outside: Sequence[CarriedEdit] = (),
) -> list[LineCredit]:
    """The credits of every added line of `commit` (see `record_commit`); writes nothing. `sessions`,
    `mapper` and `window` (the look-back, default `config.lookback`) are for a caller that has them already:
    tests hold backfill's bulk path to this one with them."""
    parents = repo.parents(commit)
    committed, authored = repo.commit_times(commit)
    after = repo.commit_time(parents[0]) if parents else None
    earliest = window_start(after, committed, authored, lookback(repo) if window is None else window)
    sources = list(dict.fromkeys([repo.resolve(s) for s in sources] + implicit_sources(repo, commit)))
    carried = [*outside, *carried_edits(repo, [s for s in sources if s != commit], commit)]
    own = own_edits(repo, commit)
    hunks = repo.added_hunks(commit, parents)
    fresh: list[MappedEdit] | None = None
    if live:
        mapper = mapper or PathMapper(repo.root, repo.tree_files(commit), repo.worktrees)
        keys = {(c.session_id, c.edit.message_id) for c in [*carried, *own]}
        # The record cache parses each transcript once and decodes only the edits this commit can use: made
        # in the window, and written to a file the commit adds lines to (no other edit can be credited) or
        # by a message a carried credit names (its twin, below). Parsing every transcript of the look-back
        # on every commit had cost ~25 ms each.
        found = (
            sessions
            if sessions is not None
            else window_sessions(
                repo,
                earliest,
                earliest - WINDOW_SLACK,
                committed + WINDOW_SLACK,
                transcripts,
                keep=_keeper(mapper, {h.path for h in hunks}, keys),
            )
        )
        fresh = mapped_edits(repo, commit, found, earliest, after, committed, mapper)
    named = named_sessions(repo, [commit]).get(commit, frozenset())
    return credit_lines(
        hunks,
        carried,
        fresh,
        authored + WINDOW_SLACK if fresh else None,
        named=named,
        file_lines=partial(repo.file_lines, commit),
        own=own,
    )


def _keeper(
    mapper: PathMapper, paths: set[str], keys: set[tuple[str, str]]
) -> Callable[[str, str, str, str | None], bool]:
    """Whether a cached edit (session id, message id, recorded path, session cwd) can matter to this commit:
    it wrote a file the commit adds lines to, or it is the twin of a carried credit."""

    def keep(session_id: str, message_id: str, path: str, cwd: str | None) -> bool:
        return mapper.to_repo(path, cwd) in paths or (session_id, message_id) in keys

    return keep


def credit_lines(
    hunks: list[Hunk],
    carried: list[CarriedEdit],
    fresh: list[MappedEdit] | None,
    authored: datetime | None = None,
    *,
    named: Collection[str] = frozenset(),
    file_lines: Callable[[str], Sequence[str]] | None = None,
    own: list[CarriedEdit] | None = None,
) -> list[LineCredit]:
    """The credits of `hunks` from the edits carried from other commits' notes and the live sessions' edits in
    the commit's window (`fresh`; None when live sessions may not explain lines); `authored`, `named` and
    `file_lines` as `attribute` takes them (`authored`: the commit's author date plus `WINDOW_SLACK`).

    `own` are the credits of the commit's earlier note (`own_edits`): a line keeps its own credit when that
    was carried from another commit (`derived_from`) or names a session with no edit among `fresh` (its
    transcript is not here); any other line is credited afresh, so running again on the same transcripts
    writes the same note, and a run with more of them never loses what an earlier one knew."""
    if fresh is None:
        credits = attribute(hunks, [*carried, *(own or [])], named=named, file_lines=file_lines)
    else:
        # The very edit a carried credit stands for keeps its record (derived_from, match, confidence):
        # its live twin only says where the session is, so it can be backed up.
        twins = {(m.session_id, m.edit.message_id): m.session for m in fresh}
        keys = {(c.session_id, c.edit.message_id) for c in carried}
        edits: list[AnyEdit] = [
            replace(c, live=twins.get((c.session_id, c.edit.message_id))) for c in carried
        ]
        edits += [m for m in fresh if (m.session_id, m.edit.message_id) not in keys]
        credits = attribute(hunks, edits, authored, named=named, file_lines=file_lines)
    if not own:
        return credits
    here = {(m.agent, m.session_id) for m in fresh or ()}
    twins = {(m.session_id, m.edit.message_id): m.session for m in fresh or ()}
    kept: dict[tuple[str, int], CarriedEdit] = {}
    weak: dict[
        tuple[str, int], CarriedEdit
    ] = {}  # session-less (another tool's record): only where nothing else
    for c in own:
        into = weak if not c.session_id else kept
        if c.credit.derived_from is not None or (c.agent, c.session_id) not in here:
            for added in c.edit.added:
                into[(c.path, added.line or 0)] = replace(
                    c, live=twins.get((c.session_id, c.edit.message_id))
                )
    for key, c in weak.items():
        kept.setdefault(key, c)
    return [
        replace(line, credit=kept[key], match=kept[key].credit.match, confidence=kept[key].credit.confidence)
        if (key := (line.path, line.line)) in kept and (line.credit is None or kept[key].session_id)
        else line
        for line in credits
    ]


def own_edits(repo: Repository, commit: str) -> list[CarriedEdit]:
    """The credits of the commit's existing note as carried edits, when the note is wholly its own (in a note
    git concatenated from several commits' no line says which commit record it belongs to); [] otherwise."""
    try:
        note = read_note(repo, commit)
    except IntentError:
        return []
    if note is None or [r.commit for r in note.commit_records] != [commit]:
        return []
    return carried_edits(repo, [commit], commit)


def implicit_sources(repo: Repository, commit: str) -> list[str]:
    """Other commits whose credits the existing note of `commit` already carries: the ones git copied it from
    (notes.rewriteRef names them in its commit records), so a record keeps every field of what they wrote. The
    commit's own earlier credits are `own_edits`."""
    try:
        note = read_note(repo, commit)
    except IntentError:
        return []
    if note is None:
        return []
    named = [r.commit for r in note.commit_records]
    return [c for c in named if c != commit and repo.succeeds("cat-file", "-e", f"{c}^{{commit}}")]


def summarize(commit: str, credits: list[LineCredit]) -> RecordResult:
    """Counts of non-blank added and credited lines, per session too."""
    result = RecordResult(
        commit=commit,
        lines_added=sum(1 for c in credits if c.text.strip()),
        lines_attributed=sum(1 for c in credits if c.text.strip() and c.credit),
    )
    for credit in credits:
        if credit.credit is not None and credit.text.strip():
            key = f"{credit.credit.agent}:{credit.credit.session_id}"
            result.sessions[key] = result.sessions.get(key, 0) + 1
    return result


def back_up(
    repo: Repository, commit: str, credits: list[LineCredit], result: RecordResult, journal: bool = True
) -> None:
    """Copy each credited session found on this machine into the backup and, with `journal`, journal the
    link (credits carried from another commit are journaled there already)."""
    entries: list[dict[str, object]] = []
    for session, linked in _credited_sessions(credits):
        copy = copy_session(repo, session, commit)
        if journal and linked:
            entries.append(_journal_entry(commit, session, copy, result))
    if entries:
        append_journal(repo, *entries)


def back_up_many(repo: Repository, recorded: Iterable[tuple[str, list[LineCredit], RecordResult]]) -> None:
    """`back_up` for many (commit, credits, result) at once (backfill): each session is copied once and the
    journal gets every link in one append, where `back_up` per commit checked the backup folder with `git
    ls-files` twice per session (~1.8 git processes per backfilled commit, bench/README.md)."""
    trusted = trusted_backup(repo)
    if trusted is None:
        return  # nothing would be copied or journaled (see `copy_session`, `append_journal`)
    copies: dict[int, Path | None] = {}
    entries: list[dict[str, object]] = []
    for commit, credits, result in recorded:
        for session, linked in _credited_sessions(credits):
            if (
                copies.get(id(session)) is None
            ):  # once made, a later call finds the copy as long as its source
                copies[id(session)] = copy_session(repo, session, commit, trusted)
            if linked:
                entries.append(_journal_entry(commit, session, copies[id(session)], result))
    if entries:
        append_journal(repo, *entries)


def _credited_sessions(credits: list[LineCredit]) -> list[tuple[Session, bool]]:
    """The live sessions credited, each with whether its link is this commit's own (not carried)."""
    credited: dict[int, tuple[Session, bool]] = {}
    for c in credits:
        if isinstance(c.credit, MappedEdit):
            credited[id(c.credit.session)] = (c.credit.session, True)
        elif isinstance(c.credit, CarriedEdit) and c.credit.live is not None:
            own = c.credit.credit.derived_from is None or credited.get(id(c.credit.live), (None, False))[1]
            credited[id(c.credit.live)] = (c.credit.live, own)
    return list(credited.values())


def _journal_entry(
    commit: str, session: Session, copy: Path | None, result: RecordResult
) -> dict[str, object]:
    return {
        "commit": commit,
        "agent": session.agent,
        "session_id": session.session_id,
        "transcript": str(session.transcript),
        "backup": str(copy) if copy else None,
        "lines": result.sessions.get(f"{session.agent}:{session.session_id}", 0),
        "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def mapped_edits(
    repo: Repository,
    commit: str,
    sessions: list[Session],
    earliest: datetime,
    after: datetime | None,
    before: datetime,
    mapper: PathMapper | None = None,
) -> list[MappedEdit]:
    """The edits of `sessions` that touch the tree of `commit` (or `mapper`'s), made in (earliest, before];
    those the parent's window holds (made by the parent commit time `after` plus `WINDOW_SLACK`) may explain
    exact matches only (`EditTimeline.window`, which backfill keeps for many commits)."""
    mapper = mapper or PathMapper(repo.root, repo.tree_files(commit), repo.worktrees)
    return EditTimeline(sessions).window(earliest, after, before, mapper)


def note_records(
    commit: str, credits: list[LineCredit], digests: dict[Path, str | None] | None = None
) -> list[NoteRecord]:
    """The note of a commit (see `notes.build_note`): a live credit says which session, message, tool and
    match wrote the line; a carried credit keeps every field of the record it was carried from. `digests`
    (transcript -> SHA-256) is a cache a caller recording many commits shares, so each transcript is hashed
    once per run rather than once per commit crediting it."""
    lines: list[CreditedLine] = []
    sessions: dict[tuple[str, str], SessionRecord] = {}
    hashed: dict[int, SessionRecord] = {}
    for c in credits:
        lines.append(CreditedLine(path=c.path, line=c.line, text=c.text, credit=_credit(c)))
        if isinstance(c.credit, CarriedEdit):
            sessions.setdefault((c.credit.agent, c.credit.session_id), c.credit.session)
        elif c.credit is not None:
            session = c.credit.session
            if id(session) not in hashed:  # a live session's record wins over a carried one: it is current
                hashed[id(session)] = SessionRecord(
                    agent=session.agent,
                    session_id=session.session_id,
                    parent_session_id=session.parent_session_id,
                    lines_attributed=0,
                    transcript_sha256=_digest(session.transcript, digests),
                )
            sessions[(session.agent, session.session_id)] = hashed[id(session)]
    return build_note(commit, lines, sessions, recorded_by=f"git-intent {__version__}")


def _credit(credit: LineCredit) -> Credit | None:
    if credit.credit is None:
        return None
    if isinstance(credit.credit, CarriedEdit):
        return credit.credit.credit
    edit = credit.credit.edit
    return Credit(
        agent=credit.credit.session.agent,
        session_id=credit.credit.session.session_id,
        message_id=edit.message_id,
        call_id=edit.call_id,
        tool=edit.tool,
        match=credit.match or "exact",
        confidence=credit.confidence,
    )


def _digest(path: Path, cache: dict[Path, str | None] | None) -> str | None:
    if cache is None:
        return _sha256(path)
    if path not in cache:
        cache[path] = _sha256(path)
    return cache[path]


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()
