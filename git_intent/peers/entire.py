"""Reading Entire checkpoints: `Entire-Checkpoint:` trailers on code commits, and the checkpoint folders on
the `entire/checkpoints/v1` branch (or its remote-tracking copy) and in per-checkpoint refs
`refs/entire/checkpoints/<id[-2:]>/<id>` (Entire CLI 0.8.1 on, the default since 0.9.0), where
`peers.entire_layout` finds them.

Layout written by the Entire CLI (entireio/cli, 0.3 on): a checkpoint id is 12 hex digits (newer
versions: a 26-character ULID); the branch tree holds `<id[:2]>/<id[2:]>/metadata.json` (checkpoint_id,
strategy, branch, files_touched, sessions[]) and one folder per session `<n>/` holding `metadata.json`
(session_id, agent, created_at, files_touched, transcript_lines_at_start, ...), `full.jsonl` (the agent's
native transcript byte for byte; `full.log` in early versions; past 50 MB split into `full.jsonl`,
`full.jsonl.001`, ... joined by newlines), `prompt.txt`, `context.md` and `content_hash.txt`
(`sha256:<hex>` of the transcript). A per-checkpoint ref points at a commit whose tree root is one such
checkpoint folder. Older sessions ids carry a date prefix (`2026-01-28-<uuid>`); the agent's own id is the
uuid.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ..adapters import all_adapters, sniff
from ..core.errors import GitError, TranscriptError
from ..core.values import ParseStats, Session, parse_timestamp
from ..git.repo import Repository
from ..git.stream import blob_heads, blob_pieces
from .entire_layout import (
    ID,
    CheckpointRef,
    Folder,
    Place,
    branch_places,
    checkpoint_ref_tips,
    checkpoint_refs,
    is_checkpoint_shaped,
    ref_name,
    ref_places,
)

TRAILER = "Entire-Checkpoint"
# Entire's agent labels -> git-intent agent names (compared case-insensitively).
AGENT_LABELS = {
    "claude code": "claude-code",
    "codex": "codex",
    "gemini cli": "gemini-cli",
    "cursor": "cursor",
    "opencode": "opencode",
}
_ID = ID
_DATE_PREFIX = re.compile(r"\d{4}-\d{2}-\d{2}-(?=.)", re.ASCII)
_TRANSCRIPTS = ("full.jsonl", "full.log")
_SNIFF_BYTES = 65536


@dataclass(frozen=True)
class EntireSession:
    """One session folder of a checkpoint.

    `session_id` is as Entire recorded it; `agent_session_id` is the agent's own id (date prefix removed).
    `agent` is the git-intent agent name when git-intent supports the agent (`supported`), else Entire's
    label as written; sessions without a usable label (absent, or the older "Agent") are named from the
    transcript's content. `transcript_file` is the transcript's name in the session folder (`full.jsonl`,
    `full.log`, None when there is none), `transcript_size` its length in bytes once chunks are joined,
    `transcript_objects` its blob ids in chunk order.
    """

    checkpoint_id: str
    index: int
    folder: str
    session_id: str
    agent: str | None
    agent_label: str | None
    supported: bool
    created_at: datetime | None
    files_touched: tuple[str, ...]
    model: str | None
    transcript_lines_at_start: int | None
    transcript_identifier_at_start: str | None
    content_hash: str | None
    transcript_file: str | None
    transcript_size: int
    transcript_objects: tuple[str, ...]
    metadata: dict[str, Any] = field(compare=False, repr=False)
    repo: Repository = field(compare=False, repr=False)

    @property
    def agent_session_id(self) -> str:
        """The agent's own session id: `session_id` without Entire's `YYYY-MM-DD-` prefix."""
        return _DATE_PREFIX.sub("", self.session_id, count=1)

    def transcript_pieces(self) -> Iterator[bytes]:
        """The transcript exactly as stored (chunks joined by newlines), in pieces of at most `PIECE` bytes
        read from git as they are used: a transcript of any size is never whole in memory.

        Raises TranscriptError when one object is named as two chunks (a real transcript's chunks differ; 400
        chunks naming one 1 MiB blob made a 4 KiB pack a 400 MiB transcript), GitError when a transcript
        object cannot be read (e.g. a partial clone without it).
        """
        objects = self.transcript_objects
        if len(set(objects)) != len(objects):
            raise TranscriptError(
                f"The transcript of session {self.session_id} in checkpoint {self.checkpoint_id} names one "
                f"object as several of its {len(objects)} chunks."
            )
        for n, oid in enumerate(objects):
            if n:
                yield b"\n"
            try:
                yield from blob_pieces(self.repo, oid)
            except GitError:
                raise GitError(
                    f"The transcript of session {self.session_id} in checkpoint {self.checkpoint_id} "
                    f"cannot be read from the repository."
                ) from None

    def transcript_bytes(self) -> bytes:
        """`transcript_pieces` joined (b"" when the session has none); raises as it does."""
        return b"".join(self.transcript_pieces())

    def content_hash_matches(self) -> bool | None:
        """Whether the transcript's sha256 equals `content_hash.txt`; None when there is no hash to check.
        Raises TranscriptError and GitError as `transcript_pieces`."""
        if not self.content_hash or not self.content_hash.startswith("sha256:"):
            return None
        digest = hashlib.sha256()
        for piece in self.transcript_pieces():
            digest.update(piece)
        return digest.hexdigest() == self.content_hash.removeprefix("sha256:")

    def read_sessions(self, directory: Path) -> list[Session]:
        """Write the transcript into `directory`, piece by piece (as `<agent_session_id>.jsonl`, `.json` for a
        legacy Gemini file), and parse it with the agent's adapter; [] when no adapter reads it.

        Raises OSError when the file cannot be written, TranscriptError and GitError as `transcript_pieces`.
        """
        if not self.transcript_objects:
            return []
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{re.sub(r'[^A-Za-z0-9._-]', '_', self.agent_session_id)}.jsonl"
        with path.open("wb") as handle:
            handle.writelines(self.transcript_pieces())
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
        if _sniff_agent(head) == "gemini-cli" and _is_json_document(path.read_bytes()):
            path = path.rename(path.with_suffix(".json"))
        adapter = all_adapters().get(self.agent or "")
        if adapter is None or not adapter.sniff(path):
            adapter = sniff(path)
        sessions = adapter.read(path) if adapter is not None else []
        if not sessions:  # nothing here reads it: the file is not kept
            path.unlink()
        return sessions


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint folder: its summary metadata and its sessions in folder order.

    `ref` is where it was read; `folder` its path in that ref's tree ("" for a per-checkpoint ref).
    """

    checkpoint_id: str
    ref: str
    folder: str
    strategy: str | None
    branch: str | None
    files_touched: tuple[str, ...]
    sessions: tuple[EntireSession, ...]
    metadata: dict[str, Any] = field(compare=False, repr=False)


