"""`git intent stats [RANGE]`: added lines by status, agent, model, session and person, and the share of agent
lines whose evidence is on this machine, on the demo repository (a real Claude Code session)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import git, run_cli

from git_intent.demo import run_demo

SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"


@pytest.fixture
def demo_repo(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    run_demo(folder)
    git(folder, "config", "commit.gpgsign", "false")
    return folder


def stats(repo: Path, *args: str) -> Any:
    proc = run_cli("stats", *args, "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_stats_of_all_history(demo_repo: Path) -> None:
    report = stats(demo_repo)
    # the person's baseline (333 non-blank lines, recorded, no agent) and the session's commit (32 lines)
    assert {k: report[k] for k in ("range", "commits", "commits_recorded", "lines_added", "by_status")} == {
        "range": "HEAD",
        "commits": 2,
        "commits_recorded": 2,
        "lines_added": 365,
        "by_status": {"agent": 32, "human": 333, "unrecorded": 0, "trailer": 0},
    }
    assert (report["by_agent"], report["by_trailer_agent"]) == ({"claude-code": 32}, {})
    # the model comes from the parsed transcript once adapters record it
    assert report["by_model"] in ({"unknown": 32}, {"claude-opus-4-5-20251101": 32})
    assert report["by_person"] == {"A Person": 333}
    assert [
        (s["agent"], s["session_id"], s["lines"], s["commits"], s["lines_with_evidence"])
        for s in report["sessions"]
    ] == [("claude-code", SESSION, 32, 1, 32)]
    assert (report["agent_lines_with_evidence"], report["evidence_share"], report["problems"]) == (
        32,
        1.0,
        [],
    )
    log = json.loads(run_cli("log", "--json", cwd=demo_repo).stdout)
    assert report["by_status"]["agent"] == sum(e["lines_attributed"] for e in log)
    assert report["lines_added"] == sum(e["lines_added"] for e in log)


def test_unrecorded_commits_ranges_and_missing_evidence(demo_repo: Path) -> None:
    (demo_repo / "notes.txt").write_text("one\n\ntwo\n   \nthree\n")
    git(demo_repo, "add", "notes.txt")
    git(demo_repo, "commit", "-q", "-m", "by hand, no hook")
    report = stats(demo_repo)
    assert report["by_status"] == {"agent": 32, "human": 333, "unrecorded": 3, "trailer": 0}
    assert report["by_person"] == {"A Person": 333, "Test Person": 3}
    assert (report["commits"], report["commits_recorded"]) == (3, 2)

    latest = stats(demo_repo, "HEAD~1..HEAD")
    assert (latest["range"], latest["commits"], latest["lines_added"]) == ("HEAD~1..HEAD", 1, 3)
    assert (latest["sessions"], latest["evidence_share"]) == ([], None)
    assert stats(demo_repo, "HEAD..HEAD")["commits"] == 0

    # the transcript and its backup copy gone: the lines stay the agent's, without evidence here
    (demo_repo / ".git" / "claude-code-chunking.jsonl").unlink()
    shutil.rmtree(demo_repo / ".opencode" / "intent" / "sessions")
    gone = stats(demo_repo)
    assert gone["by_status"]["agent"] == 32 and gone["by_model"] == {"unknown": 32}
    assert (gone["agent_lines_with_evidence"], gone["evidence_share"]) == (0, 0.0)
    assert gone["sessions"][0]["lines_with_evidence"] == 0 and gone["sessions"][0]["model"] is None
    text = run_cli("stats", cwd=demo_repo).stdout
    assert text.startswith("3 commits (2 recorded), 368 added lines\n")
    assert "evidence on this machine for 0 of 32 agent lines (0.0%)" in text
    assert "32 without evidence here" in text


def test_a_foreign_note_counts_as_unrecorded_with_a_warning(demo_repo: Path) -> None:
    git(demo_repo, "notes", "--ref", "refs/notes/git-intent", "add", "-f", "-m", "not ours", "HEAD~1")
    proc = run_cli("stats", "--json", cwd=demo_repo)
    report = json.loads(proc.stdout)
    assert report["by_status"] == {"agent": 32, "human": 0, "unrecorded": 333, "trailer": 0}
    sha = git(demo_repo, "rev-parse", "HEAD~1").strip()
    assert report["problems"] == [
        f"The note on {sha[:12]} in refs/notes/git-intent is not a git-intent record (corrupt, or written "
        f"by another tool); the lines of that commit count as unrecorded."
    ]
    text = run_cli("stats", cwd=demo_repo)
    assert text.returncode == 0 and text.stderr == f"warning: {report['problems'][0]}\n"


def test_a_bad_range_is_a_known_error(demo_repo: Path, tmp_path: Path) -> None:
    for bad in ("no-such-branch", "--output=/tmp/x"):
        proc = run_cli("stats", "--", bad, cwd=demo_repo)  # `--`: an option-like range reaches git-intent
        assert proc.returncode == 1
        assert proc.stderr.startswith(f"error: {bad!r} is not a revision or range of this repository.\n")
    empty = tmp_path / "empty"
    git(tmp_path, "init", "-q", str(empty))
    proc = run_cli("stats", cwd=empty)
    assert proc.returncode == 1 and "has no commits yet" in proc.stderr


def test_stats_reads_no_transcript_the_record_cache_knows(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch, reads: list[Path]
) -> None:
    """The credited messages' models and presence come from the record cache, so a second `stats` parses no
    transcript and loads no session, with the same report."""
    from git_intent.explain.stats import range_stats
    from git_intent.git.repo import Repository
    from git_intent.sessions import discovery

    repo = Repository(demo_repo)
    expected = stats(demo_repo)
    range_stats(repo)  # fills the record cache if the CLI run above did not
    reads.clear()

    def no_session(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a session was loaded whole")

    monkeypatch.setattr(discovery, "find_session", no_session)
    assert range_stats(repo).model_dump(mode="json") == expected
    assert reads == []
