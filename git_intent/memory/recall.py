"""Asking the memory: what applies to a path or exact lines (`git intent memory PATH[:LINES]`, MCP
`intent_for`), or to a question (MCP `recall`), newest first within a token budget.

An observation applies to PATH when it names PATH (or a folder holding it), or when it concerns the whole
repository and was observed in a session that edited PATH. With LINES, blame names the sessions that wrote
those lines: their observations apply too, and the prompts that asked for the lines come first
(`requests`). Reversed decisions are shown, marked `superseded_by`, beside what reversed them.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.errors import BadLocationError
from ..git.repo import Repository
from ..sessions.prose import estimate_tokens
from .log import log_path, read_log, view
from .reversal import terms
from .share import shared_observations
from .stored import edited_files
from .values import MemoryAnswer, Remembered, Request

DEFAULT_BUDGET = 1000  # tokens (characters / 4)
REQUEST_CHARS = 400
MATCH = 80  # rapidfuzz token_set_ratio a question without a distinctive word must reach


def remembered(repo: Repository) -> list[Remembered]:
    """The log's view with the shared observations: newest first."""
    return view([*read_log(log_path(repo)), *shared_observations(repo)])


def memory_for(
    repo: Repository, location: str | None = None, *, budget: int = DEFAULT_BUDGET, cwd: Path | None = None
) -> MemoryAnswer:
    """What applies to `location` (PATH, PATH:LINE or PATH:START-END relative to `cwd`; None: everything),
    newest first, within `budget` tokens. Raises BadLocationError for lines that do not exist or a path
    outside the repository."""
    shown = remembered(repo)
    if location is None:
        return _within(MemoryAnswer(budget=budget), shown, budget)
    path, lines = _parse(repo, location, cwd or Path.cwd())
    answer = MemoryAnswer(path=path, lines=lines, budget=budget)
    sessions: set[str] = set()
    if lines:
        answer.requests, sessions = _blamed(repo, f"{path}:{lines[0]}-{lines[-1]}")
        answer.sessions = sorted(sessions)
    edited = {sid for sid, files in edited_files(repo).items() if path in files}
    applies = [o for o in shown if _applies(o, path, sessions, edited)]
    spent = sum(estimate_tokens(r.text) + 20 for r in answer.requests)
    return _within(answer, applies, budget - spent)


def recall(repo: Repository, question: str, *, budget: int = DEFAULT_BUDGET) -> MemoryAnswer:
    """What the memory holds on `question`: a path of the repository (or PATH:LINES) is answered as
    `memory_for`; other text matches observations sharing a distinctive word with it (in their text,
    paths or symbols; without such a word, rapidfuzz similarity), newest first."""
    stripped = question.strip()
    head = stripped.rsplit(":", 1)[0] if ":" in stripped else stripped
    if head and " " not in head and (repo.root / head).exists():
        return memory_for(repo, stripped, budget=budget, cwd=repo.root)
    from rapidfuzz import fuzz

    wanted = terms(stripped)
    found = [
        o
        for o in remembered(repo)
        if (
            wanted & terms(" ".join([o.text, *o.paths, *o.symbols]))
            if wanted
            else fuzz.token_set_ratio(stripped.lower(), o.text.lower()) >= MATCH
        )
    ]
    return _within(MemoryAnswer(query=stripped, budget=budget), found, budget)


def intent_for(
    repo: Repository, path: str, line: int, end_line: int | None = None, budget: int = DEFAULT_BUDGET
) -> MemoryAnswer:
    """The requests and observations behind lines `line..end_line` of `path` (relative to the root)."""
    location = f"{path}:{line}" + (f"-{end_line}" if end_line is not None else "")
    return memory_for(repo, location, budget=budget, cwd=repo.root)


def _applies(o: Remembered, path: str, sessions: set[str], edited: set[str]) -> bool:
    cited = {c.split(":", 1)[0] for c in o.citations}
    if not path:
        return True
    if any(
        p == path or path.startswith(p.rstrip("/") + "/") or p.startswith(path.rstrip("/") + "/")
        for p in o.paths
    ):
        return True
    if cited & sessions:
        return True
    return not o.paths and bool(cited & edited)


def _within(answer: MemoryAnswer, shown: list[Remembered], budget: int) -> MemoryAnswer:
    """`answer` with as many of `shown` (in order) as fit in `budget` tokens; the rest counted."""
    spent = 0
    for n, o in enumerate(shown):
        cost = estimate_tokens(o.text) + 10 * len(o.citations) + 15
        if spent + cost > budget:
            answer.left_out = len(shown) - n
            break
        answer.observations.append(o)
        spent += cost
    return answer


def _parse(repo: Repository, location: str, cwd: Path) -> tuple[str, list[int] | None]:
    """`(path relative to the root, lines or None)`; a path need not exist (the memory outlives files)."""
    from ..explain.location import parse_location

    head, _, tail = location.rpartition(":")
    if head and tail.replace("-", "").isdigit():
        where = parse_location(repo, location, cwd)
        return where.path, list(range(where.start, where.end + 1))
    full = Path(os.path.normpath(cwd / location))
    if not full.is_relative_to(repo.root):
        raise BadLocationError(f"{location} lies outside the repository at {repo.root}.")
    rel = full.relative_to(repo.root).as_posix()
    return ("" if rel == "." else rel), None


def _blamed(repo: Repository, location: str) -> tuple[list[Request], set[str]]:
    """The prompts that asked for the lines of `location` (one per message, with its lines) and the
    sessions blame credits them to."""
    from ..explain.blame import blame_lines

    answer = blame_lines(repo, location, cwd=repo.root)
    requests: dict[tuple[str, str], Request] = {}
    sessions: set[str] = set()
    for line in answer.lines:
        if line.attribution is None or not line.attribution.session_id:
            continue
        sessions.add(line.attribution.session_id)
        for evidence in line.evidence:
            if evidence.kind != "request":
                continue
            key = (evidence.session_id, evidence.message_id)
            if key not in requests:
                text = evidence.passage or evidence.text
                requests[key] = Request(
                    session_id=evidence.session_id,
                    message_id=evidence.message_id,
                    text=text[:REQUEST_CHARS],
                    lines=[],
                )
            requests[key].lines.append(line.line)
            break
    return list(requests.values()), sessions
