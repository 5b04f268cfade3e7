"""`git intent stats`: the added lines of a revision range, by status, agent, model, session and person.

One `git log -p -U0` stream gives every commit's added lines; every note of refs/notes/intent is read once
in one `git cat-file --batch`; each credited session is read once to learn its model and whether its
messages are still on this machine.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from pydantic import BaseModel

from ..errors import IntentError
from ..git.repo import PINNED, Hunk, Repository, parse_added_hunks
from ..models import Session
from ..notes import NOTES_REF, Note, note_blobs, read_notes
from ..sessions.discovery import find_session
from .trailers import trailer_agent

UNKNOWN_MODEL = "unknown"
_HEADER = re.compile("(?:^|\n)\0")  # each commit header starts with NUL (`--format=%x00%H…`); no diff line does


class StatusCounts(BaseModel):
    """Non-blank added lines by status: credited to an agent session, written by a person (the commit's
    note credits no session with them), unrecorded (the commit has no readable note), or `trailer`: lines of a
    commit whose trailers name an agent while no transcript credits any of its lines (issue 19; counted
    apart from both agent sessions and people)."""

    agent: int = 0
    human: int = 0
    unrecorded: int = 0
    trailer: int = 0


class SessionStats(BaseModel):
    """One session credited in the range: its lines, the commits it wrote lines of, the model its
    transcript records (None when unknown), and how many of its lines have evidence on this machine
    (the transcript is found here and holds the crediting message)."""

    agent: str
    session_id: str
    model: str | None
    lines: int
    commits: int
    lines_with_evidence: int


class StatsReport(BaseModel):
    """`git intent stats --json`. Counts are of non-blank added lines (as notes count them) of the
    non-merge commits of `range`; `evidence_share` is `agent_lines_with_evidence / by_status.agent`,
    None when no line is an agent's. `problems` has one sentence per note that cannot be read."""

    range: str
    commits: int
    commits_recorded: int
    lines_added: int
    by_status: StatusCounts
    by_agent: dict[str, int]
    by_trailer_agent: dict[str, int]  # the `trailer` lines by the agent the trailers name
    by_model: dict[str, int]
    by_person: dict[str, int]
    sessions: list[SessionStats]
    agent_lines_with_evidence: int
    evidence_share: float | None
    problems: list[str]


@dataclass
class _Tally:
    status: Counter[str] = field(default_factory=Counter)
    person: Counter[str] = field(default_factory=Counter)
    trailer: Counter[str] = field(default_factory=Counter)  # agent named by a trailer -> lines
    # (agent, session_id) -> message_id -> lines; and -> commits
    messages: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    commits: dict[tuple[str, str], set[str]] = field(default_factory=dict)


def range_stats(repo: Repository, revision_range: str = "HEAD") -> StatsReport:
    """Count the added lines of `revision_range` (default: all of HEAD's history).

    Raises IntentError when the range names nothing in this repository.
    """
    if not repo.succeeds("rev-parse", "--verify", "-q", "HEAD"):
        raise IntentError("This repository has no commits yet, so there are no lines to count.")
    if revision_range.startswith("-"):
        raise IntentError(f"{revision_range!r} is not a revision or range of this repository.",
                          hint="Examples: HEAD, main~5..main, v1.0..")
    notes, problems = _notes(repo)
    tally = _Tally()
    commits = recorded = 0
    for commit, author, trailers, hunks in _commits(repo, revision_range):
        commits += 1
        note = notes.get(commit)
        if note is not None:
            recorded += 1
        # Only when no transcript credits a line of the commit: a transcript-based attribution always wins.
        by_trailer = trailer_agent(trailers.split("\x1f")) if note is None or not note.lines else None
        for hunk in hunks:
            for offset, text in enumerate(hunk.lines):
                if not text.strip():
                    continue
                if by_trailer is not None:
                    tally.status["trailer"] += 1
                    tally.trailer[by_trailer] += 1
                else:
                    _count(tally, commit, author, note, hunk.path, hunk.start + offset)
    return _report(repo, revision_range, commits, recorded, tally, problems)


def _count(tally: _Tally, commit: str, author: str, note: Note | None, path: str, line: int) -> None:
    if note is None:
        tally.status["unrecorded"] += 1
        tally.person[author] += 1
        return
    record = note.covering(path, line)
    if record is not None:
        key = (record.agent, record.session_id)
        tally.status["agent"] += 1
        tally.messages.setdefault(key, Counter())[record.message_id] += 1
        tally.commits.setdefault(key, set()).add(commit)
        return
    tally.status["human"] += 1
    tally.person[author] += 1


