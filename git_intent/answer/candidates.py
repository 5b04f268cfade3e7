"""Finding what a question is about: sessions and lines, from the index and from the code it names.

A question ("why does fetch_json retry 3 times?") is searched in the session index as `git intent search`
searches it (the same words, the same ranking), and the identifiers and paths it names are resolved in the
work tree: `git grep` finds the lines, blame credits them to sessions; an identifier no longer in the tree is
looked up with `git log -S` and the notes of the commits that added or removed it. Sessions come in the order
of their best search hit, then re-ranked by the code they wrote that the question names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ..core import linear
from ..core.errors import IntentError
from ..explain.blame import LineAnswer, blame_lines
from ..git.repo import Repository
from ..index.search import Hit
from ..notes import read_note

MAX_IDENTIFIERS = 3
LINES_PER_IDENTIFIER = 2
SEARCH_LIMIT = 30
LINE_WEIGHT = 2.0  # a line the question's identifier names, credited to a session
LOG_WEIGHT = 1.0
FILE_WEIGHT = 1.0  # a session whose messages matching the question touch the file it names (not --path)
# A line of code the question quotes (`…`) found in the files asked about: the session whose edit wrote it is
# the answer (`ask "Why does PATH have the line `…`?" --path PATH` cited the edit's turn first in
# 0.62-0.70 of lines when the line was searched as words).
QUOTED_LINE_WEIGHT = 100.0  # more than any sum of named lines
LINES_PER_QUOTE = 3
_STOP = frozenset(
    """a an and are as at be been but by can could did do does doing done for from had has have how