def agent_for_label(label: str) -> tuple[str, bool]:
    """The git-intent agent name for an Entire agent label, and whether git-intent supports that agent."""
    mapped = AGENT_LABELS.get(label.strip().casefold())
    return (mapped, True) if mapped else (label, False)


def checkpoint_trailers(repo: Repository, revision_range: str = "--all") -> dict[str, list[str]]:
    """{commit SHA: [checkpoint ids]} for the commits in `revision_range` carrying `Entire-Checkpoint:`
    trailers (git's trailer rules: the message's last paragraph; key case-insensitive), newest first.

    With "--all", Entire's own refs (checkpoint branches, shadow branches `entire/*`) are left out: their
    commits are not code commits. Values that are not checkpoint ids are ignored. Raises GitError when
    the range does not name commits.
    """
    scope = ["--end-of-options", revision_range]
    if revision_range == "--all":
        scope = [
            "--exclude=refs/heads/entire/*",
            "--exclude=refs/remotes/*/entire/*",
            "--exclude=refs/entire/*",
            "--all",
        ]
    out = repo.git(
        "log", f"--format=%H%x00%(trailers:key={TRAILER},valueonly,separator=%x1f)%x1e", *scope, "--"
    )
    found: dict[str, list[str]] = {}
    for record in out.split("\x1e"):
        sha, _, values = record.strip("\n").partition("\x00")
        ids = [v.strip() for v in values.split("\x1f") if _ID.fullmatch(v.strip())]
        if sha and ids:
            found[sha] = list(dict.fromkeys(ids))
    return found


