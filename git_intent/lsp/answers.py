"""The language server's resident answers: each file's `git intent blame` kept per HEAD and notes ref, and
one line of an editor's buffer answered through its diff. No pygls here.

A hover after the first costs a `git show-ref`, a stat and a dict look-up (bench/lsp_latency.py); the first
costs a one-line blame while the whole file is blamed in the background. Everything a question cannot be
answered with becomes one sentence (`Unanswered`), never an exception: the editor must never lose its server
over a file.
"""

from __future__ import annotations

import stat
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.errors import IntentError, NotARepositoryError, UnreadableFileError
from ..explain.blame import BlameAnswer, LineAnswer, blame_lines
from ..explain.file_ranges import Range, group_ranges
from ..git.repo import Repository, run_git
from ..git.worktree import read_worktree_file
from ..notes import LEGACY_NOTES_REF, NOTES_REF
from .line_map import LineMap, map_lines, split_lines

MAX_FILES = 64  # whole-file answers kept (least recently used go first): a day's reading, a few MB
MAX_LINES = 4096  # lines answered alone while their file's whole answer was still being computed
# How long a hover waits for its line's own blame before saying it is still being read: on entireio/cli a line
# of a commit without a note took 6.7 s (`git intent blame hooks_test.go:1`: blame matching it by content
# against every transcript of the commit's window); a first answer should come within 1 s.
LINE_BUDGET = 0.8
READING = (
    "git-intent is still reading this repository's sessions for this line (its whole file is being blamed "
    "in the background); hover again in a moment."
)
NOT_INSTALLED = (
    "git-intent has recorded nothing in this repository yet (it has no refs/notes/git-intent): run "
    "`git intent install` and commit, or `git intent backfill` for past commits."
)
NOT_COMMITTED = (
    "This line is not committed yet: the buffer added or changed it since the file was last saved or "
    "committed."
)


@dataclass(frozen=True)
class Unanswered:
    """Why a line has no blame answer, in one sentence."""

    sentence: str


@dataclass
class FileAnswer:
    """`git intent blame PATH` of a whole file, the disk lines it was made from, and its lines by number."""

    repo: Repository
    path: str  # relative to the work tree root, '/'-separated
    answer: BlameAnswer
    disk: list[str]
    by_line: dict[int, LineAnswer] = field(default_factory=dict)
    maps: dict[int, LineMap] = field(default_factory=dict)  # buffer version → its map (the latest only)

    def __post_init__(self) -> None:
        self.by_line = {line.line: line for line in self.answer.lines}

    def line_map(self, buffer: str | None, version: int | None) -> LineMap:
        """The map of the editor's buffer (None: the disk file) onto the lines blamed; one per version."""
        if buffer is None:
            return map_lines(self.disk, self.disk)
        if version is not None and version in self.maps:
            return self.maps[version]
        found = map_lines(self.disk, split_lines(buffer))
        self.maps = {version: found} if version is not None else {}
        return found


