"""Value types shared by every layer: sessions, messages, parts, edits and attributions.

Models carry no storage identity (they carry no storage identity): ids are the agents' own (`session_id`,
`message_id`), and where a record lives (note, backup, index) is decided by the layers above.

They are stdlib dataclasses: building pydantic's validators cost every command ~100 ms of
start-up, and `blame` needs none of them. pydantic stays the one authority for their JSON, their schemas
and the validation of what is read from outside: `to_json` and `validate` build a `TypeAdapter` the first
time a type needs one (field metadata carries the constraints: `pattern`, `description`, `exclude`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from pydantic import TypeAdapter

# An agent is named by its adapter (`git_intent.adapters`): a built-in (claude-code, codex, opencode,
# gemini-cli, cursor, aider, qwen-code, amp, droid, pi, crush, goose, copilot-cli, copilot-chat, cline,
# roo-code, continue, and specstory:
# SpecStory histories, imported), or a plug-in's name. The registry
# checks the sessions its adapters read (`adapters.Registered.read`); a name from a note or a shared store is
# only shape-checked, since a teammate's plug-in may have written it. The shape keeps a name safe as a folder
# name (the backup files sessions under it) and in a note.
AGENT_NAME = r"^[a-z0-9][a-z0-9._-]{0,63}$"
AgentName = str  # checked by `AGENT` where read from outside
AGENT: dict[str, Any] = {
    "pattern": AGENT_NAME
}  # the field metadata of an agent name (pydantic's `Field` arguments)
FORBID: dict[str, Any] = {"extra": "forbid"}  # `__pydantic_config__` of a type that rejects unknown fields
T = TypeVar("T")
Role = Literal["user", "assistant", "tool", "system"]
PartKind = Literal["text", "reasoning", "tool_call", "tool_result"]


def parse_timestamp(value: Any) -> datetime | None:
    """An ISO-8601 timestamp as an aware datetime (no offset means UTC); None when absent or malformed."""
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=timezone.utc)


def epoch_timestamp(value: Any) -> datetime | None:
    """Seconds or milliseconds since the epoch (a number above 1e11 is milliseconds: 1e11 s lies in the year
    5138) as an aware UTC datetime; an ISO-8601 string as `parse_timestamp`; None when absent or malformed."""
    if isinstance(value, str):
        return parse_timestamp(value)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        return datetime.fromtimestamp(value / 1000 if abs(value) > 1e11 else value, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def utc_stamp(when: datetime) -> str:
    """A datetime as fixed-width ISO-8601 UTC with microseconds, so stored stamps compare as text (the
    session index and the record cache); a naive datetime is taken as UTC."""
    if when.tzinfo is timezone.utc:  # the usual case (adapters parse to UTC): skips a conversion per row
        return when.isoformat(timespec="microseconds")
    when = when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).isoformat(timespec="microseconds")


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def adapter(kind: Any) -> TypeAdapter[Any]:
    """pydantic's `TypeAdapter` for `kind` (a dataclass, a model or a type expression), built once per
    process on first use; importing pydantic is part of that first use."""
    built = _ADAPTERS.get(kind)
    if built is None:
        from pydantic import TypeAdapter

        built = _ADAPTERS[kind] = TypeAdapter(kind)
    return built


def to_json(value: Any, *, exclude: frozenset[str] | set[str] = frozenset()) -> Any:
    """`value` (a dataclass of this package, or a list of them) as JSON-ready Python data, exactly as
    pydantic's `dump_python(mode="json")` gives it (tests/test_json_form.py holds them equal with
    Hypothesis): datetimes as ISO-8601 text ("Z" for UTC), tuples as lists, paths as text, fields marked
    `exclude` left out, and the top-level fields named in `exclude`. Written out here because building
    pydantic's serializer for blame's answer cost every `--json` call ~70 ms; pydantic still validates and
    describes these types."""
    return _plain(value, exclude)


def _plain(value: Any, exclude: frozenset[str] | set[str]) -> Any:
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, list | tuple):
        return [_plain(item, frozenset()) for item in value]
    if isinstance(value, dict):
        return {str(k): _plain(v, frozenset()) for k, v in value.items()}
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "__dataclass_fields__"):
        return {
            f.name: _plain(getattr(value, f.name), frozenset())
            for f in fields(value)
            if f.name not in exclude and not f.metadata.get("exclude")
        }
    return adapter(type(value)).dump_python(value, mode="json")  # anything else: pydantic's own form


def validate(kind: type[T], data: Any) -> T:
    """`data` (decoded JSON or Python values) validated by pydantic as a `kind`.

    Raises: pydantic.ValidationError when it is not one."""
    result: T = adapter(kind).validate_python(data)
    return result


def validate_json(kind: type[T], data: str | bytes) -> T:
    """JSON text validated by pydantic-core as a `kind`. Raises: pydantic.ValidationError."""
    result: T = adapter(kind).validate_json(data)
    return result


@dataclass(frozen=True, kw_only=True, slots=True)
class Part:
    """A piece of a message: text, reasoning, a tool call (with its arguments) or a tool result."""

    __pydantic_config__ = FORBID

    kind: PartKind
    text: str = ""
    tool: str | None = None
    call_id: str | None = None
    is_error: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class Message:
    """One turn of a session, addressable as `SESSION:MESSAGE` by `message_id`.

    `is_prompt` marks a user turn typed by a person (not a tool result, a command echo or an injected
    compaction summary): the turns that state what the user asked for. `model` is the model id an
    assistant turn was written with, as the transcript records it (Claude Code `message.model`, Codex
    `turn_context.model`), when it does.
    """

    __pydantic_config__ = FORBID

    message_id: str
    role: Role
    timestamp: datetime | None = None
    parts: tuple[Part, ...] = ()
    is_prompt: bool = False
    is_summary: bool = False
    model: str | None = None

    @property
    def text(self) -> str:
        """The message's text and reasoning parts joined by blank lines."""
        return "\n\n".join(p.text for p in self.parts if p.kind in ("text", "reasoning") and p.text)


