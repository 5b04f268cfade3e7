"""Answering lines of commits no hook saw (a squash-merge made on a forge, a clone's history): the line is
matched, exactly, against the edits of this repository's sessions still on this machine."""

from __future__ import annotations

from .attribute import MappedEdit, is_trivial
from .catalog import candidate_sessions
from .config import lookback
from .record import mapped_edits
from .repo import Repository

CONTENT_CONFIDENCE = 0.7  # exact text, but no note saw the commit being made


class ContentMatcher:
    """Finds the last edit, made before a commit, that wrote exactly a given non-trivial line."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._index: dict[str, dict[tuple[str, str], MappedEdit]] = {}

    def match(self, commit: str, path: str, text: str) -> MappedEdit | None:
        """The edit that wrote `text` into `path` before `commit`, or None (then nobody knows: no guess)."""
        norm = text.strip()
        if is_trivial(norm):
            return None
        if commit not in self._index:
            self._index[commit] = self._build(commit)
        return self._index[commit].get((path, norm))

    def _build(self, commit: str) -> dict[tuple[str, str], MappedEdit]:
        committed = self.repo.commit_time(commit)
        earliest = committed - lookback(self.repo)
        sessions = candidate_sessions(self.repo, earliest)
        index: dict[tuple[str, str], MappedEdit] = {}
        for mapped in mapped_edits(self.repo, commit, sessions, earliest, None, committed):
            for added in mapped.edit.added:
                index[(mapped.path, added.text.strip())] = mapped  # in order: the last edit wins
        return index
