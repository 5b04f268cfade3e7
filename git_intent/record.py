"""Linking a commit to the sessions that wrote it: attribution, the note, and the local backup."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from . import __version__
from .attribute import LineCredit, MappedEdit, attribute
from .backup import append_journal, copy_session
from .carry import CARRIED, carried_edits
from .catalog import candidate_sessions
from .config import lookback
from .errors import IntentError
from .models import Edit, NoteRecord, Session
from .notes import read_note, write_note
from .paths import PathMapper
from .repo import Repository

# Commit times have one-second resolution while edit timestamps have milliseconds.
WINDOW_SLACK = timedelta(seconds=2)


@dataclass
class RecordResult:
    """What `record_commit` did: counts of added and credited lines, and the sessions credited."""

    commit: str
    lines_added: int
    lines_attributed: int
    sessions: dict[str, int] = field(default_factory=dict)  # "agent:session_id" -> lines
    note_written: bool = False
    kept_existing: bool = False


def record_commit(repo: Repository, rev: str = "HEAD", *, transcripts: Iterable[Path] = (),
                  sources: Iterable[str] = (), live: bool = True, sessions: list[Session] | None = None
                  ) -> RecordResult:
    """Credit the added lines of `rev` to this repository's sessions and write its note.

    `sources`: commits whose notes' credits carry over to identical lines (amend, rebase, squash,
    cherry-pick, `git intent carry`); each carried range keeps a `derived_from` pointer. `live`: whether
    the agents' sessions may explain lines (False when replaying older work, so no live session is
    stamped onto a rebased commit). `sessions`: already loaded candidate sessions (backfill).

    Candidate edits are those of sessions whose paths map into the work tree, made before this commit
    and after the parent commit minus the look-back (`config.lookback`; edits before the parent only
    explain exact matches: people commit an agent's work in pieces). Idempotent: an identical note is not
    rewritten, and a note that credited more lines than a new run can (a transcript since deleted)
    is kept. Raises GitError for a bad revision, TranscriptError for an unreadable `transcripts` file,
    NoteError when the written note does not read back.
    """
    commit = repo.resolve(rev)
    credits = attribute_commit(repo, commit, transcripts=transcripts, sources=sources, live=live, sessions=sessions)
    records = note_records(commit, credits)
    result = summarize(commit, credits)
    existing = _existing_attributed(repo, commit) if live else None
    if existing is not None and existing > result.lines_attributed:
        result.kept_existing = True
        return result
    result.note_written = write_note(repo, commit, records)
    # Also when the note was already there: a retry after a crash between the two must still back up.
    back_up(repo, commit, credits, result, journal=result.note_written)
    return result


def attribute_commit(repo: Repository, commit: str, *, transcripts: Iterable[Path] = (), sources: Iterable[str] = (),
                     live: bool = True, sessions: list[Session] | None = None,
                     mapper: PathMapper | None = None) -> list[LineCredit]:
    """The credits of every added line of `commit` (see `record_commit`); writes nothing."""
    parents = repo.parents(commit)
    committed = repo.commit_time(commit)
    after = repo.commit_time(parents[0]) if parents else None
    earliest = (after or committed) - lookback(repo)
    edits = carried_edits(repo, [repo.resolve(s) for s in sources] + implicit_sources(repo, commit, live), commit)
    if live:
        found = sessions if sessions is not None else candidate_sessions(repo, earliest, transcripts)
        # The very edit a carried credit stands for keeps its derived_from pointer: drop its live twin.
        carried = {(m.session.session_id, m.edit.message_id) for m in edits}
        edits += [m for m in mapped_edits(repo, commit, found, earliest, after, committed, mapper)
                  if (m.session.session_id, m.edit.message_id) not in carried]
    return attribute(repo.added_hunks(commit), edits)


def implicit_sources(repo: Repository, commit: str, live: bool) -> list[str]:
    """Commits whose credits the existing note of `commit` already carries: the ones git copied it from
    (notes.rewriteRef names them in its commit records) and, when replaying (`live` False), the commit
    itself (an amend at a rebase's `edit` stop wrote its credits before the rebase's own rewrite)."""
    try:
        note = read_note(repo, commit)
    except IntentError:
        return []
    if note is None:
        return []
    named = [r.commit for r in note.records if r.kind == "commit" and r.commit]
    return [c for c in named if c != commit and repo.succeeds("cat-file", "-e", f"{c}^{{commit}}")] + (
        [commit] if commit in named and not live else [])


def summarize(commit: str, credits: list[LineCredit]) -> RecordResult:
    """Counts of non-blank added and credited lines, per session too."""
    result = RecordResult(commit=commit, lines_added=sum(1 for c in credits if c.text.strip()),
                          lines_attributed=sum(1 for c in credits if c.text.strip() and c.credit))
    for credit in credits:
        if credit.credit is not None and credit.text.strip():
            key = f"{credit.credit.session.agent}:{credit.credit.session.session_id}"
            result.sessions[key] = result.sessions.get(key, 0) + 1
    return result


def back_up(repo: Repository, commit: str, credits: list[LineCredit], result: RecordResult,
            journal: bool = True) -> None:
    """Copy each live session credited into the backup and, with `journal`, journal the link (carried
    credits are in notes already)."""
    credited = {id(c.credit.session): c.credit.session for c in credits
                if c.credit is not None and c.credit.derived_from is None}
    for session in credited.values():
        copy = copy_session(repo, session)
        if not journal:
            continue
        append_journal(repo, {
            "commit": commit, "agent": session.agent, "session_id": session.session_id,
            "transcript": str(session.transcript), "backup": str(copy) if copy else None,
            "lines": result.sessions.get(f"{session.agent}:{session.session_id}", 0),
            "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        })


def mapped_edits(repo: Repository, commit: str, sessions: list[Session], earliest: datetime,
                 after: datetime | None, before: datetime, mapper: PathMapper | None = None) -> list[MappedEdit]:
    """The edits of `sessions` that touch the tree of `commit` (or `mapper`'s), made in (earliest, before];
    those made before the parent commit time `after` may explain exact matches only."""
    mapper = mapper or PathMapper(repo.root, repo.tree_files(commit), repo.worktrees)
    low = earliest - WINDOW_SLACK
    high = before + WINDOW_SLACK
    # Near matches only from edits clearly after the parent commit: an edit of the same second may
    # already be in the parent, and a person's rewording of it must stay the person's.
    fuzzy_after = after + timedelta(seconds=1) if after else None
    mapped: list[tuple[tuple[float, int, int], Session, Edit, str, bool]] = []
    for s_index, session in enumerate(sessions):
        for e_index, edit in enumerate(session.edits):
            when = edit.timestamp
            if when is not None and (when < low or when > high):
                continue
            path = mapper.to_repo(edit.path, session.cwd)
            if path is None:
                continue
            stamp = when.timestamp() if when is not None else float("-inf")
            fuzzy = fuzzy_after is None or (when is not None and when > fuzzy_after)
            mapped.append(((stamp, s_index, e_index), session, edit, path, fuzzy))
    mapped.sort(key=lambda item: item[0])
    return [MappedEdit(session=s, edit=e, path=p, order=i, fuzzy=f) for i, (_, s, e, p, f) in enumerate(mapped)]


def note_records(commit: str, credits: list[LineCredit]) -> list[NoteRecord]:
    """The note of a commit: one commit record, one per credited session, one per credited line range."""
    records = [NoteRecord(kind="commit", commit=commit, recorded_by=f"git-intent {__version__}",
                          lines_added=sum(1 for c in credits if c.text.strip()),
                          lines_attributed=sum(1 for c in credits if c.text.strip() and c.credit))]
    sessions: dict[int, Session] = {}
    run: list[LineCredit] = []
    for credit in [*credits, None]:
        if run and (credit is None or not _continues(run[-1], credit)):
            records.append(_range(run))
            run = []
        if credit is not None and credit.credit is not None:
            sessions[id(credit.credit.session)] = credit.credit.session
            run.append(credit)
    for key, session in sessions.items():
        written = sum(1 for c in credits if c.credit is not None and id(c.credit.session) == key and c.text.strip())
        records.append(NoteRecord(kind="session", agent=session.agent, session_id=session.session_id,
                                  parent_session_id=session.parent_session_id, lines_attributed=written,
                                  transcript_sha256=None if session.transcript == CARRIED else _sha256(
                                      session.transcript)))
    return records


def _continues(last: LineCredit, credit: LineCredit) -> bool:
    return (credit.credit is not None and last.credit is not None and credit.path == last.path
            and credit.line == last.line + 1 and credit.credit is last.credit and credit.match == last.match
            and credit.confidence == last.confidence)


def _range(run: list[LineCredit]) -> NoteRecord:
    first = run[0]
    assert first.credit is not None
    edit = first.credit.edit
    digest = hashlib.sha256("\n".join(c.text for c in run).encode("utf-8")).hexdigest()[:16]
    return NoteRecord(kind="lines", path=first.path, start=first.line, end=run[-1].line,
                      agent=first.credit.session.agent, session_id=first.credit.session.session_id,
                      message_id=edit.message_id, call_id=edit.call_id, tool=edit.tool, match=first.match,
                      confidence=first.confidence, sha=digest, derived_from=first.credit.derived_from)


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def _existing_attributed(repo: Repository, commit: str) -> int | None:
    try:
        note = read_note(repo, commit)
    except Exception:  # a note without git-intent records gets fresh ones; foreign lines are kept
        return None
    if note is None:
        return None
    # A note copied by git from a rewritten commit (notes.rewriteRef) describes that commit: not ours.
    return sum(r.lines_attributed or 0 for r in note.records if r.kind == "commit" and r.commit == commit)