def read_checkpoints(
    repo: Repository, ref: str | None = None, *, stats: ParseStats | None = None
) -> list[Checkpoint]:
    """Every checkpoint in `ref`, or in every ref `checkpoint_refs` finds, each read once: from its
    per-checkpoint ref when one holds it, else from the first branch that does. Per-checkpoint refs are
    listed together (`entire_layout.ref_places`: a few git calls for any number of refs), each branch with
    one `git ls-tree`; metadata is read through `git cat-file --batch` and
    transcripts only when asked for (`EntireSession.transcript_bytes`).

    Never raises on a malformed checkpoint: it is skipped and counted in `stats.unreadable`, as are unreadable
    session folders and per-checkpoint refs Entire would not read (pointing at anything but a commit, or
    named with a shard that is not the id's last two characters); `stats.records` counts the checkpoint
    folders and refs seen. A ref that does not exist reads as no checkpoints.
    """
    stats = stats if stats is not None else ParseStats()
    found: dict[str, Checkpoint] = {}
    if ref is None or is_checkpoint_shaped(ref):
        for checkpoint in _read_refs(repo, checkpoint_ref_tips(repo, None if ref is None else [ref]), stats):
            found.setdefault(checkpoint.checkpoint_id, checkpoint)
    branches = [r for r in checkpoint_refs(repo) if not is_checkpoint_shaped(r)] if ref is None else [ref]
    seen_trees: set[str] = set()
    for name in [] if ref is not None and is_checkpoint_shaped(ref) else branches:
        tree = repo.git("rev-parse", "--verify", "--quiet", f"{name}^{{tree}}", check=False).strip()
        if not tree or tree in seen_trees:
            continue
        seen_trees.add(tree)
        places = [p for p in branch_places(repo, name, tree) if p.checkpoint_id not in found]
        for checkpoint in _read_folders(repo, places, stats):
            found.setdefault(checkpoint.checkpoint_id, checkpoint)
    return list(found.values())


def checkpoint_session_ids(repo: Repository, ids: list[str]) -> dict[str, frozenset[str]]:
    """{checkpoint id: the agents' own ids of its sessions} for the checkpoints `ids` found in the refs
    `checkpoint_refs` lists (a checkpoint's own ref first, then the first branch holding it), reading only
    their folders: one `git ls-tree` per ref and one `git cat-file --batch`, where `read_checkpoints` reads
    every checkpoint (0.9 s on entireio/cli's 590; recording one commit needs one). Checkpoints not found are
    left out; never raises."""
    wanted = [i for i in dict.fromkeys(ids) if _ID.fullmatch(i)]
    found: dict[str, frozenset[str]] = {}
    # A checkpoint's own ref is named after its id: looked up directly, not among every ref.
    tips = checkpoint_ref_tips(repo, [ref_name(i) for i in wanted]) if wanted else []
    sources = [(t.tree or "", {"": t.checkpoint_id or ""}) for t in tips if t.readable]
    for ref in checkpoint_refs(repo) if wanted else []:
        missing = [i for i in wanted if i not in found]
        if not is_checkpoint_shaped(ref) and missing:
            sources.append(
                (ref, {folder: i for i in missing for folder in (f"{i[:2]}/{i[2:]}", f"{i[:2]}/{i}")})
            )
    for source, folders in sources:
        folders = {f: i for f, i in folders.items() if i not in found}
        if not folders:
            continue
        try:
            out = repo.git(
                "ls-tree", "-r", "-z", "--full-tree", source, "--", *[f for f in folders if f], check=False
            )
        except GitError:
            continue
        metadata: dict[str, list[str]] = {}
        for entry in out.split("\0"):
            meta, _, path = entry.partition("\t")
            fields = meta.split()
            parts = path.split("/")
            if len(fields) != 3 or fields[1] != "blob" or parts[-1] != "metadata.json" or len(parts) < 2:
                continue
            folder, number = "/".join(parts[:-2]), parts[-2]
            if folder in folders and number.isascii() and number.isdigit():
                metadata.setdefault(folders[folder], []).append(fields[2])
        blobs = dict(repo.cat_blobs([oid for oids in metadata.values() for oid in oids]))
        for checkpoint_id, oids in metadata.items():
            sessions: set[str] = set()
            for oid in oids:
                record = _json_object(blobs.get(oid))
                if record is not None and isinstance(record.get("session_id"), str):
                    sessions.add(_DATE_PREFIX.sub("", record["session_id"], count=1))
            if sessions:
                found[checkpoint_id] = frozenset(sessions)
    return found


