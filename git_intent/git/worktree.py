"""Reading a file of the work tree: only a regular file inside the work tree, and at most `MAX_FILE_BYTES`.

A clone brings in whatever its history commits: a symbolic link to `/dev/zero` made the web view read 2.5 GB
in 2 s and fail with MemoryError, and a FIFO blocks whoever opens it until something writes. Every read of a
work tree file (blame's line count and its untracked fallback, the symbols around a line, the web view's file
page, the language server's disk text) goes through `read_worktree_file`, which resolves the path, refuses
what leads out of the work tree or into `.git`, opens without following a last link and without waiting on a
FIFO, checks the open file is regular, and reads at most the limit. Standard library only.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ..core.errors import UnreadableFileError

__all__ = ["MAX_FILE_BYTES", "read_worktree_file"]

# The largest file read whole. Generous for source (SQLite's amalgamation, one of the largest C files in
# common use, is 9 MB) and still a bounded allocation when a history commits something huge.
MAX_FILE_BYTES = 16 * 1024 * 1024

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_CHUNK = 1 << 20


def read_worktree_file(root: Path, path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """The bytes of `path` (relative to the work tree `root`, or absolute) when it is a regular file inside
    the work tree of at most `limit` bytes (default `MAX_FILE_BYTES`, 16 MiB); None when nothing is there or
    it is a folder.

    Symbolic links inside the work tree are followed as long as they end inside it. Raises UnreadableFileError
    (one sentence naming the path) for a link that leads out of the work tree or into `.git`, a FIFO, device,
    or socket, a file larger than `limit`, and a file the system will not let us open or read."""
    base = root.resolve()
    full = base / path
    shown = full.relative_to(base).as_posix() if full.is_relative_to(base) else str(path)
    try:
        resolved = full.resolve(strict=True)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (RuntimeError, OSError) as exc:  # a loop of links: RuntimeError before Python 3.13, ELOOP after
        raise UnreadableFileError(f"{shown} cannot be read ({_reason(exc)}).") from None
    if not resolved.is_relative_to(base):
        raise UnreadableFileError(
            f"{shown} leads outside the work tree (to {resolved}); only files inside it are read."
        )
    if ".git" in resolved.relative_to(base).parts:
        raise UnreadableFileError(f"{shown} leads into .git, which is not part of the work tree.")
    try:
        mode = os.stat(resolved).st_mode
        if stat.S_ISDIR(mode):
            return None
        _refuse_odd(shown, mode)  # before opening: opening a device can act on it
        # O_NOFOLLOW refuses a last part swapped for a link since `resolve`; with O_NONBLOCK a FIFO swapped in
        # opens at once instead of waiting for a writer, and the check of the open file below refuses it.
        fd = os.open(resolved, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnreadableFileError(f"{shown} cannot be read ({_reason(exc)}).") from None
    try:
        info = os.fstat(fd)
        _refuse_odd(shown, info.st_mode)
        if info.st_size > limit:
            raise UnreadableFileError(_too_large(shown, limit))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # a file growing while it is read stops one byte past the limit
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise UnreadableFileError(f"{shown} cannot be read ({_reason(exc)}).") from None
    finally:
        os.close(fd)
    if size > limit:
        raise UnreadableFileError(_too_large(shown, limit))
    return b"".join(chunks)


def _refuse_odd(shown: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a file")
    raise UnreadableFileError(f"{shown} is not a regular file ({kind}); only regular files are read.")


def _too_large(shown: str, limit: int) -> str:
    amount = f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit:,} bytes"
    return f"{shown} is larger than {amount}, the most git intent reads of a work tree file."


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RuntimeError) or (isinstance(exc, OSError) and exc.errno == errno.ELOOP):
        return "a loop of symbolic links"
    return (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)).lower()
