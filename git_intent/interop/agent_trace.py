"""Agent Trace records (github cursor/agent-trace, spec v0.1.0, CC BY 4.0) written from and read into
git-intent's notes: one trace record per commit, as JSON Lines.

The models mirror the spec's `schemas.ts` (TraceRecord, File, Conversation, Range, Contributor, Vcs, Tool);
their JSON Schema is docs/schemas/agent-trace.json. `schemas.ts` writes the version pattern with a doubled
backslash (`/^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$/` in a regex literal matches a backslash, not a dot): the version
is validated here as x.y.z, as the spec's README shows it. A conversation is one session's lines in one file;
the spec has no field for a session id, so each conversation's agent and session id are kept under the
record's `metadata["git-intent"]["conversations"]` (file path and conversation index), which `import --from
agent-trace` reads back.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import AnyUrl, BaseModel, ConfigDict, Field, ValidationError

from ..core.errors import IntentError
from ..core.model_ids import models_dev_id
from ..core.version import __version__
from ..git.repo import Repository
from ..transcripts.jsonl import loads

__all__ = [
    "SPEC_VERSION",
    "TRACE_CONFIDENCE",
    "TRACE_TOOL",
    "TraceRecord",
    "TracedRange",
    "agent_name",
    "export_records",
    "read_trace_records",
    "trace_ranges",
    "trace_sessions",
]

SPEC_VERSION = "0.1.0"
# A trace record of another tool names the tool and model that wrote a range, not the message: below a content
# match's confidence, as a trailer's (nothing measured against a ground truth yet).
TRACE_CONFIDENCE = 0.5
TRACE_TOOL = "agent-trace"
METADATA_KEY = "git-intent"
# uuid5 namespace of the record ids: a commit's record keeps its id from one export to the next.
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/cursor/agent-trace#git-intent")


def _optional_not_null(schema: dict[str, Any]) -> None:
    """The spec's optional fields are left out, never null: `anyOf [X, null]` becomes X, without a default
    (so docs/schemas/agent-trace.json says what `schemas.ts` says)."""
    for prop in schema.get("properties", {}).values():
        options = prop.get("anyOf")
        if isinstance(options, list) and {"type": "null"} in options:
            rest = [o for o in options if o != {"type": "null"}]
            prop.pop("anyOf")
            prop.pop("default", None)
            prop.update(rest[0] if len(rest) == 1 else {"anyOf": rest})


class _Spec(BaseModel):
    model_config = ConfigDict(extra="allow", json_schema_extra=_optional_not_null)


class Tool(_Spec):
    """The tool that generated the trace."""

    name: str
    version: str


class Contributor(_Spec):
    """Who produced the ranges: `type` human | ai | mixed | unknown, and the model id (models.dev
    convention)."""

    type: Literal["human", "ai", "mixed", "unknown"]
    model_id: str | None = Field(default=None, max_length=250)


class Range(_Spec):
    """Lines `start_line..end_line` (1-based, inclusive) of the file at the revision."""

    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    content_hash: str | None = None
    contributor: Contributor | None = None


class RelatedResource(_Spec):
    """Another resource related to a conversation."""

    type: str
    url: AnyUrl


class Conversation(_Spec):
    """The ranges one conversation produced in a file; `url` where the conversation can be looked up."""

    url: AnyUrl | None = None
    contributor: Contributor | None = None
    ranges: list[Range]
    related: list[RelatedResource] | None = None


class File(_Spec):
    """A file (path relative to the repository root) and the conversations that contributed to it."""

    path: str
    conversations: list[Conversation]


class Vcs(_Spec):
    """The revision the ranges are lines of."""

    type: Literal["git", "jj", "hg", "svn"]
    revision: str


class TraceRecord(_Spec):
    """One Agent Trace record: spec `version` (x.y.z), a uuid `id`, an RFC 3339 `timestamp`, `vcs`, `tool`,
    `files`, and vendor `metadata`."""

    version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")
    id: uuid.UUID
    timestamp: datetime
    vcs: Vcs | None = None
    tool: Tool | None = None
    files: list[File]
    metadata: dict[str, Any] | None = None

    def dump(self) -> dict[str, Any]:
        """The record as JSON, the fields it does not set left out (the spec's optional fields are absent, not
        null)."""
        return self.model_dump(mode="json", exclude_none=True)


def export_records(repo: Repository, revision_range: str = "HEAD") -> Iterator[TraceRecord]:
    """One record per commit of `revision_range` (newest first, as `git log`) with lines an agent wrote,
    classified as every surface classifies them (`explain.classify`): the lines its note credits, or, for a
    commit without one, those `record` would credit now, grouped per file and session (a run of one
    message's lines is one range); lines only a trailer credits form a conversation of their own, naming
    the agent and no session. Raises IntentError for a range git does not understand."""
    from ..explain.range_lines import classify_range

    found = classify_range(repo, revision_range)
    stamps = dict(
        line.split(" ", 1)
        for line in repo.git(
            "log", "--format=%H %cI", "--end-of-options", revision_range, "--", check=False
        ).splitlines()
        if " " in line
    )
    by_commit: dict[str, dict[str, dict[tuple[str, str, str], list[tuple[int, str]]]]] = {}
    models: dict[tuple[str, str, str], str | None] = {}  # the model each credited message was written with
    for line in found.lines(blank=True):
        attribution = line.resolution.attribution
        if line.resolution.status != "agent" or attribution is None:
            continue
        key = (attribution.agent, attribution.session_id, attribution.method)
        by_commit.setdefault(line.commit, {}).setdefault(line.path, {}).setdefault(key, []).append(
            (line.line, attribution.message_id)
        )
        models.setdefault(
            (attribution.agent, attribution.session_id, attribution.message_id),
            found.resolver.model(attribution) if attribution.session_id else None,
        )
    for commit in reversed([c.sha for c in found.commits]):
        if commit not in by_commit:
            continue
        files: list[File] = []
        conversations: list[dict[str, Any]] = []
        for path, by_session in by_commit[commit].items():
            file = File(path=path, conversations=[])
            for index, ((agent, session_id, method), lines) in enumerate(by_session.items()):
                model = models_dev_id(models[(agent, session_id, lines[0][1])])
                file.conversations.append(
                    Conversation(contributor=Contributor(type="ai", model_id=model), ranges=_ranges(lines))
                )
                entry: dict[str, Any] = {"path": path, "conversation": index, "agent": agent}
                if session_id:
                    entry |= {
                        "session_id": session_id,
                        "message_ids": list(dict.fromkeys(m for _, m in lines)),
                    }
                if method != "note":
                    entry["method"] = method
                conversations.append(entry)
            files.append(file)
        yield TraceRecord(
            version=SPEC_VERSION,
            id=uuid.uuid5(_NAMESPACE, commit),
            timestamp=datetime.fromisoformat(stamps[commit]),
            vcs=Vcs(type="git", revision=commit),
            tool=Tool(name="git-intent", version=__version__),
            files=files,
            metadata={METADATA_KEY: {"conversations": conversations}},
        )


def _ranges(lines: list[tuple[int, str]]) -> list[Range]:
    """Runs of consecutive lines written by one message, in line order."""
    ranges: list[Range] = []
    last: tuple[int, str] | None = None
    for number, message in sorted(lines):
        if last is not None and number == last[0] + 1 and message == last[1]:
            ranges[-1].end_line = number
        else:
            ranges.append(Range(start_line=number, end_line=number))
        last = (number, message)
    return ranges


def read_trace_records(path: Path) -> Iterator[tuple[str, TraceRecord | str]]:
    """(where, record) for every line of `path` (a JSON Lines file, or every `*.jsonl` and `*.json` file below
    a folder, in sorted order); a line that is not a valid trace record gives (where, why) instead. Raises
    IntentError when `path` does not exist."""
    if not path.exists():
        raise IntentError(
            f"The Agent Trace file or folder {path} does not exist.",
            hint="Give a JSON Lines file of trace records, or a folder holding them.",
        )
    files = (
        sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))
        if (path.is_dir())
        else [path]
    )
    for file in files:
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            yield str(file), f"cannot be read ({exc.strerror})"
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{file}:{number}"
            try:
                yield where, TraceRecord.model_validate(loads(line))
            except (ValueError, ValidationError) as exc:
                first = exc.errors()[0] if isinstance(exc, ValidationError) else None
                yield (
                    where,
                    (
                        f"not a trace record ({'.'.join(map(str, first['loc']))}: {first['msg']})"
                        if first
                        else "not JSON"
                    ),
                )


def trace_sessions(record: TraceRecord) -> list[tuple[str, str]]:
    """The (agent, session id) pairs a record names under `metadata["git-intent"]`, in order, once each."""
    ours = (record.metadata or {}).get(METADATA_KEY)
    conversations = ours.get("conversations") if isinstance(ours, dict) else None
    found: dict[tuple[str, str], None] = {}
    for item in conversations if isinstance(conversations, list) else []:
        if (
            isinstance(item, dict)
            and isinstance(item.get("agent"), str)
            and isinstance(item.get("session_id"), str)
        ):
            found[(item["agent"], item["session_id"])] = None
    return list(found)


@dataclass(frozen=True)
class TracedRange:
    """Lines `start..end` (1-based, inclusive) of `path` that a trace record credits to an AI contributor of
    `agent` (the tool that wrote the record, or the agent its git-intent metadata names) with `model` (a
    models.dev id, or None), in a conversation whose session git-intent cannot read."""

    path: str
    start: int
    end: int
    agent: str
    model: str | None


def trace_ranges(record: TraceRecord, readable: set[tuple[str, str]]) -> list[TracedRange]:
    """The AI-contributed ranges of `record` whose conversation names no session in `readable` ((agent,
    session id) pairs on this machine): what another tool's trace says without a transcript to read. A
    range's own contributor overrides its conversation's; human, mixed and unknown contributors credit
    nothing."""
    named: dict[tuple[str, int], tuple[str, str]] = {}
    ours = (record.metadata or {}).get(METADATA_KEY)
    for item in (ours.get("conversations") if isinstance(ours, dict) else None) or []:
        if (
            isinstance(item, dict)
            and isinstance(item.get("path"), str)
            and isinstance(item.get("conversation"), int)
            and isinstance(item.get("agent"), str)
            and isinstance(item.get("session_id"), str)
        ):
            named[(item["path"], item["conversation"])] = (item["agent"], item["session_id"])
    tool = agent_name(record.tool.name if record.tool else "")
    found: list[TracedRange] = []
    for file in record.files:
        for index, conversation in enumerate(file.conversations):
            session = named.get((file.path, index))
            if session is not None and session in readable:
                continue
            agent = agent_name(session[0]) if session else tool
            for span in conversation.ranges:
                who = span.contributor or conversation.contributor
                if who is not None and who.type == "ai" and span.end_line >= span.start_line:
                    found.append(TracedRange(file.path, span.start_line, span.end_line, agent, who.model_id))
    return found


def agent_name(name: str) -> str:
    """A tool's name as an agent name (lowercase letters, digits, `.`, `_`, `-`), "agent" when nothing is
    left."""
    cleaned = re.sub(r"[^a-z0-9._-]+", "-", name.strip().lower()).strip("-._")[:64]
    return cleaned or "agent"
