"""Line endings as real repositories have them, end to end: an agent writes the file, a real `git commit` runs
the installed hook (in the foreground), and `git intent blame` must credit every agent line.

- CRLF (Windows files, `.bat`, `.sln`): the note's range digest and blame's check must hash a line alike,
  whether it was read from the diff or from the blob.
- Mixed endings in one file.
- No final newline: `\\ No newline at end of file` is a marker in the diff, not a hunk line, so the last
  line an agent appends to such a file is still credited.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import SYNC, ClaudeSession, Clock, blame_json, commit_all, git, install, note_records

from git_intent.git.repo import Hunk, parse_added_hunks

BAT = [
    "@echo off",
    "REM start the greeting service in the background",
    "set GREETING=Hello from the agent",
    "python -m greeting --port 8080",
    "exit /b 0",
]


def agent_commit(repo: Path, write: Any) -> tuple[ClaudeSession, str, str]:
    """An installed hook, one Claude Code session whose edit `write(session)` makes, committed through the
    hook; returns the session, the id of the message that wrote, and the commit."""
    install(repo)
    agent = ClaudeSession(cwd=repo.resolve(), clock=Clock())
    agent.prompt("Add the start script.")
    message_id = write(agent)
    agent.say("Done.")
    agent.save()
    return agent, message_id, commit_all(repo, "the agent's change", env=SYNC)


def assert_agent_lines(
    repo: Path, location: str, agent: ClaudeSession, message_id: str, commit: str, contents: list[str]
) -> None:
    lines = blame_json(repo, location)["lines"]
    assert [line["content"] for line in lines] == contents
    assert [(line["status"], line["commit"]) for line in lines] == [("agent", commit)] * len(contents), lines
    assert {
        (
            line["attribution"]["session_id"],
            line["attribution"]["message_id"],
            line["attribution"]["confidence"],
        )
        for line in lines
    } == {(agent.session_id, message_id, 1.0)}


@pytest.mark.slow
def test_crlf_file_written_by_an_agent_is_credited_line_by_line(repo: Path) -> None:
    path = repo / "start.bat"
    agent, message_id, sha = agent_commit(
        repo, lambda a: a.write("The start script.", path, "".join(f"{line}\r\n" for line in BAT))
    )
    assert path.read_bytes().count(b"\r\n") == len(BAT)
    ranges = [(r["path"], r["start"], r["end"]) for r in note_records(repo, sha) if r["kind"] == "lines"]
    assert ranges == [("start.bat", 1, 5)]
    # blame gives each line as the file holds it, up to its "\n"
    assert_agent_lines(repo, "start.bat:1-5", agent, message_id, sha, [f"{line}\r" for line in BAT])


@pytest.mark.slow
def test_mixed_line_endings_are_credited(repo: Path) -> None:
    path = repo / "start.bat"
    endings = ["\r\n", "\n", "\r\n", "\n", "\r\n"]
    text = "".join(f"{line}{ending}" for line, ending in zip(BAT, endings, strict=True))
    agent, message_id, sha = agent_commit(repo, lambda a: a.write("The start script.", path, text))
    blob = subprocess.run(
        ["git", "cat-file", "blob", f"{sha}:start.bat"], cwd=repo, capture_output=True, check=True
    )
    assert blob.stdout == text.encode()  # committed as written: no autocrlf, no .gitattributes
    assert_agent_lines(
        repo,
        "start.bat:1-5",
        agent,
        message_id,
        sha,
        [line + ending[:-1] for line, ending in zip(BAT, endings, strict=True)],
    )


@pytest.mark.slow
def test_line_appended_to_a_file_without_final_newline_is_credited(repo: Path) -> None:
    path = repo / "greet.py"
    path.write_text('print("one")\nprint("two")', encoding="utf-8")  # no final newline
    git(repo, "add", "greet.py")
    git(repo, "commit", "-q", "-m", "a person's script")
    added = 'print("three, appended by the agent")'
    agent, message_id, sha = agent_commit(
        repo, lambda a: a.edit("Appending the third line.", path, 'print("two")', f'print("two")\n{added}')
    )
    assert path.read_text(encoding="utf-8").endswith(added)  # still no final newline
    assert "\\ No newline at end of file" in git(repo, "show", sha)
    assert_agent_lines(repo, "greet.py:3", agent, message_id, sha, [added])


def test_diff_parser_skips_the_no_newline_marker_and_keeps_carriage_returns() -> None:
    diff = (
        "diff --git a/greet.py b/greet.py\n--- a/greet.py\n+++ b/greet.py\n@@ -2 +2,2 @@\n"
        '-print("two")\n\\ No newline at end of file\n+print("two")\n+print("three")\n'
        "\\ No newline at end of file\n"
        "diff --git a/start.bat b/start.bat\n--- /dev/null\n+++ b/start.bat\n@@ -0,0 +1,2 @@\n"
        "+@echo off\r\n+exit /b 0\r\n"
    )
    assert parse_added_hunks(diff) == [
        Hunk("greet.py", 2, ('print("two")', 'print("three")')),
        Hunk("start.bat", 1, ("@echo off\r", "exit /b 0\r")),
    ]


def test_crlf_note_written_by_release_0_1_0_still_matches(repo: Path) -> None:
    """0.1.0 hashed the diff read with universal newlines (no "\\r"); the blob keeps "\\r\\n"."""
    (repo / "start.bat").write_bytes("".join(f"{line}\r\n" for line in BAT).encode())
    git(repo, "add", "start.bat")
    git(repo, "commit", "-q", "-m", "start script")
    sha = git(repo, "rev-parse", "HEAD").strip()
    digest = hashlib.sha256("\n".join(BAT).encode()).hexdigest()[:16]
    note = [
        {
            "schema": "git-intent/1",
            "kind": "commit",
            "commit": sha,
            "lines_added": 5,
            "lines_attributed": 5,
            "recorded_by": "git-intent 0.1.0",
        },
        {
            "schema": "git-intent/1",
            "kind": "session",
            "agent": "claude-code",
            "session_id": "s-1",
            "lines_attributed": 5,
        },
        {
            "schema": "git-intent/1",
            "kind": "lines",
            "agent": "claude-code",
            "session_id": "s-1",
            "message_id": "m-1",
            "tool": "Write",
            "match": "exact",
            "confidence": 1.0,
            "path": "start.bat",
            "start": 1,
            "end": 5,
            "sha": digest,
        },
    ]
    git(
        repo,
        "notes",
        "--ref",
        "refs/notes/intent",
        "add",
        "-m",
        "\n".join(json.dumps(r, sort_keys=True, separators=(",", ":")) for r in note),
        sha,
    )
    lines = blame_json(repo, "start.bat:1-5")["lines"]
    assert [(line["status"], line["attribution"]["session_id"]) for line in lines] == [("agent", "s-1")] * 5
