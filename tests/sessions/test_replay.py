"""`replay.rebuild` builds the files before and after a session from `Session.edits` alone, and agrees with
the tests' independent reading of the transcript (tests/support/transcript_replay.py) on every Claude Code
file."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from conftest import CORPUS, corpus
from support.transcript_replay import rebuild_claude

from git_intent.core.values import to_json
from git_intent.sessions.discovery import read_transcript
from git_intent.sessions.replay import rebuild

DEMO = Path(__file__).resolve().parents[2] / "git_intent" / "data" / "demo" / "claude-code-chunking.jsonl"
CLAUDE_FILES = sorted(
    str(p.relative_to(CORPUS))
    for p in CORPUS.rglob("*.jsonl")
    if "claude-code" in p.parts or "entire-cli" in p.parts
)


@pytest.mark.parametrize("rel", ["DEMO", *CLAUDE_FILES])
def test_rebuild_from_session_edits_agrees_with_the_transcript(rel: str) -> None:
    path = DEMO if rel == "DEMO" else corpus(rel)
    want = rebuild_claude(path)
    (session,) = read_transcript(path)
    got = rebuild(session)
    assert (got.pre, got.post, got.edits_applied) == (want.pre, want.post, want.edits_applied)
    for mine, theirs in ((got.first_edit_at, want.first_edit_at), (got.last_edit_at, want.last_edit_at)):
        assert (datetime.fromisoformat(mine) if mine else None) == (
            datetime.fromisoformat(theirs) if theirs else None
        )


def test_the_demo_replays_two_edits_of_two_files() -> None:
    (session,) = read_transcript(DEMO)
    got = rebuild(session)
    cli = "/Users/soph/Work/entire/devenv/cli/cmd/entire/cli/agent/"
    assert (sorted(got.post), got.edits_applied) == ([cli + "chunking.go", cli + "chunking_test.go"], 2)
    assert all(got.pre[p] != got.post[p] for p in got.post)


def test_whole_files_stay_out_of_json(tmp_path: Path) -> None:
    (session,) = read_transcript(DEMO)
    edit = session.edits[0]
    assert edit.before is not None and edit.after is not None
    assert "before" not in to_json(edit) and "after" not in to_json(session)["edits"][0]
