"""Git plumbing through the git CLI: locating the repository, diffs, blame, file contents and notes.

Blame and note writes use the git CLI on purpose (docs/design.md: pygit2 blame was 9-120x slower and lacks
-M/-C; libgit2 note writes lose notes under concurrency).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path

from ..core.errors import GitError, NotARepositoryError

CAT_BATCH = 1000  # object names per `git cat-file --batch` call
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
# Settings that would change the git output parsed here: quoted paths, signatures in `log`/`show`
# output, colour, and diff prefixes (diff.noprefix, diff.srcPrefix are overridden by --src-prefix below).
PINNED = (
    "-c",
    "core.quotePath=false",
    "-c",
    "log.showSignature=false",
    "-c",
    "color.ui=false",
    "-c",
    "diff.noprefix=false",
    "-c",
    "diff.mnemonicPrefix=false",
)
# The diff `parse_added_hunks` reads: zero context, plain, no external or renamed diffs, a/ and b/ prefixes
# whatever the user's config says (`added_hunks`, and backfill's streamed `git log -p`).
DIFF_OPTIONS = ("-U0", "--no-color", "--no-ext-diff", "--no-renames", "--src-prefix=a/", "--dst-prefix=b/")


def run_git(
    args: list[str],
    cwd: Path,
    *,
    input_text: str | None = None,
    check: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `git ARGS` in `cwd` and return the completed process (output decoded as UTF-8, errors replaced).

    Output is read as bytes and decoded without newline translation: text mode's universal newlines
    would turn a CR inside a line (a file with bare CRs or CR-only endings) into a line break and shift
    every line count parsed from it. Raises GitError with git's own message when
    `check` is true and git exits non-zero.
    """
    raw = subprocess.run(
        ["git", *args],
        cwd=cwd,
        input=None if input_text is None else input_text.encode("utf-8"),
        capture_output=True,
        env=env,
    )
    proc = subprocess.CompletedProcess(
        raw.args, raw.returncode, raw.stdout.decode("utf-8", "replace"), raw.stderr.decode("utf-8", "replace")
    )
    if check and proc.returncode != 0:
        message = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
        message = message.removeprefix("fatal: ").removeprefix("error: ").rstrip(".")
        command = next(
            (a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "-c")), ""
        )
        raise GitError(f"git {command} failed: {message}.")
    return proc


@dataclass(frozen=True)
class Hunk:
    """Lines a commit added to one file: `start` is 1-based in the new file; `lines` the added text."""

    path: str
    start: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class BlameLine:
    """One line of `git blame --porcelain`: the commit, and where the line sits in that commit."""

    commit: str | None
    orig_path: str
    orig_line: int
    final_line: int
    content: str
    author: str | None
    author_time: datetime | None
    previous: tuple[str, str] | None = None  # (parent commit, path there): porcelain's `previous` line


