"""OpenCode sessions (sst/opencode, now anomalyco/opencode): the SQLite store and the older JSON tree.

Where: `$XDG_DATA_HOME/opencode/` (default `~/.local/share/opencode/`), honouring OpenCode's own
`OPENCODE_DB` override (an absolute path, or a name inside that folder); other release channels write
`opencode-<channel>.db` beside `opencode.db`. Three shapes share one message/part schema
(`packages/opencode/src/session/message-v2.ts`):

- `opencode.db` (OpenCode 1.2 and later, since 2026-02): tables `session` (id, project_id, parent_id,
  directory, version, time_*), `message` (id, session_id, time_created, data JSON) and `part` (id,
  message_id, session_id, data JSON). One file holds every session of every project: `read` returns
  them all, `read_project` only those of one repository. Opened read-only (`mode=ro`).
- the `storage/` tree (OpenCode up to 1.1): `session/<projectID>/<sessionID>.json`,
  `message/<sessionID>/<messageID>.json`, `part/<messageID>/<partID>.json`. Given the `storage`
  folder, `read` returns every session in it; given a session or message JSON file, that one session.
- an `opencode export <sessionID>` file: `{"info": session, "messages": [{"info", "parts"}]}`.

A session's project id is its repository's root commit ("global" outside git). Message ids are
OpenCode's own (`msg_…`); times are epoch milliseconds. Parts: text, reasoning and tool
(`state.input`/`output`/`metadata`) are kept; step-start/finish, snapshot, patch, file, agent, retry and
compaction carry nothing to quote. Edits come from completed `edit`, `multiedit`, `write`,
`apply_patch` (and the older `patch`) tool parts: `metadata.filediff.before/after` when present (exact
lines and numbers), else `metadata.diff` / `files[].patch`, a unified diff whose common indentation
OpenCode strips (`trimDiff`) and which is re-indented here from the tool's input, else the input alone; a
`metadata.files` entry of type "move" (`filePath` → `movePath`) is a move edit before its update. Completed
`bash` parts (`{command, workdir?}`, `metadata.exit` 0) go through the shell reader (`transcripts.shell`).
The corpus samples are synthetic (git-ai's fixtures): no real public OpenCode session was found, so
these shapes follow OpenCode's source.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from pathlib import Path

from ...core.values import Session
from ...transcripts.jsonl import written_since
from ...transcripts.sqlite_store import SQLITE_MAGIC, damaged
from .messages import Meta, Wanted
from .store import db_sessions, export_sessions, open_store, read_schema, tree_member, tree_sessions

NAME = "opencode"
MULTI_SESSION = True  # one store holds many sessions: a file name does not say which (discovery.find_session)
_EXPORT_HEAD = re.compile(rb'^\s*\{\s*"info"\s*:\s*\{\s*"id"\s*:\s*"ses_')


def data_dir() -> Path:
    """OpenCode's data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`."""
    env = os.environ.get("XDG_DATA_HOME")
    base = (
        Path(env).expanduser()
        if env and os.path.isabs(os.path.expanduser(env))
        else Path.home() / ".local/share"
    )
    return base / "opencode"


def database_paths() -> list[Path]:
    """`$OPENCODE_DB` when set (relative names live in `data_dir()`), else every `opencode*.db` there."""
    env = os.environ.get("OPENCODE_DB")
    if env and env != ":memory:":
        path = Path(env).expanduser()
        return [path if path.is_absolute() else data_dir() / path]
    try:
        return sorted(p for p in data_dir().glob("opencode*.db") if p.is_file())
    except OSError:
        return []


def locations(root: Path) -> list[str]:
    """Where `discover` looks: the SQLite stores, then the older storage tree (every project's sessions)."""
    stores = [str(p) for p in database_paths()] or [f"{data_dir()}/opencode*.db"]
    return [*stores, f"{data_dir() / 'storage'}/session/*/*.json"]


def discover(root: Path, since: datetime | None = None) -> Iterator[Path]:
    """The SQLite stores written at or after `since` (the `-wal` file counts: OpenCode writes there
    first), then the `storage/` session files written since. The tree is frozen once OpenCode has
    migrated it, but the migration can skip it (anomalyco/opencode#13654; 1.16 dropped it), so both are
    offered; a session in both comes back twice under one id. Membership in `root` is decided later."""
    for store in database_paths():
        if any(written_since([store, store.with_name(store.name + "-wal")], since)):
            yield store
    yield from written_since(sorted((data_dir() / "storage").glob("session/*/*.json")), since)


def sniff(path: Path) -> bool:
    """True for an OpenCode SQLite store (tables `message` and `part` with `data` columns, or a damaged
    database named `opencode*.db`), a `storage` folder, a session or message file inside one, or an
    `opencode export` file."""
    try:
        if path.is_dir():
            return (path / "message").is_dir()
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    if head.startswith(SQLITE_MAGIC):
        try:
            with closing(open_store(path)) as conn:
                return read_schema(conn) is not None
        except sqlite3.Error as exc:
            # A damaged store shows no tables: its name, OpenCode's, says whose it is to report.
            return damaged(exc) and path.name.startswith("opencode")

    if path.suffix != ".json":
        return False
    return bool(_EXPORT_HEAD.match(head)) or (b'"id"' in head and tree_member(path) is not None)


def read(path: Path) -> list[Session]:
    """Every session in `path` (see the module docstring for the shapes). Raises OSError only when a
    file cannot be opened; a database that is not OpenCode's, or not SQLite at all, gives []."""
    return _read(path, lambda _meta, build_session: True)


def read_project(
    path: Path, project_id: str | None = None, root: Path | None = None, since: datetime | None = None
) -> list[Session]:
    """The sessions of `path` whose project id is `project_id` (the repository's root commit) or whose
    directory (else a message's cwd) is `root` or below it, updated at or after `since`. With neither
    `project_id` nor `root`, every session updated since `since`. Only chosen sessions are parsed."""
    roots = {os.path.normpath(str(root)), os.path.realpath(str(root))} if root is not None else set()
    cutoff = int(since.timestamp() * 1000) if since is not None else None

    def wanted(meta: Meta, session: Session | None) -> bool:
        if cutoff is not None and meta.updated_ms is not None and meta.updated_ms < cutoff:
            return False
        if session is not None and cutoff is not None and meta.updated_ms is None:
            end = session.ended_at
            if end is not None and end.timestamp() * 1000 < cutoff:
                return False
        if project_id is None and root is None:
            return True
        if project_id is not None and meta.project_id == project_id:
            return True
        if session is None:
            return meta.directory is None or _under(meta.directory, roots)
        return any(_under(cwd, roots) for cwd in session.cwds)

    return _read(path, wanted)


def _under(directory: str, roots: set[str]) -> bool:
    here = os.path.normpath(directory)
    return any(here == r or here.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _read(path: Path, wanted: Wanted) -> list[Session]:
    if path.is_dir():
        return tree_sessions(path, None, wanted) if (path / "message").is_dir() else []
    with path.open("rb") as handle:  # the only OSError: the file cannot be opened
        head = handle.read(4096)
    if head.startswith(SQLITE_MAGIC):
        return db_sessions(path, wanted)
    if path.suffix != ".json":
        return []
    if _EXPORT_HEAD.match(head):
        return export_sessions(path, wanted)
    member = tree_member(path)
    return tree_sessions(member[0], member[1], wanted) if member else []
