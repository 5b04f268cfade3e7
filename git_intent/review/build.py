"""Building a review of a range: every added line blamed at the range's end, explained from notes and
sessions, grouped by attribution, with `previous` where a person changed an agent's line.

Lines are blamed without -M/-C, as `git intent blame` does unless asked (`--moves`): a review counts
the lines as the range's diff shows them, so a block an agent moved counts for the commit that moved it
(as `record` credited it), not for whoever first wrote it.

Costs: one `git diff` (plus one `--name-status`) for the range; one `git blame` per file with added
lines (all its hunks as `-L` ranges, at the range's end, so nothing needs to be checked out); each
commit's note read once and each session read once (shared caches); for people's lines, one diff per
person's commit and one blame per parent and file to find `previous`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import IntentError
from ..explain.blame import Explainer, LineAnswer
from ..explain.file_ranges import runs
from ..explain.line_history import replaced_lines
from ..git.repo import BlameLine, Repository, parse_porcelain
from .ranges import DiffFile, diff_files, resolve_range
from .values import (
    FileTally,
    PreviousLine,
    ReviewAnswer,
    ReviewFile,
    ReviewGroup,
    ReviewHunk,
    ReviewLine,
    SessionReview,
)


@dataclass
class _Line:
    number: int
    content: str
    blamed: BlameLine | None
    answer: LineAnswer
    previous: PreviousLine | None = None


def review_range(repo: Repository, spec: str) -> ReviewAnswer:
    """The review of `spec` (see `resolve_range`): files in diff order, each hunk's added lines grouped
    by attribution, the summary table and the sessions involved. Offline and complete on its own; model
    summaries are added by `summaries.summarise_sessions`.

    Raises RangeError for a range that names no commits. Notes that cannot be read, and sessions not on
    this machine, become statuses and `problems`, never exceptions.
    """
    rng = resolve_range(repo, spec)
    explain = Explainer(repo, rng.end, precise=False)  # one reason per edit, not a pick per line
    porcelain = [
        (diff_file, _blame_porcelain(repo, rng.end, diff_file))
        for diff_file in diff_files(repo, rng.base, rng.end)
    ]
    # Every commit the lines come from at once: the ones without a note are credited in one reading of the
    # sessions.
    explain.lines.prepare(
        [line.commit for _, (by_line, _) in porcelain for line in by_line.values() if line.commit]
    )
    blamed = [
        (diff_file, _explain_file(diff_file, by_line, failure, explain))
        for diff_file, (by_line, failure) in porcelain
    ]
    for _, hunks in blamed:  # blame's own `previous` (line_history), one file at a time: keyed by line number
        people = {
            line.number: line
            for lines in hunks
            for line in lines
            if line.answer.status == "human" and line.blamed is not None and line.content.strip()
        }
        found = replaced_lines(
            repo, [line.blamed for line in people.values() if line.blamed is not None], explain.credit
        )
        for number, previous in found.items():
            people[number].previous = previous
    files = [
        ReviewFile(
            path=f.path,
            old_path=f.old_path,
            change=f.change,
            binary=f.binary,
            hunks=[
                ReviewHunk(
                    old_start=h.old_start,
                    old_lines=h.old_lines,
                    new_start=h.new_start,
                    new_lines=h.new_lines,
                    removed=len(h.removed),
                    groups=group_lines(lines),
                )
                for h, lines in zip(f.hunks, hunks, strict=True)
            ],
        )
        for f, hunks in blamed
    ]
    problems = list(
        dict.fromkeys(
            line.answer.reason
            for _, hunks in blamed
            for lines in hunks
            for line in lines
            if line.answer.status in ("unrecorded", "unreadable") and line.answer.reason
        )
    )
    summary = [tally_file(f) for f in files]
    return ReviewAnswer(
        range=rng.spec,
        base=rng.base,
        end=rng.end,
        summary=summary,
        totals=_totals(summary),
        sessions=tally_sessions(files),
        files=files,
        problems=problems,
    )


def _blame_porcelain(
    repo: Repository, end: str, diff_file: DiffFile
) -> tuple[dict[int, BlameLine], str | None]:
    """The added lines of a file blamed at `end` (one `git blame` for all its hunks), by line number, and the
    sentence saying why git could not blame it, if it could not."""
    spans = [(h.new_start, h.new_start + len(h.added) - 1) for h in diff_file.hunks if h.added]
    if not spans:
        return {}, None
    ranges = [arg for start, stop in spans for arg in ("-L", f"{start},{stop}")]
    try:
        out = repo.git("blame", "--porcelain", *ranges, end, "--", diff_file.path)
    except IntentError as exc:  # a submodule, or a path git cannot blame: say so, go on
        return {}, f"{diff_file.path} could not be blamed at {end[:12]}: {exc}"
    return {line.final_line: line for line in parse_porcelain(out)}, None


def _explain_file(
    diff_file: DiffFile, by_line: dict[int, BlameLine], failure: str | None, explain: Explainer
) -> list[list[_Line]]:
    """Each hunk's added lines, explained."""
    hunks: list[list[_Line]] = []
    for hunk in diff_file.hunks:
        lines = []
        for offset, content in enumerate(hunk.added):
            number = hunk.new_start + offset
            blamed = by_line.get(number)
            if blamed is None:
                answer = LineAnswer(
                    path=diff_file.path,
                    line=number,
                    content=content,
                    commit=None,
                    attribution=None,
                    evidence=[],
                    status="unreadable",
                    line_class="unrecorded",
                    reason=failure or f"git blame gave no answer for {diff_file.path}:{number}.",
                )
            else:
                answer = explain(diff_file.path, blamed)
            lines.append(_Line(number, content, blamed, answer))
        hunks.append(lines)
    return hunks