class Repository:
    """A git work tree located from any directory inside it.

    Raises NotARepositoryError when `start` is not inside a git work tree (bare repositories included).
    """

    def __init__(self, start: Path | None = None) -> None:
        start = (start or Path.cwd()).resolve()
        proc = run_git(["rev-parse", "--show-toplevel", "--git-common-dir", "--git-dir"], start, check=False)
        if proc.returncode != 0 or len(proc.stdout.splitlines()) < 3:
            if run_git(["rev-parse", "--is-bare-repository"], start, check=False).stdout.strip() == "true":
                raise NotARepositoryError(
                    f"{start} is a bare repository; git-intent needs a work tree.",
                    hint="Run it in a clone with a work tree.",
                )
            raise NotARepositoryError(
                f"{start} is not inside a git work tree.", hint="Run git intent from inside a git repository."
            )
        top, common, gitdir = proc.stdout.splitlines()[:3]
        self.root = Path(top).resolve()
        self.common_dir = (start / common).resolve()
        self.git_dir = (start / gitdir).resolve()

    def git(self, *args: str, input_text: str | None = None, check: bool = True) -> str:
        """Stdout of `git ARGS` run at the work tree root; raises GitError on failure when `check`.

        User settings that change the output parsed here are pinned (`PINNED`)."""
        return run_git([*PINNED, *args], self.root, input_text=input_text, check=check).stdout

    def succeeds(self, *args: str) -> bool:
        """Whether `git ARGS` exits 0 (for commands whose failure is an answer, like a lost update-ref
        race)."""
        return run_git([*PINNED, *args], self.root, check=False).returncode == 0

    @property
    def state_dir(self) -> Path:
        """`<git common dir>/intent`: derived state shared by linked worktrees (index, logs, locks)."""
        return self.common_dir / "intent"

    @property
    def backup_dir(self) -> Path:
        """`<work tree root>/.opencode/intent`: the local backup of links and session copies."""
        return self.root / ".opencode" / "intent"

    def tree_files(self, commit: str) -> frozenset[str]:
        """Paths of the files in `commit`'s tree, relative to the root with '/' separators."""
        out = self.git("ls-tree", "-r", "-z", "--name-only", commit)
        return frozenset(p for p in out.split("\0") if p)

    @cached_property
    def worktrees(self) -> list[Path]:
        """The other work trees of this repository (`git worktree list`), not including this one."""
        out = self.git("worktree", "list", "--porcelain", check=False)
        trees = [Path(line[len("worktree ") :]) for line in out.splitlines() if line.startswith("worktree ")]
        return [t for t in trees if t.resolve() != self.root]

    def resolve(self, rev: str) -> str:
        """The 40-hex commit a revision names; raises GitError when it names no commit."""
        # --end-of-options here and below: a revision such as `--output=FILE` is never read as an option.
        proc = run_git(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
            self.root,
            check=False,
        )
        if proc.returncode != 0:
            raise GitError(f"{rev!r} does not name a commit in this repository.")
        return proc.stdout.strip()

    def parents(self, commit: str) -> list[str]:
        """The parents of `commit` (40-hex each; empty for a root commit)."""
        return self.git("rev-list", "--parents", "-n", "1", "--end-of-options", commit).split()[1:]

    def commit_time(self, commit: str) -> datetime:
        """Committer time of `commit`, timezone-aware UTC."""
        stamp = self.git("show", "-s", "--format=%ct", "--end-of-options", commit).strip()
        return datetime.fromtimestamp(int(stamp), timezone.utc)

    def commit_times(self, commit: str) -> tuple[datetime, datetime]:
        """(committer time, author time) of `commit`, timezone-aware UTC, from one `git show` (a rebase or an
        amend keeps the author time, the committer time moves)."""
        committed, authored = self.git("show", "-s", "--format=%ct %at", "--end-of-options", commit).split()
        return (
            datetime.fromtimestamp(int(committed), timezone.utc),
            datetime.fromtimestamp(int(authored), timezone.utc),
        )

    def added_hunks(self, commit: str, parents: Sequence[str] | None = None) -> list[Hunk]:
        """Lines `commit` added against its first parent (the empty tree for a root commit); `parents` when
        the caller has read them already.

        For a merge, only lines new against every parent count (what the merge itself wrote, such as
        conflict resolutions), so a merge never re-credits the merged branch's lines.
        """
        bases = list(self.parents(commit) if parents is None else parents) or [EMPTY_TREE]
        return new_against_all([self._diff_added(parent, commit) for parent in bases])

    def _diff_added(self, base: str, commit: str) -> list[Hunk]:
        out = self.git("diff", *DIFF_OPTIONS, "--end-of-options", base, commit)
        return parse_added_hunks(out)

    def blame(
        self,
        path: str,
        start: int | None = None,
        end: int | None = None,
        *,
        contents: Path | None = None,
        moves: bool = False,
        rev: str | None = None,
        ranges: Sequence[tuple[int, int]] = (),
    ) -> list[BlameLine]:
        """`git blame --porcelain` of `path`: the work tree file (uncommitted lines get commit None), or the
        file at `rev`; lines `start..end` (1-based, inclusive) and/or each of `ranges`, or the whole file.

        Plain blame follows each line to the commit whose diff added it; `moves` adds `-M -C` (git's move
        and copy detection, which may credit a line to an older commit where the same text stood).
        Raises GitError when git cannot blame it (no such path or revision, a line past the end)."""
        if rev is not None and rev.startswith(
            "-"
        ):  # git blame (2.39) has no --end-of-options: never an option
            raise GitError(f"{rev!r} does not name a commit in this repository.")
        args = ["blame", "--porcelain", *(["-M", "-C"] if moves else [])]
        spans = [*([(start, end if end is not None else start)] if start is not None else []), *ranges]
        for low, high in spans:
            args += ["-L", f"{low},{high}"]
        if contents is not None:
            args += ["--contents", str(contents)]
        # Bytes, not text: universal newlines would split a line holding a bare CR.
        proc = subprocess.run(
            ["git", *PINNED, *args, *([rev] if rev else []), "--", path], cwd=self.root, capture_output=True
        )
        if proc.returncode != 0:
            message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            reason = (
                (message[-1] if message else f"exit {proc.returncode}").removeprefix("fatal: ").rstrip(".")
            )
            raise GitError(f"git blame failed: {reason}.")
        return parse_porcelain(proc.stdout)

    def is_tracked(self, path: str) -> bool:
        """Whether `path` (relative to the root) is in the index."""
        return run_git(["ls-files", "--error-unmatch", "--", path], self.root, check=False).returncode == 0

    def file_lines(self, commit: str, path: str) -> list[str]:
        """The lines of `path` at `commit` (UTF-8, errors replaced; split on "\\n" as diffs are), [] when
        absent. Cached per repository object: notes are checked and carried range by range."""
        key = (commit, path)
        cache: dict[tuple[str, str], list[str]] = self.__dict__.setdefault("_file_lines", {})
        if key not in cache:
            try:
                cache[key] = self.show_file(commit, path).decode("utf-8", "replace").split("\n")
            except GitError:
                cache[key] = []
        return cache[key]

    def files_lines(self, commit: str, paths: Sequence[str]) -> dict[str, list[str]]:
        """The lines of each of `paths` that `commit` holds (as `file_lines` splits them), read in one `git
        cat-file
        --batch` per thousand paths (a note may name many files); not cached, so an import's memory stays one
        commit's files."""
        wanted = [p for p in dict.fromkeys(paths) if "\n" not in p]
        return {
            path: data.decode("utf-8", "replace").split("\n")
            for path, (_, data) in zip(wanted, self.cat_blobs([f"{commit}:{p}" for p in wanted]), strict=True)
            if data is not None
        }

    def cat_blobs(self, object_names: Sequence[str]) -> Iterator[tuple[str, bytes | None]]:
        """(name, bytes) for each object name (a SHA or `rev:path`) through `git cat-file --batch`, in order;
        bytes is None when the object is missing or not a blob."""
        for start in range(0, len(object_names), CAT_BATCH):
            names = list(object_names[start : start + CAT_BATCH])
            if any("\n" in name for name in names):
                raise ValueError("object names cannot contain newlines")
            proc = subprocess.run(
                ["git", "cat-file", "--batch"],
                cwd=self.root,
                capture_output=True,
                input="".join(f"{name}\n" for name in names).encode("utf-8"),
            )
            out, pos = proc.stdout, 0
            for name in names:
                newline = out.find(b"\n", pos)
                header = out[pos:newline].split() if newline >= 0 else []
                if len(header) != 3 or not header[2].isdigit():
                    pos = newline + 1 if newline >= 0 else len(out)
                    yield name, None
                    continue
                size = int(header[2])
                data = out[newline + 1 : newline + 1 + size]
                pos = newline + 1 + size + 1
                yield name, data if header[1] == b"blob" and len(data) == size else None

    def note_text(self, ref: str, commit: str) -> str:
        """The text of the note `ref` holds on `commit` ("" when none)."""
        return self.git("notes", "--ref", ref, "show", "--end-of-options", commit, check=False)

    def show_file(self, commit: str, path: str) -> bytes:
        """The bytes of `path` at `commit` (no filters, no textconv); raises GitError when it is absent."""
        proc = subprocess.run(
            ["git", "cat-file", "blob", "--end-of-options", f"{commit}:{path}"],
            cwd=self.root,
            capture_output=True,
        )
        if proc.returncode != 0:
            raise GitError(f"{path} does not exist at {commit[:12]}.")
        return proc.stdout


