"""In-process reads of commits, file contents and notes through pygit2 (libgit2), for commands that look up
thousands of objects (`backfill`): each lookup saves starting a `git` process (~3-6 ms).

Only reads move here. Blame and diffs stay on the git CLI (docs/design.md: libgit2 blame was 9-120x slower and
lacks -M/-C), and so does every note write (libgit2 writes flat note trees and loses notes under
concurrency). Commands that make a handful of lookups (a one-line blame, the hook's worker) keep the plain
`Repository`: importing pygit2 costs more than the few `git` processes it would save
(bench/blame_latency.py, bench/backfill_throughput.py).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from functools import cached_property
from typing import TYPE_CHECKING

from ..core.errors import GitError
from .repo import Repository

if TYPE_CHECKING:
    import pygit2

_SHA = re.compile(r"^[0-9a-f]{40}$")


class InProcessRepository(Repository):
    """A `Repository` whose commit, blob and note reads for full SHAs go through libgit2 in this process;
    anything else (revision names, refs git resolves differently) falls back to the git CLI. Same results
    and errors as `Repository` (GitError for a missing commit or file)."""

    @classmethod
    def of(cls, repo: Repository) -> InProcessRepository:
        """The same repository (root, git dirs) with in-process reads, without asking git again."""
        fast = cls.__new__(cls)
        fast.__dict__.update(repo.__dict__)
        return fast

    @cached_property
    def objects(self) -> pygit2.Repository:
        """The pygit2 repository, opened on first use (importing pygit2 takes ~50 ms)."""
        import pygit2

        return pygit2.Repository(str(self.git_dir))

    def _commit(self, commit: str) -> pygit2.Commit | None:
        import pygit2

        if not _SHA.match(commit):
            return None
        try:
            found = self.objects[commit]
        except (KeyError, ValueError):
            raise GitError(f"{commit!r} does not name a commit in this repository.") from None
        return found if isinstance(found, pygit2.Commit) else None

    def parents(self, commit: str) -> list[str]:
        """The parents of `commit` (40-hex each; empty for a root commit)."""
        found = self._commit(commit)
        return super().parents(commit) if found is None else [str(p) for p in found.parent_ids]

    def commit_time(self, commit: str) -> datetime:
        """Committer time of `commit`, timezone-aware UTC."""
        found = self._commit(commit)
        return (
            super().commit_time(commit)
            if found is None
            else datetime.fromtimestamp(found.commit_time, timezone.utc)
        )

    def commit_times(self, commit: str) -> tuple[datetime, datetime]:
        """(committer time, author time) of `commit`, timezone-aware UTC."""
        found = self._commit(commit)
        if found is None:
            return super().commit_times(commit)
        return (
            datetime.fromtimestamp(found.commit_time, timezone.utc),
            datetime.fromtimestamp(found.author.time, timezone.utc),
        )

    def show_file(self, commit: str, path: str) -> bytes:
        """The bytes of `path` at `commit` (no filters); raises GitError when it is absent or not a file."""
        import pygit2

        found = self._commit(commit)
        if found is None:
            return super().show_file(commit, path)
        try:
            blob = self.objects[found.tree[path].id]
        except (KeyError, ValueError):
            raise GitError(f"{path} does not exist at {commit[:12]}.") from None
        if not isinstance(blob, pygit2.Blob):
            raise GitError(f"{path} does not exist at {commit[:12]}.")
        return blob.data

    def tree_files(self, commit: str) -> frozenset[str]:
        """Paths of the files in `commit`'s tree (blobs, links and submodules), relative to the root with '/'
        separators, as `git ls-tree -r` lists them; kept per tree (backfill maps each commit's edits onto its
        own tree)."""
        import pygit2

        found = self._commit(commit)
        if found is None:
            return super().tree_files(commit)
        trees: dict[str, frozenset[str]] = self.__dict__.setdefault("_tree_files", {})
        key = str(found.tree_id)
        if key not in trees:
            paths: list[str] = []
            stack: list[tuple[str, pygit2.Tree]] = [("", found.tree)]
            while stack:
                prefix, tree = stack.pop()
                for entry in tree:
                    if isinstance(entry, pygit2.Tree):
                        stack.append((f"{prefix}{entry.name}/", entry))
                    else:  # a blob, a link or a submodule, as `git ls-tree -r` lists them
                        paths.append(prefix + (entry.name or ""))
            trees[key] = frozenset(paths)
        return trees[key]

    def note_text(self, ref: str, commit: str) -> str:
        """The text of the note `ref` holds on `commit` ("" when none), as `git notes show` prints it."""
        import pygit2

        if not _SHA.match(commit):
            return super().note_text(ref, commit)
        try:
            note = self.objects.lookup_note(commit, ref)
            blob = self.objects[note.id]
        except (KeyError, ValueError, pygit2.GitError):
            return ""
        return blob.data.decode("utf-8", "replace") if isinstance(blob, pygit2.Blob) else ""
