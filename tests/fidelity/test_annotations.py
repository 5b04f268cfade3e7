"""Per-turn annotations: Decant's schema validated, the offline filler, the agent's own blocks, storage in the
index (a model's replaces an offline one, never the reverse), and rendering from them at every level."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import corpus

from git_intent.core.values import Message, Part, Session, TurnAnnotation
from git_intent.fidelity.annotations import (
    FENCE,
    agent_annotations,
    annotated_topics,
    effective_annotations,
    offline_annotations,
    parse_annotation,
    session_turns,
    snake_label,
)
from git_intent.fidelity.budget import render_context
from git_intent.fidelity.choices import FidelityState
from git_intent.fidelity.topics import segment_topics
from git_intent.git.repo import Repository
from git_intent.index.annotations import save_annotations, stored_annotations
from git_intent.sessions.discovery import read_transcript

CODEX_PATCH = ("transcripts", "codex", "git-sync__8feaf84a600f__apply-patch.jsonl")
CODEX_COMPACTED = ("transcripts", "codex", "git-sync__4cea5c699ef8-2__compacted.jsonl")
GOOD = {
    "topic": "validate_endpoints",
    "is_new_topic": True,
    "message_summary": "Compared parsed repository URLs instead of raw strings.",
    "topic_summary": "Made the same-repository check ignore a trailing slash.",
    "placeholder": "same repository check fixed for slashes",
    "key_facts": ["Endpoints must compare by host and path, never raw strings."],
}


def read(*parts: str) -> Session:
    return read_transcript(corpus(*parts))[0]


def model_annotations(session: Session, every: int = 1) -> list[TurnAnnotation]:
    """What a model would say for each turn: a new topic every `every` turns, one key fact per turn."""
    out = []
    for n, turn in enumerate(session_turns(session)):
        topic = n // every
        out.append(
            parse_annotation(
                {
                    "topic": f"work_item_{topic}",
                    "is_new_topic": n % every == 0,
                    "message_summary": f"Turn {n} did its part of item {topic}.",
                    "topic_summary": f"Item {topic} so far: {n % every + 1} turns.",
                    "placeholder": f"work item {topic} done in turns",
                    "key_facts": [f"Fact {n}: the limit is {n * 7} bytes."],
                },
                source="model",
                turn=turn,
            )
        )
    return out


# -- the schema -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        {"topic": "Validate Endpoints"},  # not snake_case
        {"topic": "9_lives"},
        {"placeholder": "too short"},  # fewer than 5 words
        {"placeholder": "one two three four five six seven eight nine ten eleven"},
        {"message_summary": ""},
        {"key_facts": "a string, not a list"},
        {"is_new_topic": "perhaps"},
        {"extra": "field"},
    ],
)
def test_the_schema_rejects_what_decant_would_not_write(change: dict[str, object]) -> None:
    turn = session_turns(read(*CODEX_PATCH))[0]
    with pytest.raises(ValueError):
        parse_annotation({**GOOD, **change}, source="model", turn=turn)
    with pytest.raises(ValueError):
        parse_annotation([GOOD], source="model", turn=turn)
    annotation = parse_annotation(GOOD, source="model", turn=turn)
    assert (annotation.source, annotation.turn_id, annotation.digest) == ("model", turn.turn_id, turn.digest)
    assert annotation.key_facts == ("Endpoints must compare by host and path, never raw strings.",)


def test_snake_labels() -> None:
    assert snake_label("Same-repo check bypassed by trailing slash; please fix") == (
        "same_repo_check_bypassed_by_trailing"
    )
    assert snake_label("2 bugs in `chunking.go`") == "t_2_bugs_in_chunking_go"
    assert snake_label("…") == "untitled_work"


# -- turns and the offline filler --------------------------------------------------------------------------


def test_every_message_is_in_one_turn_and_each_turn_has_one_offline_annotation() -> None:
    session = read(*CODEX_COMPACTED)
    turns = session_turns(session)
    assert [m for t in turns for m in t.message_ids] == [m.message_id for m in session.messages]
    assert len(turns) == 22
    # 15 prompts open turns; 6 long autonomous turns are cut at an assistant message
    assert sum(t.messages[0].is_prompt for t in turns) == 15
    assert all(t.messages[0].is_prompt or t.messages[0].role == "assistant" for t in turns[1:])
    offline = offline_annotations(session)
    assert [a.turn_id for a in offline] == [t.turn_id for t in turns]
    assert {a.source for a in offline} == {"offline"}
    topics = segment_topics(session)
    starts = {t.message_ids[0] for t in topics}
    assert [a.is_new_topic for a in offline] == [bool(starts & set(t.message_ids)) for t in turns]
    assert sum(a.is_new_topic for a in offline) == 15  # of 17 topics: two turns hold two topic starts
    # the filler's fields are today's: the summaries and placeholders of the topics turns end in, key facts
    assert {a.topic_summary for a in offline} <= {t.summary for t in topics}
    assert offline[-1].topic_summary == topics[-1].summary
    assert {a.placeholder for a in offline} <= {t.placeholder for t in topics}
    assert sorted(f for a in offline for f in a.key_facts) == sorted(
        f.text for t in topics for f in t.key_facts
    )
    for annotation in offline:  # the offline filler is valid by Decant's schema too
        fields = {k: getattr(annotation, k) for k in ("topic", "is_new_topic", "message_summary")}
        fields |= {"topic_summary": annotation.topic_summary, "placeholder": annotation.placeholder}
        fields["key_facts"] = list(annotation.key_facts)
        turn = next(t for t in turns if t.turn_id == annotation.turn_id)
        assert parse_annotation(fields, source="offline", turn=turn) == annotation


def test_offline_annotations_render_exactly_as_the_segmentation_did() -> None:
    for parts in (CODEX_PATCH, CODEX_COMPACTED):
        session = read(*parts)
        segmented = segment_topics(session)
        annotations = effective_annotations(session, (), segmented)
        topics = annotated_topics(session, annotations, segmented)
        assert topics == segmented
        assert render_context(session, topics).text == render_context(session, segment_topics(session)).text


# -- the agent's own blocks --------------------------------------------------------------------------------


def _session(*replies: str) -> Session:
    messages = []
    for n, reply in enumerate(replies):
        messages += [
            Message(
                message_id=f"u{n}", role="user", is_prompt=True, parts=(Part(kind="text", text=f"ask {n}"),)
            ),
            Message(message_id=f"a{n}", role="assistant", parts=(Part(kind="text", text=reply),)),
        ]
    return Session(agent="claude-code", session_id="s1", transcript=Path("s1.jsonl"), messages=messages)


def test_the_agents_own_block_is_read_and_wins_over_a_models() -> None:
    block = f"Done.\n\n```{FENCE}\n{json.dumps(GOOD)}\n```\n"
    broken = f"Done.\n\n```{FENCE}\n{{not json\n```"
    session = _session(block, broken, "No block here.")
    turns = session_turns(session)
    found = agent_annotations(session)
    assert [(a.turn_id, a.source, a.topic) for a in found] == [("u0", "agent", "validate_endpoints")]
    model = [replace(a, topic="from_the_model") for a in model_annotations(session)]
    chosen = effective_annotations(session, model)
    assert [(a.source, a.topic) for a in chosen] == [
        ("agent", "validate_endpoints"),
        ("model", "from_the_model"),
        ("model", "from_the_model"),
    ]
    assert [a.digest for a in chosen] == [t.digest for t in turns]


# -- storage ------------------------------------------------------------------------------------------------


def test_a_model_annotation_replaces_an_offline_one_never_the_reverse(repo: Path) -> None:
    git = Repository(repo)
    session = read(*CODEX_PATCH)
    offline = offline_annotations(session)
    model = model_annotations(session)
    assert stored_annotations(git, session.agent, session.session_id) == []  # no index: nothing, none created
    assert not (repo / ".git" / "intent" / "index.db").exists()
    assert save_annotations(git, session.agent, session.session_id, offline) == 3
    assert save_annotations(git, session.agent, session.session_id, model, model="openai/x", tokens=40) == 3
    assert save_annotations(git, session.agent, session.session_id, offline) == 0
    stored = stored_annotations(git, session.agent, session.session_id)
    assert sorted((s.annotation.source, s.model, s.tokens) for s in stored) == [("model", "openai/x", 40)] * 3
    assert sorted((s.annotation for s in stored), key=lambda a: a.digest) == sorted(
        model, key=lambda a: a.digest
    )
    assert effective_annotations(session, [s.annotation for s in stored]) == model


# -- rendering from annotations --------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["full", "summary", "compressed", "placeholder", "hidden"])
def test_topics_and_key_facts_survive_every_level(level: str) -> None:
    session = read(*CODEX_COMPACTED)
    annotations = model_annotations(session, every=4)
    topics = annotated_topics(session, annotations)
    assert [t.label for t in topics] == [f"work_item_{n}" for n in range(6)]
    assert {t.source for t in topics} == {"model"}
    state = FidelityState(topics={t.topic_id: level for t in topics})  # type: ignore[misc]
    context = render_context(session, topics, state, budget_tokens=200_000)
    facts = [f for a in annotations for f in a.key_facts]
    assert len(facts) == 22 and all(f in context.text for f in facts)
    assert [e.key_facts for e in context.topic_map] == [list(t.facts) for t in topics]
    assert [e.source for e in context.topic_map] == ["model"] * 6
    for topic in topics:
        assert f"## {topic.topic_id} · {level}" in context.text
    if level == "placeholder":
        assert all(t.placeholder in context.text for t in topics)
    if level == "compressed":
        assert all(t.summary in context.text for t in topics)
    if level == "summary":  # each turn is its reply's one line; the turn's calls and results fold into it
        for n, turn in enumerate(session_turns(session)):
            if turn.reply is not None:
                assert f"[{turn.reply.message_id}] assistant: Turn {n} did its part" in context.text
        assert "exec_command" not in context.text


def test_the_default_policy_keeps_every_key_fact_within_a_tight_budget() -> None:
    session = read(*CODEX_COMPACTED)
    annotations = model_annotations(session, every=3)
    topics = annotated_topics(session, annotations)
    context = render_context(session, topics, budget_tokens=2000)
    assert all(f in context.text for a in annotations for f in a.key_facts)


def test_annotations_travel_with_shared_evidence_redacted() -> None:
    from git_intent.redaction.redact import seal
    from git_intent.sessions.shared import session_from_payload
    from git_intent.share.collect import build_payload

    session = read(*CODEX_PATCH)
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    model = model_annotations(session)
    model[0] = replace(model[0], key_facts=(f"The token {secret} must stay out of the repository.",))
    payload = build_payload(session, [], [], "sessions", model)
    assert [a["source"] for a in payload["annotations"]] == ["model"] * 3
    sealed = json.loads(seal(payload).data)
    assert secret not in json.dumps(sealed)
    shared = session_from_payload(sealed, "refs/intent/evidence:sessions/codex/x.json")
    chosen = effective_annotations(shared)  # matched by turn id: redaction changed the text, not the turns
    assert [a.source for a in chosen] == ["model"] * 3
    assert chosen[1:] == [replace(a, digest=b.digest) for a, b in zip(model[1:], chosen[1:], strict=True)]
    assert "REDACTED" in chosen[0].key_facts[0] and secret not in chosen[0].key_facts[0]


def test_a_topic_label_holding_a_secret_is_not_shared() -> None:
    from git_intent.share.collect import build_payload

    session = _session("Set PGPASSWORD=drprm42 psql -h db.internal -U app before you run it.", "Done.")
    model = [
        replace(a, topic=label)
        for a, label in zip(model_annotations(session), ["pgpassword_drprm42", "deploy_script"], strict=True)
    ]
    payload = build_payload(session, [], [], "sessions", model)
    assert [a["topic"] for a in payload["annotations"]] == ["redacted_topic", "deploy_script"]
    offline_only = build_payload(session, [], [], "sessions", offline_annotations(session))
    assert offline_only["annotations"] == []  # a reader derives offline ones from the redacted messages
