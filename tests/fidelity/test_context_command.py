"""`git intent context`, `git intent fidelity` and the digest in `git intent show`, on the demo repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

from git_intent.demo import run_demo

SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"


@pytest.fixture
def demo_repo(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    run_demo(folder)
    return folder


def test_context_fidelity_and_digest(demo_repo: Path) -> None:
    out = json.loads(run_cli("context", SESSION[:8], "--budget", "1500", "--json", cwd=demo_repo).stdout)
    assert out["session_id"] == SESSION and out["tokens"] <= 1500
    assert [t["topic_id"] for t in out["topic_map"]] == ["t1"]
    head = run_cli("log", "-n", "1", "--json", cwd=demo_repo)
    assert out["topic_commits"] == {"t1": [json.loads(head.stdout)[0]["commit"]]}
    assert "Handle single lines exceeding MaxChunkSize" in out["text"]  # the request, pinned verbatim

    changed = run_cli("fidelity", SESSION, "t1", "placeholder", cwd=demo_repo)
    assert changed.returncode == 0, changed.stderr
    lowered = json.loads(run_cli("context", SESSION, "--json", cwd=demo_repo).stdout)
    assert lowered["levels"] == {"t1": "placeholder"} and lowered["tokens"] < out["tokens"]
    assert "Handle single lines exceeding MaxChunkSize" in lowered["text"]  # still pinned
    assert run_cli("fidelity", SESSION, "t1", "auto", cwd=demo_repo).returncode == 0
    assert (
        json.loads(run_cli("context", SESSION, "--budget", "1500", "--json", cwd=demo_repo).stdout)["text"]
        == out["text"]
    )
    bad = run_cli("fidelity", SESSION, "t9", "full", cwd=demo_repo)
    assert bad.returncode == 1 and bad.stderr.startswith("error: ")

    shown = run_cli("show", SESSION, "--brief", cwd=demo_repo).stdout
    assert shown.startswith("digest\n  goal      Handle single lines exceeding MaxChunkSize")
    assert "cmd/entire/cli/agent/chunking.go  +7 -1" in shown


def test_index_and_search_commands(demo_repo: Path) -> None:
    built = json.loads(run_cli("index", "--json", cwd=demo_repo).stdout)
    assert (built["sessions"], built["messages_added"], built["edits_added"]) == (1, 33, 2)
    again = json.loads(run_cli("index", "--json", cwd=demo_repo).stdout)
    assert again["messages_added"] == 0
    hits = json.loads(run_cli("search", "MaxChunkSize error", "-n", "3", "--json", cwd=demo_repo).stdout)
    assert hits[0]["show"] == f"{SESSION}:00696767-9ae6-4387-b93c-4d48f521f55e"
    hostile = run_cli("search", 'NEAR("x" -', "--json", cwd=demo_repo)  # FTS5 syntax is never injected
    assert hostile.returncode == 0 and isinstance(json.loads(hostile.stdout), list)
    assert json.loads(run_cli("search", "chunk", "--agent", "codex", "--json", cwd=demo_repo).stdout) == []
    rebuilt = json.loads(run_cli("index", "--rebuild", "--json", cwd=demo_repo).stdout)
    assert rebuilt["messages_added"] == 33
