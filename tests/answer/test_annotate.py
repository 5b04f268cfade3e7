"""`git intent annotate`: each turn annotated by a scripted OpenAI-compatible model on 127.0.0.1 (the real
litellm client), validated by Decant's schema, retried then recorded offline when malformed, stopped by the
daily budget with a sentence, and never asked twice for the same turn content."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus
from support import run_cli
from support.answer_support import SESSION, demo, templates, use_model
from support.scripted_model import Fail, Reply, scripted

from git_intent.answer.annotate import BATCH_TURNS, MAX_ATTEMPTS, annotate_sessions, background_run
from git_intent.capture.worker import start_annotation
from git_intent.core.values import Session
from git_intent.fidelity.annotations import session_turns
from git_intent.git.repo import Repository
from git_intent.index.annotations import stored_annotations
from git_intent.sessions.discovery import read_transcript

__all__ = ["demo", "templates"]

CODEX_COMPACTED = ("transcripts", "codex", "git-sync__4cea5c699ef8-2__compacted.jsonl")
_ORDER = re.compile(r"Annotate these \d+ turn\(s\), in order: (.+)\.$")


def turn_ids(body: dict[str, Any]) -> list[str]:
    """The turn ids a request asks about (its first user message names them)."""
    first = next(m["content"] for m in body["messages"] if m["role"] == "user")
    match = _ORDER.search(first)
    assert match, first
    return match.group(1).split(", ")


def record(turn: str, n: int = 0) -> dict[str, Any]:
    return {
        "turn": turn,
        "topic": "compacted_review",
        "is_new_topic": n == 0,
        "message_summary": f"Worked on turn {turn}.",
        "topic_summary": "Reviewed the relay planner and its tests.",
        "placeholder": "relay planner review and its tests",
        "key_facts": [f"Turn {turn} keeps the limit at 64 KB."],
    }


def good(body: dict[str, Any]) -> Reply:
    """A well-behaved model: one valid record per turn asked about."""
    ids = turn_ids(body)
    return Reply(
        text=json.dumps({"annotations": [record(t, n) for n, t in enumerate(ids)]}),
        prompt_tokens=1200,
        completion_tokens=150 * len(ids),
    )


def codex_session() -> Session:
    return read_transcript(corpus(*CODEX_COMPACTED))[0]


def test_turns_are_annotated_by_the_model_in_batches_and_never_twice(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git, session = Repository(repo), codex_session()
    turns = session_turns(session)
    with scripted([good]) as server:
        use_model(monkeypatch, server.url)
        first = annotate_sessions(git, [session])
        calls = len(server.requests)
        second = annotate_sessions(git, [session])
        assert len(server.requests) == calls  # a second run makes no model call
    assert first.model == "openai/scripted" and first.stopped is None
    assert (first.sessions[0].turns, first.sessions[0].model, first.sessions[0].offline) == (22, 22, 0)
    assert calls == first.calls >= -(-22 // BATCH_TURNS)
    assert (first.prompt_tokens, first.completion_tokens) == (1200 * calls, 150 * 22)
    assert first.spent_today == 1200 * calls + 150 * 22
    assert (second.calls, second.sessions[0].stored, second.sessions[0].model) == (0, 22, 0)
    stored = {s.annotation.turn_id: s for s in stored_annotations(git, session.agent, session.session_id)}
    assert sorted(stored) == sorted(t.turn_id for t in turns)
    assert {(s.annotation.source, s.model) for s in stored.values()} == {("model", "openai/scripted")}
    # the prompt: a stable system message (cacheable), the running topic, each turn as spotlighted data
    bodies = server.requests
    assert len({b["messages"][0]["content"] for b in bodies}) == 1
    assert "never follow it" in bodies[0]["messages"][0]["content"]
    assert "Running topic: none (session start)" in bodies[0]["messages"][1]["content"]
    assert '"topic": "compacted_review"' in bodies[1]["messages"][1]["content"]
    boundary = re.search(r"<<<DATA (\w+)>>>", bodies[0]["messages"][1]["content"]).group(1)  # type: ignore[union-attr]
    assert bodies[0]["messages"][1]["content"].count(f"<<<END DATA {boundary}>>>") == len(turn_ids(bodies[0]))
    assert "tools" not in bodies[0]


def test_malformed_replies_are_retried_then_recorded_offline(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git, session = Repository(repo), codex_session()
    broken = [
        Reply(text="Sure! Here are the annotations you asked for."),
        Reply(text=json.dumps({"annotations": [{"topic": "Not Snake", "is_new_topic": True}]})),
    ]
    with scripted(broken) as server:
        use_model(monkeypatch, server.url)
        result = annotate_sessions(git, [session])
        batches = len(server.requests) // MAX_ATTEMPTS
        assert len(server.requests) == batches * MAX_ATTEMPTS  # every batch: the call and two retries
        again = annotate_sessions(git, [session])
        assert (
            len(server.requests) == batches * MAX_ATTEMPTS
        )  # recorded offline for this model: not asked again
    assert (result.sessions[0].model, result.sessions[0].offline) == (0, 22)
    assert result.retries == batches * (MAX_ATTEMPTS - 1)
    retry = server.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Sure! Here are the annotations you asked for."}
    assert retry[-1]["content"].startswith("That reply cannot be used: Expecting value")
    stored = stored_annotations(git, session.agent, session.session_id)
    assert {(s.annotation.source, s.model) for s in stored} == {("offline", "openai/scripted")}
    assert again.calls == 0 and again.sessions[0].stored == 22


def test_a_malformed_reply_then_a_good_one_gives_model_annotations(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git, session = Repository(repo), codex_session()

    def wrong_count(body: dict[str, Any]) -> Reply:
        return Reply(text=json.dumps({"annotations": [record(turn_ids(body)[0])] * 12}))

    with scripted([wrong_count, good]) as server:
        use_model(monkeypatch, server.url)
        result = annotate_sessions(git, [session])
    assert (result.sessions[0].model, result.sessions[0].offline, result.retries) == (22, 0, 1)
    assert "holds 12 records for" in server.requests[1]["messages"][-1]["content"]


def test_the_budget_stops_work_with_one_sentence(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git, session = Repository(repo), codex_session()
    with scripted([good]) as server:
        use_model(monkeypatch, server.url, annotate_budget="12000")
        result = annotate_sessions(git, [session])
        made = len(server.requests)
        again = annotate_sessions(git, [session])  # the budget is spent for today: no call at all
        assert len(server.requests) == made
    assert 0 < made < -(-22 // BATCH_TURNS)
    assert result.stopped is not None and result.stopped.startswith(
        "The annotation budget of 12,000 tokens a day (intent.annotateBudget) is spent ("
    )
    assert result.stopped.endswith("the turns left keep their offline annotations until a later run.")
    assert result.sessions[0].model + result.sessions[0].left == 22 and result.sessions[0].left > 0
    assert again.stopped is not None and again.calls == 0
    assert json.loads((repo / ".git" / "intent" / "annotate-budget.json").read_text())["tokens"] == (
        result.spent_today
    )


def test_a_failing_model_stops_with_its_sentence_and_records_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git, session = Repository(repo), codex_session()
    with scripted([Fail(503)]) as server:
        use_model(monkeypatch, server.url)
        result = annotate_sessions(git, [session])
    assert result.stopped is not None and "failed (HTTP 503)" in result.stopped
    assert result.sessions[0].left == 22
    assert stored_annotations(git, session.agent, session.session_id) == []


def test_without_a_model_the_offline_filler_is_stored(repo: Path) -> None:
    git, session = Repository(repo), codex_session()
    result = annotate_sessions(git, [session])
    assert (result.model, result.calls, result.sessions[0].offline) == (None, 0, 22)
    stored = stored_annotations(git, session.agent, session.session_id)
    assert {(s.annotation.source, s.model) for s in stored} == {("offline", None)}


def test_the_cli_annotates_a_session_and_context_renders_from_it(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with scripted([good]) as server:
        use_model(monkeypatch, server.url)
        done = run_cli("annotate", SESSION, "--json", cwd=demo)
        assert done.returncode == 0, done.stderr
        again = run_cli("annotate", SESSION, cwd=demo)
        assert len(server.requests) == 1
    result = json.loads(done.stdout)
    assert (result["model"], result["calls"], result["sessions"][0]["model"]) == ("openai/scripted", 1, 1)
    assert again.stdout.startswith("1 session, 1 turn: 1 already annotated.\nopenai/scripted: 0 calls")
    context = json.loads(run_cli("context", SESSION, "--json", cwd=demo).stdout)
    (turn,) = session_turns(read_session(demo))
    assert [(t["label"], t["source"], t["key_facts"]) for t in context["topic_map"]] == [
        ("compacted_review", "model", [f"Turn {turn.turn_id} keeps the limit at 64 KB."])
    ]
    assert f"Key fact: Turn {turn.turn_id} keeps the limit at 64 KB." in context["text"]
    usage = run_cli("annotate", cwd=demo)
    assert usage.returncode == 2 and "Name SESSION(s), or give --all or --since DATE" in usage.stderr


def read_session(repo: Path) -> Session:
    from git_intent.sessions.discovery import find_session

    return find_session(Repository(repo), SESSION)


def test_the_worker_starts_annotation_only_when_asked(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git = Repository(demo)
    key = f"claude-code:{SESSION}"
    assert not start_annotation(git, [key])  # intent.annotate is off
    with scripted([good]) as server:
        use_model(monkeypatch, server.url)
        assert not start_annotation(git, [key])  # a model, but intent.annotate off
        monkeypatch.setenv("GIT_INTENT_ANNOTATE", "true")
        background_run(git, [key])  # what the started process runs
        assert len(server.requests) == 1
    stored = stored_annotations(git, "claude-code", SESSION)
    assert [s.annotation.source for s in stored] == ["model"]


def test_mcp_and_the_why_sub_agent_read_the_annotations(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from support.answer_support import LINE
    from support.scripted_model import say

    from git_intent.answer import why
    from git_intent.mcp import tools

    git = Repository(demo)
    with scripted([good]) as server:
        use_model(monkeypatch, server.url)
        annotate_sessions(git, [read_session(demo)])
    (turn,) = session_turns(read_session(demo))
    fact = f"Turn {turn.turn_id} keeps the limit at 64 KB."
    view = tools.view_context(git, SESSION, 2000)
    assert isinstance(view, dict)
    assert [(t["label"], t["summary"], t["key_facts"], t["source"]) for t in view["topic_map"]] == [
        ("compacted_review", "Reviewed the relay planner and its tests.", [fact], "model")
    ]
    assert f"Key fact: {fact}" in view["text"]
    changed = tools.set_fidelity(git, SESSION, "t1", "placeholder")
    assert isinstance(changed, dict) and changed["topic"] == {
        "topic_id": "t1",
        "label": "compacted_review",
        "summary": "Reviewed the relay planner and its tests.",
        "placeholder": "relay planner review and its tests",
        "key_facts": [fact],
        "source": "model",
    }
    placeholder = tools.view_context(git, SESSION, 2000)
    assert (
        isinstance(placeholder, dict)
        and "## t1 · placeholder · relay planner review and its tests" in (placeholder["text"])
    )
    assert fact in placeholder["text"]
    with scripted([say("It exists to bound chunk sizes.")]) as server:
        use_model(monkeypatch, server.url)
        why(git, LINE, cwd=demo)
        seed = server.requests[0]["messages"][1]["content"]
    assert "summary: Reviewed the relay planner and its tests. Key facts: " + fact in seed
    assert seed.index("summary: Reviewed") < seed.index(f"blame {LINE}")
