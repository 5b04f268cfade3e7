"""Reading OpenCode's stores: the SQLite database (read-only), the older `storage/` JSON tree, and
`opencode export` files, into raw messages for `messages.build_session`."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from ...core.values import ParseStats, Session
from ...transcripts.jsonl import loads
from ...transcripts.sqlite_store import open_read_only, reading, table_columns
from .messages import Meta, Raw, Wanted, as_dict, build_session, dicts, get, int_of, text_of


def open_store(path: Path) -> sqlite3.Connection:
    """A read-only connection that has read the schema (`transcripts.sqlite_store`); raises sqlite3.Error."""
    return open_read_only(path)


def read_schema(conn: sqlite3.Connection) -> dict[str, set[str]] | None:
    """Columns of the tables read, or None when `message`/`part` lack the columns OpenCode writes."""
    tables = table_columns(conn, "session", "message", "part")
    if {"id", "session_id", "data"} <= tables["message"] and {"id", "message_id", "data"} <= tables["part"]:
        return tables
    return None


def db_sessions(path: Path, wanted: Wanted) -> list[Session]:
    """The `wanted` sessions of a SQLite store; raises DamagedTranscriptError when SQLite says it is
    corrupt."""
    found: list[Session] = []
    # Locked, or not readable here: the sessions read so far stand; damaged: said once, the store is skipped.
    with reading(path, "OpenCode"), closing(open_store(path)) as conn:
        schema = read_schema(conn)
        if schema is None:
            return []
        for meta in _db_metas(conn, schema):
            if wanted(meta, None):
                session = build_session(meta, path, _db_messages(conn, schema, meta))
                if wanted(meta, session):
                    found.append(session)
    return found


def _db_metas(conn: sqlite3.Connection, schema: dict[str, set[str]]) -> list[Meta]:
    metas: dict[str, Meta] = {}
    columns = schema["session"]
    if "id" in columns:
        wanted = [
            c for c in ("project_id", "parent_id", "directory", "version", "time_updated") if c in columns
        ]
        order = "time_created, id" if "time_created" in columns else "id"
        for row in conn.execute(f"SELECT {', '.join(['id', *wanted])} FROM session ORDER BY {order}"):
            values = dict(zip(wanted, row[1:], strict=True))
            metas[str(row[0])] = Meta(
                session_id=str(row[0]),
                project_id=text_of(values.get("project_id")),
                parent_id=text_of(values.get("parent_id")),
                directory=text_of(values.get("directory")),
                version=text_of(values.get("version")),
                updated_ms=int_of(values.get("time_updated")),
            )
    # Messages whose session row is missing (an older or partial store) still form a session.
    for (session_id,) in conn.execute("SELECT DISTINCT session_id FROM message ORDER BY session_id"):
        metas.setdefault(str(session_id), Meta(session_id=str(session_id)))
    return list(metas.values())


def _db_messages(conn: sqlite3.Connection, schema: dict[str, set[str]], meta: Meta) -> list[Raw]:
    order = "time_created, id" if "time_created" in schema["message"] else "id"
    rows = conn.execute(
        f"SELECT id, data FROM message WHERE session_id = ? ORDER BY {order}", (meta.session_id,)
    )
    messages = [(str(mid), _decode(data, meta.stats)) for mid, data in rows]
    if "session_id" in schema["part"]:
        part_rows = conn.execute(
            "SELECT message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id",
            (meta.session_id,),
        )
    else:
        part_rows = conn.execute(
            "SELECT part.message_id, part.data FROM part JOIN message ON message.id = part.message_id "
            "WHERE message.session_id = ? ORDER BY part.message_id, part.id",
            (meta.session_id,),
        )
    parts: dict[str, list[dict[str, Any]]] = {}
    for mid, data in part_rows:
        part = _decode(data, meta.stats)
        if part is not None:
            parts.setdefault(str(mid), []).append(part)
    return [(mid, info, parts.get(mid, [])) for mid, info in messages if info is not None]


def _decode(data: Any, stats: ParseStats) -> dict[str, Any] | None:
    try:
        value = loads(data) if isinstance(data, (str, bytes)) else None
    except ValueError:
        value = None
    if isinstance(value, dict):
        stats.records += 1
        return value
    stats.unreadable += 1
    return None


def tree_member(path: Path) -> tuple[Path, str] | None:
    """(storage root, session id) for `session/<project>/<id>.json` or `message/<session>/<id>.json`."""
    if len(path.parents) < 3 or path.parents[1].name not in ("session", "message"):
        return None
    root = path.parents[2]
    if not (root / "message").is_dir() and not (root / "session").is_dir():
        return None
    return (root, path.stem) if path.parents[1].name == "session" else (root, path.parent.name)


def _load(path: Path, stats: ParseStats) -> dict[str, Any] | None:
    try:
        return _decode(path.read_bytes(), stats)
    except OSError:
        stats.unreadable += 1
        return None


def tree_sessions(root: Path, only: str | None, wanted: Wanted) -> list[Session]:
    """The `wanted` sessions of a `storage/` tree at `root` (only the session `only`, when given)."""
    metas: dict[str, Meta] = {}
    for info_path in sorted(root.glob("session/*/*.json")):
        if only is None or info_path.stem == only:
            meta = metas.setdefault(
                info_path.stem, Meta(session_id=info_path.stem, project_id=info_path.parent.name)
            )
            head = _load(info_path, ParseStats()) or {}
            meta.parent_id, meta.directory = text_of(head.get("parentID")), text_of(head.get("directory"))
            meta.version, meta.updated_ms = text_of(head.get("version")), int_of(get(head, "time", "updated"))
    folders = [root / "message" / only] if only is not None else sorted((root / "message").glob("*"))
    for folder in folders:
        if folder.is_dir():
            metas.setdefault(folder.name, Meta(session_id=folder.name))
    found = []
    for meta in metas.values():
        if not wanted(meta, None):
            continue
        raws: list[Raw] = []
        for message_path in sorted((root / "message" / meta.session_id).glob("*.json")):
            info = _load(message_path, meta.stats)
            if info is not None:
                parts = [
                    p
                    for p in (
                        _load(f, meta.stats)
                        for f in sorted((root / "part" / message_path.stem).glob("*.json"))
                    )
                    if p is not None
                ]
                raws.append((message_path.stem, info, parts))
        raws.sort(key=lambda raw: (int_of(get(raw[1], "time", "created")) or 0, raw[0]))
        session = build_session(meta, root / "message" / meta.session_id, raws)
        if wanted(meta, session):
            found.append(session)
    return found


def export_sessions(path: Path, wanted: Wanted) -> list[Session]:
    """The session of an `opencode export` file, when `wanted`."""
    stats = ParseStats()
    try:
        doc = loads(path.read_bytes())
    except ValueError:
        doc = None
    info = doc.get("info") if isinstance(doc, dict) else None
    if not isinstance(info, dict) or not isinstance(info.get("id"), str):
        return []
    meta = Meta(
        session_id=info["id"],
        project_id=text_of(info.get("projectID")),
        parent_id=text_of(info.get("parentID")),
        directory=text_of(info.get("directory")),
        version=text_of(info.get("version")),
        updated_ms=int_of(get(info, "time", "updated")),
        stats=stats,
    )
    raws: list[Raw] = []
    for item in dicts(as_dict(doc).get("messages")):
        message = item.get("info")
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            stats.unreadable += 1
            continue
        parts = dicts(item.get("parts"))
        stats.records += 1 + len(parts)
        raws.append((message["id"], message, parts))
    if not wanted(meta, None):
        return []
    session = build_session(meta, path, raws)
    return [session] if wanted(meta, session) else []
