"""`git intent review` with a model: one cited paragraph per session from the `ask` sub-agent, citations
checked by code, against the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from support.answer_support import REQUEST, SESSION, demo, templates, use_model  # noqa: F401  (fixtures)
from support.scripted_model import call, say, scripted

QUOTE = "Handle single lines exceeding MaxChunkSize"


@pytest.mark.slow
def test_each_session_gets_a_cited_summary_and_forged_citations_are_dropped(
    demo: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script = [
        call("message_detail", session_id=SESSION[:8], message_id=REQUEST[:8]),
        say(
            f'The session was asked to "{QUOTE}" [{SESSION[:8]}:{REQUEST[:8]}] and made ChunkJSONL return an '
            f"error. It also claims [{SESSION[:8]}:deadbeef]."
        ),
    ]
    with scripted(script) as server:
        use_model(monkeypatch, server.url)
        out = run_cli("review", "HEAD", "--json", cwd=demo)
        assert out.returncode == 0, out.stderr
        offline = run_cli("review", "HEAD", "--json", "--offline", cwd=demo)
        assert offline.returncode == 0, offline.stderr
        requests_made = len(server.requests)
    data = json.loads(out.stdout)
    [session] = [s for s in data["sessions"] if s["session_id"] == SESSION]
    summary = session["summary"]
    assert summary["citations"] == [f"{SESSION}:{REQUEST}"]
    assert summary["dropped"] == [f"{SESSION}:deadbeef (unknown_message)"]
    assert QUOTE in summary["text"] and "deadbeef" not in summary["text"]
    assert requests_made == 2  # the offline review never called the model
    assert all(s["summary"] is None for s in json.loads(offline.stdout)["sessions"])


@pytest.mark.slow
def test_an_unreachable_model_leaves_the_offline_review_and_says_why(
    demo: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_model(monkeypatch, "http://127.0.0.1:9", TIMEOUT="2")
    out = run_cli("review", "HEAD", "--json", cwd=demo)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert all(s["summary"] is None for s in data["sessions"])
    assert any(p.startswith(f"No summary of session {SESSION}:") for p in data["problems"])