# (place key, checkpoint id, session index, session folder, its files, its metadata, content hash)
_Pending = tuple[tuple[str, str], str, int, str, Folder, dict[str, Any], str | None]


def _read_refs(repo: Repository, tips: list[CheckpointRef], stats: ParseStats) -> list[Checkpoint]:
    """The checkpoints of per-checkpoint refs; refs Entire would not read are counted as unreadable."""
    skipped = sum(1 for t in tips if not t.readable)
    stats.records += skipped
    stats.unreadable += skipped
    return _read_folders(repo, ref_places(repo, tips), stats)


def _read_folders(repo: Repository, places: list[Place], stats: ParseStats) -> list[Checkpoint]:
    small = [
        f.files[n][0]
        for _, _, top, _, _ in places
        for f in (top, *top.children.values())
        for n in ("metadata.json", "content_hash.txt")
        if n in f.files
    ]
    blobs = dict(repo.cat_blobs(list(dict.fromkeys(small))))
    checkpoints: list[Checkpoint] = []
    pending: list[_Pending] = []
    for ref, path, folder, place_id, by_place in places:
        stats.records += 1
        meta = _json_object(blobs.get(folder.files.get("metadata.json", ("", 0))[0]))
        claimed = meta.get("checkpoint_id") if meta is not None else None
        checkpoint_id = (
            place_id if by_place or not (isinstance(claimed, str) and _ID.fullmatch(claimed)) else claimed
        )
        if meta is None or checkpoint_id is None:
            stats.unreadable += 1
            continue
        checkpoints.append(
            Checkpoint(
                checkpoint_id=checkpoint_id,
                ref=ref,
                folder=path,
                strategy=_str(meta.get("strategy")),
                branch=_str(meta.get("branch")) or None,
                files_touched=_strings(meta.get("files_touched")),
                sessions=(),
                metadata=meta,
            )
        )
        numbered = ((n, c) for n, c in folder.children.items() if n.isascii() and n.isdigit())
        for name, child in sorted(numbered, key=lambda item: int(item[0])):
            child_meta = _json_object(blobs.get(child.files.get("metadata.json", ("", 0))[0]))
            if child_meta is None or not isinstance(child_meta.get("session_id"), str):
                stats.unreadable += 1
                continue
            pending.append(
                (
                    (ref, path),
                    checkpoint_id,
                    int(name),
                    f"{path}/{name}".lstrip("/"),
                    child,
                    child_meta,
                    _text(blobs.get(child.files.get("content_hash.txt", ("", 0))[0])),
                )
            )
    sessions = _sessions(repo, pending)
    return [replace(c, sessions=tuple(sessions.get((c.ref, c.folder), ()))) for c in checkpoints]


