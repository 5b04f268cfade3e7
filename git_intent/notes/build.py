"""Building a commit's note from its credited lines: consecutive lines with one credit become a range."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace

from .records import CommitRecord, Credit, LinesRecord, SessionRecord, range_digest


@dataclass(frozen=True)
class CreditedLine:
    """One added line of a commit (`line` 1-based in the new file, `text` without its "\\n") and who
    wrote it (`credit` None: a person)."""

    path: str
    line: int
    text: str
    credit: Credit | None


def build_note(
    commit: str,
    lines: Sequence[CreditedLine],
    sessions: Mapping[tuple[str, str], SessionRecord],
    recorded_by: str,
) -> list[CommitRecord | SessionRecord | LinesRecord]:
    """The records of `commit`'s note: one commit record, one session record per credited session, one
    lines record per run of consecutive lines of one path with equal credits.

    `lines` in diff order; `sessions` maps (agent, session_id) to the session record to write (its
    `lines_attributed` is recounted here; a session missing from it gets a bare record). Counts are of
    non-blank lines.
    """
    written = [c for c in lines if c.text.strip()]
    records: list[CommitRecord | SessionRecord | LinesRecord] = [
        CommitRecord(
            commit=commit,
            lines_added=len(written),
            lines_attributed=sum(1 for c in written if c.credit),
            recorded_by=recorded_by,
        )
    ]
    run: list[CreditedLine] = []
    for current in [*lines, None]:
        if run and (current is None or not _continues(run[-1], current)):
            records.append(lines_record(run))
            run = []
        if current is not None and current.credit is not None:
            run.append(current)
    counts: dict[tuple[str, str], int] = {}
    for c in lines:
        if c.credit is not None:
            key: tuple[str, str] = (c.credit.agent, c.credit.session_id)
            counts[key] = counts.get(key, 0) + (1 if c.text.strip() else 0)
    for key, count in counts.items():
        template = sessions.get(key) or SessionRecord(agent=key[0], session_id=key[1], lines_attributed=0)
        records.append(replace(template, lines_attributed=count))
    return records


def lines_record(run: Sequence[CreditedLine]) -> LinesRecord:
    """The lines record of a run of consecutive lines of one path with one credit."""
    first = run[0]
    assert first.credit is not None
    credit = first.credit
    return LinesRecord(
        **{f.name: getattr(credit, f.name) for f in fields(Credit)},
        path=first.path,
        start=first.line,
        end=run[-1].line,
        sha=range_digest([c.text for c in run]),
    )


def _continues(last: CreditedLine, current: CreditedLine) -> bool:
    return (
        current.credit is not None
        and current.path == last.path
        and current.line == last.line + 1
        and current.credit == last.credit
    )