@dataclass(frozen=True, kw_only=True, slots=True)
class AddedLine:
    """A line an edit wrote: its text and, when known, its 1-based line number after the edit."""

    __pydantic_config__ = FORBID

    text: str
    line: int | None = None


MOVE_KINDS = frozenset({"move", "copy"})  # the `Edit` kinds that add no line but take a file elsewhere


@dataclass(frozen=True, kw_only=True, slots=True)
class Edit:
    """A file change made by one tool call.

    `path` is the path exactly as the transcript recorded it (often absolute, possibly from another
    machine); `added` holds the lines the edit produced, in order. `old_text`/`new_text` are the
    replaced and replacing text when the tool reports them. `before`/`after` are the whole file before
    and after the edit when the transcript records it (Claude Code's `originalFile`), for `replay`;
    they are left out of JSON output. A "move" or "copy" (`mv`, `cp`, `git mv`, an apply_patch `*** Move
    to:`) adds no line: `path` is where the file or folder went (ending with '/' when it went into that
    folder for certain) and `source` where it came from, as recorded; the edits made to `source` before it
    count for `path` too (`capture.moves`).
    """

    __pydantic_config__ = FORBID

    path: str
    tool: str
    message_id: str
    call_id: str | None = None
    timestamp: datetime | None = None
    kind: Literal["update", "create", "delete", "move", "copy"] = "update"
    old_text: str | None = None
    new_text: str = ""
    added: tuple[AddedLine, ...] = ()
    before: str | None = field(default=None, repr=False, metadata={"exclude": True})
    after: str | None = field(default=None, repr=False, metadata={"exclude": True})
    source: str | None = None


@dataclass(kw_only=True)
class ParseStats:
    """What reading a transcript skipped: counts, never exceptions (transcripts are messy by nature)."""

    records: int = 0
    unreadable: int = 0
    duplicates: int = 0  # records whose id was already read (skipped)
    unknown_types: dict[str, int] = field(default_factory=dict)

    def unknown(self, record_type: str) -> None:
        """Count one record of a type the adapter does not know."""
        self.unknown_types[record_type] = self.unknown_types.get(record_type, 0) + 1


