"""The one classifier of an added line: who wrote line N of PATH as commit C added it, and whether its
evidence is on this machine. Blame, why, review, stats, audit, export, the web view, the editor and the MCP
tools all ask here, so they agree to the line on any range (docs/design.md, "How a line is attributed": one
answer whatever the route).

The order of the evidence:
1. C's note, when C has one: a lines record covering the line credits an agent (unless the note was copied
   from a rewritten commit and no longer matches its lines: unrecorded); no record: a person, except when the
   note credits no line at all and C's trailers name an agent (then that agent, without a transcript). A
   record with no session is an imported record of another tool (an Agent Trace record, or a git-ai note's
   line whose session is not here): that tool and model (`agent-trace`).
2. No note: the line as `git intent record` would credit it now from the sessions on this machine
   (`unnoted.UnnotedLines`, `method: "content"`); else the agent C's trailers name; else unrecorded.
A credited line is `agent_with_evidence` when the session's message that wrote it can be read here (its
transcript, the backup or shared evidence), else `agent_without_evidence` (a trailer's line, a teammate's note
whose session is not here).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ..core.errors import IntentError
from ..core.values import Attribution, Session
from ..git.repo import Hunk, Repository
from ..notes import LinesRecord, Note, note_blobs, read_note, read_notes, still_matches
from ..sessions.discovery import SessionLookup
from .file_ranges import Status
from .trailers import TRAILER_REASON, trailer_agents, trailer_attribution
from .unnoted import UnnotedLines, confidence

LineClass = Literal["agent_with_evidence", "agent_without_evidence", "human", "unrecorded"]
LINE_CLASSES: tuple[LineClass, ...] = ("agent_with_evidence", "agent_without_evidence", "human", "unrecorded")

COPIED = (
    "The note on {commit} was copied from a rewritten commit and no longer matches its lines; run `git "
    "intent record {commit}`."
)
HUMAN = "No agent edit recorded for this commit wrote this line."
# Only the clone holding the commits a forge squashed can carry their records (`capture.carry_range`); anyone
# else is told what they can do: fetch what the author pushes.
UNRECORDED = (
    "Commit {commit} has no git-intent note and no session on this machine wrote this line, so git-intent "
    "does not know who did. If its author recorded it, `git intent fetch` brings the records once they ran "
    "`git intent push` (ask them to; after a squash-merge on a forge, their `git pull` or `git intent "
    "fetch` carries the records onto it first); run `git intent record {commit}` only if it was made here."
)
UNRECORDED_CARRY = (
    "Commit {commit} has no git-intent note and no session on this machine wrote this line, so git-intent "
    "does not know who did. This clone holds recorded commits it may squash or rebase: `git intent carry "
    "{range} --onto {commit}` copies their records; run `git intent record {commit}` if it was made here."
)
TRACE = (
    "Credited to {agent} by an Agent Trace record imported for this commit (`git intent import --from "
    "agent-trace`): that tool's own record, with no transcript here to quote."
)
GITAI = (
    "Credited to {agent} by the git-ai note of this commit (`git intent import --from git-ai`): git-ai "
    "keeps no message text, and no transcript on this machine wrote this line."
)
CONTENT = (
    "Found by content: commit {commit} has no git-intent note; the line is credited as `git intent record` "
    "would credit it from this session's edit."
)
# Agents whose sessions are other tools' records brought in by `git intent import`, never this machine's own.
IMPORTED = {
    "specstory": (
        "Imported from SpecStory: the conversation is a SpecStory history that came with the repository "
        "(`git intent import --from specstory`), not a session of this machine's agents."
    )
}


@dataclass(frozen=True)
class Resolution:
    """What is known of one added line: `status` (agent, human, unrecorded or unreadable), the
    `attribution` (without the message's model, which only a read session knows), the note's `record` when
    a note credits it, and `reason`, one sentence when the status needs one."""

    status: Status
    attribution: Attribution | None = None
    record: LinesRecord | None = None
    reason: str | None = None


class LineResolver:
    """Resolves added lines (`resolve`) with caches shared across calls: each note, each commit without one
    and each commit's trailers read once, each session looked up once."""

    def __init__(
        self, repo: Repository, *, listing: bool = False, sessions: SessionLookup | None = None
    ) -> None:
        """`listing`: learn which messages can be read from the record cache's listing of every session
        first (`candidate_sessions.listed_sessions`), as a caller asking about many sessions wants (stats,
        audit): reading each session whole cost most of `stats` on a real history. `sessions`: the lookup
        to share with a caller that reads the same sessions afterwards (`why`)."""
        self.repo = repo
        self.listing = listing
        self._listed: dict[tuple[str, str], dict[str, str | None]] | None = None
        self.notes: dict[str, Note | IntentError | None] = {}
        self.unnoted = UnnotedLines(repo)
        self.trailers: dict[str, str | None] = {}
        self.checked: dict[tuple[str, int], bool] = {}
        self.sessions = sessions or SessionLookup(repo)
        self._readable: dict[tuple[str, str], set[str] | None] = {}
        self.carry: dict[str, str | None] = {}  # unrecorded commit -> the range `carry` takes, or None
        self.carry_text: dict[str, str] = {}
        self._recorded: list[str] | None = None

    def note(self, commit: str) -> Note | IntentError | None:
        """The note of `commit` (None: it has none; an IntentError: it cannot be read)."""
        if commit not in self.notes:
            try:
                self.notes[commit] = read_note(self.repo, commit)
            except IntentError as exc:
                self.notes[commit] = exc
        return self.notes[commit]

    def prepare(
        self,
        commits: Iterable[str],
        *,
        notes: dict[str, Note] | None = None,
        hunks: dict[str, list[Hunk]] | None = None,
    ) -> None:
        """Read at once what `resolve` will need of `commits`: their notes (`notes`, when the caller read
        every note already: commits missing from it have none), the credits of those without one (`hunks`:
        their added lines, when the caller has them), and the trailers of those whose notes credit no line."""
        wanted = list(dict.fromkeys(commits))
        if notes is not None:
            for commit in wanted:
                self.notes.setdefault(commit, notes.get(commit))
        else:
            missing = [c for c in wanted if c not in self.notes]
            if len(missing) > 1:
                found = read_notes(self.repo, missing)
                for commit in missing:
                    note = found.get(commit)
                    if note is None or note.records:
                        self.notes[commit] = (
                            note  # else `note` reads it alone and keeps why it cannot be used
                        )
        self.unnoted.prepare([c for c in wanted if self.note(c) is None], hunks)
        self.read_trailers(wanted)

    def read_trailers(self, commits: list[str]) -> None:
        """The trailers of the commits whose notes credit no line, in one `git log`."""
        wanted = [
            c
            for c in commits
            if c not in self.trailers and not (isinstance(note := self.note(c), Note) and note.lines)
        ]
        if wanted:
            found = trailer_agents(self.repo, wanted)
            self.trailers.update({c: found.get(c) for c in wanted})

    def trailer(self, commit: str) -> str | None:
        """The agent `commit`'s trailers name, if any."""
        if commit not in self.trailers:
            self.trailers[commit] = trailer_agents(self.repo, [commit]).get(commit)
        return self.trailers[commit]

    def unrecorded_reason(self, commit: str) -> str:
        """Why `commit`'s lines are unrecorded and what can be done here: carry (this clone holds the
        recorded commits it may copy), else fetch what the author pushes. A `listing` caller (stats, audit,
        export: many commits, reasons unread) is not asked to look: the fetch route is never wrong advice."""
        if self.listing:
            return UNRECORDED.format(commit=commit[:12])
        if commit not in self.carry:
            from ..capture.carry_range import carry_range  # only when a line is unrecorded (start-up)

            if self._recorded is None:
                self._recorded = list(note_blobs(self.repo))
            self.carry[commit] = carry_range(self.repo, commit, self._recorded)
            text = self.carry[commit]
            self.carry_text[commit] = (
                UNRECORDED_CARRY.format(commit=commit[:12], range=text)
                if text
                else UNRECORDED.format(commit=commit[:12])
            )
        return self.carry_text[commit]

    def resolve(self, commit: str, path: str, line: int) -> Resolution:
        """Line `line` (1-based) of `path` as `commit` added it."""
        note = self.note(commit)
        if isinstance(note, IntentError):
            return Resolution("unreadable", reason=str(note))
        if note is None:
            found = self.unnoted.credit(commit, path, line)
            if found is not None and found.credit is not None:
                edit = found.credit.edit
                attribution = Attribution(
                    agent=found.credit.agent,
                    session_id=found.credit.session_id,
                    message_id=edit.message_id,
                    tool=edit.tool,
                    method="content",
                    confidence=confidence(found),
                )
                reason = CONTENT.format(commit=commit[:12])
                return Resolution(
                    "agent",
                    attribution,
                    reason=" ".join(filter(None, [reason, IMPORTED.get(attribution.agent)])),
                )
            return self._by_trailer(commit, Resolution("unrecorded", reason=self.unrecorded_reason(commit)))
        record = note.covering(path, line)
        if record is None:
            human = Resolution("human", reason=HUMAN)
            return self._by_trailer(commit, human) if not note.lines else human
        key = (commit, id(record))
        if key not in self.checked:
            self.checked[key] = still_matches(self.repo, commit, record)
        if not self.checked[key]:
            return Resolution("unrecorded", reason=COPIED.format(commit=commit[:12]))
        if not record.session_id:  # another tool's trace record, imported: the tool and model, no transcript
            model = record.extra.get("model_id")
            return Resolution(
                "agent",
                Attribution(
                    agent=record.agent,
                    session_id="",
                    message_id="",
                    tool=record.tool,
                    method="agent-trace",
                    confidence=record.confidence,
                    derived_from=record.derived_from,
                    model=model if isinstance(model, str) else None,
                ),
                record=record,
                reason=(GITAI if record.tool == "git-ai" else TRACE).format(agent=record.agent),
            )
        attribution = Attribution(
            agent=record.agent,
            session_id=record.session_id,
            message_id=record.message_id,
            tool=record.tool,
            method="note",
            confidence=record.confidence,
            derived_from=record.derived_from,
        )
        return Resolution("agent", attribution, record=record, reason=IMPORTED.get(record.agent))

    def _by_trailer(self, commit: str, otherwise: Resolution) -> Resolution:
        agent = self.trailer(commit)
        if agent is None:
            return otherwise
        return Resolution("agent", trailer_attribution(agent), reason=TRAILER_REASON)

    def session(self, agent: str | None, session_id: str) -> Session | IntentError:
        """The session (found once per resolver), or the error saying why it is not here."""
        return self.sessions.get(session_id, agent)

    def has_evidence(self, attribution: Attribution) -> bool:
        """Whether the message credited can be read here: its session's transcript, backup copy or shared
        evidence holds it (a message or an edit with its id). A trailer's credit never has evidence."""
        if attribution.method == "trailer" or not attribution.session_id:
            return False
        key = (attribution.agent, attribution.session_id)
        if self.listing and attribution.message_id in self._listing().get(key, ()):
            return True  # an edit message of a transcript or backup copy here: find_session would read it too
        if key not in self._readable:
            session = self.session(attribution.agent, attribution.session_id)
            self._readable[key] = (
                None
                if isinstance(session, IntentError)
                else ({m.message_id for m in session.messages} | {e.message_id for e in session.edits})
            )
        readable = self._readable[key]
        return readable is not None and attribution.message_id in readable

    def model(self, attribution: Attribution) -> str | None:
        """The model id the credited message was written with, as its transcript records it; None when it
        records none or the message cannot be read here (the record cache's listing answers first)."""
        if not attribution.session_id:
            return attribution.model  # an Agent Trace record's own model, or none
        key = (attribution.agent, attribution.session_id)
        if self.listing and attribution.message_id in self._listing().get(key, {}):
            return self._listing()[key][attribution.message_id]
        session = self.session(attribution.agent, attribution.session_id)
        message = session.message(attribution.message_id) if isinstance(session, Session) else None
        return message.model or None if message is not None else None

    def _listing(self) -> dict[tuple[str, str], dict[str, str | None]]:
        """(agent, session id) -> its edit messages' models, from the record cache's listing of every
        session."""
        if self._listed is None:
            from ..capture.candidate_sessions import listed_sessions

            try:
                self._listed = {(s.agent, s.session_id): s.message_models for s in listed_sessions(self.repo)}
            except Exception:  # an accelerator: without it each session is found whole
                self._listed = {}
        return self._listed

    def line_class(self, resolution: Resolution) -> LineClass:
        """The class every surface counts the line under (`unreadable` counts as unrecorded)."""
        if resolution.status == "agent" and resolution.attribution is not None:
            return (
                "agent_with_evidence"
                if self.has_evidence(resolution.attribution)
                else "agent_without_evidence"
            )
        return "human" if resolution.status == "human" else "unrecorded"
