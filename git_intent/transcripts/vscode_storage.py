"""Where VS Code and the editors built on it keep an extension's files: each flavour's user folder on Linux,
macOS and Windows, an extension's `globalStorage/<publisher.name>/`, and the `workspaceStorage/<hash>/`
folders of the workspaces that opened a given work tree (each names its folder in `workspace.json`).

User folders: `$XDG_CONFIG_HOME/<flavour>/User` (default `~/.config`) on Linux, `~/Library/Application
Support/<flavour>/User` on macOS, `%APPDATA%\\<flavour>\\User` on Windows, and
`$VSCODE_PORTABLE/user-data/User` for a portable install; flavours: Code, Code - Insiders, VSCodium, Cursor,
Windsurf (Cline and Roo Code run in all of them). Reads only small JSON files; never raises for a missing or
odd folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlparse

__all__ = [
    "FLAVOURS",
    "file_uri_path",
    "global_storage",
    "user_dirs",
    "workspace_folder",
    "workspace_storage",
]

FLAVOURS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")


def user_dirs() -> list[Path]:
    """Every flavour's `User` folder this machine may have, in the order listed above (whether or not it
    exists)."""
    bases: list[Path] = []
    xdg = os.environ.get("XDG_CONFIG_HOME")
    bases.append(Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config")
    bases.append(Path.home() / "Library" / "Application Support")
    if os.environ.get("APPDATA"):
        bases.append(Path(os.environ["APPDATA"]))
    found = [base / flavour / "User" for base in bases for flavour in FLAVOURS]
    portable = os.environ.get("VSCODE_PORTABLE")
    if portable:
        found.insert(0, Path(portable) / "user-data" / "User")
    return found


def global_storage(extension: str) -> list[Path]:
    """`<User>/globalStorage/<extension>` of every flavour that has it (`extension` is `publisher.name`, lower
    case as VS Code writes it)."""
    return [folder for user in user_dirs() if (folder := user / "globalStorage" / extension).is_dir()]


def workspace_storage(root: Path) -> Iterator[Path]:
    """The `workspaceStorage/<hash>` folders, in every flavour, of workspaces whose folder is `root`, holds
    it or lies inside it; a multi-root workspace (a `.code-workspace` file) or one whose folder is unknown
    is kept too (over-selecting is fine: what is read from it must still name the work tree)."""
    here = _resolved(root)
    for user in user_dirs():
        storage = user / "workspaceStorage"
        try:
            folders = sorted(p for p in storage.iterdir() if p.is_dir())
        except OSError:
            continue
        for folder in folders:
            opened = workspace_folder(folder)
            if opened is None or here is None or _related(Path(opened), here):
                yield folder


def workspace_folder(folder: Path) -> str | None:
    """The local folder a `workspaceStorage/<hash>` folder belongs to (`workspace.json`'s `file://`
    folder), or None when it names none (a multi-root workspace, a remote one, no file)."""
    try:
        data = json.loads((folder / "workspace.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    uri = data.get("folder") if isinstance(data, dict) else None
    return file_uri_path(uri)


def file_uri_path(uri: object) -> str | None:
    """The local path of a `file://` URI (`file:///c%3A/x` is `c:/x`), or None for anything else."""
    if not isinstance(uri, str) or not uri.startswith("file://"):
        return None
    path = unquote(urlparse(uri).path)
    return path[1:] if len(path) > 2 and path[0] == "/" and path[2] == ":" else path


def _related(opened: Path, here: Path) -> bool:
    there = _resolved(opened)
    return there is None or there == here or here in there.parents or there in here.parents


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None
