"""Reading git-ai's authorship notes on refs/notes/ai (schema `authorship/3.0.0`, git-ai 1.0 to 1.6), both
formats.

A note is text: an attestation section, a line `---`, then a pretty-printed JSON document. The attestation
section names a file on an unindented line (quoted when it holds whitespace), then one indented line per
key: `<key> <ranges>`, ranges like `1-5,7,10-15` (1-based, inclusive, lines of the file at the annotated
commit). Where two entries of a file cover a line, the later one holds it (git-ai reads them last first).

- The older format (git-ai 1.0 to 1.3): keys are prompt hashes (`e61c0a4`, `d8027690cedbf0e0`, 16 hex of
  SHA-256 of `tool:id`) found in the JSON `prompts`, whose records (`PromptRecord`) carry `agent_id {tool, id,
  model}`, `human_author`, line counts and, until 1.3, `messages`: a normalized transcript (user, assistant,
  thinking, plan, tool_use) in notes written before 1.4, read here as git-intent messages.
- "sessions-v2" (git-ai 1.4.0 on, tag v1.4.0 = 75601597a9e0): keys are `s_<14 hex>` (SHA-256 of `tool:id`) or
  `s_<14 hex>::t_<14 hex>` (a random trace id per checkpoint), found in the JSON `sessions` by the part before
  `::`; a `SessionRecord` carries only `agent_id {tool, id, model}`, `human_author` and `custom_attributes`:
  no message text and no line counts. `agent_id.id` is the agent's own session id, so a local transcript of it
  gives the messages back. A note may hold both kinds of key while old checkpoints drain.
- Both: a person is `h_<14 hex>` in `humans` (`{author}`), or the older literal `human`.
The schema version stays `authorship/3.0.0` across both. Source: git-ai-project/git-ai at 55a1d728fb96
(1.6.24): src/authorship/authorship_log_serialization.rs (`AUTHORSHIP_LOG_VERSION`, `serialize_to_string`,
`get_line_attribution`, `generate_session_id`, `generate_trace_id`), src/authorship/authorship_log.rs
(`PromptRecord`, `SessionRecord`, `HumanRecord`), src/authorship/working_log.rs (`AgentId`) and
docs/migrations/sessions-v2-note-format.md (Apache-2.0).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Any

from ..core.values import Message, ParseStats, Part, PartKind, Role, parse_timestamp
from ..git.repo import Repository

NOTES_REF = "refs/notes/ai"
# git-ai `agent_id.tool` -> git-intent agent name; other tools are kept as written and marked unsupported.
TOOL_AGENTS = {
    "claude": "claude-code",
    "codex": "codex",
    "cursor": "cursor",
    "opencode": "opencode",
    "gemini": "gemini-cli",
    "amp": "amp",
    "droid": "droid",
    "pi": "pi",
    # git-ai's names for the agents of VS Code's Copilot Chat, the Copilot CLI and Continue's CLI
    # (src/authorship/attribution_recovery.rs); its `copilot` is tab completion, which keeps no session.
    "claude-code": "claude-code",
    "github-copilot": "copilot-chat",
    "github-copilot-cli": "copilot-cli",
    "continue-cli": "continue",
    "cline": "cline",
}
_RANGE = re.compile(r"(\d+)(?:-(\d+))?", re.ASCII)
_SPACE = re.compile(r"\s*")  # what str.lstrip strips
_DECODER = json.JSONDecoder()
_ROLES: dict[str, tuple[Role, PartKind]] = {
    "user": ("user", "text"),
    "assistant": ("assistant", "text"),
    "thinking": ("assistant", "reasoning"),
    "plan": ("assistant", "text"),
}

LineRange = tuple[int, int]


@dataclass(frozen=True)
class GitAiAttestation:
    """One attestation line: `key` wrote `ranges` (1-based inclusive (start, end) pairs) of a file."""

    key: str
    ranges: tuple[LineRange, ...]

    @property
    def session_key(self) -> str:
        """The key without its trace suffix (`s_abc::t_def` -> `s_abc`): the key of the session record."""
        return self.key.split("::", 1)[0]

    @property
    def is_human(self) -> bool:
        """Whether the lines are attested to a person (`h_<hex>` keys, or the older `human`)."""
        return self.key == "human" or self.key.startswith("h_")

    def lines(self) -> Iterator[int]:
        """Every line number the ranges cover, in order."""
        for start, end in self.ranges:
            yield from range(start, end + 1)


@dataclass(frozen=True)
class GitAiSession:
    """A `prompts` or `sessions` record: which agent session wrote the lines attested to `key`.

    `agent` is the git-intent agent name when the tool is one git-intent reads (`supported`), else the
    git-ai tool name as written (github-copilot, amp, junie, devin, ...). `session_id` is the agent's own
    session id (`agent_id.id`). `messages` is the embedded normalized transcript of older `prompts`
    records, as git-intent messages with ids `<key>.<n>` (n 1-based).
    """

    key: str
    tool: str
    agent: str
    supported: bool
    session_id: str
    model: str | None = None
    human_author: str | None = None
    from_prompts: bool = False
    messages: tuple[Message, ...] = ()
    messages_url: str | None = None
    total_additions: int | None = None
    total_deletions: int | None = None
    accepted_lines: int | None = None
    overriden_lines: int | None = None


@dataclass(frozen=True)
class GitAiNote:
    """One git-ai note: per file the attestations in note order, and the records their keys name.

    `stats.unreadable` counts attestation lines, JSON lines and records that could not be read.
    """

    files: dict[str, tuple[GitAiAttestation, ...]] = field(default_factory=dict)
    sessions: dict[str, GitAiSession] = field(default_factory=dict)
    humans: dict[str, str] = field(default_factory=dict)
    schema_version: str | None = None
    git_ai_version: str | None = None
    base_commit_sha: str | None = None
    stats: ParseStats = field(default_factory=ParseStats)

    @property
    def unreadable(self) -> int:
        """How many lines or records of the note could not be read."""
        return self.stats.unreadable

    def session_for(self, key: str) -> GitAiSession | None:
        """The record an attestation key names (exact key, else the key before `::`); None for humans
        and keys the note does not define (git-ai then looks in other commits' notes)."""
        return self.sessions.get(key) or self.sessions.get(key.split("::", 1)[0])


@dataclass(frozen=True)
class GitAiSpan:
    """Lines `start..end` (1-based, inclusive) of `path` that a note attests to the AI record `session`."""

    path: str
    start: int
    end: int
    session: GitAiSession


def attested_spans(
    note: GitAiNote, lengths: Mapping[str, int], elsewhere: Mapping[str, GitAiSession] | None = None
) -> tuple[list[GitAiSpan], int]:
    """The runs of lines each AI record of `note` holds, per file in note order, as git-ai reads them: a
    later entry of a file holds a line before an earlier one; a person's entry (`h_…` in `humans`, `human`)
    holds its lines for nobody; a legacy prompt key the note does not define is looked up in `elsewhere`
    (other notes' `prompts`, as git-ai looks for it), and an entry whose record is nowhere (a session key
    is looked up in this note only, as git-ai does) is passed over. `lengths`: each file's line count at
    the commit; lines past it are cut and files not in it give nothing. Returns (spans, entries passed
    over). Linear in the entries' ranges plus the files' lengths, however the ranges overlap."""
    others = elsewhere or {}
    spans: list[GitAiSpan] = []
    passed = 0
    for path, entries in note.files.items():
        size = lengths.get(path, 0)
        if size <= 0:
            continue
        owner: list[GitAiSession | None] = [None] * (size + 1)
        # free[i]: a line at or after i not yet held (path-compressed), so each line is assigned once.
        free = list(range(size + 2))
        for entry in reversed(entries):
            record = (
                None
                if entry.is_human
                else note.session_for(entry.key)
                or (None if entry.key.startswith("s_") else others.get(entry.key))
            )
            if record is None and not (entry.key == "human" or entry.key in note.humans):
                passed += 1
                continue
            for start, end in entry.ranges:
                line = _next_free(free, start)
                while line <= min(end, size):
                    owner[line] = record
                    free[line] = line + 1
                    line = _next_free(free, line + 1)
        line = 1
        while line <= size:
            record = owner[line]
            run = line
            while run < size and owner[run + 1] is record:
                run += 1
            if record is not None:
                spans.append(GitAiSpan(path=path, start=line, end=run, session=record))
            line = run + 1
    return spans, passed


def prompt_records(notes: Iterable[GitAiNote]) -> dict[str, GitAiSession]:
    """The legacy `prompts` records of `notes` by key, without their messages (the first note naming a key
    wins): where git-ai finds a prompt key a note uses but does not define (a commit rebased or
    cherry-picked carries its attestations, not always its records)."""
    found: dict[str, GitAiSession] = {}
    for note in notes:
        for key, record in note.sessions.items():
            if record.from_prompts and key not in found:
                found[key] = replace(record, messages=())
    return found


def foreign_records(note: GitAiNote, elsewhere: Mapping[str, GitAiSession]) -> list[GitAiSession]:
    """The records of `elsewhere` that `note`'s legacy prompt keys name without the note defining them,
    once each, in note order."""
    found: dict[str, GitAiSession] = {}
    for entries in note.files.values():
        for entry in entries:
            key = entry.key
            if (
                key not in found
                and key in elsewhere
                and not entry.is_human
                and not key.startswith("s_")
                and (note.session_for(key) is None)
            ):
                found[key] = elsewhere[key]
    return list(found.values())


def _next_free(free: list[int], line: int) -> int:
    """The first line at or after `line` no entry holds yet (`len(free) - 1` when none), compressing the
    path."""
    if line >= len(free):
        return len(free) - 1
    root = line
    while free[root] != root:
        root = free[root]
    while free[line] != root:
        free[line], line = root, free[line]
    return root


def agent_for_tool(tool: str) -> tuple[str, bool]:
    """The git-intent agent name for a git-ai tool name, and whether git-intent supports that agent."""
    mapped = TOOL_AGENTS.get(tool.strip().lower())
    return (mapped, True) if mapped else (tool, False)


def parse_gitai_note(text: str) -> GitAiNote:
    """Parse the text of one note on refs/notes/ai. Never raises: what cannot be read is counted.

    Notes concatenated by a notes merge (several `attestations --- json` blocks) are read block by block;
    a file named twice gets its attestations appended.
    """
    stats = ParseStats()
    files: dict[str, list[GitAiAttestation]] = {}
    meta: dict[str, Any] = {}
    sessions: dict[str, GitAiSession] = {}
    humans: dict[str, str] = {}
    # Split on "\n" only: str.splitlines would also split on U+2028 and friends, which git-ai writes
    # unescaped inside JSON strings.
    lines = text.split("\n")
    # Where each line starts in `text`: each JSON document is decoded in place, so a note of many blocks is
    # read in one pass (joining the rest of the note for each block made 40,000 blocks take minutes).
    starts = [0, *accumulate(len(line) + 1 for line in lines[:-1])]
    i = 0
    while i < len(lines):
        end = next((j for j in range(i, len(lines)) if lines[j].rstrip() == "---"), len(lines))
        _read_attestations(lines[i:end], files, stats)
        if end == len(lines):
            break
        consumed, document = _read_json(text, starts, end + 1)
        if document is None:
            stats.unreadable += sum(1 for line in lines[end + 1 :] if line.strip())
            break
        stats.records += 1
        if isinstance(document, dict):
            meta = meta or document
            _read_records(document, sessions, humans, stats)
        else:
            stats.unreadable += consumed
        i = end + 1 + consumed
    return GitAiNote(
        files={path: tuple(entries) for path, entries in files.items() if entries},
        sessions=sessions,
        humans=humans,
        stats=stats,
        schema_version=_str(meta.get("schema_version")),
        git_ai_version=_str(meta.get("git_ai_version")),
        base_commit_sha=_str(meta.get("base_commit_sha")),
    )


def read_gitai_notes(repo: Repository, ref: str = NOTES_REF) -> Iterator[tuple[str, GitAiNote]]:
    """(annotated commit SHA, note) for every note on `ref`, through `git notes list` and
    `git cat-file --batch`. Yields nothing when the ref does not exist; never raises on note content."""
    listing = repo.git("notes", "--ref", ref, "list", check=False)
    pairs = [fields for fields in (line.split() for line in listing.splitlines()) if len(fields) == 2]
    # Equal notes share one blob, so blobs are matched to commits by position, not by id.
    for (_, commit), (_, data) in zip(pairs, repo.cat_blobs([blob for blob, _ in pairs]), strict=True):
        if data is not None:
            yield commit, parse_gitai_note(data.decode("utf-8", "replace"))


def _read_attestations(lines: list[str], files: dict[str, list[GitAiAttestation]], stats: ParseStats) -> None:
    current: list[GitAiAttestation] | None = None
    for raw in lines:
        line = raw.rstrip()
        if not line:
            continue
        stats.records += 1
        if not line[0].isspace():
            path = line[1:-1] if len(line) >= 2 and line[0] == line[-1] == '"' else line
            current = files.setdefault(path, [])
            continue
        key, _, spec = line.strip().partition(" ")
        ranges, bad = _parse_ranges(spec.strip())
        if current is None or not ranges or bad:
            stats.unreadable += 1
        if current is not None and ranges:
            current.append(GitAiAttestation(key=key, ranges=ranges))


def _parse_ranges(spec: str) -> tuple[tuple[LineRange, ...], bool]:
    """The ranges of `1-5,7`, and whether some part was unreadable (kept parts are still returned)."""
    ranges: list[LineRange] = []
    bad = False
    for part in spec.split(","):
        if not part:
            continue
        found = _RANGE.fullmatch(part.strip())
        if found is None:
            bad = True
            continue
        start = int(found.group(1))
        end = int(found.group(2)) if found.group(2) else start
        if start < 1 or end < start:
            bad = True
            continue
        ranges.append((start, end))
    return tuple(ranges), bad


def _read_json(text: str, starts: list[int], first: int) -> tuple[int, Any]:
    """Decode the JSON document starting at line `first` of `text` (`starts`: each line's offset): (lines it
    spans, value), or (0, None)."""
    start = starts[first] if first < len(starts) else len(text)
    space = _SPACE.match(text, start)
    offset = space.end() if space else start
    try:
        value, end = _DECODER.raw_decode(text, offset)
    except (ValueError, RecursionError):
        return 0, None
    return bisect_right(starts, end) - first, value


def _read_records(
    document: dict[str, Any], sessions: dict[str, GitAiSession], humans: dict[str, str], stats: ParseStats
) -> None:
    for section, from_prompts in (("prompts", True), ("sessions", False)):
        records = document.get(section)
        if records is None:
            continue
        if not isinstance(records, dict):
            stats.unreadable += 1
            continue
        for key, record in records.items():
            session = _read_session(key, record, from_prompts, stats)
            if session is None:
                stats.unreadable += 1
            else:  # a key in both sections: the prompts record, which holds the messages, wins
                sessions.setdefault(key, session)
    people = document.get("humans")
    if isinstance(people, dict):
        for key, record in people.items():
            author = record.get("author") if isinstance(record, dict) else None
            if isinstance(author, str):
                humans[key] = author
            else:
                stats.unreadable += 1


def _read_session(key: str, record: Any, from_prompts: bool, stats: ParseStats) -> GitAiSession | None:
    if not isinstance(record, dict) or not isinstance(record.get("agent_id"), dict):
        return None
    agent_id = record["agent_id"]
    tool, session_id = agent_id.get("tool"), agent_id.get("id")
    if not isinstance(tool, str) or not isinstance(session_id, str):
        return None
    agent, supported = agent_for_tool(tool)
    messages = record.get("messages")
    return GitAiSession(
        key=key,
        tool=tool,
        agent=agent,
        supported=supported,
        session_id=session_id,
        model=_str(agent_id.get("model")),
        human_author=_str(record.get("human_author")),
        from_prompts=from_prompts,
        messages=_read_messages(key, messages, stats) if isinstance(messages, list) else (),
        messages_url=_str(record.get("messages_url")),
        total_additions=_int(record.get("total_additions")),
        total_deletions=_int(record.get("total_deletions")),
        accepted_lines=_int(record.get("accepted_lines")),
        overriden_lines=_int(record.get("overriden_lines")),
    )


def _read_messages(key: str, items: list[Any], stats: ParseStats) -> tuple[Message, ...]:
    prefix = key.replace(":", "_")  # message ids must not hold ':' (`git intent show SESSION:MESSAGE`)
    messages: list[Message] = []
    for n, item in enumerate(items, 1):
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(kind, str):
            stats.unreadable += 1
            continue
        stamp = parse_timestamp(item.get("timestamp"))
        if kind == "tool_use":
            name = _str(item.get("name"))
            arguments = json.dumps(item.get("input"), ensure_ascii=False, sort_keys=True)
            messages.append(
                Message(
                    message_id=f"{prefix}.{n}",
                    role="assistant",
                    timestamp=stamp,
                    parts=(Part(kind="tool_call", text=arguments, tool=name),),
                )
            )
        elif kind in _ROLES:
            role, part = _ROLES[kind]
            messages.append(
                Message(
                    message_id=f"{prefix}.{n}",
                    role=role,
                    timestamp=stamp,
                    parts=(Part(kind=part, text=_str(item.get("text")) or ""),),
                    is_prompt=kind == "user",
                )
            )
        else:
            stats.unknown(kind)
    return tuple(messages)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
