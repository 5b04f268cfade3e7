"""A note's lines as the org store counts them: `CreditRow`s per (commit, agent, session, model, class), in
the four classes `stats` and `audit` count (`explain.classify.LINE_CLASSES`), read from the note's counts so
no file of the repository is fetched.

The rules are `explain.classify`'s, applied to a note's records instead of to each added line:
- a note recorded for its own commit (one commit record, naming it): each session record's non-blank lines
  are the session's; the rest of the commit record's `lines_added` are a person's (`human`), unless the note
  credits no line and the commit's trailers name an agent (then that agent's, without evidence);
- a session's lines are `agent_with_evidence` when the shared blob of the session holds the crediting message
  (the message can be read, as `LineResolver.has_evidence` asks), else `agent_without_evidence`; a record
  with no session (an imported Agent Trace or git-ai record) is its tool's, without evidence;
- a note copied from rewritten commits (no commit record naming its commit, or several) is classified line
  by line with `Note.covering` and `still_matches`, as `stats` does: the one case that reads the files.

A session's lines records may span blank lines, which notes do not count: when a session's ranges are split
between models or between messages with and without evidence, its non-blank count is divided in proportion
to the ranges' lengths (largest remainder), so every total equals the note's own counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ..explain.classify import LineClass
from ..git.repo import Repository
from ..notes import LinesRecord, Note, still_matches
from .evidence import SharedEvidence
from .rows import CreditRow

# (agent, session id or None, model or None, class) -> lines
Tally = Counter[tuple[str | None, str | None, str | None, LineClass]]


def note_credits(
    note: Note, evidence: SharedEvidence, trailer_agent: str | None, repo: Repository | None = None
) -> tuple[int, list[CreditRow]]:
    """(non-blank lines the commit added, its credit rows) for `note`. `trailer_agent` is the agent the
    commit's trailers name, if any; `repo` (the mirror) is read only for a copied note."""
    own = note.own
    if own is not None and len(note.commit_records) == 1:
        added, tally = own.lines_added, _from_counts(note, evidence)
        human = max(own.lines_added - own.lines_attributed, 0)
        if human and trailer_agent is not None and not note.lines:
            tally[(trailer_agent, None, None, "agent_without_evidence")] += human
        elif human:
            tally[(None, None, None, "human")] += human
    elif repo is not None:
        added, tally = _line_by_line(repo, note, evidence, trailer_agent)
    else:
        return 0, []
    return added, rows(note.commit, tally, evidence)


def rows(commit: str, tally: Tally, evidence: SharedEvidence) -> list[CreditRow]:
    """The tally as rows, in a stable order."""
    return [
        CreditRow(
            sha=commit,
            agent=agent,
            model=model,
            session_id=session_id,
            line_class=line_class,
            lines=lines,
            has_evidence=bool(agent and session_id and evidence.has(agent, session_id)),
        )
        for (agent, session_id, model, line_class), lines in sorted(tally.items(), key=_order)
        if lines > 0
    ]


def _order(item: tuple[tuple[str | None, str | None, str | None, str], int]) -> tuple[str, ...]:
    return tuple(part or "" for part in item[0])


def _from_counts(note: Note, evidence: SharedEvidence) -> Tally:
    """The credited lines of a note recorded for its own commit, from its session records' counts."""
    ranges: dict[tuple[str, str], Counter[tuple[str | None, LineClass]]] = {}
    tally: Tally = Counter()
    for record in note.lines:
        length = record.end - record.start + 1
        if not record.session_id:  # an imported tool's record: no session, no non-blank count
            tally[(record.agent, None, _model(record, evidence), "agent_without_evidence")] += length
            continue
        key = (record.agent, record.session_id)
        ranges.setdefault(key, Counter())[(_model(record, evidence), _class(record, evidence))] += length
    counted = {s.key: s.lines_attributed for s in note.sessions}
    for (agent, session_id), groups in ranges.items():
        total = counted.get((agent, session_id), sum(groups.values()))
        for (model, line_class), lines in _divide(total, groups).items():
            tally[(agent, session_id, model, line_class)] += lines
    return tally


def _divide(
    total: int, groups: Counter[tuple[str | None, LineClass]]
) -> dict[tuple[str | None, LineClass], int]:
    """`total` split across `groups` in proportion to their weights, by largest remainder (ties: the
    heavier group, then the first in order); exact when the weights already sum to `total`."""
    weight = sum(groups.values())
    if weight == total or weight == 0:
        return dict(groups) if weight == total else {}
    shares = {g: total * w // weight for g, w in groups.items()}
    left = total - sum(shares.values())
    by_remainder = sorted(groups, key=lambda g: (-(total * groups[g] % weight), -groups[g]))
    for group in by_remainder[:left]:
        shares[group] += 1
    return shares


def _line_by_line(
    repo: Repository, note: Note, evidence: SharedEvidence, trailer_agent: str | None
) -> tuple[int, Tally]:
    """A copied note's lines, classified one by one against the commit's added lines (git fetches the
    commit's trees and blobs from the source on first use: the mirror is a partial clone)."""
    tally: Tally = Counter()
    checked: dict[int, bool] = {}
    added = 0
    for hunk in repo.added_hunks(note.commit):
        for offset, text in enumerate(hunk.lines):
            if not text.strip():
                continue
            added += 1
            record = note.covering(hunk.path, hunk.start + offset)
            if record is None:
                key: tuple[str | None, str | None, str | None, LineClass] = (
                    (trailer_agent, None, None, "agent_without_evidence")
                    if trailer_agent is not None and not note.lines
                    else (None, None, None, "human")
                )
            else:
                if id(record) not in checked:
                    checked[id(record)] = still_matches(repo, note.commit, record)
                key = (
                    (
                        record.agent,
                        record.session_id or None,
                        _model(record, evidence),
                        _class(record, evidence),
                    )
                    if checked[id(record)]
                    else (None, None, None, "unrecorded")
                )
            tally[key] += 1
    return added, tally


def _class(record: LinesRecord, evidence: SharedEvidence) -> LineClass:
    shown = record.session_id and evidence.shows(record.agent, record.session_id, record.message_id)
    return "agent_with_evidence" if shown else "agent_without_evidence"


def _model(record: LinesRecord, evidence: SharedEvidence) -> str | None:
    """The model of the crediting message, as its shared blob names it, or the model an imported record
    names (`model_id`, Agent Trace's field); None when neither says (the transcript's model travels only in
    shared blobs)."""
    if record.session_id:
        return evidence.model(record.agent, record.session_id, record.message_id)
    model = record.extra.get("model_id")
    return model if isinstance(model, str) and model else None


def commit_metadata(repo: Repository, commits: list[str]) -> Mapping[str, tuple[int, str]]:
    """commit -> (committer time in unix seconds, "name <email>") for `commits`, from one `git log`."""
    if not commits:
        return {}
    out = repo.git(
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "--format=%H%x00%ct%x00%an <%ae>",
        input_text="\n".join(commits),
    )
    found: dict[str, tuple[int, str]] = {}
    for line in out.splitlines():
        parts = line.split("\0")
        if len(parts) == 3 and parts[1].isdigit():
            found[parts[0]] = (int(parts[1]), parts[2])
    return found
