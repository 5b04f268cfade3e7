"""Carrying keeps every field of the source record: a line a person tweaked after the agent wrote it
(a fuzzy match, confidence < 1) stays a fuzzy match with the same confidence after a message-only amend and
after a squash, each session keeps one record with its transcript hash, and running `git intent record`
after the hook writes the very note the hook wrote. Real commits through the installed hooks (foreground).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from support import (
    SYNC,
    ClaudeSession,
    Clock,
    blame_json,
    commit_all,
    git,
    install,
    line_of,
    note_records,
    note_text,
    run_cli,
)

T0 = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=1)
AGENT_LINE = '    return f"Hello, {name}! Welcome to git-intent, the provenance tool."'
TWEAKED = '    return f"Hello, {name}! Welcome to git-intent, the provenance tools."'
APP = f'def greet(name):\n    """Return a friendly greeting for name."""\n{AGENT_LINE}\n'


def at(seconds: int) -> dict[str, str]:
    """Hooks in the foreground, and the commit dated `seconds` after T0."""
    when = (T0 + timedelta(seconds=seconds)).isoformat()
    return {**SYNC, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}


def tweaked_agent_commit(repo: Path) -> tuple[ClaudeSession, str]:
    """A person's baseline at T0; an agent writes app.py a minute later; a person rewords one of its lines
    before committing (a fuzzy match); committed through the hook at T0+2 min."""
    commit_all(repo, "baseline", "--allow-empty", env=at(0))
    install(repo)
    agent = ClaudeSession(cwd=repo.resolve(), clock=Clock(T0 + timedelta(seconds=60)))
    agent.prompt("Add a greet(name) function.")
    agent.write("I'll create app.py.", repo / "app.py", APP)
    agent.save()
    (repo / "app.py").write_text(APP.replace(AGENT_LINE, TWEAKED), encoding="utf-8")
    return agent, commit_all(repo, "greet", env=at(120))


def by_kind(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return sorted((r for r in records if r["kind"] == kind), key=lambda r: json.dumps(r, sort_keys=True))


def without(records: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != key} for r in records]


def assert_carried(repo: Path, source: str, target: str) -> None:
    """The note of `target` holds exactly `source`'s lines and session records, each lines record pointing
    at `source`."""
    before, after = note_records(repo, source), note_records(repo, target)
    lines = by_kind(after, "lines")
    assert without(lines, "derived_from") == without(by_kind(before, "lines"), "derived_from")
    assert {r.get("derived_from") for r in lines} == {source}
    assert by_kind(after, "session") == by_kind(before, "session")


def assert_manual_record_writes_the_same_note(repo: Path) -> None:
    text = note_text(repo)
    proc = run_cli("record", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["note_written"] is False
    assert note_text(repo) == text


@pytest.mark.slow
def test_message_only_amend_keeps_the_fuzzy_match_and_its_confidence(repo: Path) -> None:
    agent, first = tweaked_agent_commit(repo)
    fuzzy = [r for r in note_records(repo, first) if r.get("match") == "fuzzy"]
    assert [(r["path"], r["start"], r["end"]) for r in fuzzy] == [("app.py", 3, 3)]
    confidence = fuzzy[0]["confidence"]
    assert 0.8 < confidence < 0.9
    assert_manual_record_writes_the_same_note(repo)

    amended = commit_all(repo, "greet(name), reworded", "--amend", env=at(150))
    assert amended != first
    assert_carried(repo, first, amended)
    (session,) = by_kind(note_records(repo, amended), "session")
    assert (session["session_id"], session["lines_attributed"], len(session["transcript_sha256"])) == (
        agent.session_id,
        3,
        64,
    )
    got = blame_json(repo, f"app.py:{line_of(repo / 'app.py', TWEAKED)}")["lines"][0]
    assert (got["status"], got["commit"]) == ("agent", amended)
    assert {k: got["attribution"][k] for k in ("session_id", "method", "confidence", "derived_from")} == {
        "session_id": agent.session_id,
        "method": "note",
        "confidence": confidence,
        "derived_from": first,
    }
    assert_manual_record_writes_the_same_note(repo)


@pytest.mark.slow
def test_squash_keeps_the_fuzzy_match_and_its_confidence(repo: Path, tmp_path: Path) -> None:
    agent, first = tweaked_agent_commit(repo)
    (repo / "NOTES.md").write_text("written by a person\n", encoding="utf-8")
    second = commit_all(repo, "notes", env=at(180))
    editor = tmp_path / "squash.sh"
    editor.write_text("#!/bin/sh\nsed -i '2s/^pick/squash/' \"$1\"\n", encoding="utf-8")
    editor.chmod(0o755)
    git(
        repo,
        "rebase",
        "-q",
        "-i",
        "HEAD~2",
        env={**at(200), "GIT_SEQUENCE_EDITOR": str(editor), "GIT_EDITOR": "true"},
    )
    squashed = git(repo, "rev-parse", "HEAD").strip()
    assert squashed not in (first, second)
    assert_carried(repo, first, squashed)
    (commit,) = by_kind(note_records(repo, squashed), "commit")
    assert (commit["commit"], commit["lines_added"], commit["lines_attributed"]) == (squashed, 4, 3)
    got = blame_json(repo, f"app.py:{line_of(repo / 'app.py', TWEAKED)}")["lines"][0]
    assert (got["attribution"]["confidence"], got["attribution"]["derived_from"]) == (
        next(r["confidence"] for r in note_records(repo, first) if r.get("match") == "fuzzy"),
        first,
    )
    assert blame_json(repo, "NOTES.md:1")["lines"][0]["status"] == "human"
    assert_manual_record_writes_the_same_note(repo)