@dataclass(kw_only=True)
class Session:
    """One agent run parsed from a transcript file.

    `session_id` is the agent's own id (Claude Code `sessionId`, Codex `session_meta.payload.id`);
    `aliases` holds other ids met in the same file (resumed sessions, parent hook records).
    """

    agent: AgentName = field(metadata=AGENT)
    session_id: str
    transcript: Path
    cwd: str | None = None
    cwds: list[str] = field(default_factory=list)
    parent_session_id: str | None = None
    aliases: list[str] = field(default_factory=list)
    agent_version: str | None = None
    messages: list[Message] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    stats: ParseStats = field(default_factory=ParseStats)

    @property
    def started_at(self) -> datetime | None:
        """The earliest message timestamp, or None when no message has one."""
        stamps = [m.timestamp for m in self.messages if m.timestamp is not None]
        return min(stamps) if stamps else None

    @property
    def ended_at(self) -> datetime | None:
        """The latest message timestamp, or None when no message has one."""
        stamps = [m.timestamp for m in self.messages if m.timestamp is not None]
        return max(stamps) if stamps else None

    def message(self, message_id: str) -> Message | None:
        """The message with this id, or with this unique id prefix; None when absent or ambiguous."""
        exact = [m for m in self.messages if m.message_id == message_id]
        if exact:
            return exact[0]
        found = [m for m in self.messages if m.message_id.startswith(message_id)]
        return found[0] if len(found) == 1 else None


@dataclass(frozen=True, kw_only=True, slots=True)
class Attribution:
    """The link from a line to the session and message whose edit wrote it (the JSON contract of
    docs/json.md).

    `model`: the model id the message was written with, when the transcript on this machine records it.
    With `method` "trailer" only the commit's trailers name the agent: `session_id` and `message_id` are
    empty, `tool` is "trailer" and `confidence` is below 1. With `method` "agent-trace" an imported record
    of another tool credits the line to that tool and `model`, with no session: `session_id` and
    `message_id` are empty, `tool` is "agent-trace" (an Agent Trace record) or "git-ai" (a git-ai note
    whose session has no transcript here), `confidence` below a transcript's."""

    __pydantic_config__ = FORBID

    agent: AgentName = field(metadata=AGENT)
    session_id: str = field(
        metadata={
            "description": 'The agent\'s own session id; "" when method is "trailer" or "agent-trace" '
            "(no session)."
        }
    )
    message_id: str = field(
        metadata={
            "description": 'The message whose edit wrote the line; "" when method is "trailer" or '
            '"agent-trace".'
        }
    )
    tool: str
    method: Literal["note", "content", "trailer", "agent-trace"] = field(
        default="note",
        metadata={
            "description": "note: recorded for this commit; content: no note, the line credited as "
            "`git intent record` would credit it now from the sessions on this machine; trailer: no "
            "transcript credits the commit, its trailers name the agent; agent-trace: the commit's note "
            "holds an imported record of another tool (an Agent "
            'Trace record, `tool` "agent-trace", or a git-ai note, `tool` "git-ai") that credits the line '
            "to that tool and model, with no transcript."
        },
    )
    confidence: float = 1.0
    derived_from: str | None = None
    model: str | None = None


AnnotationSource = Literal["model", "offline", "agent"]
# Which annotation of a turn stands: the agent's own over a model's over the offline filler's (never the
# reverse).
ANNOTATION_RANK: dict[str, int] = {"offline": 0, "model": 1, "agent": 2}
# Decant's per-turn record: a snake_case topic label, a placeholder of 5-10 words (pydantic applies these
# patterns where an annotation is read from outside: a model's reply, an agent's block, a shared blob).
TOPIC_LABEL = r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"
PLACEHOLDER_WORDS = r"^\s*\S+(?:\s+\S+){4,9}\s*$"


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnAnnotation:
    """What one turn of a session was about, in Decant's schema: `topic` (a stable snake_case label),
    `is_new_topic`, `message_summary` (the turn in a sentence), `topic_summary` (the topic so far),
    `placeholder` (5-10 words standing for the topic), `key_facts` (facts and decisions kept verbatim
    through every fidelity level), and who wrote it: `source` "model" (`git intent annotate`), "agent" (the
    agent's own `intent-annotation` block) or "offline" (the offline segmentation). `turn_id` is the turn's
    first message id, `digest` the SHA-256 of the turn's content (`fidelity.annotations.turn_digest`)."""

    __pydantic_config__ = FORBID

    topic: str = field(metadata={"pattern": TOPIC_LABEL, "max_length": 64})
    is_new_topic: bool
    message_summary: str = field(metadata={"min_length": 1, "max_length": 600})
    topic_summary: str = field(metadata={"min_length": 1, "max_length": 1200})
    placeholder: str = field(metadata={"pattern": PLACEHOLDER_WORDS, "max_length": 160})
    key_facts: tuple[str, ...] = ()
    source: AnnotationSource = "offline"
    turn_id: str = ""
    digest: str = ""
