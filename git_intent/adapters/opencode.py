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
OpenCode strips (`trimDiff`) and which is re-indented here from the tool's input, else the input alone.
The corpus samples are synthetic (git-ai's fixtures): no real public OpenCode session was found, so
these shapes follow OpenCode's source.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import DamagedTranscriptError
from ..models import AddedLine, Edit, Message, ParseStats, Part, Session, parse_timestamp
from ..transcripts.jsonl import loads, one_record, written_since
from ..transcripts.patches import FilePatch, parse_apply_patch, text_diff_added, unified_diff_added

NAME = "opencode"
MULTI_SESSION = True  # one store holds many sessions: a file name does not say which (catalog.find_session)
EDIT_TOOLS = frozenset({"edit", "multiedit", "write", "apply_patch", "patch"})
_QUIET_PARTS = frozenset({"step-start", "step-finish", "snapshot", "patch", "file", "agent", "retry", "compaction"})
_SQLITE_MAGIC = b"SQLite format 3\x00"
_EXPORT_HEAD = re.compile(rb'^\s*\{\s*"info"\s*:\s*\{\s*"id"\s*:\s*"ses_')
_KINDS = {"add": "create", "delete": "delete"}


@dataclass
class _Meta:
    """What is known of a session before its messages are read."""

    session_id: str
    project_id: str | None = None
    parent_id: str | None = None
    directory: str | None = None
    version: str | None = None
    updated_ms: int | None = None
    stats: ParseStats = field(default_factory=ParseStats)


Wanted = Callable[[_Meta, Session | None], bool]
_Raw = tuple[str, dict[str, Any], list[dict[str, Any]]]  # message id, message info, its parts


def data_dir() -> Path:
    """OpenCode's data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`."""
    env = os.environ.get("XDG_DATA_HOME")
    base = Path(env).expanduser() if env and os.path.isabs(os.path.expanduser(env)) else Path.home() / ".local/share"
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
    """True for an OpenCode SQLite store (tables `message` and `part` with `data` columns), a `storage`
    folder, a session or message file inside one, or an `opencode export` file."""
    try:
        if path.is_dir():
            return (path / "message").is_dir()
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    if head.startswith(_SQLITE_MAGIC):
        try:
            with closing(_open(path)) as conn:
                return _schema(conn) is not None
        except sqlite3.Error as exc:
            return _damaged(exc)  # only this adapter reads SQLite: a damaged file is its to report

    if path.suffix != ".json":
        return False
    return bool(_EXPORT_HEAD.match(head)) or (b'"id"' in head and _tree_member(path) is not None)


def read(path: Path) -> list[Session]:
    """Every session in `path` (see the module docstring for the shapes). Raises OSError only when a
    file cannot be opened; a database that is not OpenCode's, or not SQLite at all, gives []."""
    return _read(path, lambda _meta, _session: True)


def read_project(path: Path, project_id: str | None = None, root: Path | None = None,
                 since: datetime | None = None) -> list[Session]:
    """The sessions of `path` whose project id is `project_id` (the repository's root commit) or whose
    directory (else a message's cwd) is `root` or below it, updated at or after `since`. With neither
    `project_id` nor `root`, every session updated since `since`. Only chosen sessions are parsed."""
    roots = {os.path.normpath(str(root)), os.path.realpath(str(root))} if root is not None else set()
    cutoff = int(since.timestamp() * 1000) if since is not None else None

    def wanted(meta: _Meta, session: Session | None) -> bool:
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
        return _tree_sessions(path, None, wanted) if (path / "message").is_dir() else []
    with path.open("rb") as handle:  # the only OSError: the file cannot be opened
        head = handle.read(4096)
    if head.startswith(_SQLITE_MAGIC):
        return _db_sessions(path, wanted)
    if path.suffix != ".json":
        return []
    if _EXPORT_HEAD.match(head):
        return _export_sessions(path, wanted)
    member = _tree_member(path)
    return _tree_sessions(member[0], member[1], wanted) if member else []


# --- SQLite ------------------------------------------------------------------------------------------


def _open(path: Path) -> sqlite3.Connection:
    """A read-only connection that has read the schema; raises sqlite3.Error."""
    conn = None
    try:
        conn = _connect(path)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError:
        # A WAL store in a folder we may not write has no -shm to share: read the main file as it is.
        if conn is not None:
            conn.close()
        return _connect(path, immutable=True)


def _connect(path: Path, immutable: bool = False) -> sqlite3.Connection:
    """A read-only connection; adapters never write (the URI `mode=ro` makes SQLite refuse to)."""
    uri = path.resolve().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")
    conn = sqlite3.connect(uri, uri=True, timeout=1.0)
    conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
    return conn


def _schema(conn: sqlite3.Connection) -> dict[str, set[str]] | None:
    """Columns of the tables read, or None when `message`/`part` lack the columns OpenCode writes."""
    tables = {t: {str(r[1]) for r in conn.execute(f"PRAGMA table_info({t})")} for t in ("session", "message", "part")}
    if {"id", "session_id", "data"} <= tables["message"] and {"id", "message_id", "data"} <= tables["part"]:
        return tables
    return None


def _db_sessions(path: Path, wanted: Wanted) -> list[Session]:
    found: list[Session] = []
    try:
        with closing(_open(path)) as conn:
            schema = _schema(conn)
            if schema is None:
                return []
            for meta in _db_metas(conn, schema):
                if wanted(meta, None):
                    session = _session(meta, path, _db_messages(conn, schema, meta))
                    if wanted(meta, session):
                        found.append(session)
    except sqlite3.Error as exc:
        if not _damaged(exc):
            return found  # locked, or not readable here: the sessions read so far stand
        # Damaged (a torn copy, a bad disk): said once, never a crash; the caller skips the store.
        raise DamagedTranscriptError(f"The OpenCode store {path} is damaged ({exc}); its sessions are skipped.",
                              hint="`sqlite3 FILE .recover` may save what it holds.") from exc
    return found


def _damaged(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file is corrupt or not a database (not merely locked or unreadable)."""
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _db_metas(conn: sqlite3.Connection, schema: dict[str, set[str]]) -> list[_Meta]:
    metas: dict[str, _Meta] = {}
    columns = schema["session"]
    if "id" in columns:
        wanted = [c for c in ("project_id", "parent_id", "directory", "version", "time_updated") if c in columns]
        order = "time_created, id" if "time_created" in columns else "id"
        for row in conn.execute(f"SELECT {', '.join(['id', *wanted])} FROM session ORDER BY {order}"):
            values = dict(zip(wanted, row[1:], strict=True))
            metas[str(row[0])] = _Meta(
                session_id=str(row[0]), project_id=_text(values.get("project_id")),
                parent_id=_text(values.get("parent_id")), directory=_text(values.get("directory")),
                version=_text(values.get("version")), updated_ms=_int(values.get("time_updated")))
    # Messages whose session row is missing (an older or partial store) still form a session.
    for (session_id,) in conn.execute("SELECT DISTINCT session_id FROM message ORDER BY session_id"):
        metas.setdefault(str(session_id), _Meta(session_id=str(session_id)))
    return list(metas.values())


def _db_messages(conn: sqlite3.Connection, schema: dict[str, set[str]], meta: _Meta) -> list[_Raw]:
    order = "time_created, id" if "time_created" in schema["message"] else "id"
    rows = conn.execute(f"SELECT id, data FROM message WHERE session_id = ? ORDER BY {order}", (meta.session_id,))
    messages = [(str(mid), _decode(data, meta.stats)) for mid, data in rows]
    if "session_id" in schema["part"]:
        part_rows = conn.execute("SELECT message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id",
                                 (meta.session_id,))
    else:
        part_rows = conn.execute("SELECT part.message_id, part.data FROM part JOIN message ON message.id = "
                                 "part.message_id WHERE message.session_id = ? ORDER BY part.message_id, part.id",
                                 (meta.session_id,))
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


# --- the storage/ tree and export files ----------------------------------------------------------------


def _tree_member(path: Path) -> tuple[Path, str] | None:
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


def _tree_sessions(root: Path, only: str | None, wanted: Wanted) -> list[Session]:
    metas: dict[str, _Meta] = {}
    for info_path in sorted(root.glob("session/*/*.json")):
        if only is None or info_path.stem == only:
            meta = metas.setdefault(info_path.stem, _Meta(session_id=info_path.stem, project_id=info_path.parent.name))
            head = _load(info_path, ParseStats()) or {}
            meta.parent_id, meta.directory = _text(head.get("parentID")), _text(head.get("directory"))
            meta.version, meta.updated_ms = _text(head.get("version")), _int(_get(head, "time", "updated"))
    folders = [root / "message" / only] if only is not None else sorted((root / "message").glob("*"))
    for folder in folders:
        if folder.is_dir():
            metas.setdefault(folder.name, _Meta(session_id=folder.name))
    found = []
    for meta in metas.values():
        if not wanted(meta, None):
            continue
        raws: list[_Raw] = []
        for message_path in sorted((root / "message" / meta.session_id).glob("*.json")):
            info = _load(message_path, meta.stats)
            if info is not None:
                parts = [p for p in (_load(f, meta.stats) for f in sorted((root / "part" / message_path.stem).glob(
                    "*.json"))) if p is not None]
                raws.append((message_path.stem, info, parts))
        raws.sort(key=lambda raw: (_int(_get(raw[1], "time", "created")) or 0, raw[0]))
        session = _session(meta, root / "message" / meta.session_id, raws)
        if wanted(meta, session):
            found.append(session)
    return found


def _export_sessions(path: Path, wanted: Wanted) -> list[Session]:
    stats = ParseStats()
    try:
        doc = loads(path.read_bytes())
    except ValueError:
        doc = None
    info = doc.get("info") if isinstance(doc, dict) else None
    if not isinstance(info, dict) or not isinstance(info.get("id"), str):
        return []
    meta = _Meta(session_id=info["id"], project_id=_text(info.get("projectID")), parent_id=_text(info.get("parentID")),
                 directory=_text(info.get("directory")), version=_text(info.get("version")),
                 updated_ms=_int(_get(info, "time", "updated")), stats=stats)
    raws: list[_Raw] = []
    for item in _dicts(_dict(doc).get("messages")):
        message = item.get("info")
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            stats.unreadable += 1
            continue
        parts = _dicts(item.get("parts"))
        stats.records += 1 + len(parts)
        raws.append((message["id"], message, parts))
    if not wanted(meta, None):
        return []
    session = _session(meta, path, raws)
    return [session] if wanted(meta, session) else []


# --- messages and edits ----------------------------------------------------------------------------------


def _session(meta: _Meta, transcript: Path, raws: Iterable[_Raw]) -> Session:
    cwds = [meta.directory] if meta.directory else []
    messages: list[Message] = []
    edits: list[Edit] = []
    for message_id, info, parts in raws:
        cwd = _text(_get(info, "path", "cwd"))
        if cwd and cwd not in cwds:
            cwds.append(cwd)
        with one_record(meta.stats):
            message = _message(message_id.replace(":", "_"), info, parts, meta.stats, edits)
            if message is not None:
                messages.append(message)
    return Session(agent="opencode", session_id=meta.session_id, transcript=transcript,
                   cwd=cwds[0] if cwds else None, cwds=cwds, parent_session_id=meta.parent_id,
                   agent_version=meta.version, messages=messages, edits=edits, stats=meta.stats)


def _message(message_id: str, info: dict[str, Any], raw_parts: list[dict[str, Any]], stats: ParseStats,
             edits: list[Edit]) -> Message | None:
    role = info.get("role")
    if role not in ("user", "assistant"):
        stats.unknown(f"role:{role}")
        return None
    when = _ms(_get(info, "time", "created"))
    parts: list[Part] = []
    typed = compaction = False
    for raw in raw_parts:
        kind = _text(raw.get("type"))
        text = raw.get("text") if isinstance(raw.get("text"), str) else ""
        if kind == "text" and text:
            parts.append(Part(kind="text", text=text))
            typed = typed or (not raw.get("synthetic") and not raw.get("ignored") and bool(text.strip()))
        elif kind == "reasoning" and text:
            parts.append(Part(kind="reasoning", text=text))
        elif kind == "subtask" and isinstance(raw.get("prompt"), str):
            parts.append(Part(kind="text", text=raw["prompt"]))
        elif kind == "tool":
            parts += _tool(raw, message_id, when, edits)
        elif kind == "compaction":
            compaction = True
        elif kind not in _QUIET_PARTS and kind not in ("text", "reasoning", "subtask"):
            stats.unknown(str(kind))
    if not parts:
        return None
    return Message(message_id=message_id, role=role, timestamp=when, parts=tuple(parts),
                   is_prompt=role == "user" and typed and not compaction,
                   is_summary=role == "assistant" and info.get("summary") is True)


def _tool(raw: dict[str, Any], message_id: str, when: datetime | None, edits: list[Edit]) -> list[Part]:
    name, call_id = str(raw.get("tool") or ""), _text(raw.get("callID"))
    state = _dict(raw.get("state"))
    args = _dict(state.get("input"))
    parts = [Part(kind="tool_call", tool=name, call_id=call_id, text=json.dumps(args))]
    status = state.get("status")
    if status in ("completed", "error"):
        output = state.get("output") if status == "completed" else state.get("error")
        parts.append(Part(kind="tool_result", tool=name, call_id=call_id, is_error=status == "error",
                          text=output if isinstance(output, str) else "" if output is None else json.dumps(output)))
    if status == "completed" and name in EDIT_TOOLS:
        stamp = _ms(_get(state, "time", "end")) or when
        edits += _edits(name, args, _dict(state.get("metadata")), message_id, call_id, stamp)
    return parts


def _edits(name: str, args: dict[str, Any], meta: dict[str, Any], message_id: str, call_id: str | None,
           when: datetime | None) -> list[Edit]:
    common: dict[str, Any] = {"tool": name, "message_id": message_id, "call_id": call_id, "timestamp": when}
    if name == "multiedit":
        # metadata.results[i] is the `edit` metadata of edits[i]; an entry's own filePath wins.
        results = _dicts(meta.get("results"))
        found = [_replace({"filePath": args.get("filePath"), **pair}, results[i] if i < len(results) else {}, common)
                 for i, pair in enumerate(_dicts(args.get("edits")))]
        return [e for e in found if e is not None]
    if name in ("apply_patch", "patch"):
        return _patches(args, meta, common)
    edit = _write(args, meta, common) if name == "write" else _replace(args, meta, common)
    return [edit] if edit is not None else []


def _replace(args: dict[str, Any], meta: dict[str, Any], common: dict[str, Any]) -> Edit | None:
    """An `edit` call: oldString → newString (the git-ai fixtures give `content` instead: a whole file)."""
    path = _text(args.get("filePath")) or _text(_get(meta, "filediff", "file"))
    old, new = _text(args.get("oldString")), _text(args.get("newString"))
    if path is None or (new is None and not isinstance(args.get("content"), str)):
        return None
    whole = new is None or old == ""
    new = new if new is not None else str(args["content"])
    added = _from_metadata(meta, new, whole)
    if added is None:
        added = _numbered(new) if whole else text_diff_added(old or "", new, numbered=False)
    return Edit(path=path, kind="create" if old == "" else "update", old_text=old, new_text=new,
                added=tuple(added), **common)


def _write(args: dict[str, Any], meta: dict[str, Any], common: dict[str, Any]) -> Edit | None:
    path, content = _text(args.get("filePath")) or _text(meta.get("filepath")), args.get("content")
    if path is None or not isinstance(content, str):
        return None
    added = _from_metadata(meta, content, True)
    return Edit(path=path, kind="update" if meta.get("exists") is True else "create", new_text=content,
                added=tuple(added if added is not None else _numbered(content)), **common)


def _patches(args: dict[str, Any], meta: dict[str, Any], common: dict[str, Any]) -> list[Edit]:
    """An `apply_patch` call: one edit per file of `metadata.files`, else per section of the envelope."""
    envelope = parse_apply_patch(str(args.get("patchText") or ""))
    files = _dicts(meta.get("files"))
    if not files:
        return [_envelope_edit(section, section.kind, common) for section in envelope]
    edits = []
    for entry in files:
        path = _text(entry.get("movePath")) or _text(entry.get("filePath"))
        if path is None:
            continue
        kind = _KINDS.get(str(entry.get("type")), "update")
        section = _section(envelope, _text(entry.get("filePath")) or path)
        before, after = _text(entry.get("before")), _text(entry.get("after"))
        fragment = after if after is not None else "\n".join(section.new_lines) if section else None
        added = _from_metadata({"diff": entry.get("patch") or entry.get("diff"), "filediff": entry}, fragment,
                               after is not None)
        if section is None:
            section = FilePatch(path=path, kind=kind)
        if added is None:
            added = _envelope_added(section, kind)
        edits.append(Edit(path=path, kind=kind,  # type: ignore[arg-type]
                          old_text=before if before is not None else "\n".join(section.old_lines) or None,
                          new_text=after if after is not None else "\n".join(section.new_lines),
                          added=tuple([] if kind == "delete" else added), **common))
    return edits


def _envelope_edit(section: FilePatch, kind: str, common: dict[str, Any]) -> Edit:
    return Edit(path=section.move_to or section.path, kind=kind,  # type: ignore[arg-type]
                old_text="\n".join(section.old_lines) or None, new_text="\n".join(section.new_lines),
                added=tuple(_envelope_added(section, kind)), **common)


def _envelope_added(section: FilePatch, kind: str) -> list[AddedLine]:
    """Lines an envelope section adds; numbered only for a new file (an update's hunks have no numbers)."""
    if kind == "delete":
        return []
    return [AddedLine(text=t, line=i + 1 if kind == "create" else None) for i, t in enumerate(section.added)]


def _section(envelope: list[FilePatch], path: str) -> FilePatch | None:
    """The envelope section of a file the metadata names by absolute path (the envelope's are relative)."""
    found = [p for p in envelope if path == p.path or path.endswith("/" + p.path.lstrip("./"))]
    return found[0] if len(found) == 1 else None


def _from_metadata(meta: dict[str, Any], source: str | None, whole: bool) -> list[AddedLine] | None:
    """Added lines from tool metadata: `filediff.before/after` (exact), else the trimmed unified diff."""
    before, after = _text(_get(meta, "filediff", "before")), _text(_get(meta, "filediff", "after"))
    if before is not None and after is not None:
        return text_diff_added(before, after)
    diff = meta.get("diff") if isinstance(meta.get("diff"), str) else _get(meta, "filediff", "patch")
    if not isinstance(diff, str) or "@@" not in diff:
        return None
    return _reindent(unified_diff_added(diff), source, whole)


def _reindent(added: list[AddedLine], source: str | None, whole: bool) -> list[AddedLine]:
    """Undo OpenCode's `trimDiff`, which strips the indentation common to every line of a diff.

    With the whole new file (`whole`), line N of the diff is line N of the file; with a fragment (a
    newString), the diff's lines are found in order in the fragment at one consistent indentation.
    Lines that cannot be placed keep the diff's text.
    """
    if source is None:
        return added
    lines = source.splitlines()
    if whole:
        return [AddedLine(text=lines[a.line - 1], line=a.line)
                if a.line and a.line <= len(lines) and _indented(lines[a.line - 1], a.text) is not None else a
                for a in added]
    width: int | None = None
    out, start = [], 0
    for item in added:
        for j in range(start, len(lines)):
            cut = _indented(lines[j], item.text)
            if cut is not None and (width is None or cut == width or not item.text):
                width = cut if width is None and item.text else width
                out.append(AddedLine(text=lines[j], line=item.line))
                start = j + 1
                break
        else:
            out.append(item)
    return out


def _indented(exact: str, trimmed: str) -> int | None:
    """How many leading whitespace characters `exact` has beyond `trimmed`, or None when not the same line."""
    cut = len(exact) - len(trimmed)
    return cut if cut >= 0 and exact.endswith(trimmed) and not exact[:cut].strip() else None


def _numbered(text: str) -> list[AddedLine]:
    return [AddedLine(text=t, line=i + 1) for i, t in enumerate(text.splitlines())]


# --- small readers -----------------------------------------------------------------------------------------


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _ms(value: Any) -> datetime | None:
    """Epoch milliseconds (OpenCode's `time.created`) as an aware UTC datetime; ISO strings are accepted."""
    if isinstance(value, str):
        return parse_timestamp(value)
    millis = _int(value)
    try:
        return datetime.fromtimestamp(millis / 1000, tz=timezone.utc) if millis is not None else None
    except (OverflowError, OSError, ValueError):
        return None
