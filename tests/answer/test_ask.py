"""`git intent ask`: a reviewer's question answered from the matching sessions, offline and through the
scripted model server, on repositories rebuilt from two real sessions of one project."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from support.answer_support import OTHER_SESSION, REQUEST, SESSION, demo, pair, templates, use_model
from support.review_repo import S8, build_review_repo, isolated_env
from support.scripted_model import call, say, scripted, tool_results

from git_intent.answer import WhyAnswer, ask
from git_intent.answer.values import Citation
from git_intent.core.errors import BadLocationError, IntentError
from git_intent.git.repo import Repository
from git_intent.index import ingest
from git_intent.index.search import search

__all__ = ["demo", "pair", "templates"]  # fixtures used by the tests below

OTHER_REQUEST = "dabe33ec-88ee-4a88-acf0-c7730793efed"  # "Add error handling/logging for Gemini message …"
CHUNKING = "why does ChunkJSONL return an error when a single line exceeds maxSize?"
GEMINI = "why does gemini.go log a warning when marshaling a Gemini message fails?"


def question(repo: Path, text: str, **options: Any) -> WhyAnswer:
    return ask(Repository(repo), text, cwd=repo, **options)


def test_the_best_matching_session_comes_first_and_every_citation_is_verified(pair: Path) -> None:
    chunking, gemini = question(pair, CHUNKING), question(pair, GEMINI)
    assert chunking.sessions[0] == SESSION and gemini.sessions[0] == OTHER_SESSION
    for answer in (chunking, gemini):
        assert answer.mode == "offline" and answer.dropped_citations == [] and answer.citations
        assert answer.answer.startswith(f"The best match is claude-code session {answer.sessions[0]} (")
    assert (
        Citation(
            session_id=SESSION,
            message_id=REQUEST,
            quote=(
                "Handle single lines exceeding MaxChunkSize (error or split) in chunking.go:84 - A single "
                "JSONL line larger than MaxChunkSize passes through without validation or error"
            ),
        )
        in chunking.citations
    )
    assert gemini.citations[0].session_id == OTHER_SESSION
    assert any(c.message_id == OTHER_REQUEST for c in gemini.citations)
    # the identifier ChunkJSONL was found in the code, blamed, and its agent-written lines explained
    assert chunking.lines and {line.path for line in chunking.lines} <= {
        "cmd/entire/cli/agent/chunking.go",
        "cmd/entire/cli/agent/chunking_test.go",
    }
    assert all(line.attribution and line.attribution.session_id == SESSION for line in chunking.lines)
    assert 0 < chunking.usage.transcript_tokens_read < chunking.usage.session_tokens_total


def test_a_quoted_line_is_answered_from_the_turn_whose_edit_wrote_it(pair: Path) -> None:
    """The session whose edit wrote the quoted line comes first, and the answer's first
    citation is the request that opened that edit's turn, quoted."""
    path = "cmd/entire/cli/agent/chunking.go"
    answer = question(
        pair, f"Why does {path} have the line `if len(lineWithNewline) > maxSize {{`?", path=path
    )
    assert answer.sessions[0] == SESSION
    assert [line.line for line in answer.lines] == [86]
    assert answer.citations[0].message_id == REQUEST and answer.citations[0].quote
    assert answer.answer.splitlines()[1].startswith(f"Line 86 of {path} (in func ChunkJSONL) was written by ")


def test_path_and_since_limit_the_sessions(pair: Path) -> None:
    only_gemini = question(
        pair, "why does it return an error or log a warning?", path="cmd/entire/cli/agent/geminicli"
    )
    assert only_gemini.sessions == [OTHER_SESSION]
    nothing = question(pair, CHUNKING, since=datetime(2030, 1, 1))
    assert nothing.sessions == [] and nothing.citations == []
    assert nothing.answer.startswith(
        "I could not find out: no session of this repository matches the question (searched the session "
        "index for “ChunkJSONL return error single exceeds maxSize” and the code for ChunkJSONL, maxSize)."
    )
    with pytest.raises(BadLocationError):
        question(pair, CHUNKING, path="../elsewhere")
    with pytest.raises(IntentError):
        question(pair, "   ")