def _report(repo: Repository, revision_range: str, commits: int, recorded: int, tally: _Tally,
            problems: list[str]) -> StatsReport:
    sessions: list[SessionStats] = []
    by_agent: Counter[str] = Counter()
    by_model: Counter[str] = Counter()
    listed = _listed(repo) if tally.messages else {}
    for (agent, session_id), messages in tally.messages.items():
        cached = listed.get((agent, session_id), {})
        if all(message_id in cached for message_id in messages):
            # Every credited message is an edit message the record cache knows: no transcript is read.
            found: dict[str, str | None] = {m: cached[m] for m in messages}
        else:
            found = _messages(_session(repo, agent, session_id), messages)
        lines = sum(messages.values())
        evidence = 0
        models: Counter[str] = Counter()
        for message_id, count in messages.items():
            evidence += count if message_id in found else 0
            models[found.get(message_id) or UNKNOWN_MODEL] += count
        by_agent[agent] += lines
        by_model.update(models)
        known = [m for m, _ in models.most_common() if m != UNKNOWN_MODEL]
        sessions.append(SessionStats(agent=agent, session_id=session_id, model=known[0] if known else None,
                                     lines=lines, commits=len(tally.commits[(agent, session_id)]),
                                     lines_with_evidence=evidence))
    sessions.sort(key=lambda s: (-s.lines, s.agent, s.session_id))
    agent_lines = tally.status["agent"]
    with_evidence = sum(s.lines_with_evidence for s in sessions)
    return StatsReport(
        range=revision_range, commits=commits, commits_recorded=recorded,
        lines_added=sum(tally.status.values()),
        by_status=StatusCounts(agent=agent_lines, human=tally.status["human"], unrecorded=tally.status["unrecorded"],
                               trailer=tally.status["trailer"]),
        by_agent=dict(by_agent.most_common()), by_trailer_agent=dict(tally.trailer.most_common()),
        by_model=dict(by_model.most_common()),
        by_person=dict(tally.person.most_common()), sessions=sessions,
        agent_lines_with_evidence=with_evidence,
        evidence_share=round(with_evidence / agent_lines, 4) if agent_lines else None, problems=problems)


def _session(repo: Repository, agent: str, session_id: str) -> Session | None:
    try:
        return find_session(repo, session_id, agent, exact=True)
    except IntentError:
        return None


def _listed(repo: Repository) -> dict[tuple[str, str], dict[str, str | None]]:
    """(agent, session_id) → its edit messages' models, from the record cache (`listed_sessions`): each
    transcript parsed once per version, where loading every credited session whole was most of `stats` on a
    real history (issue 22). Empty when the listing fails: the sessions are then read one by one."""
    from ..capture.candidate_sessions import listed_sessions

    try:
        return {(s.agent, s.session_id): s.message_models for s in listed_sessions(repo)}
    except Exception:  # the listing is an accelerator: without it each session is found as before
        return {}


def _messages(session: Session | None, message_ids: Iterable[str]) -> dict[str, str | None]:
    """message id → the model the transcript records for it (None when it records none), for the credited
    messages `session` still holds."""
    found: dict[str, str | None] = {}
    for message_id in message_ids:
        message = session.message(message_id) if session is not None and message_id else None
        if message is not None:
            found[message_id] = message.model or None
    return found


def _notes(repo: Repository) -> tuple[dict[str, Note], list[str]]:
    """Every note on refs/notes/intent, read in one batch: commit -> Note. A note that holds no git-intent
    record is left out (its commit's lines count as unrecorded) and named in a sentence."""
    notes: dict[str, Note] = {}
    problems: list[str] = []
    found = read_notes(repo)
    for commit in note_blobs(repo):
        note = found.get(commit)  # None: the note's blob is missing
        if note is not None and note.records:
            notes[commit] = note
        else:
            problems.append(f"The note on {commit[:12]} in {NOTES_REF} is not a git-intent record; the lines "
                            f"of that commit count as unrecorded.")
    return notes, problems


def _commits(repo: Repository, revision_range: str) -> Iterator[tuple[str, str, str, list[Hunk]]]:
    """(commit, author name, trailers separated by U+001F, added hunks against the first parent) for each
    non-merge commit of the range, from one `git log -p -U0` (merges show no diff: their lines are counted
    where they were written).

    The output is read whole and cut at each commit's header: a Python loop over its lines was 0.8 of the
    1.3 s `stats` spent on entireio/git-sync's 527 commits (issue 22)."""
    args = [*PINNED, "log", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-renames", "--no-merges",
            "--src-prefix=a/", "--dst-prefix=b/", "--format=%x00%H%x00%an%x00%(trailers:unfold,only,separator=%x1f)",
            "--end-of-options", revision_range, "--"]
    proc = subprocess.run(["git", *args], cwd=repo.root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise IntentError(f"{revision_range!r} is not a revision or range of this repository.",
                          hint="Examples: HEAD, main~5..main, v1.0..")
    text = proc.stdout.decode("utf-8", "replace")
    for chunk in _HEADER.split(text):
        if not chunk:
            continue
        sha, _, rest = chunk.partition("\0")
        author, _, rest = rest.partition("\0")
        trailers, _, body = rest.partition("\n")
        yield sha, author, trailers, parse_added_hunks(body)
