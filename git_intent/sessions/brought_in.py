"""Chat logs the clone brought in: a transcript inside the work tree that git tracks is someone's commit, not
a record this user's agent kept.

Aider keeps its history in the work tree (`.aider.chat.history.md`), and any transcript or backup copy can be
committed there (`git add -f`). A teammate, or anyone whose branch is merged, can then write a "session" that
names the clone's path and quotes any request they like; read as evidence, it would credit lines by content on
every fresh clone. So the sessions a tracked file holds in its committed form (the index's blob) are not
evidence: a file git tracks unchanged is passed over whole, and of a tracked file this user's agent went on
writing (aider appends), only the sessions the committed form lacks are read. `git intent import` reads a
history on purpose: the file's committed form and the sessions it imports are listed in
`<git common dir>/intent/imported-sessions` (`blob<TAB>id` and `agent<TAB>session id` lines, this clone's
alone) and count as this user's from then on.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..adapters import adapter as named_adapter
from ..core.state_files import append_text, private_dir
from ..git.repo import Repository

__all__ = ["IMPORTED", "BroughtIn", "mark_imported"]

IMPORTED = "imported-sessions"


def mark_imported(repo: Repository, path: Path, sessions: Iterable[tuple[str, str]]) -> None:
    """Note that the transcript at `path` and its (agent, session id) pairs were imported on purpose, so they
    count as evidence although git tracks the file. Raises OSError when the state folder cannot be written."""
    blob = BroughtIn(repo).blob(path)
    rows = [("blob", blob)] if blob else []
    rows += [(agent, session_id) for agent, session_id in sessions]
    lines = "".join(f"{a}\t{b}\n" for a, b in rows if not any(c in a + b for c in "\t\n"))
    if lines:
        with append_text(private_dir(repo.state_dir) / IMPORTED) as out:
            out.write(lines)


class BroughtIn:
    """Which transcripts inside a work tree git tracks, and the session ids their committed forms hold.

    One `git ls-files` per folder asked about (the backup folder and the work tree's root, typically) and one
    `git hash-object` per tracked file; reads nothing for a file outside every work tree.
    """

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._roots = [repo.root.resolve(), *(w.resolve() for w in repo.worktrees)]
        self._listed: dict[Path, dict[Path, str]] = {}
        self._imported: set[tuple[str, str]] | None = None
        self._committed_ids: dict[Path, frozenset[str] | None] = {}  # None: unreadable, so every id

    def tracked(self, path: Path) -> bool:
        """Whether git tracks `path` in one of the repository's work trees."""
        return self.blob(path) is not None

    def whole(self, path: Path) -> bool:
        """True when `path` is a tracked file whose content is byte for byte its committed form: nothing in it
        is this user's agent's, so it need not be read."""
        blob = self.blob(path)
        return (
            blob is not None
            and ("blob", blob) not in self._imported_sessions()
            and (self._content_id(path) == blob)
        )

    def local(self, path: Path, agent: str, session_id: str) -> bool:
        """Whether the session `session_id` of `agent` read from `path` may be this user's agent's: always for
        an untracked file or one outside the work tree, else when the committed form does not hold that id
        (Aider's session id is its start time) or `import` took it on purpose, never when the committed form
        cannot be read."""
        blob = self.blob(path)
        if blob is None or (agent, session_id) in self._imported_sessions():
            return True
        if path not in self._committed_ids:
            self._committed_ids[path] = self._ids_in_blob(agent, path, blob)
        committed = self._committed_ids[path]
        return committed is not None and session_id not in committed

    def _imported_sessions(self) -> set[tuple[str, str]]:
        if self._imported is None:
            try:
                text = (self.repo.state_dir / IMPORTED).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            pairs = (line.split("\t") for line in text.splitlines())
            self._imported = {(p[0], p[1]) for p in pairs if len(p) == 2}
        return self._imported

    def blob(self, path: Path) -> str | None:
        """The index's blob id for `path`, or None when git does not track it (or it lies in no work tree)."""
        try:
            resolved = path.resolve()
        except OSError:
            return None
        for root in self._roots:
            if resolved.is_relative_to(root):
                folder = resolved.parent
                if folder not in self._listed:
                    self._listed[folder] = self._ls_files(root, folder)
                return self._listed[folder].get(resolved)
        return None

    def _ls_files(self, root: Path, folder: Path) -> dict[Path, str]:
        """{absolute path: blob id} of the files the index tracks directly in `folder`."""
        relative = folder.relative_to(root).as_posix()
        spec = "." if relative == "." else relative
        out = self.repo.git("-C", str(root), "ls-files", "-s", "-z", "--", f":(literal){spec}", check=False)
        found: dict[Path, str] = {}
        for entry in out.split("\0"):
            meta, tab, name = entry.partition("\t")
            fields = meta.split()
            if (
                tab
                and len(fields) == 3
                and "/" not in name.removeprefix(relative + "/" if spec != "." else "")
            ):
                found[root / name] = fields[1]
        return found

    def _content_id(self, path: Path) -> str | None:
        out = self.repo.git("hash-object", "--no-filters", "--", str(path), check=False).strip()
        return out or None

    def _ids_in_blob(self, agent: str, path: Path, blob: str) -> frozenset[str] | None:
        """The session ids of the committed form, read by the same agent's adapter from a private copy; None
        when it cannot be read, which hides every session of the file: nothing in it is known to be local."""
        data = next(iter(self.repo.cat_blobs([blob])))[1]
        reader = named_adapter(agent)
        if data is None or reader is None:
            return None
        with tempfile.TemporaryDirectory(prefix="git-intent-committed-") as folder:
            copy = Path(folder) / path.name
            copy.write_bytes(data)
            try:
                return frozenset(s.session_id for s in reader.read(copy))
            except Exception:  # a damaged committed form proves nothing local
                return None