class Answers:
    """Answers for every repository the editor opens, cached per (HEAD, notes ref, file on disk).

        A file's whole blame runs on a background thread (on entireio/cli a 907-line file took 22-33 s, nearly
        all of it blame matching the lines of commits without a note by content); until it is there, a hover
        blames its own line alone (one `git blame -L`, one session read; four at a time, so a slow line does
        not hold up the
    others), so the first answer does not wait for the file. `didOpen` starts the whole file's blame.
        Thread-safe: pygls runs code lenses on its thread pool."""

    def __init__(self) -> None:
        self._repos: dict[Path, Repository | None] = {}
        self._files: OrderedDict[tuple[Path, str], tuple[tuple[str, ...], FileAnswer | Unanswered]] = (
            OrderedDict()
        )
        self._jobs: dict[tuple[Path, str, tuple[str, ...]], Future[FileAnswer | Unanswered]] = {}
        self._lines: dict[tuple[Path, str, tuple[str, ...], int], Future[LineAnswer | Unanswered]] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="git-intent-blame")
        self._line_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="git-intent-line")

    def repository(self, folder: Path) -> Repository | None:
        """The repository whose work tree holds `folder`, or None outside any (cached per folder)."""
        with self._lock:
            if folder in self._repos:
                return self._repos[folder]
        try:
            found = Repository(folder) if folder.is_dir() else None
        except NotARepositoryError:
            found = None
        with self._lock:
            self._repos[folder] = found
        return found

    def _locate(self, path: Path) -> tuple[Repository, str, tuple[str, ...]] | Unanswered | None:
        """(repository, path relative to its root, cache key) for `path`; None outside a repository, for no
        such file or a folder, or in a repository without a commit; why not, for a FIFO, device or link out of
        the work tree (`read_worktree_file`'s sentence). The key: HEAD, the notes refs, size, mtime."""
        repo = self.repository(path.parent)
        if repo is None:
            return None
        try:
            info = path.stat()
            resolved = path.resolve()
        except (OSError, RuntimeError):  # gone, or a loop of links (RuntimeError before Python 3.13)
            return None
        if stat.S_ISDIR(info.st_mode):
            return None
        if not stat.S_ISREG(info.st_mode) or not resolved.is_relative_to(repo.root):
            try:
                read_worktree_file(repo.root, path)  # refuses these before reading a byte, and says why
            except UnreadableFileError as exc:
                return Unanswered(str(exc))
            return None
        refs = _refs(repo)
        if refs is None:
            return None
        return (
            repo,
            resolved.relative_to(repo.root).as_posix(),
            (*refs, str(info.st_mtime_ns), str(info.st_size)),
        )

    def file(self, path: Path, *, wait: bool = True) -> FileAnswer | Unanswered | None:
        """The whole-file answer for `path` (absolute); None outside a repository or for no such file, and
        (with `wait` False) while it is still being computed. Recomputed only when the key moved."""
        located = self._locate(path)
        if located is None or isinstance(located, Unanswered):
            return located
        repo, relative, key = located
        if not key[1]:
            return Unanswered(NOT_INSTALLED)
        slot = (repo.root, relative)
        with self._lock:
            cached = self._files.get(slot)
            if cached is not None and cached[0] == key:
                self._files.move_to_end(slot)
                return cached[1]
            job = self._jobs.get((*slot, key))
            if job is None:
                job = self._jobs[(*slot, key)] = self._pool.submit(self._compute, repo, relative, key)
        return job.result() if wait else (job.result() if job.done() else None)

    def _compute(self, repo: Repository, relative: str, key: tuple[str, ...]) -> FileAnswer | Unanswered:
        found = _blame(repo, relative)
        with self._lock:
            self._files[(repo.root, relative)] = (key, found)
            self._files.move_to_end((repo.root, relative))
            while len(self._files) > MAX_FILES:
                self._files.popitem(last=False)
            self._jobs.pop((repo.root, relative, key), None)
        return found

    def line(
        self, path: Path, line: int, buffer: str | None = None, version: int | None = None
    ) -> LineAnswer | Unanswered | None:
        """The answer for buffer line `line` (1-based) of `path`: the blame of the disk line it shows, or
        `NOT_COMMITTED` for a line the buffer added; None outside a repository or past the buffer's end."""
        found = self.file(path, wait=False)
        if isinstance(found, Unanswered):
            return found
        if found is None:
            return self._line_alone(path, line, buffer)
        lines = found.line_map(buffer, version)
        if not 1 <= line <= len(lines.to_disk):
            return None
        disk_line = lines.disk_line(line)
        if disk_line is None:
            return Unanswered(NOT_COMMITTED)
        return found.by_line.get(disk_line)

    def _line_alone(self, path: Path, line: int, buffer: str | None) -> LineAnswer | Unanswered | None:
        """One line blamed alone, while the file's whole answer is computed (cached per key and line)."""
        located = self._locate(path)
        if located is None or isinstance(located, Unanswered):
            return located
        repo, relative, key = located
        try:
            data = read_worktree_file(repo.root, relative)
        except IntentError as exc:  # changed since `_locate`: now too large, or no longer a regular file
            return Unanswered(str(exc))
        if data is None:
            return None
        disk = split_lines(data.decode("utf-8", "replace"))
        lines = map_lines(disk, split_lines(buffer) if buffer is not None else disk)
        if not 1 <= line <= len(lines.to_disk):
            return None
        disk_line = lines.disk_line(line)
        if disk_line is None:
            return Unanswered(NOT_COMMITTED)
        slot = (repo.root, relative, key, disk_line)
        with self._lock:
            if len(self._lines) > MAX_LINES:
                self._lines.clear()
            job = self._lines.get(slot)
            if job is None:
                job = self._lines[slot] = self._line_pool.submit(_blame_line, repo, relative, disk_line)
        try:
            return job.result(timeout=LINE_BUDGET)
        except TimeoutError:
            return Unanswered(READING)

    def ranges(
        self, path: Path, buffer: str | None = None, version: int | None = None
    ) -> list[Range] | Unanswered | None:
        """The buffer's runs of lines with one status and attribution (lines it added are "uncommitted");
        waits for the file's whole answer."""
        found = self.file(path)
        if not isinstance(found, FileAnswer):
            return found
        lines = found.line_map(buffer, version)
        rows: list[LineAnswer] = []
        for number, disk_line in enumerate(lines.to_disk, 1):
            answer = found.by_line.get(disk_line) if disk_line is not None else None
            if answer is not None:
                rows.append(replace(answer, line=number))
            else:
                rows.append(
                    LineAnswer(
                        path=found.path,
                        line=number,
                        content="",
                        commit=None,
                        attribution=None,
                        evidence=[],
                        status="uncommitted",
                        reason=NOT_COMMITTED,
                    )
                )
        return group_ranges(rows)  # buffer line numbers: `rows` are numbered as the buffer's lines


