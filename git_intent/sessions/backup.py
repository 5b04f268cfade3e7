"""The local backup under `<work tree>/.opencode/intent/`: a journal of every link and session copies.

The copies keep the why answerable after an agent deletes its transcript (Claude Code deletes after 30
days by default). The folder is listed in `.git/info/exclude` so it is never committed; files are 0600.
A copy that fails (a full disk) leaves no temporary file and a marker under `pending/`; the next worker
run (`retry_backups`) makes it and journals it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.state_files import APPEND, REPLACE, open_private, private_dir, replace_file
from ..core.values import Session
from ..git.repo import Repository

EXCLUDE_LINE = "/.opencode/intent/"
SUFFIXES = (".jsonl", ".json", ".md")
# Copied from an agent's own transcript after each record. A Markdown history (`.md`, SpecStory's) is kept
# only by an import (`store_transcript`): Aider's history holds every session of the work tree in one file, so
# a copy of it made for one session would vouch for all of them (sessions/brought_in.py).
COPIED = (".jsonl", ".json")
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$")
# A temporary copy untouched this long was left by a killed process (a live copy writes all the time).
STALE_TMP_SECONDS = 600.0


def ensure_excluded(repo: Repository) -> bool:
    """Add the backup folder to `<common dir>/info/exclude`; True when the file was changed."""
    exclude = repo.common_dir / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    current = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    if EXCLUDE_LINE in current.splitlines():
        return False
    try:  # git's own file, so its mode is left as git made it; never appended through a link
        fd = os.open(exclude, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError:
        if exclude.is_symlink():
            return False
        raise
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(("" if not current or current.endswith("\n") else "\n") + EXCLUDE_LINE + "\n")
    return True


def trusted_backup(repo: Repository) -> Path | None:
    """The backup folder, or None when it cannot be trusted.

    A symlink on the way (`.opencode -> docs`) would send session copies into committed files, and
    files git tracks there could be forged evidence from a clone: either way the backup is not used.
    """
    folder = repo.backup_dir
    for part in (folder.parent, folder, folder / "sessions", *_children(folder / "sessions")):
        if part.is_symlink():
            return None
    if repo.git("ls-files", "--", ".opencode/intent", check=False).strip():
        return None
    return folder


def _children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir()) if folder.is_dir() and not folder.is_symlink() else []
    except OSError:
        return []


def append_journal(repo: Repository, *entries: dict[str, Any]) -> bool:
    """Append one JSON line per entry to `journal.jsonl` (created 0600), in one write; False when the backup
    is not trusted."""
    base = trusted_backup(repo)
    if base is None:
        return False
    ensure_excluded(repo)
    folder = private_dir(base)
    data = "".join(json.dumps(entry, sort_keys=True) + "\n" for entry in entries).encode("utf-8")
    fd = open_private(folder / "journal.jsonl", APPEND | os.O_NOFOLLOW)
    try:
        view = memoryview(data)
        while view:  # O_APPEND: each write lands at the end, whole, even with another writer
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return True


def journal_commits(repo: Repository) -> list[str]:
    """The commits `journal.jsonl` links to sessions, each once, oldest entry first ([] without a trusted
    backup). Lines that are not JSON objects with a 40- or 64-hex `commit` are skipped."""
    base = trusted_backup(repo)
    try:
        lines = (
            (base / "journal.jsonl").read_text(encoding="utf-8", errors="replace").splitlines()
            if base
            else []
        )
    except OSError:
        return []
    commits: dict[str, None] = {}
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        commit = entry.get("commit") if isinstance(entry, dict) else None
        if isinstance(commit, str) and re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", commit):
            commits[commit] = None
    return list(commits)


def session_copy_path(
    repo: Repository, agent: str, session_id: str, suffix: str = ".jsonl", trusted: Path | None = None
) -> Path | None:
    """Where the copy of a session lives (`.jsonl`; `.json` for single-document formats such as legacy Gemini
    CLI sessions; `.md` for an imported SpecStory history): the existing copy of any of those suffixes, else
    the path with `suffix`. None when the id is not a safe file name or the backup is not trusted. `trusted`:
    the folder `trusted_backup` just returned, for a caller copying many sessions."""
    base = trusted or trusted_backup(repo)
    if base is None or not _SAFE_ID.match(session_id) or not _SAFE_ID.match(agent) or suffix not in SUFFIXES:
        return None
    path = base / "sessions" / agent / f"{session_id}{suffix}"
    if path.is_file():
        return path
    others = (path.with_suffix(other) for other in SUFFIXES if other != suffix)
    return next((other for other in others if other.is_file()), path)


def copy_session(
    repo: Repository, session: Session, commit: str | None = None, trusted: Path | None = None
) -> Path | None:
    """Copy the session's transcript into the backup when it is new or has grown; returns the copy.
    Only single-file transcripts are copied (a SQLite store such as OpenCode's is not). When writing the
    copy fails (a full disk), the temporary file is removed, the copy is marked pending for
    `retry_backups` (with `commit`, for its journal entry) and None is returned. `trusted`: the folder
    `trusted_backup` just returned (its check runs `git ls-files`), for a caller copying many sessions."""
    return copy_transcript(repo, session.agent, session.session_id, session.transcript, commit, trusted)


def copy_transcript(
    repo: Repository,
    agent: str,
    session_id: str,
    source: Path,
    commit: str | None = None,
    trusted: Path | None = None,
) -> Path | None:
    """`copy_session` for a session known by its agent, id and transcript path (a `.md` history is not copied:
    `COPIED`; its copy, made by an import, is returned when `source` is that copy)."""
    if source.suffix not in SUFFIXES:
        return None
    dest = session_copy_path(repo, agent, session_id, source.suffix, trusted)
    if dest is None:
        return None
    try:
        if source.resolve() == dest.resolve():
            return dest
        if source.suffix not in COPIED:
            return None
        done = dest.exists() and dest.stat().st_size >= source.stat().st_size
    except OSError:
        return None
    if not done:
        try:
            _write_copy(repo, agent, source, dest)
        except OSError:
            _mark_pending(
                repo, {"agent": agent, "session_id": session_id, "transcript": str(source), "commit": commit}
            )
            return None
    with contextlib.suppress(OSError):
        _pending_path(repo, agent, session_id).unlink(missing_ok=True)
    return dest


def _write_copy(repo: Repository, agent: str, source: Path, dest: Path) -> None:
    """Copy `source` to `dest` through a 0600 temporary file renamed over it. Raises OSError, after
    removing the temporary file: a full disk must not leave transcript text in a stray file."""
    ensure_excluded(repo)
    folder = private_dir(repo.backup_dir, "sessions", agent)
    with source.open("rb") as src:
        replace_file(folder / dest.name, src)


def _pending_path(repo: Repository, agent: str, session_id: str) -> Path:
    return repo.backup_dir / "pending" / agent / f"{session_id}.json"


def _mark_pending(repo: Repository, marker: dict[str, str | None]) -> None:
    """Note that a session copy is still to make (`marker`: agent, session_id, transcript, commit); best
    effort (the disk may still be full: then the next commit of this session copies it)."""
    try:
        folder = private_dir(repo.backup_dir, "pending", str(marker["agent"]))
        fd = open_private(folder / f"{marker['session_id']}.json", REPLACE | os.O_NOFOLLOW)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(marker, out, sort_keys=True)
    except OSError:
        pass


def pending_backups(repo: Repository) -> list[Path]:
    """The markers of session copies still to make (`pending/<agent>/<session id>.json`), in name order."""
    base = trusted_backup(repo)
    return [] if base is None else _markers(base)


def _markers(base: Path) -> list[Path]:
    return sorted((base / "pending").glob("*/*.json"))


def retry_backups(repo: Repository, say: Callable[[str], None] | None = None) -> int:
    """Make the session copies an earlier run could not (a full disk) and journal each with `"retried":
    true`; remove temporary files a killed copy left. A marker whose transcript is gone is dropped (the
    journal keeps its `"backup": null`). Returns the copies made; never raises for a copy."""
    say = say or (lambda _text: None)
    # The usual case, nothing pending and nothing left over, costs two globs: `trusted_backup` starts git.
    if not _markers(repo.backup_dir) and not any((repo.backup_dir / "sessions").glob("*/tmp*.tmp")):
        return 0
    base = trusted_backup(repo)
    if base is None:
        return 0
    _remove_stale_temporaries(base / "sessions")
    entries: list[dict[str, Any]] = []
    for marker in _markers(base):
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
            agent, session_id, transcript = data["agent"], data["session_id"], Path(data["transcript"])
        except (OSError, ValueError, KeyError, TypeError):
            marker.unlink(missing_ok=True)
            continue
        if not transcript.is_file():
            marker.unlink(missing_ok=True)
            say(f"backup of {agent}:{session_id} given up: its transcript {transcript} is gone")
            continue
        copy = copy_transcript(
            repo, str(agent), str(session_id), transcript, data.get("commit"), trusted=base
        )
        if copy is None:
            say(f"backup of {agent}:{session_id} failed again; it stays pending")
            continue
        entries.append(
            {
                "commit": data.get("commit"),
                "agent": agent,
                "session_id": session_id,
                "transcript": str(transcript),
                "backup": str(copy),
                "retried": True,
                "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
            }
        )
    if entries:  # one check of the backup folder (a `git ls-files`) and one append for them all
        append_journal(repo, *entries)
    return len(entries)


def _remove_stale_temporaries(sessions: Path) -> None:
    """Remove `tmp*.tmp` files (transcript text) a killed copy left in `sessions/<agent>/`."""
    now = time.time()
    for tmp in sessions.glob("*/tmp*.tmp"):
        try:
            if now - tmp.lstat().st_mtime > STALE_TMP_SECONDS:
                tmp.unlink()
        except OSError:
            pass


def session_copies(repo: Repository) -> list[tuple[str, Path]]:
    """Every (agent, copy path) in a trusted backup."""
    base = trusted_backup(repo)
    if base is None or not (base / "sessions").is_dir():
        return []
    return [
        (folder.name, path)
        for folder in sorted((base / "sessions").iterdir())
        if folder.is_dir()
        for path in sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES)
    ]


def store_transcript(
    repo: Repository, agent: str, session_id: str, data: bytes, suffix: str = ".jsonl"
) -> Path | None:
    """Keep transcript bytes read from elsewhere (an Entire checkpoint) as the session's backup copy,
    unless a copy at least as long is there; returns the copy, or None when the backup is not trusted."""
    dest = session_copy_path(repo, agent, session_id, suffix)
    if dest is None:
        return None
    if dest.is_file():
        # Only a continuation replaces a copy: another source claiming this session id must not.
        if dest.stat().st_size >= len(data) or not data.startswith(dest.read_bytes()):
            return dest
    ensure_excluded(repo)
    replace_file(private_dir(repo.backup_dir, "sessions", agent) / dest.name, data)
    return dest
