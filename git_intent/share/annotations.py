"""`git intent audit RANGE --annotate github`: the lines a reviewer should look at, as GitHub workflow
commands (`::warning file=PATH,line=N,endLine=M,title=T::MESSAGE`) shown beside the pull request's lines.

The lines are the audit's own (`audit.audit` with `listed`, classified by `explain.classify`): agent lines
without evidence and unrecorded lines. Each commit's line is placed where it stands at the range's end (the
right side of `A..B`), by one `git blame` of each file holding such a line at the end; lines a later commit
of the range removed are not in the pull request and are not annotated. Consecutive lines of one kind and
one author (the same session and message, or the same unrecorded commit) make one annotation; blank lines
between them join it. At most `limit` annotations are printed, in file and line order; then one `::notice`
says how many were left out.

Escaping is GitHub's own (actions/toolkit, packages/core/src/command.ts): in data `%`, CR and LF become
`%25`, `%0D`, `%0A`; in properties also `:` and `,` become `%3A` and `%2C`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import IntentError
from ..git.repo import Repository
from .audit import AuditLine, AuditReport

MAX_ANNOTATIONS = 50
GAPS = ("agent_without_evidence", "unrecorded")
TITLES = {
    "agent_without_evidence": "git-intent: agent lines without evidence",
    "unrecorded": "git-intent: unrecorded lines",
}


@dataclass(frozen=True)
class Annotation:
    """One run of lines `line`..`end_line` (1-based, inclusive) of `path` at the range's end, of class
    `line_class`, with the sentence a reviewer reads."""

    path: str
    line: int
    end_line: int
    line_class: str
    message: str

    def command(self) -> str:
        """The workflow command: `::warning file=…,line=…,endLine=…,title=…::…`, escaped."""
        props = {
            "file": self.path,
            "line": str(self.line),
            "endLine": str(self.end_line),
            "title": TITLES[self.line_class],
        }
        joined = ",".join(f"{key}={escape_property(value)}" for key, value in props.items())
        return f"::warning {joined}::{escape_data(self.message)}"


@dataclass
class Annotations:
    """The annotations printed (`shown`, at most the limit) and the runs and lines left out."""

    shown: list[Annotation]
    left_out: list[Annotation]
    limit: int
    range: str

    def text(self) -> str:
        """The workflow commands, one a line, then a `::notice` when some were left out ("" for none)."""
        out = [a.command() for a in self.shown]
        if self.left_out:
            lines = sum(a.end_line - a.line + 1 for a in self.left_out)
            kinds = {c: sum(a.line_class == c for a in self.left_out) for c in GAPS}
            message = (
                f"{len(self.left_out)} more run(s) of {lines} line(s) not annotated (--max-annotations "
                f"{self.limit}): {kinds['agent_without_evidence']} of agent lines without evidence, "
                f"{kinds['unrecorded']} of unrecorded lines; `git intent audit {self.range} --lines` lists "
                "every line."
            )
            out.append(f"::notice title={escape_property('git-intent audit')}::{escape_data(message)}")
        return "".join(line + "\n" for line in out)


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does (`%`, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value, escaped as GitHub's toolkit does (`%`, CR, LF, `:`, `,`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(repo: Repository, report: AuditReport, limit: int = MAX_ANNOTATIONS) -> Annotations:
    """The annotations of `report` (made with `listed`): its agent lines without evidence and its unrecorded
    lines, placed at the end of its range. Raises IntentError when the range has no end git can name, or a
    file cannot be blamed there."""
    gaps = {(r.commit, r.path, r.line): r for r in report.listed or () if r.line_class in GAPS}
    runs: list[Annotation] = []
    if gaps:
        end = _end(repo, report.range)
        for path in sorted({path for _, path, _ in gaps}):
            runs.extend(_runs(repo, end, path, gaps))
    runs.sort(key=lambda a: (a.path, a.line))
    return Annotations(shown=runs[:limit], left_out=runs[limit:], limit=limit, range=report.range)


def _end(repo: Repository, revision_range: str) -> str:
    """The commit a range ends at: the first revision `git rev-parse` names that is not excluded (B of
    `A..B` and of `A...B`)."""
    # --revs-only: git 2.39's rev-parse echoes `--end-of-options` back as if it were a revision.
    out = repo.git("rev-parse", "--revs-only", "--end-of-options", revision_range, check=False).split()
    tips = [rev for rev in out if not rev.startswith(("^", "-"))]
    if not tips:
        raise IntentError(f"{revision_range!r} names no commit to annotate lines at.")
    return tips[0]


def _runs(
    repo: Repository, end: str, path: str, gaps: dict[tuple[str, str, int], AuditLine]
) -> list[Annotation]:
    """The runs of `gaps` lines in `path` as it stands at `end` (a file removed by the end has none)."""
    if not repo.succeeds("cat-file", "-e", f"{end}:{path}"):
        return []
    runs: list[Annotation] = []
    open_run: tuple[tuple[str | None, ...], AuditLine, int, int] | None = None
    for blamed in repo.blame(path, rev=end):
        row = gaps.get((blamed.commit or "", blamed.orig_path, blamed.orig_line))
        if row is None:
            if blamed.content.strip() or open_run is None:
                if open_run is not None:
                    runs.append(_annotation(path, *open_run[1:]))
                open_run = None
            continue
        key = _key(row)
        if open_run is not None and open_run[0] == key:
            open_run = (key, open_run[1], open_run[2], blamed.final_line)
            continue
        if open_run is not None:
            runs.append(_annotation(path, *open_run[1:]))
        open_run = (key, row, blamed.final_line, blamed.final_line)
    if open_run is not None:
        runs.append(_annotation(path, *open_run[1:]))
    return runs


def _key(row: AuditLine) -> tuple[str | None, ...]:
    """What a run shares: the class and the author (an agent's session and message, or the commit)."""
    if row.line_class == "unrecorded":
        return (row.line_class, row.commit)
    return (row.line_class, row.agent, row.session_id, row.message_id, row.method, row.commit)


def _annotation(path: str, row: AuditLine, start: int, end: int) -> Annotation:
    where = f"line {start}" if start == end else f"lines {start}-{end}"
    commit = row.commit[:12]
    if row.line_class == "unrecorded":
        message = (
            f"No git-intent record says who wrote {where} (commit {commit}). Its author can record it "
            f"(`git intent record {commit}`, then `git intent push`); records kept in a fork come with "
            "`git intent fetch FORK-URL`."
        )
    elif row.session_id:
        message = (
            f"{row.agent} wrote {where} (session {row.session_id}, message {row.message_id}, commit "
            f"{commit}), but its messages are not here to quote. Its author can share them: `git config "
            "intent.share evidence`, then `git intent push`."
        )
    else:
        by = "a trailer" if row.method == "trailer" else f"a record ({row.method})"
        message = (
            f"{row.agent} is credited with {where} by {by} of commit {commit}, but no session says which "
            "messages wrote them."
        )
    return Annotation(path=path, line=start, end_line=end, line_class=row.line_class, message=message)
