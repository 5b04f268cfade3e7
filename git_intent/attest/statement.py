"""The in-toto Statement (v1) git-intent signs for a commit, and its predicate
`https://git-intent.dev/provenance/v1`: who wrote the commit's lines, as the note says, with digests of
the evidence the note cites. JSON Schemas: docs/schemas/in-toto-statement.json and provenance.json.

The Statement follows in-toto/attestation spec/v1 (statement.md, resource_descriptor.md): subjects are the
commit (`gitCommit`) and every file the commit adds or changes against its first parent (`gitBlob` and
`sha256` of the file at the commit). The predicate holds the note's git-intent records (and the sha256 of
their rendering, which `verify` recomputes from the note), an Agent Trace record of the agent ranges (github
cursor/agent-trace v0.1: ranges, contributor, model), and per credited session its transcript digest (the
session record's `transcript_sha256`) and, when shared, its blob on refs/intent/evidence with a digest of
each message there. The models are pydantic, not in-toto-attestation's protobuf classes: protobuf's Struct
holds every number as a double, and a note's line numbers must stay integers.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.model_ids import models_dev_id
from ..core.version import __version__
from ..git.repo import Repository
from ..notes import LinesRecord, Note, render_note
from ..notes import evidence_ref as evidence_store
from ..notes.records import record_fields

STATEMENT_TYPE: Literal["https://in-toto.io/Statement/v1"] = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE: Literal["https://git-intent.dev/provenance/v1"] = "https://git-intent.dev/provenance/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
TRACE_VERSION = "0.1.0"
# The Agent Trace record ids of `git intent export --format agent-trace`: the same commit, the same id.
_TRACE_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/cursor/agent-trace#git-intent")

Models = Callable[[str, str, str], str | None]  # (agent, session id, message id) -> model id or None


class Subject(BaseModel):
    """An in-toto ResourceDescriptor: `name` ("commit", or a path) and its `digest` set."""

    model_config = ConfigDict(extra="allow")
    name: str
    digest: dict[str, str]


class SharedEvidence(BaseModel):
    """A session's blob on refs/intent/evidence when attested: its tree `path`, blob id, and sha256 of each
    message there (message id -> hex, over the message's text and reasoning and the edits it made)."""

    path: str
    blob: str
    messages: dict[str, str]


class CitedSession(BaseModel):
    """A session the note credits: its transcript's sha256 as the note recorded it, and its shared
    evidence (None when it was not shared when attested)."""

    agent: str
    session_id: str
    transcript_sha256: str | None = None
    shared: SharedEvidence | None = None


class AttestedNote(BaseModel):
    """The note's git-intent records (other tools' lines left out) and the sha256 of their rendering."""

    ref: str
    sha256: str
    records: list[dict[str, Any]]


class CarriedFrom(BaseModel):
    """The attestation a carried record came from: its commit and the sha256 of its envelope line."""

    commit: str
    envelope_sha256: str


class Provenance(BaseModel):
    """The predicate `https://git-intent.dev/provenance/v1`."""

    model_config = ConfigDict(title="git-intent provenance v1")
    commit: str
    note: AttestedNote
    agent_trace: dict[str, Any] | None = Field(
        default=None,
        description="An Agent Trace v0.1 record of the agent ranges (docs/schemas/agent-trace.json); absent "
        "when the note credits no line.",
    )
    evidence: list[CitedSession]
    carried_from: list[CarriedFrom] = []
    attested_by: dict[str, str]


class Statement(BaseModel):
    """An in-toto Statement v1 with the git-intent provenance predicate."""

    model_config = ConfigDict(populate_by_name=True, title="in-toto Statement v1 (git-intent provenance)")
    type: Literal["https://in-toto.io/Statement/v1"] = Field(default=STATEMENT_TYPE, alias="_type")
    subject: list[Subject] = Field(min_length=1)
    predicate_type: Literal["https://git-intent.dev/provenance/v1"] = Field(
        default=PREDICATE_TYPE, alias="predicateType"
    )
    predicate: Provenance

    def payload(self) -> bytes:
        """The DSSE payload: the statement as compact JSON, keys sorted, nulls left out."""
        value = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def note_digest(note: Note | None) -> str:
    """sha256 of the note's git-intent records as `render_note` writes them (no records: of "")."""
    text = render_note(note.records) if note is not None else ""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def commit_subjects(repo: Repository, commits: list[str]) -> dict[str, list[Subject]]:
    """commit -> its subjects: the commit, then each file it adds or changes against its first parent
    (sorted by path; deleted files have no object). One `diff-tree --stdin` and one `cat-file --batch`."""
    out = repo.git(
        "diff-tree", "--stdin", "-r", "-z", "--root", "--diff-merges=first-parent", "--no-renames",
        input_text="".join(f"{c}\n" for c in commits),
    )  # fmt: skip
    changed: dict[str, dict[str, str]] = {c: {} for c in commits}
    fields = out.split("\0")
    current, index = "", 0
    while index < len(fields):
        item = fields[index].strip("\n")
        if len(item) == 40 and item in changed:
            current, index = item, index + 1
        elif item.startswith(":") and index + 1 < len(fields):
            meta = item.split()
            if meta[4] != "D" and meta[1] != "160000":  # a submodule's commit is no blob of ours
                changed[current][fields[index + 1]] = meta[3]
            index += 2
        else:
            index += 1
    blobs = sorted({oid for files in changed.values() for oid in files.values()})
    sha256 = {
        oid: hashlib.sha256(body).hexdigest() for oid, body in repo.cat_blobs(blobs) if body is not None
    }
    return {
        commit: [Subject(name="commit", digest={"gitCommit": commit})]
        + [
            Subject(name=path, digest={"gitBlob": oid, "sha256": sha256.get(oid, "")})
            for path, oid in sorted(files.items())
        ]
        for commit, files in changed.items()
    }


def message_digests(payload: Mapping[str, Any]) -> dict[str, str]:
    """message id -> sha256 of the message's id, role, time, text and reasoning parts and its edits, from a
    shared session blob (`share.collect.build_payload`). The same at both sharing levels: `sessions` adds
    tool calls and results to a message, which are left out here."""
    found: dict[str, dict[str, Any]] = {}
    for message in payload.get("messages", []):
        found.setdefault(str(message.get("message_id")), {})["message"] = {
            "message_id": message.get("message_id"),
            "role": message.get("role"),
            "timestamp": message.get("timestamp"),
            "parts": [
                {"kind": p.get("kind"), "text": p.get("text")}
                for p in message.get("parts", [])
                if isinstance(p, dict) and p.get("kind") in ("text", "reasoning")
            ],
        }
    for edit in payload.get("edits", []):
        found.setdefault(str(edit.get("message_id")), {}).setdefault("edits", []).append(edit)
    digests = {}
    for message_id, value in found.items():
        value["edits"] = sorted(value.get("edits", []), key=lambda e: json.dumps(e, sort_keys=True))
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        digests[message_id] = hashlib.sha256(text.encode()).hexdigest()
    return digests


class EvidenceReader:
    """The shared evidence store as it is now, read once: each session's blob and its message digests."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        _, entries = evidence_store.read_entries(repo)
        self.entries = entries
        self.sessions = evidence_store.sessions_in(entries)
        self._digests: dict[str, dict[str, str] | None] = {}

    def shared(self, agent: str, session_id: str) -> SharedEvidence | None:
        """The session's blob now (the `sessions` level when both are there), or None when not shared."""
        levels = self.sessions.get(evidence_store.session_key(agent, session_id), {})
        level = "sessions" if "sessions" in levels else "evidence" if "evidence" in levels else None
        if level is None:
            return None
        oid = levels[level]
        digests = self.digests(oid)
        if digests is None:
            return None
        path = evidence_store.session_path(level, evidence_store.session_key(agent, session_id))
        return SharedEvidence(path=path, blob=oid, messages=digests)

    def digests(self, oid: str) -> dict[str, str] | None:
        """`message_digests` of blob `oid`, None when it is not a readable evidence object."""
        if oid not in self._digests:
            payload, _ = evidence_store.load_payload(self.repo, oid)
            self._digests[oid] = message_digests(payload) if payload is not None else None
        return self._digests[oid]


def agent_trace(
    commit: str, committed: str, lines: Iterable[LinesRecord], models: Models | None
) -> dict[str, Any] | None:
    """The Agent Trace v0.1 record of the note's agent ranges: one conversation per file and session, its
    model (models.dev style) from `models`, the sessions named under `metadata["git-intent"]` as `git intent
    export --format agent-trace` names them. None when the note credits no line. `committed`: RFC 3339."""
    by_file: dict[str, dict[tuple[str, str], list[LinesRecord]]] = {}
    for record in lines:
        by_file.setdefault(record.path, {}).setdefault((record.agent, record.session_id), []).append(record)
    if not by_file:
        return None
    files, conversations = [], []
    for path, by_session in sorted(by_file.items()):
        file: dict[str, Any] = {"path": path, "conversations": []}
        for index, ((agent, session_id), records) in enumerate(sorted(by_session.items())):
            records.sort(key=lambda r: (r.start, r.end))
            model = models_dev_id(models(agent, session_id, records[0].message_id) if models else None)
            contributor = {"type": "ai", **({"model_id": model} if model else {})}
            ranges = [{"start_line": r.start, "end_line": r.end, "content_hash": r.sha} for r in records]
            file["conversations"].append({"contributor": contributor, "ranges": ranges})
            message_ids = list(dict.fromkeys(r.message_id for r in records))
            conversations.append(
                {"path": path, "conversation": index, "agent": agent, "session_id": session_id}
                | {"message_ids": message_ids}
            )
        files.append(file)
    return {
        "version": TRACE_VERSION,
        "id": str(uuid.uuid5(_TRACE_NAMESPACE, commit)),
        "timestamp": datetime.fromisoformat(committed).isoformat(),
        "vcs": {"type": "git", "revision": commit},
        "tool": {"name": "git-intent", "version": __version__},
        "files": files,
        "metadata": {"git-intent": {"conversations": conversations}},
    }


def build_statement(
    commit: str,
    note: Note,
    subjects: list[Subject],
    committed: str,
    evidence: EvidenceReader,
    *,
    models: Models | None = None,
    carried_from: Iterable[CarriedFrom] = (),
    notes_ref: str,
) -> Statement:
    """The Statement for `commit` from its note (read now), subjects (`commit_subjects`), committer date
    (RFC 3339) and the evidence store as it is now."""
    cited: list[CitedSession] = [
        CitedSession(
            agent=s.agent,
            session_id=s.session_id,
            transcript_sha256=s.transcript_sha256,
            shared=evidence.shared(s.agent, s.session_id),
        )
        for s in sorted(note.sessions, key=lambda s: s.key)
    ]
    return Statement(
        subject=subjects,
        predicate=Provenance(
            commit=commit,
            note=AttestedNote(
                ref=notes_ref,
                sha256=note_digest(note),
                records=[record_fields(r) for r in sorted(note.records, key=_record_order)],
            ),
            agent_trace=agent_trace(commit, committed, note.lines, models),
            evidence=cited,
            carried_from=list(carried_from),
            attested_by={"tool": "git-intent", "version": __version__},
        ),
    )


def _record_order(record: Any) -> str:
    return json.dumps(record_fields(record), sort_keys=True)
