"""The sub-agent's read-only tools (these names and arguments): blame, view_context,
message_detail, set_fidelity (in memory, for this answer only) and search, over the library functions."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.errors import IntentError
from ..core.values import Session, to_json
from ..explain.blame import LineAnswer, blame_lines
from ..explain.evidence import best_reason
from ..explain.render import message_text, when
from ..fidelity.budget import render_context
from ..fidelity.choices import FidelityError, FidelityState, set_level
from ..fidelity.topics import Topic, clip
from .reading import Reading, resolve_message

# Characters of one evidence message in a blame result, by kind; message_detail has the rest. The request
# and the edit say what and how; the reasoning around them is opened only where the answer needs it.
EVIDENCE_CHARS = {"request": 600, "edit": 400, "reasoning": 240, "confirmed": 240, "follow-up": 200}
MAX_BLAME_LINES = 40
DEFAULT_VIEW_BUDGET = 1500  # tokens of a view_context rendering unless the model asks for another
MIN_VIEW_BUDGET = 200
SEARCH_HITS = 8
LIMIT_REACHED = (
    "The reading limit of {limit} transcript tokens (intent.maxTokens) is reached; answer now with what "
    "you have read."
)

_SESSION = {"type": "string", "description": "A session id (or unique prefix), as in a citation."}
SPECS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "blame",
            "description": "The blame JSON of lines of a file at HEAD: commit, the session and "
            "message whose edit wrote each line, and the evidence (request, reasoning, edit, follow-up).",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path relative to the repository root."},
                    "line": {"type": "integer", "description": "First line, from 1."},
                    "end_line": {"type": "integer", "description": "Last line (default: line)."},
                },
                "required": ["path", "line"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "view_context",
            "description": "A session's topic map and the session rendered within a "
            "token budget: recent turns full, older work as summaries; every message shows its [ID].",
            "parameters": {
                "type": "object",
                "properties": {
                    "session_id": _SESSION,
                    "budget": {"type": "integer", "description": f"Tokens (default {DEFAULT_VIEW_BUDGET})."},
                },
                "required": ["session_id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "message_detail",
            "description": "One message of a session at full fidelity.",
            "parameters": {
                "type": "object",
                "properties": {
                    "session_id": _SESSION,
                    "message_id": {"type": "string", "description": "A message id or prefix."},
                },
                "required": ["session_id", "message_id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_fidelity",
            "description": "Change how view_context shows a topic (t1, t2, …) or a "
            "message (:MESSAGE_ID) of a session, for this answer only.",
            "parameters": {
                "type": "object",
                "properties": {
                    "session_id": _SESSION,
                    "target": {"type": "string", "description": "t3, or :MESSAGE_ID"},
                    "level": {
                        "type": "string",
                        "enum": ["full", "summary", "compressed", "placeholder", "hidden", "auto"],
                    },
                },
                "required": ["session_id", "target", "level"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Messages of this repository's sessions matching a query, best first.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "session_id": _SESSION,
                    "path": {
                        "type": "string",
                        "description": "Only messages that edited or named this path.",
                    },
                },
                "required": ["query"],
            },
        },
    },
]


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Blame(_Args):
    path: str
    line: int = Field(ge=1)
    end_line: int | None = Field(default=None, ge=1)


class _View(_Args):
    session_id: str
    budget: int | None = None


class _Detail(_Args):
    session_id: str
    message_id: str


class _Fidelity(_Args):
    session_id: str
    target: str
    level: Literal["full", "summary", "compressed", "placeholder", "hidden", "auto"]


class _Search(_Args):
    query: str
    session_id: str | None = None
    path: str | None = None


class Toolbox:
    """The tools of one answer. Every call reads through `reading` (what was read, tokens spent);
    `set_fidelity` changes `states`, kept in memory: the user's stored choices are read, never written."""

    def __init__(self, reading: Reading, since: datetime | None = None) -> None:
        self.reading = reading
        self.since = since
        self.states: dict[str, FidelityState] = {}
        self.exhausted = False
        self._indexed = False
        self._tools: dict[str, tuple[type[_Args], Callable[[Any], str]]] = {
            "blame": (_Blame, self.blame),
            "view_context": (_View, self.view_context),
            "message_detail": (_Detail, self.message_detail),
            "set_fidelity": (_Fidelity, self.set_fidelity),
            "search": (_Search, self.search),
        }

    def call(self, name: str, arguments: str) -> str:
        """Run tool `name` with JSON `arguments`; a bad call or a known failure is a sentence for the
        model."""
        if name not in self._tools:
            return f"error: there is no tool {name!r}; the tools are {', '.join(self._tools)}."
        model, run = self._tools[name]
        try:
            args = model.model_validate_json(arguments or "{}")
        except ValidationError as exc:
            return f"error: bad arguments for {name}: {exc.errors()[0]['msg']} ({exc.errors()[0]['loc']})."
        if self.exhausted or self.reading.remaining <= 0:
            self.exhausted = True
            return LIMIT_REACHED.format(limit=self.reading.max_tokens)
        try:
            return run(args)
        except IntentError as exc:
            return f"error: {exc}"

    # -- the tools ------------------------------------------------------------------------------------

    def blame(self, args: _Blame) -> str:
        end = max(args.line, args.end_line or args.line)
        end = min(end, args.line + MAX_BLAME_LINES - 1)
        answer = blame_lines(self.reading.repo, f"{args.path}:{args.line}-{end}", cwd=self.reading.repo.root)
        return lines_json(self.reading, answer.lines)

    def view_context(self, args: _View) -> str:
        session = self.reading.session(args.session_id)
        if self.reading.remaining < MIN_VIEW_BUDGET:
            self.exhausted = True
            return LIMIT_REACHED.format(limit=self.reading.max_tokens)
        budget = max(MIN_VIEW_BUDGET, min(args.budget or DEFAULT_VIEW_BUDGET, self.reading.remaining))
        topics = self.reading.topics(session)
        rendered = render_context(
            session, topics, self.state(session), budget_tokens=budget, session_ref=session.session_id
        )
        self.reading.send_rendered(session, rendered.text)
        return topic_map(session, topics, rendered.levels) + "\n\n" + rendered.text

    def message_detail(self, args: _Detail) -> str:
        session, message = resolve_message(self.reading, args.session_id, args.message_id)
        text = message_text(message)
        limit = self.reading.remaining * 4
        if len(text) > limit:
            self.exhausted = True
            text = text[:limit] + " … [cut: the reading limit (intent.maxTokens) is reached]"
        self.reading.mark(session, message)
        self.reading.send(
            text.split("\n", 1)[1] if "\n" in text else text, (session.session_id, message.message_id)
        )
        return f"session {session.agent} {session.session_id}\n{text}"

    def set_fidelity(self, args: _Fidelity) -> str:
        session = self.reading.session(args.session_id)
        target = args.target
        if re.fullmatch(r"t[1-9]\d*", target):
            if target not in {t.topic_id for t in self.reading.topics(session)}:
                raise FidelityError(f"Session {session.session_id} has no topic {target}.")
        else:
            found = session.message(target.removeprefix(":"))
            if found is None:
                raise FidelityError(
                    f"Session {session.session_id} has no message {target.removeprefix(':')}."
                )
            target = ":" + found.message_id
        self.states[session.session_id] = set_level(self.state(session), target, args.level)
        return (
            f"{target} of session {session.session_id} is now {args.level} for this answer; "
            "view_context shows the result."
        )

    def search(self, args: _Search) -> str:
        from ..index import ingest
        from ..index.search import search

        if not self._indexed:
            ingest(self.reading.repo)
            self._indexed = True
        hits = search(
            self.reading.repo,
            args.query,
            since=self.since,
            file=args.path,
            limit=SEARCH_HITS * 5 if args.session_id else SEARCH_HITS,
        )
        if args.session_id:
            hits = [h for h in hits if h.session_id.startswith(args.session_id)]
        out = []
        for hit in hits[:SEARCH_HITS]:
            session = self.reading.try_session(hit.session_id, hit.agent)
            message = session.message(hit.message_id) if session else None
            if session is not None and message is not None:
                self.reading.mark(session, message)
            self.reading.send(hit.snippet)
            out.append(
                f"[{hit.session_id}:{hit.message_id}] {hit.agent} {hit.role or ''} {when(hit.timestamp)} "
                f"score {hit.score:.2f}: {hit.snippet}"
            )
        return "\n".join(out) or "No message matches."

    # -- helpers --------------------------------------------------------------------------------------

    def state(self, session: Session) -> FidelityState:
        """This answer's fidelity choices for `session`: the user's stored ones (read only), then the
        sub-agent's changes."""
        if session.session_id not in self.states:
            from ..fidelity.context import state_path

            try:
                self.states[session.session_id] = FidelityState.load(state_path(self.reading.repo, session))
            except FidelityError:
                self.states[session.session_id] = FidelityState()
        return self.states[session.session_id]


