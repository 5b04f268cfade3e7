"""Private state: everything under `<git common dir>/intent/` is created 0700 (folders) and 0600 (files).

`index.db` (with its `-wal`/`-shm`) and `hook.log` were created 0644 and held transcript text (a
planted `DB_PASSWORD=` was found in the index), readable by every local user. Files and folders an earlier
version created open to others are tightened when opened: one `stat`, and a `chmod` only when needed; a
state folder found open is tightened whole, once (`tighten_tree`). A file another user owns (a shared
repository) cannot be chmodded by us and is left as it is.

Every file is opened with O_NOFOLLOW (a `worker.pid` or `error.log` planted as a symlink made the
tool truncate or append to its target and chmod it 0600); a link is refused with `LinkedFileError`. A file
replaced whole goes through `replace_file` (a temporary file in the same folder, then `os.replace`, which
replaces a link itself, never its target), and a lock is held with `locked`: every write of state, here and
in the user's config folders, goes through this module.

Standard library only: the hook's fast path (`hook.py`) and the queue use it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, BinaryIO

FILE_MODE = 0o600
DIR_MODE = 0o700
_OPEN_TO_OTHERS = 0o077

APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT
REPLACE = os.O_WRONLY | os.O_TRUNC | os.O_CREAT


class LinkedFileError(OSError):
    """A state file git-intent would write is a symbolic link: refused, nothing written through it. An OSError
    (errno ELOOP), so every caller that survives an unwritable state folder survives this too."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            errno.ELOOP,
            f"{path} is a symbolic link; git-intent writes nothing through a link (remove it and run the "
            f"command again)",
        )
        self.filename = str(path)

    def __str__(self) -> str:
        return f"{self.strerror}."


def private_dir(state: Path, *parts: str) -> Path:
    """`state/parts…`, each level created 0700 or tightened to it. A `state` folder open to others (left
    so by an earlier version) is tightened with everything in it (`tighten_tree`). Missing parents of
    `state` are created 0700 too (`<git dir>/intent` for `<git dir>/intent/agents`; only ever our own
    folders or a missing `~/.local/state`). Returns the deepest folder; raises OSError when one cannot be
    created."""
    try:
        info = os.lstat(state)
        # A link always reads 0777: it says nothing of the folder, and `tighten` never follows one.
        loose = 0 if stat.S_ISLNK(info.st_mode) else info.st_mode & _OPEN_TO_OTHERS
    except FileNotFoundError:
        missing = [state, *(p for p in state.parents if not p.exists())]
        for folder in sorted(missing, key=lambda p: len(p.parts)):
            folder.mkdir(mode=DIR_MODE, exist_ok=True)
        loose = 0
    if loose:
        tighten_tree(state)
    path = state
    for part in parts:
        path = path / part
        path.mkdir(mode=DIR_MODE, exist_ok=True)
        tighten(path)
    return path


def open_private(path: Path, flags: int = APPEND) -> int:
    """A file descriptor on `path` opened with `flags` (`APPEND`, `REPLACE`, or others with O_CREAT): a
    new file is created 0600, an existing one open to others is set to 0600. Never through a symbolic link
    (O_NOFOLLOW). Raises LinkedFileError when `path` is a link, OSError otherwise."""
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW, FILE_MODE)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
            raise LinkedFileError(path) from None
        raise
    try:
        if os.fstat(fd).st_mode & _OPEN_TO_OTHERS:
            os.fchmod(fd, FILE_MODE)
    except OSError:
        pass  # another user's file in a shared repository: theirs to tighten
    return fd


def private_database(path: Path) -> None:
    """Create the SQLite file `path` 0600 before SQLite opens it (never through a link), and tighten its
    `-wal` and `-shm`: SQLite gives its side files the main file's mode, and ours hold transcript text
    (a planted `DB_PASSWORD=` was readable at 0644). Raises OSError."""
    os.close(open_private(path, os.O_RDWR | os.O_CREAT))
    for suffix in ("-wal", "-shm"):
        tighten(path.with_name(path.name + suffix))


def append_text(path: Path) -> IO[str]:
    """`path` opened for appending UTF-8 text, created 0600 (see `open_private`). Raises OSError."""
    return os.fdopen(open_private(path, APPEND), "a", encoding="utf-8")


def lock_file(path: Path) -> IO[str]:
    """`path` opened as `open(path, "a+")` is, for an flock, created 0600. Raises OSError."""
    return os.fdopen(open_private(path, os.O_RDWR | os.O_APPEND | os.O_CREAT), "a+", encoding="utf-8")


def write_text(path: Path, text: str) -> None:
    """Replace the content of `path` with UTF-8 `text`, the file created 0600. Raises OSError."""
    with os.fdopen(open_private(path, REPLACE), "w", encoding="utf-8") as out:
        out.write(text)


def replace_file(path: Path, data: bytes | BinaryIO, mode: int = FILE_MODE, *, fsync: bool = False) -> None:
    """Replace `path` whole with `data` (bytes, or a binary file read to its end): written to a temporary
    file in the same folder (created 0600, then given `mode`), flushed to disk first with `fsync`, and
    renamed over `path`, so a reader sees the old content or the new, never a part, and a link at `path` is
    replaced itself, never written through. The folder must exist. On any failure the temporary file is
    removed (no stray copy of transcript text) and the error raised: OSError for the file system."""
    import shutil  # not at the top: the hook's fast path imports this module and writes no whole file
    import tempfile

    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            if isinstance(data, bytes):
                out.write(data)
            else:
                shutil.copyfileobj(data, out)
            if mode != FILE_MODE:
                os.fchmod(out.fileno(), mode)
            if fsync:
                out.flush()
                os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextmanager
def locked(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold an exclusive flock on `path` (created 0600, never through a link) for the `with` block, which
    gets True; waits for another holder, or with `wait=False` gets False at once while another holds it
    (and holds nothing). Raises OSError (LinkedFileError for a link) when the lock file cannot be opened."""
    with lock_file(path) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def append_error_report(state: Path, heading: str, report: str) -> Path | None:
    """Append a paste-ready bug report to `state/error.log` (0600): `### <UTC time> git-intent <version>
    <heading>`, a blank line, `report` (a traceback). Returns the log's path, or None when it cannot be
    written (a bug report never raises)."""
    from datetime import datetime, timezone

    from .version import __version__

    try:
        path = private_dir(state) / "error.log"
        with append_text(path) as handle:
            handle.write(
                f"### {datetime.now(timezone.utc).isoformat(timespec='seconds')} git-intent {__version__} "
                f"{heading}\n\n{report}\n"
            )
        return path
    except Exception:
        return None


def tighten(path: Path) -> None:
    """Take group and others' access away from `path` (0700 for a folder, 0600 for a file) when they have
    any; never follows a symlink; best effort (a file we do not own stays as it is)."""
    try:
        mode = os.lstat(path).st_mode
        if mode & _OPEN_TO_OTHERS and not stat.S_ISLNK(mode):
            os.chmod(path, DIR_MODE if stat.S_ISDIR(mode) else FILE_MODE)
    except OSError:
        pass


def tighten_tree(root: Path) -> None:
    """`tighten` `root` and everything below it (symlinks are neither followed nor changed)."""
    tighten(root)
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            tighten(Path(folder, name))
