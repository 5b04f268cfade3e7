"""Answering `PATH[:LINE[-END]]`: git blame → commit → note → session → the messages that explain the line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.errors import GitError, IntentError
from ..core.values import Attribution, Session, to_json
from ..git.repo import BlameLine, Repository
from ..git.worktree import read_worktree_file
from ..notes import Note
from ..sessions.discovery import SessionLookup
from .classify import LineClass, LineResolver
from .evidence import Evidence, find_edit, gather_evidence
from .file_ranges import Range, Status, group_ranges
from .line_history import Previous, replaced_lines
from .location import Location, parse_line_range, parse_location
from .symbols import Symbol, enclosing

__all__ = [
    "BlameAnswer",
    "Explainer",
    "LineAnswer",
    "Location",
    "Status",
    "blame_lines",
    "parse_line_range",
    "parse_location",
]

PRECISE_LINES = 40  # ranges up to this many lines get a reason picked per line


@dataclass(kw_only=True)
class LineAnswer:
    """One line of a blame answer: the contract fields of docs/json.md, plus `status` and `reason`.

    `previous`: for a person's line, the agent's line it replaced. `moved_in`: with
    `--moves`, the commit that moved or copied the line here when the answer follows it to an older one.
    `symbol`: the function, method or class around the line in the file blamed (`func ChunkJSONL`), when
    tree-sitter has a grammar for its language (explain/symbols.py)."""

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
    previous: Previous | None = None
    moved_in: str | None = None
    symbol: str | None = None
    line_class: LineClass | None = None


@dataclass(kw_only=True)
class BlameAnswer:
    """`{"lines": [...], "ranges": [...]}` plus, outside the JSON contract, `problems` (one sentence per
    note that could not be read: the only lines left unanswered, for which the CLI exits 1) and
    `whole_file` (no line was asked for: the CLI prints a gutter)."""

    lines: list[LineAnswer]
    ranges: list[Range] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    whole_file: bool = False

    def contract(self) -> dict[str, Any]:
        """The `--json` object (docs/json.md): `lines` and `ranges`."""
        result: dict[str, Any] = to_json(self, exclude={"problems", "whole_file"})
        return result


def blame_lines(
    repo: Repository,
    location: str,
    cwd: Path | None = None,
    *,
    moves: bool = False,
    revision: str | None = None,
    line_ranges: Sequence[str] = (),
    sessions: SessionLookup | None = None,
) -> BlameAnswer:
    """Explain every line of `location` (see `parse_location`; a bare PATH is the whole file, unless
    `line_ranges` gives git blame's `-L` ranges), in the work tree or, with `revision`, as git blame answers
    at that revision (`git blame REV -- PATH`).

    Follows each line to the commit whose diff added it (plain `git blame`); `moves` also runs git's move
    and copy detection (`-M -C`) and takes its older commit only where that commit's note credits an
    agent and the plain one's does not. Lines not committed yet, commits without a note, and
    notes that cannot be read get a status and a reason rather than an exception; unreadable notes are
    also listed in `problems`. One `git blame` of the file (two with `moves`), each note and session read
    once. Raises BadLocationError for a bad location, GitError when git cannot blame the file or `revision`
    names no commit. `sessions`: the session lookup to fill, for a caller that reads those sessions next.
    """
    at_commit = repo.resolve(revision) if revision is not None else None
    where = parse_location(repo, location, cwd, revision=at_commit, line_ranges=line_ranges)
    if where.end < where.start:  # an empty file
        return BlameAnswer(lines=[], whole_file=where.whole)
    span = (None, None) if where.whole or where.spans else (where.start, where.end)
    try:
        blamed = repo.blame(where.path, *span, rev=at_commit, ranges=where.spans)
    except GitError:  # asked only then (one git process less on every blame)
        if at_commit is not None or repo.is_tracked(where.path):
            raise
        rows = (read_worktree_file(repo.root, where.path) or b"").split(b"\n")
        lines = [
            LineAnswer(
                path=where.path,
                line=n,
                content=rows[n - 1].decode("utf-8", "replace"),
                commit=None,
                attribution=None,
                evidence=[],
                status="uncommitted",
                reason=f"{where.path} is not tracked by git yet.",
            )
            for n in range(where.start, where.end + 1)
        ]
        return BlameAnswer(lines=lines, ranges=group_ranges(lines), whole_file=where.whole)
    # A few lines asked about: each line's reason is picked for its own words. A whole file or a long range:
    # once per edit (PRECISE_LINES; the picker's per-line ranking would cost a scan of the turn per line).
    resolver = Explainer(
        repo,
        at_commit,
        precise=not where.whole and len(blamed) <= PRECISE_LINES,
        lines=LineResolver(repo, sessions=sessions),
    )
    commits = list(dict.fromkeys(line.commit for line in blamed if line.commit))
    resolver.lines.prepare(
        commits
    )  # commits without a note are credited at once, their trailers read at once
    answers = [resolver(where.path, line) for line in blamed]
    if moves:
        moved = {
            line.final_line: line
            for line in repo.blame(where.path, *span, moves=True, rev=at_commit, ranges=where.spans)
        }
        answers = [
            _cross_check(resolver, where.path, plain, line, moved.get(line.final_line, line))
            for plain, line in zip(answers, blamed, strict=True)
        ]
    at = {answer.line: answer for answer in answers}
    humans = [line for line, answer in zip(blamed, answers, strict=True) if answer.status == "human"]
    for number, previous in replaced_lines(repo, humans, resolver.credit).items():
        at[number].previous = previous
    problems = list(dict.fromkeys(a.reason for a in answers if a.status == "unreadable" and a.reason))
    return BlameAnswer(lines=answers, ranges=group_ranges(answers), problems=problems, whole_file=where.whole)


def _cross_check(
    resolver: Explainer, path: str, plain: LineAnswer, line: BlameLine, moved: BlameLine
) -> LineAnswer:
    """The plain answer, unless move detection found an older commit whose note credits an agent while
    the plain commit's does not (a person moved an agent's lines): then that one, with `moved_in`."""
    if moved.commit == line.commit or moved.commit is None or line.commit is None:
        return plain
    other = resolver(path, moved)

    def rank(answer: LineAnswer) -> tuple[bool, bool]:
        return (
            answer.status == "agent",
            answer.attribution is not None and answer.attribution.method == "note",
        )

    if rank(other) <= rank(plain):
        return plain
    return replace(
        other,
        moved_in=line.commit,
        reason=other.reason
        or (
            f"Commit {line.commit[:12]} moved or copied this line here; git blame -M -C follows it to "
            f"{moved.commit[:12]}, whose note credits it."
        ),
    )


class Explainer:
    """Explains blamed lines (`explainer(path, line)`): the line's resolution (`classify.LineResolver`,
    shared by every surface) with the messages that explain it, each note, session and quoted edit read
    once, each file parsed once for its symbols. Used by one blame call (lines of the work tree), or by a
    whole review (lines of `revision`)."""

    def __init__(
        self,
        repo: Repository,
        revision: str | None = None,
        *,
        precise: bool = True,
        lines: LineResolver | None = None,
    ) -> None:
        self.repo = repo
        self.revision = revision
        self.precise = precise
        self.lines = lines or LineResolver(repo)
        self.symbols: dict[str, list[Symbol]] = {}
        self.quoted: dict[tuple[str, ...], tuple[list[Evidence], str | None]] = {}

    def note(self, commit: str) -> Note | IntentError | None:
        """The note of `commit` (see `LineResolver.note`)."""
        return self.lines.note(commit)

    def credit(self, path: str, line: BlameLine) -> Attribution | None:
        """The attribution of a blamed line when the note of its commit credits an agent with it (`previous`
        asks this of the line a person's line replaced), else None."""
        if line.commit is None or not isinstance(self.note(line.commit), Note):
            return None
        found = self.lines.resolve(line.commit, line.orig_path, line.orig_line)
        if found.record is None or found.attribution is None:
            return None  # a person's line, or a trailer's, which names no edit
        return replace(found.attribution, model=self.lines.model(found.attribution))

    def symbol(self, path: str, line: int) -> Symbol | None:
        """The definition around `line` of `path` (the work tree's file, or the file at `revision`)."""
        if path not in self.symbols:
            from .symbols import cached_file_symbols  # tree-sitter is loaded on the first symbol not kept

            try:
                source = (
                    self.repo.show_file(self.revision, path)
                    if self.revision
                    else read_worktree_file(self.repo.root, path)
                ) or b""
            except IntentError:  # not a regular file of the work tree, or no longer there at the revision
                source = b""
            self.symbols[path] = cached_file_symbols(path, source)
        return enclosing(self.symbols[path], line)

    def __call__(self, path: str, line: BlameLine) -> LineAnswer:
        """The answer for one line of `git blame --porcelain` of `path` (status, attribution, evidence,
        reason, symbol, class)."""
        found = self.symbol(path, line.final_line) if line.commit is not None else None
        answer = self._answer(path, line, found.name if found else None)
        answer.symbol = found.label if found else None
        return answer

    def _answer(self, path: str, line: BlameLine, symbol: str | None) -> LineAnswer:
        if line.commit is None:
            return _make(path, line, "uncommitted", "This line is not committed yet.")
        found = self.lines.resolve(line.commit, line.orig_path, line.orig_line)
        attribution = found.attribution
        if (
            found.status != "agent" or attribution is None or not attribution.session_id
        ):  # a trailer's, a trace's
            answer = _make(path, line, found.status, found.reason, attribution)
            answer.line_class = self.lines.line_class(found)
            return answer
        session = self.lines.session(attribution.agent, attribution.session_id)
        reason = found.reason
        evidence: list[Evidence] = []
        model = None
        if isinstance(session, IntentError):
            reason = " ".join(filter(None, [reason, str(session)]))
        else:
            evidence, model = self._quote(
                session,
                attribution.message_id,
                found.record.call_id if found.record else None,
                line.orig_path,
                *self._terms(line, symbol),
            )
        answer = _make(path, line, "agent", reason, replace(attribution, model=model), evidence)
        answer.line_class = self.lines.line_class(found)
        return answer

    def _terms(self, line: BlameLine, symbol: str | None) -> tuple[str, str | None]:
        """What the reason picker ranks by for this line: its text and symbol, or nothing (once per edit)."""
        return (line.content, symbol) if self.precise else ("", None)

    def session(self, agent: str, session_id: str) -> Session | None:
        """The session (read once per blame), or None when no transcript of it is on this machine."""
        found = self.lines.session(agent, session_id)
        return found if isinstance(found, Session) else None

    def _quote(
        self,
        session: Session,
        message_id: str,
        call_id: str | None,
        path: str,
        content: str = "",
        symbol: str | None = None,
    ) -> tuple[list[Evidence], str | None]:
        # Keyed by the line's text and symbol too: the reason picker prefers the message naming them.
        key = (
            session.agent,
            session.session_id,
            message_id,
            call_id or "",
            path,
            content.strip(),
            symbol or "",
        )
        if key not in self.quoted:
            found = find_edit(session, message_id, call_id, path)
            message = session.message(message_id) if message_id else None
            # Quoted from refs/intent/evidence when no transcript is here: marked `source: "shared"`.
            evidence = gather_evidence(session, message_id, found, path, content, symbol)
            if type(session) is not Session:  # a SharedSession: the share package is loaded only then
                from ..sessions.shared import mark_shared

                evidence = mark_shared(session, evidence)
            self.quoted[key] = (evidence, message.model if message is not None else None)
        evidence, model = self.quoted[key]
        return list(evidence), model


def _make(
    path: str,
    line: BlameLine,
    status: Status,
    reason: str | None,
    attribution: Attribution | None = None,
    evidence: list[Evidence] | None = None,
) -> LineAnswer:
    return LineAnswer(
        path=path,
        line=line.final_line,
        content=line.content,
        commit=line.commit,
        author=line.author,
        authored_at=line.author_time,
        attribution=attribution,
        evidence=evidence or [],
        status=status,
        reason=reason,
    )