def _key(answer: LineAnswer) -> tuple[str, ...]:
    if answer.status == "agent" and answer.attribution is not None:
        return (
            "agent",
            answer.attribution.agent,
            answer.attribution.session_id,
            answer.attribution.message_id,
            answer.line_class or "",
        )
    if answer.status == "human":
        return ("human", answer.author or "")
    return (answer.status, answer.commit or "")


def group_lines(lines: list[_Line]) -> list[ReviewGroup]:
    """Consecutive lines with one attribution key become a group; blank lines join the group before
    them (or, at the start of a hunk, the one after)."""
    return [
        _group(run)
        for run in runs(
            lines, lambda a, b: _key(a.answer) == _key(b.answer), joins=lambda line: not line.content.strip()
        )
    ]


def _group(run: list[_Line]) -> ReviewGroup:
    first = next((line for line in run if line.content.strip()), run[0]).answer
    commits = list(dict.fromkeys(line.answer.commit for line in run if line.answer.commit))
    return ReviewGroup(
        status=first.status,
        line_class=first.line_class,
        start=run[0].number,
        end=run[-1].number,
        lines=[
            ReviewLine(
                line=line.number,
                content=line.content,
                commit=line.answer.commit,
                author=line.answer.author,
                previous=line.previous,
            )
            for line in run
        ],
        attribution=first.attribution,
        evidence=first.evidence,
        commits=commits,
        author=first.author if first.status == "human" else None,
        reason=first.reason,
        # A group may span definitions (it groups by attribution): named only when all its lines share one.
        symbol=first.symbol
        if all(line.answer.symbol == first.symbol for line in run if line.content.strip())
        else None,
    )


def tally_file(review_file: ReviewFile) -> FileTally:
    """The summary-table row of one file: non-blank lines by status, and its sessions."""
    tally = FileTally(path=review_file.path)
    for hunk in review_file.hunks:
        for group in hunk.groups:
            if group.status == "agent" and group.attribution is not None:
                tally.agent += group.counted
                if group.line_class == "agent_with_evidence":
                    tally.agent_with_evidence += group.counted
                else:
                    tally.agent_without_evidence += group.counted
                key = f"{group.attribution.agent}:{group.attribution.session_id}"
                if group.attribution.session_id and key not in tally.sessions:  # a trailer's line names none
                    tally.sessions.append(key)
            elif group.status == "human":
                tally.human += group.counted
                tally.changed_by_person += sum(1 for line in group.changed if line.content.strip())
            else:
                tally.unrecorded += group.counted
    return tally


def _totals(rows: list[FileTally]) -> FileTally:
    sessions = list(dict.fromkeys(s for row in rows for s in row.sessions))
    return FileTally(
        path="total",
        agent=sum(r.agent for r in rows),
        human=sum(r.human for r in rows),
        unrecorded=sum(r.unrecorded for r in rows),
        agent_with_evidence=sum(r.agent_with_evidence for r in rows),
        agent_without_evidence=sum(r.agent_without_evidence for r in rows),
        changed_by_person=sum(r.changed_by_person for r in rows),
        sessions=sessions,
    )


def tally_sessions(files: list[ReviewFile]) -> list[SessionReview]:
    """The sessions whose edits wrote lines of `files`, in order of first appearance."""
    found: dict[tuple[str, str], SessionReview] = {}
    for review_file in files:
        for hunk in review_file.hunks:
            for group in hunk.groups:
                a = group.attribution
                if group.status != "agent" or a is None or not a.session_id:  # a trailer's line: no session
                    continue
                entry = found.setdefault(
                    (a.agent, a.session_id),
                    SessionReview(
                        agent=a.agent, session_id=a.session_id, lines=0, files=[], messages=[], requests=[]
                    ),
                )
                entry.lines += group.counted
                if review_file.path not in entry.files:
                    entry.files.append(review_file.path)
                if a.message_id not in entry.messages:
                    entry.messages.append(a.message_id)
                for item in group.evidence:  # a bare confirmation comes with the proposal it confirmed
                    if item.kind in ("request", "confirmed") and all(
                        r.message_id != item.message_id for r in entry.requests
                    ):
                        entry.requests.append(item)
    return list(found.values())
