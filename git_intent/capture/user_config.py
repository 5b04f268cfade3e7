"""A user's own configuration files, edited reversibly: read, shown as a diff, replaced atomically. What
`install --agent` (mcp/register.py) and `install --editor` (lsp/editors.py) share."""

from __future__ import annotations

import difflib
import hashlib
import os
import tempfile
from pathlib import Path

from ..errors import IntentError


def config_diff(path: Path, old: bytes | None, new: bytes | None) -> str:
    """A unified diff (2 lines of context) from `old` to `new` bytes of `path`; None means absent."""
    before = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    after = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, "/dev/null" if old is None else str(path),
                                 "/dev/null" if new is None else str(path), n=2)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def read_config(path: Path) -> bytes | None:
    """The bytes of `path`, or None when it does not exist. Raises IntentError when it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise IntentError(f"{path} cannot be read: {exc.strerror}.") from None


def write_config(path: Path, data: bytes | None, *, new_mode: int = 0o600) -> None:
    """Replace `path` atomically with `data` (a temporary file in the same folder, then a rename: a link is
    replaced, never written through), keeping its mode, or `new_mode` for a new file; None deletes it.
    Raises IntentError when it cannot be written."""
    try:
        if data is None:
            path.unlink(missing_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o7777 if path.exists() else new_mode
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.chmod(temporary, mode)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise IntentError(f"{path} cannot be written: {exc.strerror}.") from None


def missing_dirs(folder: Path) -> list[Path]:
    """The folders from `folder` up that do not exist yet, deepest first: the order to remove them in."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def remove_if_empty(folder: Path) -> None:
    """Remove `folder` when it is empty; anything else leaves it."""
    try:
        folder.rmdir()
    except OSError:
        pass


def digest(data: bytes) -> str:
    """The SHA-256 of `data`, hex: how an install recognises a file it wrote, to restore the one before."""
    return hashlib.sha256(data).hexdigest()
