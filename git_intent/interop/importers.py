"""`git intent import --from entire|git-ai|aider|agent-trace|specstory`: build on the records other tools
keep.

- Entire: the native transcripts stored in its checkpoints (per-checkpoint refs and the checkpoints branch)
  become backup copies (so the why survives), and every commit carrying an `Entire-Checkpoint:` trailer is
  recorded against them (paths recorded on another machine map onto the work tree by suffix).
- git-ai: each `refs/notes/ai` note (the older `prompts` format or git-ai 1.4's sessions-v2) names agent
  sessions (`agent_id.id`); the ones whose transcripts are on this machine record the commit message by
  message, and the lines the note attests to an agent that no transcript here credits go to that agent and
  model, without a session, as another tool's Agent Trace ranges do.
- Aider: every `> Commit <hash>` line of `.aider.chat.history.md` links that commit to the chat.
- Agent Trace: each trace record of a file or folder names a git revision and (under git-intent's metadata)
  the sessions of its conversations; those whose transcripts are on this machine record the commit, as for
  git-ai.
- SpecStory: the histories of `.specstory/history` become backup copies; the commits their edits produced are
  recorded against them (`interop.specstory`).
All are idempotent: recording is, and copies are kept only when new or longer.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..adapters import aider
from ..capture.attribute import CarriedEdit
from ..capture.progress import Progress, Quiet
from ..capture.record import RecordResult, record_commit
from ..core.errors import GitError, IntentError, SessionNotFoundError, TranscriptError
from ..core.values import AddedLine, Edit, ParseStats
from ..git.repo import Repository
from ..notes import Credit, SessionRecord
from ..peers.entire import checkpoint_trailers, read_checkpoints
from ..peers.git_ai import (
    GitAiNote,
    GitAiSession,
    attested_spans,
    foreign_records,
    prompt_records,
    read_gitai_notes,
)
from ..sessions.backup import store_transcript
from ..sessions.brought_in import mark_imported
from ..sessions.discovery import SessionLookup
from .agent_trace import (
    TRACE_CONFIDENCE,
    TRACE_TOOL,
    TracedRange,
    agent_name,
    read_trace_records,
    trace_ranges,
    trace_sessions,
)
from .specstory import import_histories

SOURCES = ("entire", "git-ai", "aider", "agent-trace", "specstory")
GITAI_TOOL = "git-ai"  # the `tool` of a line a git-ai note credits without a transcript


@dataclass
class ImportResult:
    """What an import did: sessions kept, commits recorded, lines credited, and what it had to skip."""

    source: str
    sessions: int = 0
    commits: int = 0
    commits_in_head: int = 0  # of `commits`, those HEAD's history holds (what `git intent stats` counts)
    lines_added: int = 0
    lines_attributed: int = 0
    results: list[RecordResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def add(self, result: RecordResult) -> None:
        self.results.append(result)
        self.commits += 1
        self.lines_added += result.lines_added
        self.lines_attributed += result.lines_attributed


def import_records(
    repo: Repository, source: str, progress: Progress | None = None, path: Path | None = None
) -> ImportResult:
    """Import from `source` (one of SOURCES); `path` is the file or folder of trace records for
    "agent-trace", the folder of histories for "specstory" (default `<work tree>/.specstory/history`).
    `progress` hears of each stage (Entire: the checkpoints' sessions read, then the commits recorded;
    SpecStory: the histories read, then the commits recorded; the others: the commits or records visited).
    Raises IntentError for an unknown source or one with nothing to import here (no Entire checkpoints, no
    refs/notes/ai, no chat history, no trace records or SpecStory histories at `path`)."""
    tick = progress or Quiet()
    if source == "agent-trace":
        if path is None:
            raise IntentError(
                "`import --from agent-trace` needs the file or folder of trace records.",
                hint="git intent import --from agent-trace traces.jsonl",
            )
        result = _agent_trace(repo, path, tick)
    elif source == "entire":
        result = _entire(repo, tick)
    elif source == "git-ai":
        result = _gitai(repo, tick)
    elif source == "aider":
        result = _aider(repo, tick)
    elif source == "specstory":
        result = ImportResult(source="specstory")
        import_histories(repo, path, tick, result)
    else:
        raise IntentError(f"git-intent cannot import from {source!r}; it imports from {', '.join(SOURCES)}.")
    in_head = set(repo.git("rev-list", "HEAD", check=False).split())
    result.commits_in_head = sum(1 for r in result.results if r.commit in in_head)
    return result


def _gitai_notes(repo: Repository) -> int:
    """How many commits an import from git-ai will visit (for a progress bar); 0 when unknown."""
    try:
        return len(repo.git("notes", "--ref", "refs/notes/ai", "list", check=False).splitlines())
    except (OSError, IntentError):
        return 0


def _entire(repo: Repository, tick: Progress) -> ImportResult:
    result = ImportResult(source="entire")
    stats = ParseStats()
    checkpoints = read_checkpoints(repo, stats=stats)
    if not checkpoints:
        raise IntentError(
            "This repository has no Entire checkpoints (no entire/checkpoints/v1 branch, no "
            "refs/entire/checkpoints/ refs).",
            hint="git fetch origin entire/checkpoints/v1:entire/checkpoints/v1 "
            "'refs/entire/checkpoints/*:refs/entire/checkpoints/*'",
        )
    copies: dict[str, list[Path]] = {}
    # Reading and keeping every checkpoint's transcripts took 27 s of 97 on entireio/cli (590 checkpoints, 712
    # sessions) before the first commit was recorded: a stage of its own, so the bar moves from the start.
    tick.stage("Reading Entire checkpoints", sum(len(checkpoint.sessions) for checkpoint in checkpoints))
    # A transcript several session folders name (the same blobs) is read once: 400 folders naming one 1 MiB
    # blob were read, written and parsed 400 times.
    stored: dict[tuple[str, ...], list[Path]] = {}
    with tempfile.TemporaryDirectory(prefix="git-intent-entire-") as tmp:
        for checkpoint in checkpoints:
            for entire_session in checkpoint.sessions:
                tick.advance(1)
                objects = entire_session.transcript_objects
                if objects not in stored:
                    stored[objects] = []
                    try:
                        sessions = entire_session.read_sessions(Path(tmp) / checkpoint.checkpoint_id)
                    except (OSError, GitError, TranscriptError) as exc:
                        result.skipped.append(
                            f"checkpoint {checkpoint.checkpoint_id} session {entire_session.index}: {exc}"
                        )
                        continue
                    for session in sessions:
                        copy = store_transcript(
                            repo,
                            session.agent,
                            session.session_id,
                            session.transcript.read_bytes(),
                            session.transcript.suffix,
                        )
                        if copy is not None:
                            stored[objects].append(copy)
                            result.sessions += 1
                    for written in {session.transcript for session in sessions}:  # kept in the backup now
                        written.unlink(missing_ok=True)
                if stored[objects]:
                    copies.setdefault(checkpoint.checkpoint_id, []).extend(stored[objects])
    trailers = sorted(checkpoint_trailers(repo).items())
    tick.stage("Recording commits", len(trailers))
    for commit, ids in trailers:
        transcripts = [p for checkpoint_id in ids for p in copies.get(checkpoint_id, [])]
        if transcripts:
            result.add(record_commit(repo, commit, transcripts=transcripts))
        else:
            result.skipped.append(
                f"{commit[:12]}: checkpoint {', '.join(ids)} is in no checkpoints branch or ref here"
            )
        tick.advance(1)
    if stats.unreadable:
        result.skipped.append(f"{stats.unreadable} checkpoint folder(s) or ref(s) could not be read")
    return result


def _gitai(repo: Repository, tick: Progress) -> ImportResult:
    result = ImportResult(source="git-ai")
    if not repo.succeeds("rev-parse", "-q", "--verify", "refs/notes/ai"):
        raise IntentError(
            "This repository has no git-ai notes (refs/notes/ai).",
            hint="git fetch origin refs/notes/ai:refs/notes/ai",
        )
    tick.stage("Importing from git-ai", _gitai_notes(repo))
    seen: set[tuple[str, str]] = set()
    sessions = SessionLookup(repo, shared=False)  # a session several notes name is read once
    # A first reading for the prompt records other notes define: on git-ai's own history 3,823 of 29,575
    # prompt-keyed entries name a record their note lacks.
    elsewhere = prompt_records(note for _, note in read_gitai_notes(repo))
    for commit, note in read_gitai_notes(repo):
        transcripts: list[Path] = []
        named: set[tuple[str, str]] = set()
        for record in [*note.sessions.values(), *foreign_records(note, elsewhere)]:
            if not record.supported or not record.session_id or (record.agent, record.session_id) in named:
                continue
            named.add((record.agent, record.session_id))
            try:
                session = sessions.find(record.session_id, record.agent)
            except SessionNotFoundError:
                result.skipped.append(
                    f"{commit[:12]}: the {record.agent} session {record.session_id} is not on this machine"
                )
                continue
            transcripts.append(session.transcript)
            if (session.agent, session.session_id) not in seen:
                seen.add((session.agent, session.session_id))
                result.sessions += 1
        if repo.succeeds("cat-file", "-e", f"{commit}^{{commit}}"):
            attested = _gitai_edits(repo, commit, note, elsewhere, result)
            if transcripts or attested:
                result.add(record_commit(repo, commit, transcripts=transcripts, outside=attested))
        tick.advance(1)
    return result


def _gitai_edits(
    repo: Repository, commit: str, note: GitAiNote, elsewhere: dict[str, GitAiSession], result: ImportResult
) -> list[CarriedEdit]:
    """The lines `note` attests to an agent (its prompt keys also found in `elsewhere`, other notes' prompt
    records), as session-less credits of that agent and model: a transcript here that wrote a line still wins
    it (`record_commit`'s `outside`). Unreadable pieces are counted in `result`."""
    files = repo.files_lines(commit, list(note.files))
    lengths = {path: len(lines) - (lines[-1:] == [""]) for path, lines in files.items()}
    spans, passed = attested_spans(note, lengths, elsewhere)
    if note.unreadable or passed:
        result.skipped.append(
            f"{commit[:12]}: {note.unreadable + passed} piece(s) of its git-ai note could not be read or "
            f"name no record in it"
        )
    ranges = [
        TracedRange(
            span.path,
            span.start,
            span.end,
            agent_name(span.session.agent),
            span.session.model if span.session.model not in ("", "unknown") else None,
        )
        for span in spans
    ]
    return trace_edits(repo, commit, ranges, tool=GITAI_TOOL, files=files)


def _agent_trace(repo: Repository, path: Path, tick: Progress) -> ImportResult:
    result = ImportResult(source="agent-trace")
    seen: set[tuple[str, str]] = set()
    sessions = SessionLookup(repo, shared=False)  # a session several records name is read once
    tick.stage("Importing from agent-trace", 0)
    for where, record in read_trace_records(path):
        tick.advance(1)
        if isinstance(record, str):
            result.skipped.append(f"{where}: {record}")
            continue
        if record.vcs is None or record.vcs.type != "git":
            result.skipped.append(f"{where}: names no git revision")
            continue
        try:  # read from a file: only a hex object name reaches git (never an option)
            if not re.fullmatch(r"[0-9a-fA-F]{4,64}", record.vcs.revision):
                raise GitError("not an object name")
            commit = repo.resolve(record.vcs.revision)
        except GitError:
            result.skipped.append(f"{where}: {record.vcs.revision[:12]} is not in this repository")
            continue
        transcripts: list[Path] = []
        readable: set[tuple[str, str]] = set()
        for agent, session_id in trace_sessions(record):
            session = sessions.local(session_id, agent)
            if session is None:
                continue  # its ranges are credited from the trace itself, below
            transcripts.append(session.transcript)
            readable.add((agent, session_id))
            if (session.agent, session.session_id) not in seen:
                seen.add((session.agent, session.session_id))
                result.sessions += 1
        traced = trace_edits(repo, commit, trace_ranges(record, readable))
        if transcripts or traced:
            result.add(record_commit(repo, commit, transcripts=transcripts, outside=traced))
        else:
            result.skipped.append(
                f"{where}: credits no line an agent wrote (no AI contributor, no session here)"
            )
    return result


def trace_edits(
    repo: Repository,
    commit: str,
    ranges: list[TracedRange],
    *,
    tool: str = TRACE_TOOL,
    files: dict[str, list[str]] | None = None,
) -> list[CarriedEdit]:
    """Session-less credits of `commit`'s lines from another tool's ranges (`record_commit`'s `outside`): each
    range's lines as the commit has them (a range past the file's end is cut there; a path the commit does not
    have gives nothing), credited to the range's agent and model with `TRACE_CONFIDENCE`, the record's `tool`
    (`TRACE_TOOL` for an Agent Trace record, `GITAI_TOOL` for a git-ai note). `files`: the commit's files as
    `Repository.file_lines` splits them, when the caller has read them."""
    edits: list[CarriedEdit] = []
    for span in ranges:
        text = files.get(span.path, []) if files is not None else repo.file_lines(commit, span.path)
        lines = text[span.start - 1 : span.end]
        if not lines or lines == [""]:
            continue
        credit = Credit(
            agent=span.agent,
            session_id="",
            message_id="",
            tool=tool,
            match="exact",
            confidence=TRACE_CONFIDENCE,
            extra={"model_id": span.model} if span.model else {},
        )
        edit = Edit(
            path=span.path,
            tool=tool,
            message_id="",
            added=tuple(AddedLine(text=t, line=span.start + i) for i, t in enumerate(lines)),
        )
        edits.append(
            CarriedEdit(
                credit=credit,
                session=SessionRecord(agent=span.agent, session_id="", lines_attributed=0),
                edit=edit,
                path=span.path,
                order=-2_000_000 + len(edits),
            )
        )
    return edits


def _aider(repo: Repository, tick: Progress) -> ImportResult:
    result = ImportResult(source="aider")
    history = aider.history(repo.root)
    if history is None:
        raise IntentError(
            f"There is no Aider chat history at {repo.root / aider.HISTORY} (it must be a regular file "
            f"inside the work tree)."
        )
    links = aider.commit_links(history)
    tick.stage("Importing from aider", len(links))
    result.sessions = len({sid for sid, _, _ in links})
    with contextlib.suppress(OSError):  # a history git tracks is evidence once imported on purpose
        mark_imported(repo, history, [(aider.NAME, s.session_id) for s in aider.read(history)])
    for _, _, short in links:
        try:
            commit = repo.resolve(short)
        except GitError:
            result.skipped.append(f"{short}: not in this repository (rebased or squashed away)")
        else:
            result.add(record_commit(repo, commit, transcripts=[history]))
        tick.advance(1)
    return result