def parse_added_hunks(diff: str) -> list[Hunk]:
    """Parse `git diff -U0` output into the added lines of each hunk.

    With -U0 a hunk body is exactly its old plus new line counts, so body lines that look like
    headers (`+++ x` for an added `++ x`) are read as body; `\\ No newline at end of file` is not counted
    (it follows a body line). Lines are split on "\n" only: a CRLF line keeps its "\r".
    """
    hunks: list[Hunk] = []
    path: str | None = None
    start = body = 0
    lines: list[str] = []

    def flush() -> None:
        if path is not None and lines:
            hunks.append(Hunk(path, start, tuple(lines)))
        lines.clear()

    for raw in diff.split("\n"):
        if raw.startswith("\\"):
            continue  # "\ No newline at end of file": a marker, not a line of the hunk
        if body > 0:
            body -= 1
            if raw.startswith("+") and path is not None:
                lines.append(raw[1:])
        elif raw.startswith("+++ "):
            flush()
            target = _unquote(raw[4:].removesuffix("\t"))
            path = None if target == "/dev/null" else target[2:]
        elif raw.startswith("@@ "):
            flush()
            old, new = raw.split(" ")[1:3]  # -start[,count] +start[,count]
            start = int(new[1:].split(",")[0])
            body = sum(int(f.split(",")[1]) if "," in f else 1 for f in (old, new))
        elif raw.startswith("diff --git"):
            flush()
            path = None
    flush()
    return hunks


