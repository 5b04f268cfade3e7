"""Parsed sessions kept between calls: a transcript is parsed once per (file, size, mtime, inode).

`git intent blame` on a line of a long real history re-parsed its session's transcript on every call: 68 ms
for a 4.2 MB Claude Code transcript of entireio/cli, against 3.5 ms to load the parsed session back (most of
a transcript's bytes are tool output the parse drops). Two layers:

- a small in-process memo, for the callers that ask about the same sessions again and again (the resident
  process, the MCP server, `review` and `serve`);
- for transcripts of at least `DISK_MIN_BYTES`, one pickle per transcript in the user's cache folder
  (`${XDG_CACHE_HOME:-~/.cache}/git-intent/sessions/`, folders 0700, files 0600): the transcript itself
  lies in the same user's home, so the parse is no more exposed than its source. `keep` and `load_kept`
  are the same store for other derived values (explain/symbols.py keeps a file's symbols there).

The key is the file's absolute path, size, mtime (ns), inode and device (and its `-wal`'s), the agent it was
read as, the time zone, the package version and the state of the parser's files, so a grown or replaced
transcript and a changed parser never meet an old parse. Only what depends on the file alone is kept (the
caller's rule: an adapter without `read_project`; OpenCode's stores read other files and are parsed every
time). A cache file that cannot be read is ignored and written again; each folder keeps the most recently
used files, `KEEP_FILES` and `KEEP_BYTES` at most. Only plain `Session`s go to disk (a plug-in's subclass
may not be importable where the cache is read).

Callers treat what they get as read-only: the memo hands the same objects to every caller.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.state_files import private_dir, replace_file
from ..core.values import Session
from ..core.version import __version__

DISK_MIN_BYTES = (
    16 * 1024
)  # loading a pickle costs well under a ms; parsing imports the adapter (~5 ms) first
KEEP_FILES = 200
KEEP_BYTES = 512 * 1024 * 1024
MEMO_ENTRIES = 16
_memo: OrderedDict[str, list[Session]] = OrderedDict()
_memo_lock = threading.Lock()  # `serve` answers in a thread pool
_PACKAGE = Path(__file__).resolve().parents[1]  # git_intent/


def cached_sessions(path: Path, agent: str, parse: Callable[[], list[Session]]) -> list[Session]:
    """The sessions `parse()` reads from the transcript `path` as `agent`'s, from the memo or the disk cache
    when neither the file nor the parser has changed since. The caller keeps only what depends on the file
    alone (an adapter without `read_project`). Raises what `parse` raises (OSError, TranscriptError); a
    cache that cannot be read or written is skipped, never an error."""
    try:
        info = path.stat()
    except OSError:
        return parse()
    stamps = [_stamp(info)]
    # A plug-in's SQLite store holds its newest rows in `<name>-wal` until a checkpoint (no built-in kept here
    # reads one: OpenCode's is never kept); SQLite may remove the file at any moment, so it is looked at once.
    try:
        stamps.append(_stamp(path.with_name(path.name + "-wal").stat()))
    except OSError:
        pass
    # Parsed times are turned into local time by some adapters (Aider's history), so the zone counts too.
    key = hashlib.sha256(
        "\0".join(
            (
                parser_fingerprint(),
                str(path.resolve()),
                agent,
                os.environ.get("TZ", ""),
                str(time.timezone),
                *stamps,
            )
        ).encode("utf-8", "surrogateescape")
    ).hexdigest()
    with _memo_lock:
        found = _memo.get(key)
        if found is not None:
            _memo.move_to_end(key)
            return list(found)
    on_disk = info.st_size >= DISK_MIN_BYTES
    sessions = _load(key) if on_disk else None
    if sessions is None:
        sessions = parse()
        if on_disk and all(type(s) is Session for s in sessions):
            _store(key, sessions)
    with _memo_lock:
        _memo[key] = sessions
        if len(_memo) > MEMO_ENTRIES:
            _memo.popitem(last=False)
    return list(sessions)


@lru_cache(maxsize=1)
def parser_fingerprint() -> str:
    """A digest of the package version and the state of every file that parses a transcript (the adapters,
    the shared readers and the models): a parse kept under another fingerprint is never read (the version
    alone does not change between a developer's edits). This cache and the record cache key on it."""
    files = [
        _PACKAGE / "core" / "values.py",
        *sorted(_PACKAGE.glob("adapters/**/*.py")),
        *sorted(_PACKAGE.glob("transcripts/**/*.py")),
    ]
    state = "\0".join([__version__, *(f"{f}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in files)])
    return hashlib.sha256(state.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _stamp(info: os.stat_result) -> str:
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_dev}"


def cache_folder() -> Path:
    """`${XDG_CACHE_HOME:-~/.cache}/git-intent/sessions` (not created here)."""
    return cache_root() / "sessions"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "git-intent"


def _load(key: str) -> list[Session] | None:
    """The sessions stored under `key`, or None when there is no usable file."""
    sessions = load_kept(cache_folder(), key)
    if not isinstance(sessions, list) or not all(type(s) is Session for s in sessions):
        return None
    return sessions


def _store(key: str, sessions: list[Session]) -> None:
    keep(cache_root(), "sessions", key, sessions)


def load_kept(folder: Path, key: str) -> Any:
    """The value `keep` stored in `folder` under `key`, or None when there is no usable file. Format: a
    pickle (protocol 5: loading a session back through pydantic cost blame its ~100 ms import, pickle loads
    it in C). A pickle runs code when loaded, so only a regular file of this user's, in a folder of this
    user's that no one else may enter, both reached without following a link, is unpickled; the keys hold
    the parser fingerprint (core/values.py included), so a pickle never meets another definition of its
    types."""
    try:
        where = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not _own(os.fstat(where), stat.S_ISDIR):
            return None
        handle = os.open(f"{key}.pickle", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=where)
        with os.fdopen(handle, "rb") as stored:
            if not _own(os.fstat(stored.fileno()), stat.S_ISREG):
                return None  # not written by this user's git-intent: never unpickled
            value = pickle.loads(stored.read())
            os.utime(stored.fileno())  # pruning keeps what was used last, not what was written last
        return value
    except Exception:  # missing, torn or from elsewhere: computed again
        return None
    finally:
        os.close(where)


def _own(info: os.stat_result, kind: Callable[[int], bool]) -> bool:
    """Whether `info` is of `kind`, this user's, and closed to everyone else."""
    return kind(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def keep(base: Path, name: str, key: str, value: Any) -> None:
    """Store `value` under `key` in the private folder `base/name`, whole or not at all: the bytes are built
    first, then written to a 0600 temporary file renamed into place (removed if the write fails: no partial
    transcript text is left); then prune. Never raises: a cache that cannot be written is skipped."""
    try:
        data = pickle.dumps(value, protocol=5)
        folder = private_dir(base, name)  # never tightens the user's ~/.cache itself
    except (OSError, ValueError, pickle.PicklingError):  # a read-only home: computed again next time
        return
    try:
        replace_file(folder / f"{key}.pickle", data)
    except OSError:  # a full disk: the next call computes again
        return
    _prune(folder)


def _prune(folder: Path) -> None:
    """Keep the most recently used cache files, at most `KEEP_FILES` of them and `KEEP_BYTES` in all, and
    remove temporary files a process killed mid-write left (older than an hour)."""
    entries = []
    now = time.time()
    try:
        for entry in os.scandir(folder):
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if entry.name.endswith(".pickle"):
                entries.append((info.st_mtime_ns, info.st_size, entry.path))
            elif entry.name.endswith(".jsonl"):  # an older version's JSON format: never read again
                _unlink(entry.path)
            elif entry.name.endswith(".tmp") and now - info.st_mtime > 3600:
                _unlink(entry.path)
    except OSError:
        return
    total = 0
    for count, (_, size, path) in enumerate(sorted(entries, reverse=True), 1):
        total += size
        if count > KEEP_FILES or total > KEEP_BYTES:
            _unlink(path)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