def _sessions(repo: Repository, pending: list[_Pending]) -> dict[tuple[str, str], list[EntireSession]]:
    """{(ref, checkpoint folder): sessions}; sessions with no usable agent label are named from their
    transcript's first bytes."""
    transcripts = [_transcript(child) for _, _, _, _, child, _, _ in pending]
    unlabelled = [
        objects[0]
        for (_, _, _, _, _, meta, _), (_, objects, _) in zip(pending, transcripts, strict=True)
        if _label_agent(meta) is None and objects
    ]
    heads = blob_heads(repo, unlabelled, _SNIFF_BYTES)
    result: dict[tuple[str, str], list[EntireSession]] = defaultdict(list)
    for (parent, checkpoint_id, index, folder, _, meta, content_hash), (path, objects, size) in zip(
        pending, transcripts, strict=True
    ):
        label = _str(meta.get("agent"))
        agent = _label_agent(meta)
        if agent is None:
            agent = _sniff_agent(heads.get(objects[0], b"")) if objects else None
            agent = agent or (label if label and label.casefold() != "agent" else None)
        lines = meta.get("transcript_lines_at_start")
        result[parent].append(
            EntireSession(
                checkpoint_id=checkpoint_id,
                index=index,
                folder=folder,
                session_id=meta["session_id"],
                agent=agent,
                agent_label=label,
                supported=agent in AGENT_LABELS.values(),
                created_at=parse_timestamp(meta.get("created_at")),
                files_touched=_strings(meta.get("files_touched")),
                model=_str(meta.get("model")),
                transcript_lines_at_start=lines if isinstance(lines, int) else None,
                transcript_identifier_at_start=_str(meta.get("transcript_identifier_at_start"))
                or _str(meta.get("transcript_uuid_at_start")),
                content_hash=content_hash,
                transcript_file=path,
                transcript_size=size,
                transcript_objects=objects,
                metadata=meta,
                repo=repo,
            )
        )
    return result


def _transcript(folder: Folder) -> tuple[str | None, tuple[str, ...], int]:
    """(path, blob ids in chunk order, byte length once joined) of the session's native transcript."""
    for base in _TRANSCRIPTS:
        if base not in folder.files:
            continue
        suffixes = {name: name[len(base) + 1 :] for name in folder.files if name.startswith(base + ".")}
        chunks = sorted((int(n), name) for name, n in suffixes.items() if n.isascii() and n.isdigit())
        names = [base, *(name for _, name in chunks)]
        sizes = [folder.files[n][1] for n in names]
        return base, tuple(folder.files[n][0] for n in names), sum(sizes) + len(names) - 1
    return None, (), 0


def _label_agent(meta: dict[str, Any]) -> str | None:
    label = meta.get("agent")
    if not isinstance(label, str) or not label.strip() or label.strip().casefold() == "agent":
        return None
    return agent_for_label(label)[0]


def _sniff_agent(head: bytes) -> str | None:
    """The agent whose native format `head` (a transcript's first bytes) is in, or None."""
    text = head.decode("utf-8", "replace").lstrip()
    if not text.startswith("{"):
        return None
    first = text.split("\n", 1)[0]
    try:
        record = json.loads(first)
    except ValueError:
        record = None
    if isinstance(record, dict):
        if isinstance(record.get("payload"), dict) and isinstance(record.get("type"), str):
            return "codex"
        if record.get("type") in ("summary", "file-history-snapshot", "user", "assistant", "system"):
            return "claude-code"
    # Gemini CLI's legacy session file: one pretty-printed object {sessionId, projectHash, messages: [...]}.
    if '"sessionId"' in text[:4096] and ('"projectHash"' in text[:4096] or '"messages"' in text[:4096]):
        return "gemini-cli"
    return None


def _is_json_document(data: bytes) -> bool:
    try:
        return isinstance(json.loads(data), dict)
    except (ValueError, RecursionError):
        return False


def _json_object(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return None
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _text(data: bytes | None) -> str | None:
    return data.decode("utf-8", "replace").strip() or None if data is not None else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()
