"""Topic segmentation, key facts, message summaries and the session digest: real corpus sessions with exact
figures, and hand-built sessions for each boundary rule."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import corpus

from git_intent.core.values import Edit, Message, Part, Session
from git_intent.fidelity.digest import session_digest
from git_intent.fidelity.topics import (
    KeyFact,
    edit_line_counts,
    fact_sentences,
    result_body,
    segment_topics,
    summarize_message,
)
from git_intent.sessions.discovery import read_transcript

CODEX_PATCH = ("transcripts", "codex", "git-sync__8feaf84a600f__apply-patch.jsonl")
CODEX_COMPACTED = ("transcripts", "codex", "git-sync__4cea5c699ef8-2__compacted.jsonl")
CLAUDE_TWO_CWDS = ("transcripts", "claude-code", "entire-cli__37995ebed6e4-2__torn-line__two-cwds.jsonl")
CLAUDE_COMPACTION = ("transcripts", "claude-code", "entire-cli__a6e4c2a0fbd1__compaction.jsonl")
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def read(*parts: str) -> Session:
    return read_transcript(corpus(*parts))[0]


def build(*turns: tuple[str, str] | Message, edits: dict[str, str] | None = None) -> Session:
    """A session from (role, text) pairs, ids m1, m2, …; `edits` maps a message id to the path it edited.
    A user turn is a prompt."""
    messages = []
    for n, turn in enumerate(turns, 1):
        if isinstance(turn, Message):
            messages.append(turn)
            continue
        role, text = turn
        messages.append(
            Message(
                message_id=f"m{n}",
                role=role,
                is_prompt=role == "user",  # type: ignore[arg-type]
                timestamp=START + timedelta(minutes=n),
                parts=(Part(kind="text", text=text),),
            )
        )
    return Session(
        agent="claude-code",
        session_id="s1",
        transcript=Path("s1.jsonl"),
        cwd="/work/app",
        messages=messages,
        edits=[
            Edit(path=f"/work/app/{path}", tool="Edit", message_id=mid, old_text="a\n", new_text="a\nb\n")
            for mid, path in (edits or {}).items()
        ],
    )


def firsts(session: Session) -> list[str]:
    return [t.message_ids[0] for t in segment_topics(session)]


# -- real sessions ------------------------------------------------------------------------------------------


def test_codex_apply_patch_session_is_one_topic_with_its_files_facts_and_decisions() -> None:
    session = read(*CODEX_PATCH)
    (topic,) = segment_topics(session)
    assert topic.topic_id == "t1"
    assert topic.label == "Same-repo check bypassed by trailing slash difference"
    assert topic.placeholder == "Same-repo check bypassed by trailing slash (54 messages, 4 edits)"
    assert 5 <= len(topic.placeholder.split()) <= 10
    assert topic.message_ids == tuple(m.message_id for m in session.messages)
    assert topic.files == ("internal/validation/validation.go", "internal/validation/validation_test.go")
    assert topic.token_estimate == 9092
    assert topic.first_at == datetime(2026, 4, 30, 8, 9, 17, 190000, tzinfo=timezone.utc)
    assert topic.last_at == datetime(2026, 4, 30, 8, 13, 8, 500000, tzinfo=timezone.utc)
    # "do we also want to check for https://user@…" is a follow-up in the same files; "yes, let's do this"
    # an acknowledgement: neither starts a topic.
    assert topic.summary.startswith(
        "Asked: Same-repo check bypassed by trailing slash difference. Then 1 follow-up(s), the last: do "
        "we also want to check for https://user@example.com/r.git ? Changed "
        "internal/validation/validation.go (+45 −3), internal/validation/validation_test.go (+7 −1). "
        "Outcome: `ValidateEndpoints` now canonicalizes"
    )
    assert topic.key_facts == (
        KeyFact(
            text="The test at line 91 documents this gap as accepted behavior (wantErr defaults to false).",
            message_id="r7",
            source="user",
        ),
        KeyFact(
            text="Since the function's doc comment states it \"rejects configurations where the source and "
            'target URLs point at the same repository," stripping trailing slashes before comparison '
            "would close this gap.",
            message_id="r7",
            source="user",
        ),
        KeyFact(
            text="I’m extending the endpoint normalization to compare parsed HTTP(S) repository identity "
            "instead of raw strings.",
            message_id="r90",
            source="assistant",
        ),
        KeyFact(
            text="I’m keeping the normalization narrow: only parsed `http`/`https` URLs get structural "
            "cleanup, while SCP-style Git remotes and other schemes keep the existing string-based "
            "behavior.",
            message_id="r100",
            source="assistant",
        ),
    )


def test_codex_compacted_session_splits_at_new_requests_and_at_shifts_of_the_files_edited() -> None:
    topics = segment_topics(read(*CODEX_COMPACTED))
    assert [(t.topic_id, t.message_ids[0], len(t.message_ids)) for t in topics] == [
        ("t1", "r8", 75),
        ("t2", "r137", 2),
        ("t3", "r147", 9),
        ("t4", "r170", 76),
        ("t5", "r302", 12),
        ("t6", "r326", 26),
        ("t7", "r373", 10),
        ("t8", "r391", 65),
        ("t9", "r497", 9),
        ("t10", "r514", 49),
        ("t11", "r596", 53),
        ("t12", "r687", 66),
        ("t13", "r810", 25),
        ("t14", "r854", 15),
        ("t15", "r883", 17),
        ("t16", "r914", 9),
        ("t17", "r935", 9),
    ]
    # r127 "put it in a review memo" continues t1; r326 starts t6 inside the long "keep going" turn, where the
    # edits move from docs/ to internal/gitproto and internal/syncer.
    assert "r127" in topics[0].message_ids
    assert topics[4].files == ("docs/rewrite-issue-list.md",)
    assert topics[5].files == ("internal/gitproto/smarthttp_test.go", "internal/syncer/integration_test.go")
    assert topics[5].summary.startswith("Continued the previous request (no new prompt).")
    assert [f.text for f in topics[11].key_facts if f.source == "user"] == [
        "Review the latest changes since commit d11c597, focusing on internal/syncer/benchmark_test.go and "
        "the related tracker update.",
        "Do not edit files.",
    ]


def test_claude_session_starts_a_topic_at_a_new_long_request() -> None:
    session = read(*CLAUDE_TWO_CWDS)
    topics = segment_topics(session)
    assert [(t.message_ids[0], len(t.message_ids)) for t in topics] == [
        ("2b6fd122-f1cb-44b7-ae4b-8433b3f8575a", 120),
        ("80d3b701-2d53-4f14-aaff-43bcf8c43c47", 30),
    ]
    assert topics[0].files == (
        "cmd/entire/cli/logging/context.go",
        "cmd/entire/cli/logging/logger.go",
        "cmd/entire/cli/logging/context_test.go",
        "cmd/entire/cli/logging/logger_test.go",
    )
    assert topics[1].label == "I can't see any usage in our code of logging.WithAgent so…"
    assert [f.text for f in topics[1].key_facts] == ["Implement 1,2 and 3."]


def test_segmentation_is_deterministic_and_covers_every_message_once() -> None:
    for parts in (CODEX_PATCH, CODEX_COMPACTED, CLAUDE_TWO_CWDS, CLAUDE_COMPACTION):
        first = segment_topics(read(*parts))
        again = segment_topics(read(*parts))
        assert first == again
        assert [t.topic_id for t in first] == [f"t{n}" for n in range(1, len(first) + 1)]
        ids = [i for t in first for i in t.message_ids]
        assert ids == [m.message_id for m in read(*parts).messages]


def test_digest_of_the_codex_session_counts_lines_goals_and_decisions() -> None:
    session = read(*CODEX_PATCH)
    digest = session_digest(session, segment_topics(session))
    assert [(f.path, f.added, f.removed, f.edits, f.tools, f.topics) for f in digest.files] == [
        ("internal/validation/validation.go", 45, 3, 2, ("apply_patch",), ("t1",)),
        ("internal/validation/validation_test.go", 7, 1, 2, ("apply_patch",), ("t1",)),
    ]
    assert [(g.topic_id, g.message_id) for g in digest.goals] == [("t1", "r7")]
    assert [d.message_id for d in digest.decisions] == ["r90", "r100"]
    assert digest.open_questions == ()
    counts = digest.counts
    assert (
        counts.messages,
        counts.prompts,
        counts.assistant,
        counts.tool_calls,
        counts.tool_results,
        counts.edits,
        counts.topics,
        counts.tokens,
    ) == (54, 3, 31, 20, 20, 4, 1, 9092)


# -- boundary rules on hand-built sessions ------------------------------------------------------------------


def test_a_new_request_starts_a_topic_and_acknowledgements_and_follow_ups_do_not() -> None:
    session = build(
        ("user", "Add a retry with exponential backoff to the HTTP client in the sync worker module please"),
        ("assistant", "Added the retry."),
        ("user", "yes, go ahead"),
        ("assistant", "Done."),
        ("user", "also log each retry"),
        ("assistant", "Logging added."),
        ("user", "Write the release notes for version 2.3 and describe the new configuration keys in detail"),
        ("assistant", "Release notes written."),
    )
    assert firsts(session) == ["m1", "m7"]


def test_a_repeated_request_continues_its_topic() -> None:
    request = (
        "add tests for --map-tokens: use with --model gpt-4o and --map-tokens 0 and --exit. mock "
        "aider.repomap.RepoMap and ensure it is not called. in a `GitTemporaryDirectory`, with a file in "
        "the repo and one outside of it"
    )
    rephrased = request.replace("mock aider", "mock only aider")
    assert len(request) > 200  # too long to pass as a follow-up: only the similarity keeps it in the topic
    session = build(("user", request), ("assistant", "Sure."), ("user", rephrased), ("assistant", "Done."))
    assert firsts(session) == ["m1"]


def test_a_follow_up_whose_edits_move_to_other_directories_starts_a_topic() -> None:
    session = build(
        ("user", "fix the parser"),
        ("assistant", "Fixed."),
        ("user", "now the docs"),
        ("assistant", "Updated."),
        edits={"m2": "src/parser.py", "m4": "docs/guide.md"},
    )
    assert firsts(session) == ["m1", "m3"]
    kept = build(
        ("user", "fix the parser"),
        ("assistant", "Fixed."),
        ("user", "now the tests"),
        ("assistant", "Updated."),
        edits={"m2": "src/parser.py", "m4": "src/test_parser.py"},
    )
    assert firsts(kept) == ["m1"]


def test_a_long_turn_splits_where_its_edits_move_to_new_directories() -> None:
    turns: list[tuple[str, str]] = [("user", "implement the whole plan")]
    turns += [("assistant", f"Working on the parser, step {n}.") for n in range(2, 23)]  # m2..m22
    turns += [("assistant", "Parser done; now the CLI."), ("assistant", "Editing the CLI.")]  # m23, m24
    session = build(*turns, edits={"m5": "src/parser.py", "m24": "cli/main.py"})
    topics = segment_topics(session)
    # the split falls on the assistant's first words after the parser's last edit (m6), not on the edit
    assert [t.message_ids[0] for t in topics] == ["m1", "m6"]
    assert topics[1].label == "continued: Working on the parser, step 6."
    assert topics[1].files == ("cli/main.py",)


def test_messages_before_the_first_prompt_join_the_first_topic() -> None:
    session = build(
        ("assistant", "Welcome."), ("user", "add a health check endpoint"), ("assistant", "Added.")
    )
    (topic,) = segment_topics(session)
    assert topic.message_ids == ("m1", "m2", "m3")
    assert topic.label == "add a health check endpoint"


# -- facts and summaries
# --------------------------------------------------------------------------------------


def test_fact_sentences_carry_numbers_names_or_must_always_never_dont() -> None:
    text = (
        'Use port 8080 for the server. Keep it simple. The flag is `--dry-run`. Call it "blue". '
        "It's fine as it is. Tests must pass. Never push to main. don't touch the lockfile\n"
        "### 1. Add the field\nname it 'session_id' please"
    )
    assert fact_sentences(text) == [
        "Use port 8080 for the server.",
        "The flag is `--dry-run`.",
        'Call it "blue".',
        "Tests must pass.",
        "Never push to main.",
        "don't touch the lockfile",
        "### 1. Add the field",
        "name it 'session_id' please",
    ]


def test_summarize_message_for_calls_results_text_and_compaction_summaries() -> None:
    session = read(*CODEX_PATCH)
    by_id = {m.message_id: m for m in session.messages}
    assert summarize_message(by_id["r12"], root=session.cwd) == (
        'exec_command rg -n "ValidateEndpoints|same repository|trailing slash|wantErr" .'
    )
    assert summarize_message(by_id["r17"]) == (
        "→ exit 0, 3,852 chars: ./internal/gitproto/smarthttp_test.go:182: wantErr bool"
    )
    assert (
        summarize_message(by_id["r35"], root=session.cwd) == "apply_patch internal/validation/validation.go"
    )
    assert summarize_message(by_id["r38"]) == ("→ exit 0, 178 chars: Success. Updated the following files:")
    assert summarize_message(by_id["r11"]) == (
        "I’m checking the endpoint validation logic and the existing test that treats a trailing-slash "
        "variant as distinct."
    )
    assert (
        summarize_message(by_id["r80"], width=60)
        == "Yes. For HTTP(S), `user@` in `https://user@example.com/r.gi…"
    )
    claude = read(*CLAUDE_COMPACTION)
    summary = next(m for m in claude.messages if m.is_summary)
    assert summarize_message(summary) == "compaction summary (11,016 chars)"
    read_call = next(m for m in claude.messages if m.message_id.startswith("261b2bed"))
    assert summarize_message(read_call, root=claude.cwd) == "Read cmd/entire/cli/hooks_claudecode_handlers.go"


def test_result_body_drops_the_runner_framing() -> None:
    assert result_body(
        "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOriginal token count: "
        "3\nOutput:\nboom\n"
    ) == ("boom", "exit 2")
    assert result_body(
        "Command: ls\nDirectory: (root)\nOutput: a.txt\nb.txt\nError: (none)\nExit Code: 0\n"
        "Signal: 0\nBackground PIDs: (none)"
    ) == ("a.txt\nb.txt", "exit 0")
    assert result_body(json.dumps({"output": "Success.\n", "metadata": {"exit_code": 0}})) == (
        "Success.",
        "exit 0",
    )
    assert result_body("plain text") == ("plain text", None)


@pytest.mark.parametrize(
    ("old", "new", "counts"),
    [("a\nb\nc\n", "a\nB\nc\nd\n", (2, 1)), (None, "x\ny\n", (2, 0)), ("a\n", "a\n", (0, 0))],
)
def test_edit_line_counts(old: str | None, new: str, counts: tuple[int, int]) -> None:
    assert edit_line_counts(Edit(path="f", tool="Edit", message_id="m", old_text=old, new_text=new)) == counts


def test_open_questions_are_questions_nobody_answered() -> None:
    session = build(
        ("user", "add a --verbose flag"), ("assistant", "Added."), ("user", "does it work on windows?")
    )
    digest = session_digest(session, segment_topics(session))
    assert [(q.message_id, q.text) for q in digest.open_questions] == [("m3", "does it work on windows?")]


def test_the_digest_quotes_html_a_person_typed_and_drops_only_agent_wrappers() -> None:
    # the user's words are shown as written; escaping is for output, never a change to the text
    typed = 'Make the banner show <script>alert("hi")</script> as text, and <b>bold</b> the title please'
    wrapped = (
        "<ide_opened_file>The user opened src/app.py</ide_opened_file> Rename the config loader to "
        "load_settings"
    )
    for said, goal in ((typed, typed), (wrapped, "Rename the config loader to load_settings")):
        session = build(("user", said), ("assistant", "Done."))
        assert [g.text for g in session_digest(session, segment_topics(session)).goals] == [goal]