i in into is it its me my of on or our should so than that the their them then there these they this those to
us was we were what when where which who whom why will with would you your about after before any all also
just only over under up very user users want wanted agent asked exist exists happen happened reason
line lines code""".split()
)
_BACKTICK = re.compile(r"`([^`\n]{1,80})`")
_CODE_SPAN = re.compile(r"`([^`\n]{8,400})`")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\(?")
# RE2 (`linear`): under `re` a run of word characters with no dot was scanned again from each of its
# characters.
_FILENAME = linear.compile(rf"[{linear.WORD}-]+(?:\.[{linear.WORD}-]+)*\.[A-Za-z0-9]{{1,8}}")
_DEFINITION = (
    r"(?:def|func|function|class|const|let|var|fn|type|struct|interface)\s+{name}\b|\b{name}\s*(?::=|=[^=]|:)"
)


@dataclass
class Candidate:
    """A session that may answer the question: its search hits (in search's order), the blamed lines it wrote
    and the weight of those lines (and of commits naming the question's identifiers); `rank` is the place of
    its best hit in the search (None without hits)."""

    agent: str
    session_id: str
    score: float = 0.0
    hits: list[Hit] = field(default_factory=list)
    lines: list[LineAnswer] = field(default_factory=list)
    rank: int | None = None


@dataclass
class Found:
    """What `find_candidates` found: sessions best first, every line blamed, and what was looked at."""

    candidates: list[Candidate]
    lines: list[LineAnswer]
    identifiers: list[str]
    paths: list[str]
    searched: str


def query_text(question: str) -> str:
    """The question's content words (no stop words, no punctuation-only words), for the index."""
    words = [w for w in re.findall(r"[\w./-]+", question) if w.lower().strip("./-") not in _STOP]
    return " ".join(words) or question


def identifiers(question: str) -> list[str]:
    """Names of code in the question: `backticked` spans, and words with `_`, an inner capital, a dot or a
    call's `(` (fetch_json, fetchJson, api.get, retry()), in order of appearance."""
    found = [m.group(1).strip().removesuffix("()") for m in _BACKTICK.finditer(question)]
    for match in _WORD.finditer(_BACKTICK.sub(" ", question)):
        word = match.group(0)
        bare = word.rstrip("(")
        if word.endswith("(") or "_" in bare.strip("_") or "." in bare or re.search(r"[a-z][A-Z]", bare):
            found.append(bare)
    return list(dict.fromkeys(w for w in found if w))


def named_paths(question: str, files: list[str]) -> list[str]:
    """Tracked files or folders the question names (`src/app.py`, `app.py`, `src/cache/`), matched by
    path suffix against `files`."""
    out: list[str] = []
    for token in re.findall(r"[\w./-]+", question):
        token = token.strip(".,;:!?").removeprefix("./").rstrip("/")
        if not token or ("/" not in token and not _FILENAME.fullmatch(token)):
            continue
        if any(under(f, token) for f in files):
            out.append(token)
    return list(dict.fromkeys(out))


def find_candidates(
    repo: Repository, question: str, *, path: str | None = None, since: datetime | None = None
) -> Found:
    """Sessions and lines for `question`, limited to `path` (a file or folder) and to messages at or after
    `since`. Brings the index up to date first. Never raises on the question's content."""
    from ..index import ingest
    from ..index.search import search

    ingest(repo)
    files = repo.git("ls-files", "-z").split("\0")
    paths = list(dict.fromkeys(([path] if path else []) + named_paths(question, files)))
    single = [p for p in paths if p in files or any(f.endswith("/" + p) for f in files)]
    asked = path if path in single else None
    # The question as typed, as `git intent search` ranks it; its content words alone only when that finds
    # nothing (dropping words reorders the hits: the question itself and its answer fell out of the top).
    query, hits = question, []
    for query in dict.fromkeys((question, query_text(question))):
        hits = search(repo, query, since=since, file=asked, limit=SEARCH_LIMIT)
        if hits:
            break
    named = next((p for p in single if p != asked), None)
    touching = search(repo, query, since=since, file=named, limit=SEARCH_LIMIT) if named and not asked else []
    quoted = quoted_lines(question)
    names = [n for n in identifiers(question) if n not in paths and n not in quoted][:MAX_IDENTIFIERS]
    by_session: dict[tuple[str, str], Candidate] = {}

    def candidate(agent: str, session_id: str) -> Candidate:
        return by_session.setdefault((agent, session_id), Candidate(agent=agent, session_id=session_id))

    for rank, hit in enumerate(hits + [h for h in touching if h not in hits]):
        found = candidate(hit.agent, hit.session_id)
        found.hits.append(hit)
        found.rank = rank if found.rank is None else found.rank
    for key in dict.fromkeys((hit.agent, hit.session_id) for hit in touching):
        by_session[key].score += FILE_WEIGHT
    lines: list[LineAnswer] = []

    def credit(located: list[str], weight: float) -> None:
        """Blame each `PATH:LINE` located; a session that wrote one gains `weight`."""
        for where in located:
            try:
                answer = blame_lines(repo, where, cwd=repo.root)
            except IntentError:
                continue
            for line in answer.lines:
                lines.append(line)
                if line.attribution is not None and line.attribution.session_id and _recent(line, since):
                    found = candidate(line.attribution.agent, line.attribution.session_id)
                    found.lines.append(line)
                    found.score += weight

    credit([w for text in quoted for w in _grep_line(repo, text, paths)], QUOTED_LINE_WEIGHT)
    for name in names:
        located = _grep(repo, name, paths)
        if not located:
            for agent, session_id in _log_sessions(repo, name):
                candidate(agent, session_id).score += LOG_WEIGHT
        credit(located, LINE_WEIGHT)
    # Search's order first; the code the question names re-ranks it (a session that wrote a quoted line wins).
    ranked = sorted(by_session.values(), key=lambda c: (-c.score, c.rank is None, c.rank or 0, c.session_id))
    return Found(candidates=ranked, lines=lines, identifiers=names, paths=paths, searched=query)


def quoted_lines(question: str) -> list[str]:
    """Code the question quotes in backticks that is more than a name: a line or a piece of one (it holds a
    space or punctuation), stripped."""
    spans = [m.group(1).strip() for m in _CODE_SPAN.finditer(question)]
    return list(dict.fromkeys(s for s in spans if not re.fullmatch(r"[\w.]+\(?\)?", s)))


def _grep_line(repo: Repository, text: str, paths: list[str]) -> list[str]:
    """`PATH:LINE` of up to LINES_PER_QUOTE tracked lines holding `text` exactly, in `paths` when given."""
    out = repo.git("grep", "-n", "-I", "-F", "-e", text, "--", *(paths or ["."]), check=False)
    found = []
    for row in out.splitlines():
        file, _, rest = row.partition(":")
        number = rest.partition(":")[0]
        if number.isdigit() and (repo.root / file).is_file():
            found.append(f"{file}:{number}")
        if len(found) == LINES_PER_QUOTE:
            break
    return found


def _grep(repo: Repository, name: str, paths: list[str]) -> list[str]:
    """`PATH:LINE` of up to LINES_PER_IDENTIFIER lines naming `name`, definitions first."""
    leaf = name.rsplit(".", 1)[-1]
    out = repo.git("grep", "-n", "-I", "-F", "-w", "-e", leaf, check=False)
    found: list[tuple[bool, str]] = []
    definition = re.compile(_DEFINITION.format(name=re.escape(leaf)))
    for row in out.splitlines()[:2000]:
        file, _, rest = row.partition(":")
        number, _, text = rest.partition(":")
        if paths and not any(under(file, p) for p in paths):
            continue
        if number.isdigit() and (repo.root / file).is_file():
            found.append((not definition.search(text), f"{file}:{number}"))
    return [where for _, where in sorted(found, key=lambda f: f[0])[:LINES_PER_IDENTIFIER]]


def _log_sessions(repo: Repository, name: str) -> list[tuple[str, str]]:
    """Sessions credited by the notes of the last commits that added or removed `name` (`git log -S`, over
    the whole history: the file may have been renamed or deleted since)."""
    commits = repo.git("log", f"-S{name}", "--format=%H", "-n", "5", check=False).split()
    out: list[tuple[str, str]] = []
    for commit in commits:
        try:
            note = read_note(repo, commit)
        except IntentError:
            continue
        for record in note.records if note else []:
            if record.kind == "session" and record.agent and record.session_id:
                out.append((record.agent, record.session_id))
    return list(dict.fromkeys(out))


def under(file: str, path: str) -> bool:
    """Whether work-tree `file` is `path`, ends with `/path`, or lies in folder `path`."""
    path = path.strip("/")
    return file == path or file.endswith("/" + path) or file.startswith(path + "/")


def touches(recorded: str, path: str) -> bool:
    """Whether a path as a transcript recorded it (often absolute, from another machine) is file `path`
    or lies in folder `path` of the work tree, compared by '/'-bounded suffix."""
    recorded = "/" + recorded.replace("\\", "/").lstrip("/")
    path = path.strip("/")
    return recorded.endswith("/" + path) or f"/{path}/" in recorded


def _recent(line: LineAnswer, since: datetime | None) -> bool:
    if since is None or line.authored_at is None:
        return True
    since = since if since.tzinfo else since.replace(tzinfo=timezone.utc)
    return line.authored_at >= since


def relative(repo: Repository, path: str | None, cwd: Path | None) -> str | None:
    """`path` (given relative to `cwd`) relative to the work tree root, '/'-separated; None stays None."""
    if path is None:
        return None
    full = ((cwd or Path.cwd()) / path).resolve()
    if not full.is_relative_to(repo.root):
        from ..core.errors import BadLocationError

        raise BadLocationError(f"{path} lies outside the repository at {repo.root}.")
    return full.relative_to(repo.root).as_posix() or None
