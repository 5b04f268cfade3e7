"""Moves followed: a file the agent wrote and then moved or copied keeps the credit of the edits made before.

The real case, entireio/cli 57e529db "added an overview diagram with scenarios and mermaid diagramms"
(trailer Entire-Checkpoint: 7e72a8d8fdb8): Claude Code session f4237e82 wrote docs/checkpoint-scenarios.md with
a `Write`, moved it with `mv` (Bash) to docs/architecture/, then made three `Edit`s there. Only the new path was
committed, so the Write's lines, written under the old path, were credited to nobody: a person on the text
lines, the agent (the Edits' neighbours) on blank ones. The fixture is an excerpt of that session (the
prompts, the Write, the mv and the Edits with their results; fixtures/transcripts/claude-code/README.md); the
commit is rebuilt from it, byte for byte the blob of the real commit, and recorded by every route.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus, run_cli
from support import at, blame_json, claude_project_dir, git, make_repo
from transcript_replay import commit_replayed, rebuild_claude

EXCERPT = corpus("transcripts", "claude-code", "entire-cli__7e72a8d8fdb8__moved-file-excerpt.jsonl")
SESSION = "f4237e82-ca7b-48a3-bfed-36548f3e4f6b"
CWD = "/Users/soph/Work/entire/devenv/cli"
MOVED = "docs/architecture/checkpoint-scenarios.md"
BLOB = "eec077f727491f237d757bafc79c552bfcbeed0e"  # the file's blob at 57e529db
WRITE = "a9f1f175-3338-4d20-8bb4-27ea10e60a14"  # the Write's assistant record, before the mv
EDITS = {"12390639-a1ae-40aa-9d3d-f9104bf78fff", "9712a037-837a-4d3a-96ea-aa920b2b04f8",
         "cc16e5f9-c3a0-4648-b8db-fe0cbb6d4c9b"}  # the three Edits made after it, at the new path
AUTHORED, COMMITTED = "2026-02-14T11:37:16+01:00", "2026-02-14T16:39:57+01:00"
PARENT = "2026-02-14T16:39:56+01:00"  # 26c3570a, the commit it was rebased onto


def _moved_commit(tmp_path: Path) -> Path:
    """The repository before the session (a person's commit), then the moved file as the session left it,
    committed at the real commit's dates."""
    repo = make_repo(tmp_path / "repo")
    (repo / "README.md").write_text("# cli\n", encoding="utf-8")
    commit_replayed(repo, "baseline", at(PARENT))
    post = rebuild_claude(EXCERPT).post
    target = repo / MOVED
    target.parent.mkdir(parents=True)
    target.write_text(post[f"{CWD}/{MOVED}"], encoding="utf-8", newline="")
    git(repo, "add", MOVED)
    git(repo, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "added an overview diagram with scenarios", env={
        "GIT_AUTHOR_DATE": AUTHORED, "GIT_COMMITTER_DATE": COMMITTED})
    assert git(repo, "rev-parse", f"HEAD:{MOVED}").strip() == BLOB
    return repo


def _credits(repo: Path) -> dict[int, tuple[str, str, str]]:
    """line -> (session, message, tool) of the note's ranges on the moved file."""
    credited: dict[int, tuple[str, str, str]] = {}
    for line in git(repo, "notes", "--ref", "intent", "show", "HEAD").splitlines():
        record = json.loads(line)
        if record.get("kind") == "lines" and record.get("path") == MOVED:
            for number in range(record["start"], record["end"] + 1):
                credited[number] = (record["session_id"], record["message_id"], record["tool"])
    return credited


def _records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in EXCERPT.read_text(encoding="utf-8").splitlines()]


def _edit_texts(record: dict[str, Any]) -> list[str]:
    """The `new_string` of the Edit calls an assistant record makes (read from the raw record, not the adapter)."""
    content = record.get("message", {}).get("content") if record.get("type") == "assistant" else None
    return [block["input"]["new_string"] for block in content or []
            if block.get("type") == "tool_use" and block.get("name") == "Edit"]


def _discovered(repo: Path) -> None:
    """The excerpt as Claude Code keeps it for this work tree: its author's folder replaced by the repository,
    in the project folder discovery reads, so recording goes through the record cache and its filter."""
    text = EXCERPT.read_text(encoding="utf-8").replace(CWD, str(repo))
    folder = claude_project_dir(repo)
    folder.mkdir(parents=True)
    (folder / f"{SESSION}.jsonl").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("route", ["record", "backfill", "record from discovery"])
def test_a_file_written_then_moved_is_credited_to_the_write(tmp_path: Path, route: str) -> None:
    repo = _moved_commit(tmp_path)
    if route == "record from discovery":
        repo = repo.resolve()
        _discovered(repo)
        proc = run_cli("record", "--json", cwd=repo)
    else:
        proc = run_cli(route, "--transcript", str(EXCERPT), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    text = (repo / MOVED).read_text(encoding="utf-8").splitlines()
    credited = _credits(repo)
    assert {session for session, _, _ in credited.values()} == {SESSION}
    # Every line is the session's: 336 non-blank and 93 blank lines, none a person's.
    assert sorted(credited) == list(range(1, 430))
    assert {message for _, message, _ in credited.values()} == {WRITE, *EDITS}
    # The 155 non-blank lines no Edit's new text holds are the Write's (before moves were followed: nobody's).
    edited = {line.strip() for record in _records() for new in _edit_texts(record) for line in new.splitlines()}
    written_only = [n for n, line in enumerate(text, 1) if line.strip() and line.strip() not in edited]
    assert len(written_only) == 155
    assert {credited[n] for n in written_only} == {(SESSION, WRITE, "Write")}
    line = text.index("    IDLE --> ACTIVE : TurnStart (UserPromptSubmit)") + 1
    attribution = blame_json(repo, f"{MOVED}:{line}")["lines"][0]["attribution"]
    assert (attribution["session_id"], attribution["message_id"], attribution["tool"]) == (SESSION, WRITE, "Write")


def test_without_the_mv_the_write_is_not_credited_to_the_new_path(tmp_path: Path) -> None:
    """The same excerpt with the mv taken out: the Write's lines stay unexplained, so the credit above comes
    from following the move and from nothing else."""
    repo = _moved_commit(tmp_path)
    lines = EXCERPT.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"command":"mv ' not in line]
    assert len(kept) == len(lines) - 1
    cut = tmp_path / "no-mv.jsonl"
    cut.write_text("".join(kept), encoding="utf-8")
    proc = run_cli("record", "--transcript", str(cut), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    credited = _credits(repo)
    assert WRITE not in {message for _, message, _ in credited.values()}
    assert len(credited) < 429
    assert os.path.getsize(cut) < os.path.getsize(EXCERPT)
