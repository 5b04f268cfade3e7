"""The JSON Schema (draft 2020-12) of every `--json` output, generated from the pydantic models and
dataclasses the commands print; `docs/schemas/NAME.json` are written from here by `docs/gen_schemas.py`.

Each entry names the type lazily, so `git intent schema` imports only the modules of the schema asked for.
Outputs that are dataclasses (record, backfill, import) are described through `pydantic.TypeAdapter`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .core.errors import IntentError
from .core.values import adapter

DRAFT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class OutputSchema:
    """One `--json` output: the command that prints it, how to load its type, and the fields of that type
    the command leaves out (BlameAnswer's `problems` go to stderr and `whole_file` picks the text layout)."""

    name: str
    command: str
    load: Callable[[], Any]
    drop: tuple[str, ...] = ()


def _attr(module: str, name: str) -> Callable[[], Any]:
    return lambda: getattr(importlib.import_module(module, __package__), name)


def _list_of(module: str, name: str) -> Callable[[], Any]:
    return lambda: list[getattr(importlib.import_module(module, __package__), name)]  # type: ignore[misc]


def _show() -> Any:
    from .core.values import Message, Session

    return Session | Message


SCHEMAS: dict[str, OutputSchema] = {
    s.name: s
    for s in [
        OutputSchema(
            "blame",
            "git intent blame PATH:LINE[-END] --json (and git intent demo --json)",
            _attr(".explain.blame", "BlameAnswer"),
            drop=("problems", "whole_file"),
        ),
        OutputSchema("show", "git intent show SESSION[:MESSAGE] --json (a Session, or a Message)", _show),
        OutputSchema("log", "git intent log [RANGE] --json", _list_of(".explain.log", "LogEntry")),
        OutputSchema(
            "sessions", "git intent sessions --json", _list_of(".explain.session_list", "SessionSummary")
        ),
        OutputSchema("agents", "git intent agents --json", _list_of(".sessions.agent_list", "AgentReport")),
        OutputSchema("index", "git intent index --json", _attr(".index", "IngestResult")),
        OutputSchema("search", "git intent search QUERY --json", _list_of(".index.search", "Hit")),
        OutputSchema(
            "context", "git intent context SESSION --json", _attr(".command_outputs", "ContextOutput")
        ),
        OutputSchema(
            "fidelity",
            "git intent fidelity SESSION TARGET LEVEL --json",
            _attr(".command_outputs", "FidelityChange"),
        ),
        OutputSchema("org-sync", "git intent org sync SOURCES... --json", _attr(".org.sync", "SyncReport")),
        OutputSchema("status", "git intent status --json", _attr(".capture.status", "CaptureStatus")),
        OutputSchema("doctor", "git intent doctor --json", _attr(".capture.doctor", "DoctorReport")),
        OutputSchema("path", "git intent path --json", _attr(".command_outputs", "StatePaths")),
        OutputSchema(
            "record",
            "git intent record [REV] --json (and git intent carry --json)",
            _attr(".capture.record", "RecordResult"),
        ),
        OutputSchema(
            "record-pending", "git intent record --pending --json", _attr(".capture.worker", "DrainResult")
        ),
        OutputSchema(
            "backfill", "git intent backfill [RANGE] --json", _attr(".capture.backfill", "BackfillResult")
        ),
        OutputSchema(
            "import", "git intent import --from SOURCE --json", _attr(".interop.importers", "ImportResult")
        ),
        OutputSchema(
            "agent-trace",
            "git intent export --format agent-trace [RANGE] (one record per line; Agent Trace v0.1, github "
            "cursor/agent-trace)",
            _attr(".interop.agent_trace", "TraceRecord"),
        ),
        OutputSchema(
            "memory",
            "git intent memory [PATH[:LINES]] --json (and the MCP tools recall and intent_for)",
            _attr(".memory.values", "MemoryAnswer"),
        ),
        OutputSchema(
            "memory-state", "git intent memory --state --json", _attr(".memory.values", "ProjectState")
        ),
        OutputSchema("stats", "git intent stats [RANGE] --json", _attr(".explain.stats", "StatsReport")),
        OutputSchema("attest", "git intent attest [RANGE] --json", _attr(".attest.make", "AttestResult")),
        OutputSchema("verify", "git intent verify [RANGE] --json", _attr(".attest.verify", "VerifyReport")),
        OutputSchema(
            "in-toto-statement",
            "git intent export --format in-toto [RANGE] (the payload of each DSSE envelope: an in-toto "
            "Statement v1 with the predicate https://git-intent.dev/provenance/v1)",
            _attr(".attest.statement", "Statement"),
        ),
        OutputSchema(
            "provenance",
            "git intent attest (the predicate https://git-intent.dev/provenance/v1 of each Statement)",
            _attr(".attest.statement", "Provenance"),
        ),
        OutputSchema(
            "org-stats",
            "git intent org stats [--by repo|agent|model|week] [--since DATE] --json",
            _list_of(".org.queries", "OrgStats"),
        ),
        OutputSchema(
            "org-search", "git intent org search QUERY --json", _list_of(".org.queries", "OrgSearchHit")
        ),
        OutputSchema(
            "org-sessions", "git intent org sessions --json", _list_of(".org.queries", "SpanningSession")
        ),
        OutputSchema("review", "git intent review RANGE --json", _attr(".review.values", "ReviewAnswer")),
        OutputSchema("audit", "git intent audit RANGE --json", _attr(".share.audit", "AuditReport")),
        OutputSchema("push", "git intent push [REMOTE] --json", _attr(".share.remote", "PushResult")),
        OutputSchema("fetch", "git intent fetch [REMOTE] --json", _attr(".share.remote", "FetchResult")),
        OutputSchema("share", "git intent share [LEVEL] --json", _attr(".share.status", "SharingStatus")),
        OutputSchema(
            "redact", "git intent redact FILE --check --json", _list_of(".redaction.redact", "CheckFinding")
        ),
        # why/ask live in git_intent.answer; a build without them lists neither.
        OutputSchema("why", "git intent why PATH:LINE[-END] --json", _attr(".answer.why_line", "WhyAnswer")),
        OutputSchema("ask", "git intent ask QUESTION --json", _attr(".answer.why_line", "WhyAnswer")),
        OutputSchema(
            "annotate",
            "git intent annotate SESSION... | --all | --since DATE --json",
            _attr(".answer.annotate", "AnnotateResult"),
        ),
    ]
}


def available() -> list[str]:
    """The names of the schemas this build can produce, sorted."""
    names = []
    for name, entry in SCHEMAS.items():
        try:
            entry.load()
        except (ImportError, AttributeError):
            continue
        names.append(name)
    return sorted(names)


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12, serialization mode: what the command prints) of output `name`.

    Raises IntentError for a name with no schema in this build.
    """
    entry = SCHEMAS.get(name)
    try:
        if entry is None:
            raise ImportError(name)
        kind = entry.load()
    except (ImportError, AttributeError):
        raise IntentError(
            f"There is no JSON output named {name!r}.",
            hint=f"`git intent schema` lists them: {', '.join(available())}.",
        ) from None
    schema = adapter(kind).json_schema(mode="serialization")
    for field in entry.drop:
        schema.get("properties", {}).pop(field, None)
        if field in schema.get("required", []):
            schema["required"].remove(field)
    schema.setdefault("title", name)
    return {"$schema": DRAFT, "$comment": f"The output of `{entry.command}`.", **schema}
