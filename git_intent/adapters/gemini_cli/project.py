"""Where Gemini CLI keeps a project's chats (hash and slug folders under `~/.gemini/tmp`) and which project
root a chat belongs to."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path, PurePath, PurePosixPath
from typing import Any

from ...transcripts.genai import as_dict, parts_of, str_of
from ...transcripts.jsonl import head_records, written_since
from .messages import EDIT_TOOLS, PATH_KEYS

SNIFF_BYTES = 64 * 1024
_HEX = re.compile(r"\A[0-9a-f]{16}(?:[0-9a-f]{48})?\Z")
_ABSOLUTE = re.compile(r"(?<![\w./~-])(/[^\s'\"`:,;()<>\[\]{}]+)")


def gemini_dir() -> Path:
    """`$GEMINI_CLI_HOME/.gemini` (Gemini CLI's home override), else `~/.gemini`."""
    env = os.environ.get("GEMINI_CLI_HOME")
    return (Path(env).expanduser() if env else Path.home()) / ".gemini"


def project_hash(root: PurePath | str) -> str:
    """Gemini CLI's project hash: sha256 of the absolute project root, in hex (early versions kept 16
    digits)."""
    return hashlib.sha256(str(root).encode("utf-8")).hexdigest()


def locations(root: Path) -> list[str]:
    """Where `discover` looks for `root`'s chats, as a path pattern of this machine."""
    return [f"{gemini_dir() / 'tmp'}/<{project_hash(str(root))[:16]}… or the project's slug>/chats/"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """Chat files of sessions started in `root`, in a folder above it, or (slug folders only) below it.

    Folders taken: `sha256(root or an ancestor)` (also its 16-digit prefix), slugs that
    `projects.json` or a `.project_root` marker assign to those paths or to paths below `root`, and
    marker-less folders whose chats record a matching `projectHash`. A legacy `.json` is skipped when
    Gemini migrated it to a `.jsonl` beside it. Files last written before `since` are skipped.
    """
    tmp = gemini_dir() / "tmp"
    if not tmp.is_dir():
        return
    roots = {str(root), str(root.resolve())}
    above = {str(a) for r in roots for a in PurePosixPath(r).parents} | roots
    hashes = {h for p in above for h in (project_hash(p), project_hash(p)[:16])}
    slugs = _registry_slugs(roots, above)
    for folder in sorted(tmp.iterdir()):
        chats = folder / "chats"
        if not chats.is_dir():
            continue
        if folder.name in hashes or folder.name in slugs or _owned(folder, roots, above, hashes, chats):
            yield from written_since(_chat_files(chats), since)


def _registry_slugs(roots: set[str], above: set[str]) -> set[str]:
    try:
        data = json.loads((gemini_dir() / "projects.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    projects = data.get("projects") if isinstance(data, dict) else None
    return {
        slug
        for path, slug in (projects.items() if isinstance(projects, dict) else [])
        if isinstance(slug, str) and isinstance(path, str) and _related(path, roots, above)
    }


def _related(path: str, roots: set[str], above: set[str]) -> bool:
    path = path.rstrip("/") or "/"
    return path in above or any(path.startswith(r.rstrip("/") + "/") for r in roots)


def _owned(folder: Path, roots: set[str], above: set[str], hashes: set[str], chats: Path) -> bool:
    try:
        return _related((folder / ".project_root").read_text(encoding="utf-8").strip(), roots, above)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return False
    if _HEX.match(folder.name):
        return False  # a hash folder belongs to the path it hashes
    for path in sorted(chats.glob("session-*.jsonl"))[:3]:
        heads = head_records(path, limit=1, max_bytes=SNIFF_BYTES)
        if heads and heads[0].get("projectHash") in hashes:
            return True
    return False


def _chat_files(chats: Path) -> list[Path]:
    files = sorted(chats.glob("session-*.jsonl"))
    migrated = {p.with_suffix(".json") for p in files}
    files += [p for p in sorted(chats.glob("session-*.json")) if p not in migrated]
    return files + sorted(chats.glob("*/*.jsonl"))  # subagents: chats/<parent session id>/<id>.jsonl


def project_root(path: Path, meta: dict[str, Any], records: Iterable[dict[str, Any]]) -> str | None:
    """The project root: the slug folder's `.project_root`, else the ancestor of a recorded absolute path
    whose sha256 is `projectHash`, else the absolute path a relative edit path resolved to."""
    project = (
        path.parent.parent
        if path.parent.name == "chats"
        else (path.parent.parent.parent if path.parent.parent.name == "chats" else None)
    )
    if project is not None:
        try:
            marker = (project / ".project_root").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            marker = ""
        if marker:
            return marker
    absolute: list[str] = []
    resolved: list[str] = []
    for record in records:
        calls = record.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                _call_paths(call, absolute, resolved)
    wanted = meta.get("projectHash")
    if isinstance(wanted, str) and wanted:
        for found in absolute:
            for folder in PurePosixPath(found).parents:
                digest = project_hash(folder)
                if digest == wanted or digest[:16] == wanted:
                    return str(folder)
    return resolved[0] if resolved else None


def _call_paths(call: dict[str, Any], absolute: list[str], resolved: list[str]) -> None:
    """Collect absolute paths a call recorded and, for a relative argument path, the cwd it implies."""
    args, display = as_dict(call.get("args")), as_dict(call.get("resultDisplay"))
    seen = [args[k] for k in PATH_KEYS if isinstance(args.get(k), str)]
    here = [p for p in seen if p.startswith("/")]
    if isinstance(display.get("filePath"), str) and display["filePath"].startswith("/"):
        here.append(display["filePath"])
    if str_of(call.get("name")) in EDIT_TOOLS or call.get("name") == "read_file":
        for part in parts_of(call.get("result")):
            here += [m.rstrip(".") for m in _ABSOLUTE.findall(part.text)]
    absolute += here
    for rel in (p for p in seen if not p.startswith("/")):
        tail = "/" + rel.removeprefix("./")
        resolved += [p[: -len(tail)] for p in here if p.endswith(tail) and len(p) > len(tail)]
