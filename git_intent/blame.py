"""Answering `PATH:LINE[-END]`: git blame → commit → note → session → the messages that explain the line."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from .catalog import find_session
from .errors import BadLocationError, IntentError
from .evidence import Evidence, find_edit, gather_evidence
from .fallback import CONTENT_CONFIDENCE, ContentMatcher
from .models import Attribution, NoteRecord, Session
from .notes import Note, read_note
from .repo import BlameLine, Repository
from .share.reader import mark_shared

Status = Literal["agent", "human", "unrecorded", "uncommitted", "unreadable"]
_LOCATION = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")


class LineAnswer(BaseModel):
    """One line of a blame answer: the DESIGN.md contract fields, plus `status` and `reason`."""

    path: str
    line: int
    content: str
    commit: str | None
    attribution: Attribution | None
    evidence: list[Evidence]
    status: Status
    reason: str | None = None
    author: str | None = None
    authored_at: datetime | None = None


class BlameAnswer(BaseModel):
    """`{"lines": [...]}` plus `problems`: one sentence per commit whose note is missing or unreadable."""

    lines: list[LineAnswer]
    problems: list[str] = []


@dataclass(frozen=True)
class Location:
    """A parsed `PATH:START-END`: the path relative to the work tree root and 1-based inclusive lines."""

    path: str  # relative to the work tree root, '/'-separated
    start: int
    end: int


def parse_location(repo: Repository, text: str, cwd: Path | None = None) -> Location:
    """Parse `PATH:LINE` or `PATH:START-END` (PATH relative to `cwd`), checking the file and the lines.

    Raises BadLocationError for a malformed argument, a path outside the work tree, a missing or
    binary file, or lines past its end.
    """
    match = _LOCATION.match(text)
    if not match:
        raise BadLocationError(f"{text!r} is not PATH:LINE or PATH:START-END.", hint="Example: src/app.py:42-60")
    start = int(match["start"])
    end = int(match["end"]) if match["end"] else start
    if start < 1 or end < start:
        raise BadLocationError(f"The line range {start}-{end} is empty; lines are numbered from 1.")
    full = ((cwd or Path.cwd()) / match["path"]).resolve()
    if not full.is_relative_to(repo.root):
        raise BadLocationError(f"{match['path']} lies outside the repository at {repo.root}.")
    if ".git" in full.relative_to(repo.root).parts:
        raise BadLocationError(f"{match['path']} is inside .git, not a file of the work tree.")
    if not full.is_file():
        raise BadLocationError(f"{match['path']} is not a file in the work tree.")
    data = full.read_bytes()
    if b"\0" in data[:8000]:
        raise BadLocationError(f"{match['path']} is a binary file; blame explains text lines only.")
    count = len(data.splitlines())
    if end > count:
        raise BadLocationError(f"{match['path']} has {count} lines; line {end} is past its end.")
    return Location(path=full.relative_to(repo.root).as_posix(), start=start, end=end)


def blame_lines(repo: Repository, location: str, cwd: Path | None = None) -> BlameAnswer:
    """Explain every line of `location` (see `parse_location`).

    Lines not committed yet, commits without a note, and notes that cannot be read get a status and a
    reason rather than an exception; their sentences are also collected in `problems`.
    """
    where = parse_location(repo, location, cwd)
    if not repo.is_tracked(where.path):
        lines = (repo.root / where.path).read_text(encoding="utf-8", errors="replace").splitlines()
        return BlameAnswer(lines=[
            LineAnswer(path=where.path, line=n, content=lines[n - 1], commit=None, attribution=None, evidence=[],
                       status="uncommitted", reason=f"{where.path} is not tracked by git yet.")
            for n in range(where.start, where.end + 1)])
    blamed = repo.blame(where.path, where.start, where.end)
    notes: dict[str, Note | IntentError | None] = {}
    sessions: dict[str, Session | IntentError] = {}
    matcher = ContentMatcher(repo)
    answers: list[LineAnswer] = []
    problems: list[str] = []
    for line in blamed:
        answer = _answer(repo, where.path, line, notes, sessions, matcher)
        if answer.status in ("unrecorded", "unreadable") and answer.reason and answer.reason not in problems:
            problems.append(answer.reason)
        answers.append(answer)
    return BlameAnswer(lines=answers, problems=problems)


def _answer(repo: Repository, path: str, line: BlameLine, notes: dict[str, Note | IntentError | None],
            sessions: dict[str, Session | IntentError], matcher: ContentMatcher) -> LineAnswer:
    def answer(status: Status, reason: str | None, attribution: Attribution | None = None,
               evidence: list[Evidence] | None = None) -> LineAnswer:
        return LineAnswer(path=path, line=line.final_line, content=line.content, commit=line.commit,
                          author=line.author, authored_at=line.author_time, attribution=attribution,
                          evidence=evidence or [], status=status, reason=reason)

    if line.commit is None:
        return answer("uncommitted", "This line is not committed yet.")
    if line.commit not in notes:
        try:
            notes[line.commit] = read_note(repo, line.commit)
        except IntentError as exc:
            notes[line.commit] = exc
    note = notes[line.commit]
    if isinstance(note, IntentError):
        return answer("unreadable", str(note))
    if note is None:
        found = matcher.match(line.commit, line.orig_path, line.content)
        if found is None:
            return answer("unrecorded", f"Commit {line.commit[:12]} has no git-intent note and no session on "
                          f"this machine wrote this line, so git-intent does not know who did; run "
                          f"`git intent record {line.commit[:12]}` if it was made here, or `git intent carry` "
                          f"for a squash-merge.")
        attribution = Attribution(agent=found.session.agent, session_id=found.session.session_id,
                                  message_id=found.edit.message_id, tool=found.edit.tool, method="content",
                                  confidence=CONTENT_CONFIDENCE)
        return answer("agent", f"Commit {line.commit[:12]} has no git-intent note; the line was matched by its "
                      f"exact text to this session's edit.", attribution,
                      gather_evidence(found.session, found.edit.message_id, found.edit, line.orig_path))
    record = _covering(note, line.orig_path, line.orig_line)
    if record is not None and not _still_matches(repo, line.commit, record):
        return answer("unrecorded", f"The note on {line.commit[:12]} was copied from a rewritten commit and no "
                      f"longer matches its lines; run `git intent record {line.commit[:12]}`.")
    if record is None or record.session_id is None or record.agent is None:
        return answer("human", "No agent edit recorded for this commit wrote this line.")
    attribution = Attribution(agent=record.agent, session_id=record.session_id,
                              message_id=record.message_id or "", tool=record.tool or "",
                              method="note", confidence=record.confidence if record.confidence is not None else 1.0,
                              derived_from=record.derived_from)
    evidence, reason = _evidence(repo, record, line.orig_path, sessions)
    return answer("agent", reason, attribution, evidence)


def _covering(note: Note, path: str, line: int) -> NoteRecord | None:
    for record in note.records:
        if record.kind == "lines" and record.path == path and record.start is not None and record.end is not None:
            if record.start <= line <= record.end:
                return record
    return None


def _still_matches(repo: Repository, commit: str, record: NoteRecord) -> bool:
    """Whether a lines record still hashes to the commit's lines: git copies notes onto amended and
    rebased commits (notes.rewriteRef), where the recorded line numbers may no longer fit."""
    if record.sha is None or record.path is None or record.start is None or record.end is None:
        return True
    text = "\n".join(repo.file_lines(commit, record.path)[record.start - 1:record.end])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16] == record.sha


def _evidence(repo: Repository, record: NoteRecord, path: str, sessions: dict[str, Session | IntentError]
              ) -> tuple[list[Evidence], str | None]:
    assert record.session_id is not None
    key = f"{record.agent}:{record.session_id}"
    if key not in sessions:
        try:
            sessions[key] = find_session(repo, record.session_id, record.agent, exact=True)
        except IntentError as exc:
            sessions[key] = exc
    session = sessions[key]
    if isinstance(session, IntentError):
        return [], str(session)
    edit = find_edit(session, record.message_id or "", record.call_id, path)
    # Quoted from refs/intent/evidence when no transcript is here: marked `source: "shared"`.
    return mark_shared(session, gather_evidence(session, record.message_id or "", edit, path)), None