def lines_json(reading: Reading, lines: list[LineAnswer]) -> str:
    """Blame lines as `blame --json` prints them, for the model: each evidence message once (later
    lines of the same edit say `evidence_as_line`), only the first (picked) reasoning, texts clipped to
    EVIDENCE_CHARS by kind; marks and counts what is shown."""
    out: list[dict[str, Any]] = []
    first: dict[tuple[str, str], int] = {}
    for line in lines:
        item = to_json(line, exclude={"author", "authored_at"})
        attribution = line.attribution
        key = (attribution.session_id, attribution.message_id) if attribution else None
        if key is not None and key in first:
            item["evidence"] = []
            item["evidence_as_line"] = first[key]
        else:
            if key is not None:
                first[key] = line.line
            # The reason the picker chose, not the other nearby ones: one message_detail away (a
            # one-line question then reads under 10% of the session).
            chosen = best_reason(line.evidence)
            picked = [e for e in line.evidence if e.kind != "reasoning" or e is chosen]
            item["evidence"] = [_evidence(reading, line, to_json(e)) for e in picked]
        out.append(item)
    return json.dumps({"lines": out}, ensure_ascii=False)


def _evidence(reading: Reading, line: LineAnswer, item: dict[str, Any]) -> dict[str, Any]:
    agent = line.attribution.agent if line.attribution else None
    session = reading.try_session(item["session_id"], agent)
    message = session.message(item["message_id"]) if session else None
    if session is not None and message is not None:
        reading.mark(session, message)
    text, limit = str(item["text"]), EVIDENCE_CHARS.get(str(item["kind"]), 300)
    passage = item.pop("passage", None)
    item.pop("best", None)  # one reasoning is shown: the best one
    if len(text) > limit and passage:  # the words the reason picker chose, not the message's opening
        text = str(passage)[:limit].rstrip()
        reading.send(text, (item["session_id"], item["message_id"]))
        text += (
            f" … [the passage explaining the edit; message_detail({item['session_id']}, "
            f"{item['message_id']}) "
            "shows the message whole]"
        )
    elif len(text) > limit:
        text = text[:limit].rstrip()
        reading.send(text, (item["session_id"], item["message_id"]))
        text += f" … [clipped; message_detail({item['session_id']}, {item['message_id']}) shows it whole]"
    else:
        reading.send(text, (item["session_id"], item["message_id"]))
    return {**item, "text": text}


