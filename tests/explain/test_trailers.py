"""A commit's trailers are evidence when no transcript is found. Blame credits its added
lines to the agent the trailers name (`method: "trailer"`, no session or message, confidence below 1); a
transcript-based attribution always wins; stats counts trailer lines apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, run_cli
from support import blame_json, claude_session, commit_file, commit_synced, install

from git_intent.explain.trailers import TRAILER_CONFIDENCE, UNNAMED_AGENT, trailer_agent

CLAUDE = "Co-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>"


@pytest.mark.parametrize(
    ("trailers", "agent"),
    [
        ([CLAUDE], "claude-code"),
        (["Claude-Session: https://claude.ai/code/session_01ABC"], "claude-code"),
        (["Co-authored-by: Codex <codex@openai.com>"], "codex"),
        (["Co-authored-by: Cursor Agent <cursoragent@cursor.com>"], "cursor"),
        (["Co-authored-by: Copilot <175728472+Copilot@users.noreply.github.com>"], "copilot"),
        (["Entire-Checkpoint: 8feaf84a600f"], UNNAMED_AGENT),
        (["Entire-Checkpoint: 8feaf84a600f", CLAUDE], "claude-code"),  # the trailer naming the agent wins
        (["Co-Authored-By: Jane Doe <jane@anthropic.com>"], None),  # a person at the company is not the agent
        (["Signed-off-by: A Person <a@example.com>"], None),
        ([], None),
    ],
)
def test_trailer_agent(trailers: list[str], agent: str | None) -> None:
    assert trailer_agent(trailers) == agent


def test_a_trailer_credits_the_commit_when_no_transcript_is_here(repo: Path) -> None:
    commit_file(repo, "human.py", "print('a person')\n")
    sha = commit_file(repo, "tool.py", "def tool():\n    return 42\n", f"add the tool\n\n{CLAUDE}\n")
    line = blame_json(repo, "tool.py:2")["lines"][0]
    assert (line["status"], line["commit"], line["reason"]) == (
        "agent",
        sha,
        "agent-assisted by the commit's trailer; no transcript here",
    )
    assert line["attribution"] == {
        "agent": "claude-code",
        "session_id": "",
        "message_id": "",
        "tool": "trailer",
        "method": "trailer",
        "confidence": TRAILER_CONFIDENCE,
        "derived_from": None,
        "model": None,
    }
    assert line["evidence"] == []
    assert blame_json(repo, "human.py:1")["lines"][0]["status"] == "unrecorded"
    text = run_cli("blame", "tool.py:2", cwd=repo)
    assert text.returncode == 0, text.stderr
    assert (
        "  written   by claude-code · agent-assisted by the commit's trailer; no transcript here · "
        "confidence 0.50"
    ) in text.stdout.splitlines()
    why = run_cli("why", "tool.py:2", cwd=repo)
    assert why.returncode == 0, why.stderr
    assert "was agent-assisted by the commit's trailer; no transcript here" in why.stdout.replace("\n", " ")
    # Recorded without any transcript (the note credits no line): the trailer still speaks.
    assert run_cli("record", sha, cwd=repo).returncode == 0
    assert blame_json(repo, "tool.py:2")["lines"][0]["attribution"]["method"] == "trailer"


def test_a_transcript_wins_over_the_trailer(repo: Path) -> None:
    install(repo)
    commit_file(repo, "other.py", "x = 1\n", f"a person's commit\n\n{CLAUDE}\n")
    agent = claude_session(repo.resolve())
    agent.prompt("Write steps.py.")
    agent.write("Writing it.", repo.resolve() / "steps.py", "def step():\n    return 'one step'\n")
    agent.save()
    git(repo, "add", "steps.py", "other.py")
    (repo / "other.py").write_text("x = 1\ny = 2\n")
    commit_synced(repo, f"steps\n\n{CLAUDE}")
    line = blame_json(repo, "steps.py:2")["lines"][0]
    assert (line["attribution"]["method"], line["attribution"]["session_id"]) == ("note", agent.session_id)
    # The same commit's line no session wrote is a person's: the note credits the commit's other lines.
    assert blame_json(repo, "other.py:2")["lines"][0]["status"] == "human"


def test_stats_counts_trailer_lines_apart(repo: Path) -> None:
    commit_file(repo, "a.py", "one = 1\ntwo = 2\n")
    commit_file(
        repo,
        "b.py",
        "three = 3\n\nfour = 4\nfive = 5\n",
        "b\n\nCo-authored-by: Cursor Agent <cursoragent@cursor.com>\n",
    )
    proc = run_cli("stats", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    people = report["lines_added"] - 3  # a.py's two lines and the repository's first commit
    assert report["by_status"] == {"agent": 0, "human": 0, "unrecorded": people, "trailer": 3}
    assert report["by_trailer_agent"] == {"cursor": 3}
    assert report["by_agent"] == {}
    assert sum(report["by_person"].values()) == people
    text = run_cli("stats", cwd=repo).stdout
    share = f"{3 / report['lines_added']:6.1%}"
    assert (
        f"  trailer           3  {share}  (agent-assisted by the commit's trailer; no transcript here)"
        in text
    )


def test_review_names_the_trailer_not_an_empty_session(repo: Path) -> None:
    """Review printed `claude-code · session  · message  · trailer` for a trailer's lines (an empty
    session and message)."""
    sha = commit_file(repo, "tool.py", "def tool():\n    return 42\n", f"add the tool\n\n{CLAUDE}\n")
    text = run_cli("review", "HEAD~1..HEAD", cwd=repo)
    assert text.returncode == 0, text.stderr
    credit = f"named by a trailer of commit {sha[:12]}; no transcript here, so no session or message to show"
    assert [
        "  1-2       claude-code · 2 lines · in def tool",
        f"            {credit}",
        "            │ def tool():",
        "            │     return 42",
    ] == text.stdout.splitlines()[-4:]
    markdown = run_cli("review", "HEAD~1..HEAD", "--format", "markdown", cwd=repo)
    assert markdown.returncode == 0, markdown.stderr
    assert f"lines 1-2 in def tool · claude-code, {credit}\n" in markdown.stdout
    assert "session  ·" not in text.stdout and "<code>:</code>" not in markdown.stdout


def test_a_review_group_spanning_two_definitions_names_neither(repo: Path) -> None:
    """Review groups lines by attribution; its `symbol` is the group's only when every line shares it (lines
    of `class A` were once shown `in def f`)."""
    commit_file(repo, "two.py", "def f():\n    return 1\n\n\nclass A:\n    x = 2\n", f"add two\n\n{CLAUDE}\n")
    proc = run_cli("review", "HEAD~1..HEAD", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    groups = [g for f in json.loads(proc.stdout)["files"] for h in f["hunks"] for g in h["groups"]]
    assert [(g["start"], g["end"], g["symbol"]) for g in groups] == [(1, 6, None)]