def test_a_model_answers_from_search_and_message_detail(pair: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = [
        call("search", query="marshal Gemini message", session_id=OTHER_SESSION[:8]),
        call("message_detail", session_id=OTHER_SESSION[:8], message_id=OTHER_REQUEST[:8]),
        say(
            f'The user asked to "Add error handling/logging for Gemini message marshaling failures" '
            f"[{OTHER_SESSION[:8]}:{OTHER_REQUEST[:8]}], so a failed marshal is logged and skipped."
        ),
    ]
    with scripted(script) as server:
        use_model(monkeypatch, server.url)
        answer = question(pair, GEMINI)
    assert (answer.mode, answer.steps, answer.dropped_citations) == ("model", 3, [])
    assert answer.citations == [
        Citation(
            session_id=OTHER_SESSION,
            message_id=OTHER_REQUEST,
            quote=("Add error handling/logging for Gemini message marshaling failures"),
        )
    ]
    assert answer.sessions[0] == OTHER_SESSION
    seed = server.requests[0]["messages"][1]["content"]
    assert f"topic map of session {OTHER_SESSION}" in seed and "search hits" in seed
    assert seed.rstrip().endswith(f"Question: {GEMINI}")
    hits = tool_results(server.requests[1])[0].splitlines()[1:-1]
    assert hits and all(h.startswith(f"[{OTHER_SESSION}:") for h in hits)


@pytest.mark.slow
def test_cli_ask_json_has_the_why_shape_and_text_lists_references(demo: Path) -> None:
    out = run_cli("ask", CHUNKING, "--json", cwd=demo)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert list(data) == [
        "question",
        "mode",
        "model",
        "answer",
        "citations",
        "dropped_citations",
        "lines",
        "sessions",
        "steps",
        "usage",
        "limits",
        "model_error",
        "hint",
    ]
    assert data["question"] == CHUNKING and data["sessions"] == [SESSION]
    text = run_cli("ask", CHUNKING, "--offline", "--since", "2026-01-01", cwd=demo)
    assert text.returncode == 0 and "\nReferences\n  [1] git intent show " in text.stdout
    empty = run_cli("ask", "", cwd=demo)
    assert empty.returncode == 1 and empty.stderr.startswith("error: The question is empty.")


@pytest.fixture(scope="module")
def four_sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/support/review_repo.py's repository: four real sessions of the linked fixtures, each recorded."""
    root = tmp_path_factory.mktemp("ask-four")
    build_review_repo(root)
    return root


def test_ask_ranks_as_search_ranks_the_same_words_and_quotes_a_question_with_its_answer(
    four_sessions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in isolated_env(four_sessions / "home").items():
        monkeypatch.setenv(name, value)
    repo = Repository(four_sessions / "repo")
    # A reader's words for the user's "why this method does only work on unix and not windows?" (session S8).
    question = "why does this method only work on unix and not on windows?"
    ingest(repo)
    assert search(repo, question, limit=1)[0].session_id == S8
    lines = ask(repo, question, offline=True, cwd=repo.root).answer.splitlines()
    # Before: stop words dropped and hits summed per session put session 1ed1f046 first, and S8's question
    # came last, without its answer.
    assert lines[0].startswith(f"The best match is claude-code session {S8} ")
    assert lines[1] == (
        f'The user asked "why this method does only work on unix and not windows?" '
        f'[{S8}:61093b85-4012-442a-8903-455fb388e9be]; the agent answered "1. **`syscall.SysProcAttr` '
        f"differs by OS** "
        "- The `SysProcAttr` struct has completely different fields on Unix vs Windows. On Unix it has "
        "`Setpgid`, "
        '`Setsid`, `Pgid`, etc. On Windows it has `HideWindow`, `CreationFlags`, `Token`, etc." '
        f"[{S8}:00276e82-7bf9-49d2-8076-08b3f1dfd8b2]."
    )