SEED_SUMMARY = 240  # characters of a topic's summary in the topic map the reading starts from


def seed_summary(topic: Topic) -> str:
    """A topic's summary as the topic map shows it (clipped to SEED_SUMMARY), with its key facts when a
    model or the agent annotated it."""
    facts = " Key facts: " + " · ".join(topic.facts) if topic.facts else ""
    return clip(topic.summary, SEED_SUMMARY) + facts


def topic_map(session: Session, topics: list[Topic], levels: Mapping[str, str] | None = None) -> str:
    """One line per topic: id, fidelity, messages, share of the session, label, first…last message id; then
    its summary (the annotations' topic summary when a model or the agent wrote them): the sub-agent reads
    topic summaries first and zooms into messages."""
    total = sum(t.token_estimate for t in topics) or 1
    out = [f"topic map of {session.agent} session {session.session_id} ({len(session.messages)} messages):"]
    for topic in topics:
        span = f"{topic.message_ids[0]}…{topic.message_ids[-1]}" if topic.message_ids else "empty"
        level = f" {levels[topic.topic_id]}" if levels and topic.topic_id in levels else ""
        out.append(
            f"  {topic.topic_id}{level} · {len(topic.message_ids)} msgs · "
            f"{100 * topic.token_estimate // total}% · {topic.label} · messages {span}"
        )
        out.append(f"    summary: {seed_summary(topic)}")
    return "\n".join(out)