def new_against_all(per_parent: Sequence[list[Hunk]]) -> list[Hunk]:
    """The lines new against every parent: the first parent's added hunks (`per_parent[0]`, one list of hunks
    per parent in parent order) split into runs of the lines that every other parent's diff also adds, at the
    same path and line number. One parent: its hunks as they are. Raises IndexError on an empty sequence."""
    hunks = per_parent[0]
    for other in per_parent[1:]:
        hunks = _restrict(hunks, {(h.path, h.start + i) for h in other for i in range(len(h.lines))})
    return hunks


def _restrict(hunks: list[Hunk], keep: set[tuple[str, int]]) -> list[Hunk]:
    """Split `hunks` into runs of the lines whose (path, line) is in `keep`."""
    result: list[Hunk] = []
    for hunk in hunks:
        run: list[str] = []
        start = hunk.start
        for i, text in enumerate([*hunk.lines, None]):
            if text is not None and (hunk.path, hunk.start + i) in keep:
                if not run:
                    start = hunk.start + i
                run.append(text)
            elif run:
                result.append(Hunk(hunk.path, start, tuple(run)))
                run = []
    return result


_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _unquote(path: str) -> str:
    """A path as git prints it (C-quoted when it holds `"`, `\\`, a control character or, with
    core.quotePath, bytes above 0x7f) as the path itself. git's quote.c: `\\NNN` is one byte in octal (of
    the name's UTF-8), `\\t`-style escapes a control character, anything else stands for its own UTF-8
    (`a"€.py` crashed the latin-1 decoding this replaced). Invalid UTF-8 is replaced."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    out = bytearray()
    body, i = path[1:-1], 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            escape = body[i + 1]
            if escape in "0123" and i + 3 < len(body) and all(c in "01234567" for c in body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            if escape in _C_ESCAPES:
                out.append(_C_ESCAPES[escape])
                i += 2
                continue
        out += char.encode("utf-8", "surrogatepass")
        i += 1
    return out.decode("utf-8", "replace")


def parse_porcelain(data: bytes | str) -> list[BlameLine]:
    """Parse `git blame --porcelain` output by its own framing; the all-zero commit (not committed yet)
    becomes None.

    Format (git-blame(1), "THE PORCELAIN FORMAT"): per line a header `SHA ORIG FINAL [COUNT]`, the commit's
    `key value` lines the first time that commit appears, then the line itself after one TAB. Only LF ends
    a porcelain line: a CR inside the content stays in `content` (bytes decoded as UTF-8, errors replaced).
    """
    if isinstance(data, str):  # already decoded (run_git keeps a CR inside a line as it is)
        data = data.encode("utf-8")
    result: list[BlameLine] = []
    info: dict[str, dict[str, str]] = {}
    rows = data.split(b"\n")
    index = 0
    while index < len(rows):
        header = rows[index]
        index += 1
        if not header:
            continue
        fields = header.split(b" ")
        sha = fields[0].decode("ascii", "replace")
        orig, final = int(fields[1]), int(fields[2])
        meta = info.setdefault(sha, {})
        while index < len(rows) and not rows[index].startswith(b"\t"):
            key, _, value = rows[index].partition(b" ")
            meta[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
            index += 1
        if index >= len(rows):
            break  # a truncated record: no content line
        content = rows[index][1:].decode("utf-8", "replace")
        index += 1
        when = meta.get("author-time")
        previous = meta.get("previous", "").partition(" ")
        result.append(
            BlameLine(
                commit=None if set(sha) == {"0"} else sha,
                orig_path=_unquote(meta.get("filename", "")),
                orig_line=orig,
                final_line=final,
                content=content,
                author=meta.get("author"),
                author_time=datetime.fromtimestamp(int(when), timezone.utc)
                if when and when.isdigit()
                else None,
                previous=(previous[0], _unquote(previous[2])) if previous[2] else None,
            )
        )
    return result
