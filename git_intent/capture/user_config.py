"""A user's own configuration files, edited reversibly: read, shown as a diff, replaced atomically, and what
install changed recorded (`InstallRecord`) so uninstall restores it. What `install --agent` (mcp/register.py)
and `install --editor` (lsp/editors.py) share."""

from __future__ import annotations

import base64
import difflib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..core.errors import IntentError
from ..core.state_files import private_dir, replace_file


def config_diff(path: Path, old: bytes | None, new: bytes | None) -> str:
    """A unified diff (2 lines of context) from `old` to `new` bytes of `path`; None means absent."""
    before = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    after = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(
        before,
        after,
        "/dev/null" if old is None else str(path),
        "/dev/null" if new is None else str(path),
        n=2,
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


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
        replace_file(path, data, path.stat().st_mode & 0o7777 if path.exists() else new_mode)
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


def user_state_file(*parts: str) -> Path:
    """`$XDG_STATE_HOME/git-intent/parts…` (default `~/.local/state`): where install records of user-level
    files live."""
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return state.joinpath("git-intent", *parts)


class InstallRecord:
    """What an install changed in a user's configuration files, so uninstall puts each back byte for byte.

    A JSON object (0600: agent configs may hold other servers' tokens) of entries, each keyed as its caller
    names it (an editor, a file path): `path` the file, `original` its bytes before install (base64; null when
    install created it), `created_dirs` the folders install created for it, `written` the SHA-256 of what
    install wrote. A file changed since install (its digest differs) is not restored: the caller then takes
    out only its own entry. Raises IntentError when the record cannot be read or a file cannot be written.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            value = {}
        except (OSError, ValueError):
            raise IntentError(
                f"{path} cannot be read; it records what install changed.",
                hint="Move it aside to start over (uninstall then removes only git-intent's entries).",
            ) from None
        self.entries: dict[str, dict[str, Any]] = (
            {k: v for k, v in value.items() if isinstance(v, dict)} if (isinstance(value, dict)) else {}
        )

    def file_of(self, key: str) -> Path | None:
        """The file the entry `key` records, when it names one."""
        saved = self.entries.get(key)
        return Path(saved["path"]) if saved and isinstance(saved.get("path"), str) else None

    def write(
        self, key: str, path: Path, current: bytes | None, edited: bytes | None, *, new_mode: int = 0o600
    ) -> None:
        """Write `edited` over `path` (whose bytes are `current`) and record it under `key`, then save the
        record. The bytes before install are kept from an earlier install when the file is still as that
        install left it, so installing twice restores the first state."""
        saved = self.entries.get(key)
        if saved is None or current is None or digest(current) != saved.get("written"):
            saved = {
                "original": base64.b64encode(current).decode() if current is not None else None,
                "created_dirs": [str(p) for p in missing_dirs(path.parent)],
            }
        write_config(path, edited, new_mode=new_mode)
        self.entries[key] = {**saved, "path": str(path), "written": digest(edited or b"")}
        self.save()

    def restore(self, key: str, path: Path, current: bytes | None) -> tuple[bool, bytes | None]:
        """Put `path` back as it was before install when it is still as install left it: the recorded bytes
        written again (a file install created removed, with the folders it created when empty). Returns
        (whether it was restored, the bytes put back or None for removed). The entry is dropped either way."""
        saved = self.entries.pop(key, None)
        if saved is None or current is None or digest(current) != saved.get("written"):
            return False, None
        original = base64.b64decode(saved["original"]) if saved.get("original") is not None else None
        write_config(path, original)
        for folder in saved.get("created_dirs", []):
            remove_if_empty(Path(folder))
        return True, original

    def save(self) -> None:
        """Write the record (0600, whole), or remove it when no entry is left."""
        try:
            if not self.entries:
                self.path.unlink(missing_ok=True)
                return
            private_dir(self.path.parent)
            replace_file(self.path, (json.dumps(self.entries, indent=1) + "\n").encode("utf-8"))
        except OSError as exc:
            raise IntentError(f"{self.path} cannot be written: {exc.strerror}.") from None