def agent_ranges(ranges: list[Range]) -> list[Range]:
    """The ranges an agent wrote (what code lenses are shown above)."""
    return [r for r in ranges if r.status == "agent" and r.attribution is not None]


def _refs(repo: Repository) -> tuple[str, str] | None:
    """(HEAD, the notes refs) object names: the notes as refs/notes/git-intent's object name, then
    refs/notes/intent's while an earlier version's notes are there ("" for neither); None in a repository
    with no commit yet. One `git show-ref`: the cache key of every answer."""
    proc = run_git(["show-ref", "--head", NOTES_REF, LEGACY_NOTES_REF], repo.root, check=False)
    found: dict[str, str] = {}
    for row in proc.stdout.splitlines():
        oid, _, name = row.partition(" ")
        found[name] = oid
    if "HEAD" not in found:
        return None
    return found["HEAD"], " ".join(found[ref] for ref in (NOTES_REF, LEGACY_NOTES_REF) if ref in found)


def _blame_line(repo: Repository, relative: str, line: int) -> LineAnswer | Unanswered:
    try:
        answer = blame_lines(repo, f"{relative}:{line}", repo.root)
    except IntentError as exc:
        return Unanswered(str(exc))
    return answer.lines[0] if answer.lines else Unanswered(NOT_COMMITTED)


def _blame(repo: Repository, relative: str) -> FileAnswer | Unanswered:
    try:
        answer = blame_lines(repo, relative, repo.root)
        data = read_worktree_file(repo.root, relative)
    except IntentError as exc:  # a binary or unreadable file, a file git cannot blame, a damaged notes ref
        return Unanswered(str(exc))
    disk = split_lines((data or b"").decode("utf-8", "replace"))
    return FileAnswer(repo=repo, path=relative, answer=answer, disk=disk)
