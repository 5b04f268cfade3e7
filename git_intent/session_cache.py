"""Parsed sessions kept between calls: a transcript is parsed once per (file, size, mtime, inode), issue 14.

`git intent blame` on a line of a long real history re-parsed its session's transcript on every call: 68 ms
for a 4.2 MB Claude Code transcript of entireio/cli, against 3.5 ms to load the parsed session back (most of
a transcript's bytes are tool output the parse drops). Two layers:

- a small in-process memo, for the callers that ask about the same sessions again and again (the resident
  process, the MCP server, `review` and `serve`);
- for transcripts of at least `DISK_MIN_BYTES`, one file per transcript in the user's cache folder
  (`${XDG_CACHE_HOME:-~/.cache}/git-intent/sessions/`, folders 0700, files 0600): the transcript itself
  lies in the same user's home, so the parse is no more exposed than its source.

The key is the file's absolute path, size, mtime (ns), inode and device, the agent it was read as, and the
package version, so a grown or replaced transcript and a new parser never meet an old parse. A cache file
that cannot be read is ignored and written again; the folder keeps the `KEEP_FILES` newest. Only plain
`Session`s go to disk (a plug-in's subclass would lose its own fields in JSON).

Callers treat what they get as read-only: the memo hands the same objects to every caller.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from . import __version__
from .models import Session
from .private import open_private, private_dir

DISK_MIN_BYTES = 256 * 1024  # parsing ~0.25 MB costs ~4 ms, about what opening and loading a cache file does
KEEP_FILES = 200
MEMO_ENTRIES = 16
_memo: OrderedDict[str, list[Session]] = OrderedDict()


def cached_sessions(path: Path, agent: str | None, parse: Callable[[], list[Session]]) -> list[Session]:
    """The sessions `parse()` reads from the transcript `path` (read as `agent`, None when sniffed), from
    the memo or the disk cache when the file has not changed since. Raises what `parse` raises (OSError,
    TranscriptError); a cache that cannot be read or written is skipped, never an error."""
    try:
        info = path.stat()
    except OSError:
        return parse()
    # A SQLite store (OpenCode's, Cursor's) holds its newest rows in `<name>-wal` until a checkpoint.
    stamps = [_stamp(info), *(_stamp(os.stat(wal)) for wal in [path.with_name(path.name + "-wal")] if wal.exists())]
    key = hashlib.sha256("\0".join((__version__, str(path.resolve()), agent or "", *stamps)).encode(
        "utf-8", "surrogateescape")).hexdigest()
    if key in _memo:
        _memo.move_to_end(key)
        return list(_memo[key])
    on_disk = info.st_size >= DISK_MIN_BYTES
    sessions = _load(key) if on_disk else None
    if sessions is None:
        sessions = parse()
        if on_disk and all(type(s) is Session for s in sessions):
            _store(key, sessions)
    _memo[key] = sessions
    if len(_memo) > MEMO_ENTRIES:
        _memo.popitem(last=False)
    return list(sessions)


def _stamp(info: os.stat_result) -> str:
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_dev}"


def cache_folder() -> Path:
    """`${XDG_CACHE_HOME:-~/.cache}/git-intent/sessions` (not created here)."""
    return _own_folder() / "sessions"


def _own_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "git-intent"


def _load(key: str) -> list[Session] | None:
    """The sessions stored under `key`, or None when there is no usable file. Format: per session, one line
    of `Session.model_dump_json()` then one line of `[[before, after], ...]` per edit (`Edit.before` and
    `after` are left out of JSON output, and `replay` needs them)."""
    try:
        with (cache_folder() / f"{key}.jsonl").open("rb") as handle:
            lines = handle.read().splitlines()
        if len(lines) % 2:
            return None
        sessions = []
        for session_line, files_line in zip(lines[::2], lines[1::2], strict=True):
            session = Session.model_validate_json(session_line)
            files = json.loads(files_line)
            if len(files) != len(session.edits):
                return None
            session.edits = [edit.model_copy(update={"before": before, "after": after})
                             if before is not None or after is not None else edit
                             for edit, (before, after) in zip(session.edits, files, strict=True)]
            sessions.append(session)
        return sessions
    except (OSError, ValueError, TypeError):  # missing, torn or from elsewhere: parse again
        return None


def _store(key: str, sessions: list[Session]) -> None:
    """Write `sessions` under `key` (whole or not at all: a temporary file renamed), then prune."""
    try:
        folder = private_dir(_own_folder(), "sessions")  # never tightens the user's ~/.cache itself
        temporary = folder / f".{key}.{os.getpid()}.tmp"
        with os.fdopen(open_private(temporary, os.O_WRONLY | os.O_TRUNC | os.O_CREAT | os.O_NOFOLLOW), "wb") as out:
            for session in sessions:
                out.write(session.model_dump_json().encode("utf-8") + b"\n")
                out.write(json.dumps([[e.before, e.after] for e in session.edits]).encode("utf-8") + b"\n")
        os.replace(temporary, folder / f"{key}.jsonl")
        _prune(folder)
    except (OSError, ValueError):  # a full disk or a read-only home: the next call parses again
        return


def _prune(folder: Path) -> None:
    """Keep the `KEEP_FILES` most recently written cache files."""
    entries = []
    for entry in os.scandir(folder):
        if entry.name.endswith(".jsonl"):
            try:
                entries.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
            except OSError:
                continue
    for _, stale in sorted(entries, reverse=True)[KEEP_FILES:]:
        try:
            os.unlink(stale)
        except OSError:
            pass
