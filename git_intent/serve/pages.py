"""What the pages of `git intent serve` show, as plain values: the file tree at HEAD, a file with its
intent gutter and evidence panels, and a session's topic bar. No web library here: the routes in
`app.py` pass these to the templates, which escape every string."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.errors import BadLocationError
from ..core.values import Attribution, Message, Session
from ..explain.blame import LineAnswer, blame_lines
from ..explain.evidence import Evidence
from ..explain.render import names_message, trailer_credit
from ..fidelity.budget import RenderedContext
from ..git.repo import Repository
from ..git.worktree import read_worktree_file

SESSION_COLOURS = 10  # CSS classes s0..s9; further sessions reuse them in order
LEVELS = ("auto", "full", "summary", "compressed", "placeholder", "hidden")


@dataclass(frozen=True)
class Entry:
    """One row of a directory listing: its name, its path from the root, and whether it is a folder."""

    name: str
    path: str
    folder: bool


def list_folder(files: frozenset[str], folder: str) -> list[Entry] | None:
    """The entries directly inside `folder` ("" for the root) among the tree's `files`, folders first;
    None when no file lies under it."""
    prefix = folder.strip("/") + "/" if folder.strip("/") else ""
    folders: set[str] = set()
    entries: list[Entry] = []
    for path in files:
        if not path.startswith(prefix):
            continue
        rest = path[len(prefix) :]
        if "/" in rest:
            folders.add(rest.split("/", 1)[0])
        else:
            entries.append(Entry(rest, path, False))
    if not folders and not entries:
        return None
    return [Entry(name, prefix + name, True) for name in sorted(folders)] + sorted(
        entries, key=lambda e: e.name
    )


@dataclass
class Panel:
    """The evidence panel shared by the lines of one attribution (a message, a person's commit, an
    unrecorded commit): what the page shows when one of those lines is selected."""

    panel_id: str
    css: str
    status: str
    title: str
    first_line: int
    attribution: Attribution | None = None
    evidence: list[Evidence] = field(default_factory=list)
    commit: str | None = None
    author: str | None = None
    reason: str | None = None
    symbol: str | None = None

    def items(self, kind: str) -> list[Evidence]:
        """The evidence items of one kind (`request`, `reasoning`, `edit`, `follow-up`)."""
        return [e for e in self.evidence if e.kind == kind]


@dataclass(frozen=True)
class GutterLine:
    """One line of the file view: number, text, colour class and the panel that explains it."""

    number: int
    content: str
    css: str
    panel_id: str
    title: str


@dataclass(frozen=True)
class LegendEntry:
    """A colour of the gutter: its class, what it stands for, and how many lines have it."""

    css: str
    label: str
    lines: int


@dataclass
class FileView:
    """A file with its intent gutter: lines, panels, legend, and problems blame reported."""

    path: str
    lines: list[GutterLine]
    panels: dict[str, Panel]
    legend: list[LegendEntry]
    problems: list[str]


def file_view(repo: Repository, path: str) -> FileView:
    """Every line of the work tree file `path` (relative to the root) blamed and grouped into panels.

    Raises BadLocationError for a missing or binary file, and its UnreadableFileError for a FIFO, device, link
    out of the work tree or file over `MAX_FILE_BYTES` (git/worktree.py)."""
    text = read_worktree_file(repo.root, path)
    if text is None:
        raise BadLocationError(f"{path} is not a file in the work tree.")
    count = len(text.splitlines())
    if count == 0:
        return FileView(path=path, lines=[], panels={}, legend=[], problems=[])
    answer = blame_lines(repo, f"{path}:1-{count}", cwd=repo.root)
    panels: dict[str, Panel] = {}
    colours: dict[str, str] = {}
    lines: list[GutterLine] = []
    counts: dict[str, int] = {}
    labels: dict[str, str] = {}
    for line in answer.lines:
        panel = _panel(line, panels, colours)
        lines.append(GutterLine(line.line, line.content, panel.css, panel.panel_id, panel.title))
        counts[panel.css] = counts.get(panel.css, 0) + 1
        labels.setdefault(panel.css, _legend_label(line))
    legend = [LegendEntry(css, labels[css], counts[css]) for css in labels]
    return FileView(path=path, lines=lines, panels=panels, legend=legend, problems=answer.problems)


def _panel(line: LineAnswer, panels: dict[str, Panel], colours: dict[str, str]) -> Panel:
    a = line.attribution
    if line.status == "agent" and a is not None and not names_message(a):  # a trailer's: one panel per commit
        key = f"{a.agent}:{a.method}:{line.commit}"
        css = colours.setdefault(f"{a.agent}:{a.method}", f"s{len(colours) % SESSION_COLOURS}")
        title = f"{a.agent} · {trailer_credit([line.commit] if line.commit else [])}"
    elif line.status == "agent" and a is not None:
        key = f"{a.agent}:{a.session_id}:{a.message_id}"
        css = colours.setdefault(f"{a.agent}:{a.session_id}", f"s{len(colours) % SESSION_COLOURS}")
        title = f"{a.agent} · session {a.session_id[:8]} · message {a.message_id[:8]} · {a.tool}"
    elif line.status == "human":
        key, css, title = f"human:{line.commit}", "person", f"a person: {line.author or 'unknown'}"
    else:
        key, css, title = (
            f"{line.status}:{line.commit}",
            line.status if line.status == "uncommitted" else "unrecorded",
            line.status,
        )
    if key not in panels:
        panels[key] = Panel(
            panel_id=f"p{len(panels)}",
            css=css,
            status=line.status,
            title=title,
            first_line=line.line,
            attribution=a,
            evidence=line.evidence,
            commit=line.commit,
            author=line.author,
            reason=line.reason,
            symbol=line.symbol,
        )
    return panels[key]


def _legend_label(line: LineAnswer) -> str:
    a = line.attribution
    if line.status == "agent" and a is not None and not names_message(a):
        return f"{a.agent} by a commit's {a.method} (no transcript)"
    if line.status == "agent" and a is not None:
        return f"{a.agent} session {a.session_id[:8]}"
    if line.status == "human":
        return "written by a person"
    return "not committed yet" if line.status == "uncommitted" else "unrecorded (no usable note)"


@dataclass(frozen=True)
class DiffLine:
    """One line of an edit's diff on the message page, with its class: `add`, `del`, `hunk`, `head` or
    `ctx`."""

    css: str
    text: str


@dataclass(frozen=True)
class PartView:
    """One part of a message as the message page shows it: a tool call that edited files shows the arguments
    its diffs do not (`text`, None when nothing is left) and one diff per edit."""

    kind: str
    tool: str | None
    is_error: bool
    text: str | None
    diffs: list[list[DiffLine]] = field(default_factory=list)


def message_parts(session: Session, message: Message) -> list[PartView]:
    """The parts of `message` for its page, each edit of a tool call as a unified diff (explain/edit_diff.py),
    the same as `git intent show` prints."""
    from ..explain.edit_diff import call_arguments, call_edits, edit_diff

    edits = call_edits(session, message)
    views: list[PartView] = []
    for part in message.parts:
        made = edits.get(part.call_id or "", []) if part.kind == "tool_call" else []
        text = call_arguments(part.text, made) if made else part.text
        diffs = [[DiffLine(_diff_css(line), line) for line in edit_diff(edit)] for edit in made]
        views.append(PartView(kind=part.kind, tool=part.tool, is_error=part.is_error, text=text, diffs=diffs))
    return views


def _diff_css(line: str) -> str:
    if line.startswith(("--- ", "+++ ")):
        return "head"
    return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "ctx")


@dataclass(frozen=True)
class BarSegment:
    """One topic's part of the session's token bar: start and width in percent of the whole."""

    topic_id: str
    label: str
    css: str
    start: float
    width: float


def topic_bar(rendered: RenderedContext) -> list[BarSegment]:
    """The topic map as consecutive segments of one bar, sized by each topic's share of the tokens."""
    segments: list[BarSegment] = []
    start = 0.0
    for n, entry in enumerate(rendered.topic_map):
        width = max(entry.share * 100, 0.0)
        segments.append(
            BarSegment(
                entry.topic_id, entry.label, f"s{n % SESSION_COLOURS}", round(start, 3), round(width, 3)
            )
        )
        start += width
    return segments
