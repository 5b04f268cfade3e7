"""`git intent import --from specstory [DIR]`: SpecStory histories committed with the code
(`.specstory/history`) become backup copies, and the commits their edits produced are recorded against them.

A history names no commit, so a commit is recorded when one of the histories' edits holding new text was made
in its window (after its parent, minus the look-back, and before it: `config.window_start`) to a file of the
name the commit changes; its lines are then credited as `record` credits them, and a commit none of whose
lines a history's edit wrote is left as it was (no note claims its lines were a person's). Credits name the
agent `specstory`: the conversation is another tool's record that came with the clone, not a session of this
machine's agents (`explain.classify` says "imported from SpecStory"). Idempotent: a copy is replaced only by a
longer history of the same session, and recording is.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..adapters import specstory
from ..capture.progress import Progress
from ..capture.record import record_commit
from ..capture.timeline import WINDOW_SLACK
from ..config import lookback, window_start
from ..core.errors import IntentError, UnreadableFileError
from ..git.repo import Repository
from ..git.worktree import read_worktree_file
from ..sessions.backup import store_transcript, trusted_backup
from ..sessions.path_mapping import file_name

if TYPE_CHECKING:
    from .importers import ImportResult

HISTORY = Path(".specstory") / "history"


@dataclass
class _Kept:
    """A history kept as a backup copy: its file, and its edits holding new text as (time, file name)."""

    path: Path
    edits: list[tuple[datetime, str]]


def import_histories(repo: Repository, folder: Path | None, tick: Progress, result: ImportResult) -> None:
    """Import the SpecStory histories in `folder` (default `<work tree>/.specstory/history`) into `result`.
    Raises IntentError when the folder is missing, holds no SpecStory history, or the backup cannot be
    trusted."""
    folder = folder if folder is not None else repo.root / HISTORY
    if not folder.is_dir():
        raise IntentError(
            f"There is no SpecStory history folder at {folder}.",
            hint="git intent import --from specstory path/to/.specstory/history",
        )
    if trusted_backup(repo) is None:
        raise IntentError(
            f"The backup folder {repo.backup_dir} cannot be trusted (a symbolic link on its way, or "
            "files git tracks in it), and SpecStory histories are imported as copies there."
        )
    kept = _keep_copies(repo, folder, tick, result)
    candidates = _candidate_commits(repo, kept)
    tick.stage("Recording commits", len(candidates))
    uncredited = 0
    for commit in candidates:
        recorded = record_commit(repo, commit, credited_only=True)
        if any(key.startswith(f"{specstory.NAME}:") for key in recorded.sessions):
            result.add(recorded)
        else:
            uncredited += 1
        tick.advance(1)
    if uncredited:
        result.skipped.append(
            f"{uncredited} commit(s) made while a history's edits were recent: none of their "
            "added lines is the text of one of those edits"
        )


def _keep_copies(repo: Repository, folder: Path, tick: Progress, result: ImportResult) -> list[_Kept]:
    """Read every history of `folder`, keep the longest of each session as its backup copy, and say in
    `result.skipped` what was not used."""
    files = sorted(p for p in folder.glob("*.md") if not p.is_dir())
    tick.stage("Reading SpecStory histories", len(files))
    # A history comes with the clone: read as any work tree file (a link out of the tree, a FIFO or a huge
    # file is refused), and, from a folder outside the work tree, as a file of that folder.
    base = repo.root if folder.resolve().is_relative_to(repo.root.resolve()) else folder
    read: dict[str, list[tuple[Path, bytes, specstory.History]]] = {}
    for path in files:
        tick.advance(1)
        try:
            data = read_worktree_file(base, path)
        except UnreadableFileError as exc:
            result.skipped.append(f"{path.name}: {exc}")
            continue
        text = (data or b"").decode("utf-8", errors="replace")
        if not specstory.looks_like(text[:4096]):
            result.skipped.append(f"{path.name}: not a SpecStory history")
            continue
        history = specstory.read_history(path, text)
        if not history.session.messages:
            result.skipped.append(f"{path.name}: holds no message")
            continue
        read.setdefault(history.session.session_id, []).append((path, data or b"", history))
    if not read:
        raise IntentError(f"{folder} holds no SpecStory history (Markdown files SpecStory wrote).")
    kept: list[_Kept] = []
    textless: Counter[str] = Counter()
    for session_id, copies in sorted(read.items()):
        path, data, history = max(copies, key=lambda c: (len(c[1]), c[0].name))
        for other, _, _ in copies:
            if other != path:
                result.skipped.append(
                    f"{other.name}: the session of {path.name}, which is kept (the longest)"
                )
        copy = store_transcript(repo, specstory.NAME, session_id, data, ".md")
        if copy is None:
            result.skipped.append(f"{path.name}: its session id {session_id} cannot name a backup copy")
            continue
        result.sessions += 1
        textless[history.provider or "older SpecStory"] += history.textless
        edits = [(e.timestamp, file_name(e.path)) for e in history.session.edits if e.added and e.timestamp]
        if edits:
            kept.append(_Kept(path, edits))
    for provider, count in sorted(textless.items()):
        if count:
            result.skipped.append(
                f"{count} {provider} edit(s) name their file but not the new text (SpecStory "
                "does not save it): session-level only, no line credited from them"
            )
    return kept


def _candidate_commits(repo: Repository, kept: list[_Kept]) -> list[str]:
    """The commits of HEAD and the branches, oldest first, in whose window one of `kept`'s edits was made to a
    file of a name the commit changes (merges, which change nothing of their own, are left out)."""
    if not kept:
        return []
    out = repo.git(
        "log", "--format=%x00%H %ct %at %P", "--name-only", "--no-renames", "HEAD", "--branches", check=False
    )
    commits: list[tuple[str, datetime, datetime, list[str], set[str]]] = []
    times: dict[str, datetime] = {}
    for entry in out.split("\0")[1:]:
        head, _, names = entry.partition("\n")
        fields = head.split()
        if len(fields) < 3:
            continue
        committed, authored = (datetime.fromtimestamp(int(t), timezone.utc) for t in fields[1:3])
        times[fields[0]] = committed
        commits.append(
            (
                fields[0],
                committed,
                authored,
                fields[3:],
                {file_name(n) for n in names.splitlines() if n.strip()},
            )
        )
    look = lookback(repo)
    edits = sorted((when, name) for history in kept for when, name in history.edits)
    chosen: list[str] = []
    for commit, committed, authored, parents, changed in reversed(commits):
        if len(parents) > 1 or not changed:
            continue
        low = window_start(times.get(parents[0]) if parents else None, committed, authored, look)
        high = committed + WINDOW_SLACK
        if any(low <= when <= high and name in changed for when, name in edits):
            chosen.append(commit)
    return chosen
