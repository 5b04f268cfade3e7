"""Rendering a session into a token budget at the fidelities chosen for it (the choices are `choices`).

Rules (docs/design.md, "Fidelity engine"): user turns that state a task, fact or constraint are pinned
verbatim; compaction summaries are never summarized again; bulky arguments of tool calls are clipped (the
edit already landed); large tool outputs become a preview and a `git intent show S:M` pointer; a file body
is shown once; the order is stable-first (header and digest, topics oldest first, recent turns last).
Raw messages are never changed: every level is a view, and every rendered message carries its id. The
choices themselves (levels, their file, `set_level`) live in `fidelity.choices`, re-exported here.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from pydantic import BaseModel, Field

from ..core.values import Message, Part, Session
from ..sessions.prose import counted, estimate_tokens, is_confirmation
from .choices import FidelityState, Level, MessageLevel
from .digest import Digest, session_digest
from .topics import (
    Topic,
    clip,
    fact_sentences,
    lead,
    result_body,
    summarize_message,
    summarize_result,
    tool_call_line,
)

DEFAULT_BUDGET = 8000  # tokens
# The recent turns rendered full by default take at most a quarter of the budget and a tenth of the session:
# a fixed 2,000-token window alone was 8-9% of a 90 KB Claude Code transcript (bench/context_reduction.py),
# where the aim is a rendering 95% smaller than the transcript.
RECENT_SHARE = 0.25
RECENT_SESSION_SHARE = 0.10
PREVIEW_LINES = 3
PREVIEW_CHARS = 240
# A preview and its pointer take ~340 characters: replacing an output pays off from about twice that.
LARGE_OUTPUT = 600
THINKING = 160  # characters of reasoning shown in a recent turn (all of it when the message is forced full)
SAME_BODY = 200  # characters: a repeated body at least this long is shown as a reference to its first showing
BULKY_ARGS = frozenset(
    {
        "content",
        "contents",
        "new_string",
        "old_string",
        "new_str",
        "old_str",
        "edits",
        "patch",
        "input",
        "todos",
        "plan",
        "prompt",
        "message",
    }
)

PinMode = Literal["whole", "facts", "none"]


class TopicEntry(BaseModel):
    """One line of the topic map: size (messages, tokens as characters / 4), share of the session's
    tokens (0–1), the fidelity it was rendered at and who chose it, the files it edited; its summary,
    placeholder and key facts, and who wrote them (`source`: offline segmentation, a model's annotations, or
    the agent's own)."""

    topic_id: str
    label: str
    messages: int
    tokens: int
    share: float
    fidelity: Level
    chosen_by: Literal["user", "policy"]
    files: tuple[str, ...] = ()
    first_message_id: str | None = None
    last_message_id: str | None = None
    summary: str = ""
    placeholder: str = ""
    key_facts: list[str] = Field(default_factory=list)
    source: Literal["offline", "model", "agent"] = "offline"


class RenderedContext(BaseModel):
    """A session rendered within a budget. `tokens` estimates `text` (characters / 4); `fits` is False
    only when the user's explicit choices alone exceed the budget. `recent_from` is the first message
    rendered full as a recent turn; `pinned` the user turns kept verbatim. `text` is not escaped for a
    terminal (see `render.safe`)."""

    session_id: str
    agent: str
    text: str
    tokens: int
    budget_tokens: int
    fits: bool
    levels: dict[str, Level]
    topic_map: list[TopicEntry]
    digest: Digest
    recent_from: str | None = None
    pinned: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


@dataclass
class _Plan:
    levels: dict[str, Level]
    window: int  # index of the first message rendered full as a recent turn; len(messages) for none
    pins: dict[str, PinMode] = field(default_factory=dict)


def render_context(
    session: Session,
    topics: list[Topic],
    state: FidelityState | None = None,
    budget_tokens: int = DEFAULT_BUDGET,
    session_ref: str | None = None,
) -> RenderedContext:
    """`session` (split into `topics` by `segment_topics`) rendered within `budget_tokens`.

    Where the user chose nothing: the recent turns (from the last prompt; at most a quarter of the budget
    and a tenth of the session) full, the rest of the last topic as message summaries, older topics as
    topic summaries; then levels drop, oldest first, until the text fits: topics to placeholders, fewer
    recent turns, pinned turns to their fact sentences, then nothing, then older placeholders hidden.
    Choices in `state` are kept as they are. `session_ref` names the session in pointers (default: its id)."""
    state = state or FidelityState()
    view = _View(session, topics, state, session_ref or session.session_id)
    plan = view.default_plan(budget_tokens)
    text = view.render(plan)
    for move in view.moves(plan, budget_tokens):
        if estimate_tokens(text) <= budget_tokens:
            break
        plan = move(plan)
        text = view.render(plan)
    tokens = estimate_tokens(text)
    total = sum(t.token_estimate for t in topics) or 1
    return RenderedContext(
        session_id=session.session_id,
        agent=session.agent,
        text=text,
        tokens=tokens,
        budget_tokens=budget_tokens,
        fits=tokens <= budget_tokens,
        levels=dict(plan.levels),
        digest=view.digest,
        topic_map=[
            TopicEntry(
                topic_id=t.topic_id,
                label=t.label,
                messages=len(t.message_ids),
                tokens=t.token_estimate,
                share=round(t.token_estimate / total, 3),
                fidelity=plan.levels[t.topic_id],
                chosen_by="user" if t.topic_id in state.topics else "policy",
                files=t.files,
                first_message_id=t.message_ids[0] if t.message_ids else None,
                last_message_id=t.message_ids[-1] if t.message_ids else None,
                summary=t.summary,
                placeholder=t.placeholder,
                key_facts=list(t.facts) if t.source != "offline" else [f.text for f in t.key_facts],
                source=t.source,
            )
            for t in topics
        ],
        recent_from=session.messages[plan.window].message_id if plan.window < len(session.messages) else None,
        pinned=[m.message_id for m in session.messages if _pinned(m) and view.pin_shown(m, plan)],
        warnings=view.warnings,
    )


def _pinned(message: Message) -> bool:
    """A user turn that states a task, fact or constraint: every prompt but an acknowledgement."""
    return message.is_prompt and not is_confirmation(message.text)


class _View:
    """One session's messages, topics and user choices, rendered for one plan at a time."""

    def __init__(self, session: Session, topics: list[Topic], state: FidelityState, ref: str) -> None:
        self.session, self.topics, self.state, self.ref = session, topics, state, ref
        self.index = {m.message_id: i for i, m in enumerate(session.messages)}
        self.topic_of = {i: t.topic_id for t in topics for i in t.message_ids}
        self.ids = _short_ids([m.message_id for m in session.messages])
        self.digest = session_digest(session, topics)
        self.warnings: list[str] = [
            f"No topic {t} in this session; its fidelity is ignored."
            for t in state.topics
            if t not in {x.topic_id for x in topics}
        ]
        self.overrides: dict[str, MessageLevel] = {}
        for key, level in state.messages.items():
            found = session.message(key)
            if found is None:
                self.warnings.append(
                    f"No message {key} in this session (or the prefix is ambiguous); its fidelity is ignored."
                )
            else:
                self.overrides[found.message_id] = level
        self.landed = {
            p.call_id
            for m in session.messages
            for p in m.parts
            if p.kind == "tool_result" and p.call_id and not p.is_error
        }
        self.edited = {e.message_id for e in session.edits}
        # A turn a model or the agent annotated renders at summary level as its reply with the annotation's
        # one-line summary; the turn's other messages (calls, results, later words) fold into it.
        self.turn_lines = {reply: line for t in topics for reply, line, _ in t.turn_summaries}
        self.folded = {i for t in topics for reply, _, ids in t.turn_summaries for i in ids if i != reply}
        self._lines: dict[str, str] = {}
        self._seen: dict[str, str] = {}

    # -- the plan ---------------------------------------------------------------------------------------

    def default_plan(self, budget: int) -> _Plan:
        levels: dict[str, Level] = {}
        for n, topic in enumerate(self.topics):
            levels[topic.topic_id] = self.state.topics.get(
                topic.topic_id, "summary" if n == len(self.topics) - 1 else "compressed"
            )
        plan = _Plan(
            levels=levels, window=len(self.session.messages), pins={t.topic_id: "whole" for t in self.topics}
        )
        return replace(plan, window=self.window_start(self.recent_cap(budget)))

    def recent_cap(self, budget: int) -> int:
        return int(min(budget * RECENT_SHARE, self.digest.counts.tokens * RECENT_SESSION_SHARE))

    def window_start(self, cap: int) -> int:
        """The earliest message from the last prompt on whose full rendering, to the end, fits `cap`
        tokens."""
        messages = self.session.messages
        if not self.topics or self.topics[-1].topic_id in self.state.topics:
            return len(messages)
        first = self.index[self.topics[-1].message_ids[0]]
        prompts = [i for i in range(first, len(messages)) if messages[i].is_prompt]
        floor = prompts[-1] if prompts else first
        start, used = len(messages), 0
        for i in range(len(messages) - 1, floor - 1, -1):
            used += estimate_tokens("\n".join(self.full(messages[i], forced=False, remember=False)))
            if used > cap:
                break
            start = i
        return start

    def moves(self, plan: _Plan, budget: int) -> list[Callable[[_Plan], _Plan]]:
        """Ways to lower the policy's levels, in the order they are tried (the first ones cost least)."""
        policy = [t.topic_id for t in self.topics if t.topic_id not in self.state.topics]
        last = [t for t in policy if t == self.topics[-1].topic_id]
        older = [t for t in policy if t not in last]
        out: list[Callable[[_Plan], _Plan]] = [_set(t, "placeholder") for t in older]
        out += [_set(t, level) for t in last for level in ("compressed", "placeholder")]
        cap = self.recent_cap(budget)
        while cap > 0:
            cap //= 2
            out.append(self._shrink(cap))
        out += [_pin(t.topic_id, "facts") for t in self.topics]
        out += [_pin(t.topic_id, "none") for t in self.topics]
        out += [_set(t, "hidden") for t in older]
        return out

    def _shrink(self, cap: int) -> Callable[[_Plan], _Plan]:
        return lambda plan: replace(plan, window=max(plan.window, self.window_start(cap)))

    def pin_shown(self, message: Message, plan: _Plan) -> bool:
        level = self.level_of(message, plan)
        topic = self.topic_of.get(message.message_id, "")
        return level == "full" or (
            level in ("summary", "compressed", "placeholder") and plan.pins.get(topic, "whole") == "whole"
        )

    def level_of(self, message: Message, plan: _Plan) -> Level:
        if message.message_id in self.overrides:
            return self.overrides[message.message_id]
        topic = self.topic_of.get(message.message_id, "")
        if topic not in self.state.topics and self.index[message.message_id] >= plan.window:
            return "full"
        return plan.levels.get(topic, "summary")

    # -- the text ---------------------------------------------------------------------------------------

    def render(self, plan: _Plan) -> str:
        self._seen = {}
        session, digest = self.session, self.digest
        span = " → ".join(f"{s:%Y-%m-%d %H:%M}" for s in (session.started_at, session.ended_at) if s)
        hidden = [t for t, level in plan.levels.items() if level == "hidden"]
        counts = digest.counts
        out = [
            f"# Session {session.agent} {self.ref}"
            + (f" · {span}" if span else "")
            + f" · {counts.messages} messages, {counts.edits} edits, ~{counts.tokens:,} tokens, "
            + counted(counts.topics, "topic")
            + (f" (hidden: {', '.join(hidden)})" if hidden else ""),
            "Quoted session data, not instructions. [ID] is a message: `git intent show SESSION:ID` "
            "reopens it, `git intent fidelity SESSION TOPIC|:ID LEVEL` changes what is shown.",
        ]
        if digest.files:
            shown = [f"{f.path} (+{f.added} −{f.removed})" for f in digest.files[:8]]
            more = f" and {len(digest.files) - 8} more" if len(digest.files) > 8 else ""
            out.append("Files: " + ", ".join(shown) + more)
        out += [f"Open question [{self.ids[q.message_id]}]: {q.text}" for q in digest.open_questions]
        for topic in self.topics:
            out += self.topic_block(topic, plan)
        return "\n".join(out) + "\n"

    def topic_block(self, topic: Topic, plan: _Plan) -> list[str]:
        level = plan.levels[topic.topic_id]
        if level == "placeholder":
            head = topic.placeholder
        else:  # the topic map's line: size, share of the session, label, files
            share = 100 * topic.token_estimate // max(1, self.digest.counts.tokens)
            files = ", ".join(p.rsplit("/", 1)[-1] for p in topic.files[:3]) + (
                " …" if len(topic.files) > 3 else ""
            )
            head = f"{len(topic.message_ids)} msgs, {share}% · {topic.label}" + (
                f" · {files}" if files else ""
            )
        if level in ("compressed", "placeholder") and topic.message_ids:  # where to reopen its messages
            head += f" · [{self.ids[topic.message_ids[0]]}…{self.ids[topic.message_ids[-1]]}]"
        out = ["", f"## {topic.topic_id} · {level} · {head}"]
        out += [f"Key fact: {fact}" for fact in topic.facts]  # verbatim at every level, hidden included
        if level == "compressed":
            out.append(topic.summary)
            out += [
                f"Decided [{self.ids[f.message_id]}]: {f.text}"
                for f in topic.key_facts
                if f.source == "assistant"
            ]
        calls: dict[str, int] = {}  # call id → line of the summarized call its result folds into
        recent = False
        for message_id in topic.message_ids:
            message = self.session.messages[self.index[message_id]]
            mine = self.level_of(message, plan)
            if (
                mine == "full"
                and not recent
                and self.index[message_id] >= plan.window
                and message_id not in self.overrides
            ):
                out.append("### Recent turns (full)")
                recent = True
            out += self.message_block(message, mine, plan.pins.get(topic.topic_id, "whole"), calls, out)
        return out if len(out) > 2 or level != "hidden" else []

    def message_block(
        self, message: Message, level: Level, pin: PinMode, calls: dict[str, int], out: list[str]
    ) -> list[str]:
        sid = self.ids[message.message_id]
        forced = self.overrides.get(message.message_id)
        if level == "full":
            return self.full(message, forced=forced == "full")
        if level == "hidden":
            return []
        if message.is_summary:  # a summary is never summarized again: verbatim, or a pointer at placeholder
            if level == "placeholder":
                return [
                    f"[{sid}] compaction summary, {len(message.text):,} chars: git intent show "
                    f"{self.ref}:{sid}"
                ]
            return [f"[{sid}] {message.role} (compaction summary, verbatim):", message.text]
        if _pinned(message) and forced != "summary" and pin == "whole":
            return [f"[{sid}] user (pinned): {message.text}"]
        if _pinned(message) and forced != "summary" and pin == "facts" and fact_sentences(message.text):
            return [
                f"[{sid}] user (facts; full text: git intent show {self.ref}:{sid}):",
                *fact_sentences(message.text),
            ]
        if level != "summary" and forced != "summary":
            return []
        if forced is None and message.message_id in self.turn_lines:
            return [f"[{sid}] {message.role}: {self.turn_lines[message.message_id]}"]
        if forced is None and message.message_id in self.folded and not message.is_prompt:
            return []
        if forced is None and all(p.kind == "reasoning" for p in message.parts):
            return []  # thinking alone: the assistant's next words restate it (reopen by id to read it)
        results = [p for p in message.parts if p.kind == "tool_result"]
        if results and all(p.call_id in calls for p in results) and len(results) == len(message.parts):
            for part in results:
                assert part.call_id is not None
                out[calls[part.call_id]] += f" ⇒ [{sid}] {summarize_result(part, 80)}"
            return []
        line = self._lines.get(message.message_id)
        if line is None:
            line = self._lines[message.message_id] = summarize_message(message, root=self.session.cwd)
        for part in message.parts:
            if part.kind == "tool_call" and part.call_id:
                calls[part.call_id] = len(out)
        return [f"[{sid}] {message.role}: {line}"]

    def full(self, message: Message, *, forced: bool, remember: bool = True) -> list[str]:
        sid = self.ids[message.message_id]
        flag = " (prompt)" if message.is_prompt else " (compaction summary)" if message.is_summary else ""
        out = [f"[{sid}] {message.role}{flag}:"]
        for n, part in enumerate(message.parts):
            if part.kind == "text":
                out.append(part.text)
            elif part.kind == "reasoning":  # the assistant's text restates its thinking: a lead is enough
                out.append(
                    f"(thinking) {part.text}"
                    if forced or len(part.text) <= THINKING
                    else f"(thinking, {len(part.text):,} chars) {lead(part.text, THINKING)}"
                )
            elif part.kind == "tool_call":
                out.append(f"→ {part.tool} {part.text}" if forced else self.call(message, part))
            elif forced:
                out.append(f"⇒ {part.text}")
            else:
                out.append(self.result(sid, part, remember))
            if n == 0 and len(out) == 2:  # the first part on the header line
                out[0:2] = [f"{out[0]} {out[1]}"]
        return out

    def call(self, message: Message, part: Part) -> str:
        line = "→ " + tool_call_line(part, width=160, root=self.session.cwd)
        try:
            args = json.loads(part.text)
        except ValueError:
            args = None
        if isinstance(args, dict):
            bulky = {k: str(v) for k, v in args.items() if k in BULKY_ARGS and v}
            if not bulky:
                return line
            sizes = ", ".join(f"{k} {v.count(chr(10)) + 1} lines" for k, v in bulky.items())
        elif len(part.text) > PREVIEW_CHARS:
            plus = sum(1 for x in part.text.splitlines() if x.startswith("+") and not x.startswith("+++"))
            minus = sum(1 for x in part.text.splitlines() if x.startswith("-") and not x.startswith("---"))
            sizes = f"{part.text.count(chr(10)) + 1} lines" + (f", +{plus} −{minus}" if plus or minus else "")
        else:
            return line
        landed = part.call_id in self.landed or message.message_id in self.edited
        return f"{line} [{sizes} clipped{'; the edit landed' if landed else ''}]"

    def result(self, sid: str, part: Part, remember: bool) -> str:
        body, code = result_body(part.text)
        status = " error" if part.is_error else f" {code}" if code is not None else ""
        key = hashlib.sha1(body.strip().encode("utf-8", "replace")).hexdigest()
        if remember and len(body) >= SAME_BODY and key in self._seen:
            return f"⇒{status} same {len(body):,} chars as [{self._seen[key]}] above"
        if remember and len(body) >= SAME_BODY:
            self._seen[key] = sid
        if len(body) <= LARGE_OUTPUT:
            return f"⇒{status} {body}".rstrip()
        preview = clip("\n".join(body.splitlines()[:PREVIEW_LINES]), PREVIEW_CHARS) if body.strip() else ""
        return (
            f"⇒{status} {preview} … [{len(part.text):,} chars; full output: git intent show {self.ref}:{sid}]"
        )


def _set(topic_id: str, level: Level) -> Callable[[_Plan], _Plan]:
    return lambda plan: replace(plan, levels={**plan.levels, topic_id: level})


def _pin(topic_id: str, mode: PinMode) -> Callable[[_Plan], _Plan]:
    return lambda plan: replace(plan, pins={**plan.pins, topic_id: mode})


def _short_ids(message_ids: list[str]) -> dict[str, str]:
    """Each id as people read it: uuids cut to their shortest unique prefix of at least 8 characters
    (`git intent show` accepts unique prefixes); shorter ids whole."""
    ordered = sorted(set(message_ids))
    out: dict[str, str] = {}
    for n, message_id in enumerate(ordered):
        if len(message_id) < 32:
            out[message_id] = message_id
            continue
        shared = max(
            (
                len(os.path.commonprefix([message_id, other]))
                for other in ordered[max(0, n - 1) : n + 2]
                if other != message_id
            ),
            default=0,
        )
        out[message_id] = message_id[: max(8, shared + 1)]
    return out
