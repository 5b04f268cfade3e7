"""The newest transcript formats, copied from another machine, still credit the commits they wrote.

The fixtures are excerpts of entireio/git-sync's own sessions (Claude Code 2.1.143, codex 0.130.0; see
fixtures/transcripts/*/README.md). Each test rebuilds the real commit from the transcript (the file before the
agent's edits as a human baseline, then the edits), passes the transcript with `backfill --transcript`, as a
teammate's or a CI machine's transcripts come in, and blames a line the agent wrote. Also: two copies of one
session (Entire keeps a growing copy in every checkpoint) are one session; backfill names the files it skipped
and the record types it did not read.
"""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

from conftest import corpus, run_cli
from support import (
    SYNC,
    at,
    blame_json,
    claude_session,
    commit_synced,
    install,
    line_of,
    make_repo,
    session_cwd,
)
from support.transcript_replay import Rebuild, commit_replayed, rebuild_claude, rebuild_codex, write_replayed

from git_intent.adapters import ADAPTERS

CLAUDE_143 = corpus("transcripts", "claude-code", "git-sync__ae52adb63cec__2.1.143-excerpt.jsonl")
CLAUDE_143_LATER = corpus(
    "transcripts", "claude-code", "git-sync__74fd06e0aef8__2.1.143-later-copy-excerpt.jsonl"
)
CODEX_130 = corpus("transcripts", "codex", "git-sync__6857343fdac4__0.130-excerpt.jsonl")
CLAUDE_SESSION = "ff0a7d3f-e73b-48cc-a5d1-49b930a82fdf"
CODEX_SESSION = "019e27f2-b7de-71c3-a0f9-70d6539231ba"


def _backfill(repo: Path, *args: str) -> dict[str, Any]:
    proc = run_cli("backfill", *args, "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _replay(repo: Path, transcript: Path, rebuild: Rebuild, subject: str) -> None:
    """The files the session edited as they were before it (a human commit), then as it left them."""
    cwd = session_cwd(transcript)
    fresh = {p: t for p, t in rebuild.pre.items() if not (repo / p[len(cwd.rstrip("/")) + 1 :]).exists()}
    write_replayed(repo, fresh, cwd)
    commit_replayed(repo, f"baseline for {subject}", at(rebuild.first_edit_at) - timedelta(minutes=30))
    write_replayed(repo, rebuild.post, cwd)
    commit_replayed(repo, subject, at(rebuild.last_edit_at) + timedelta(minutes=1))


def _edit_line(transcript: Path, repo: Path, path: str) -> tuple[str, int, str]:
    """(message_id, line, text) of the first non-blank line the transcript's first edit of `path` added that
    is unique in the file."""
    (session,) = ADAPTERS[ADAPTERS_BY_FILE[transcript.parent.name]].read(transcript)
    text = (repo / path).read_text(encoding="utf-8")
    for edit in session.edits:
        if edit.path == path or edit.path.endswith("/" + path):
            for added in edit.added:
                if added.text.strip() and text.count(added.text + "\n") == 1:
                    return edit.message_id, line_of(repo / path, added.text), added.text
    raise AssertionError(f"no unique added line of {path} in {transcript.name}")


ADAPTERS_BY_FILE = {"claude-code": "claude-code", "codex": "codex"}


def test_claude_code_2_1_143_session_is_credited_and_blamed(tmp_path: Path) -> None:
    """The file opens with `last-prompt` and `permission-mode` records: once it was 'not a
    transcript of a known agent' and the commit stayed unrecorded."""
    repo = make_repo(tmp_path / "repo")
    _replay(repo, CLAUDE_143, rebuild_claude(CLAUDE_143), "better fallback handling for v2/v1 fallback")
    result = _backfill(repo, "--transcript", str(CLAUDE_143))
    assert result["sessions"] == {f"claude-code:{CLAUDE_SESSION}": 9}
    assert result["not_read"] == [
        {
            "agent": "claude-code",
            "version": "2.1.143",
            "sessions": 1,
            "record_types": {"last-prompt": 1, "permission-mode": 1},
            "newest_tested": "2.1.143",
            "newer": False,
        }
    ]
    message_id, line, text = _edit_line(CLAUDE_143, repo, "internal/gitproto/refs.go")
    answer = blame_json(repo, f"internal/gitproto/refs.go:{line}")
    attribution = answer["lines"][0]["attribution"] if "lines" in answer else answer["attribution"]
    assert (attribution["session_id"], attribution["message_id"]) == (CLAUDE_SESSION, message_id), text
    assert attribution["agent"] == "claude-code"


def test_codex_0_130_session_is_credited_and_blamed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _replay(repo, CODEX_130, rebuild_codex(CODEX_130), "update to go-git v6.0.0-alpha.3")
    result = _backfill(repo, "--transcript", str(CODEX_130))
    assert result["sessions"] == {f"codex:{CODEX_SESSION}": 12}  # one import line in each of 12 files
    message_id, line, _ = _edit_line(CODEX_130, repo, "internal/gitproto/capability.go")
    answer = blame_json(repo, f"internal/gitproto/capability.go:{line}")
    attribution = answer["lines"][0]["attribution"] if "lines" in answer else answer["attribution"]
    assert (attribution["session_id"], attribution["message_id"]) == (CODEX_SESSION, message_id)


def test_two_copies_of_one_session_are_merged_into_one(tmp_path: Path) -> None:
    """Entire's copies of session ff0a7d3f in two checkpoints: each holds edits the other lacks (the excerpts
    keep each checkpoint's own). Read as competing copies, one's commit went uncredited."""
    repo = make_repo(tmp_path / "repo")
    _replay(repo, CLAUDE_143, rebuild_claude(CLAUDE_143), "better fallback handling for v2/v1 fallback")
    _replay(
        repo,
        CLAUDE_143_LATER,
        rebuild_claude(CLAUDE_143_LATER),
        "ssh docker test: detach cleanup ctx from t.Context",
    )
    checkpoints = tmp_path / "checkpoints"
    for name, transcript in (("ae/52adb63cec/0", CLAUDE_143), ("74/fd06e0aef8/0", CLAUDE_143_LATER)):
        (checkpoints / name).mkdir(parents=True)
        shutil.copy(transcript, checkpoints / name / "full.jsonl")
        (checkpoints / name / "metadata.json").write_text(json.dumps({"session_id": CLAUDE_SESSION}) + "\n")
    result = _backfill(repo, "--transcript", str(checkpoints))
    assert result["sessions"] == {f"claude-code:{CLAUDE_SESSION}": 9 + 6}
    for transcript, path in (
        (CLAUDE_143, "internal/gitproto/refs.go"),
        (CLAUDE_143_LATER, "internal/syncer/ssh_docker_test.go"),
    ):
        message_id, line, _ = _edit_line(transcript, repo, path)
        answer = blame_json(repo, f"{path}:{line}")
        attribution = answer["lines"][0]["attribution"] if "lines" in answer else answer["attribution"]
        assert (attribution["session_id"], attribution["message_id"]) == (CLAUDE_SESSION, message_id)
    # Every file that was skipped is named, with its reason.
    assert result["skipped_files"] == [
        {"path": str(checkpoints / name / "metadata.json"), "reason": "JSON in no known agent's format"}
        for name in ("74/fd06e0aef8/0", "ae/52adb63cec/0")
    ]
    assert result["transcripts_skipped"] == 2


def test_backfill_text_names_record_types_not_read_and_skipped_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _replay(repo, CLAUDE_143, rebuild_claude(CLAUDE_143), "better fallback handling for v2/v1 fallback")
    folder = tmp_path / "copied"
    folder.mkdir()
    shutil.copy(CLAUDE_143, folder / "s.jsonl")
    for i in range(5):
        (folder / f"note-{i}.txt").write_text("not a transcript\n")
    proc = run_cli("backfill", "--transcript", str(folder), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "claude-code 2.1.143: not read: last-prompt (1), permission-mode (1)" in lines
    at_skipped = lines.index(
        "5 files below the --transcript folders are no transcript; skipped (all listed by --json):"
    )
    assert lines[at_skipped + 1 : at_skipped + 4] == [
        f"  {folder / f'note-{i}.txt'}: not a transcript format (.txt)" for i in range(3)
    ]


def _drifted_session(repo: Path, version: str) -> str:
    """A Claude Code session of `version` in the agent's own folder for `repo`, holding records of two types
    no adapter reads, that wrote and committed one file; its session id."""
    agent = claude_session(repo.resolve())
    agent.prompt("Write steps.py.")
    agent.write(
        "Writing it.", repo.resolve() / "steps.py", "def step():\n    return 'a step of the pipeline'\n"
    )
    for record in agent.records:
        record["version"] = version
    agent.records[1:1] = [
        {"type": "last-prompt", "sessionId": agent.session_id, "leafUuid": "x"},
        {"type": "permission-mode", "sessionId": agent.session_id, "permissionMode": "auto"},
        {"type": "permission-mode", "sessionId": agent.session_id, "permissionMode": "default"},
    ]
    agent.save()
    return agent.session_id


def test_doctor_and_record_pending_say_what_was_not_read_and_which_versions_are_newer(repo: Path) -> None:
    install(repo)
    _drifted_session(repo, "2.1.199")
    proc = run_cli("doctor", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    checks = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}
    assert checks["transcripts"]["ok"] is True
    assert checks["transcripts"]["detail"] == (
        "claude-code 2.1.199: not read: permission-mode (2), last-prompt (1) (newer than 2.1.143, the "
        "newest version git-intent's fixtures cover). Newer than git-intent's fixtures: claude-code "
        "2.1.199; what it reads of them may be partial."
    )
    # The hook queues the job and its worker dies right after reading it: the job waits for --pending.
    commit_synced(repo, "steps", env={**SYNC, "GIT_INTENT_CRASH_AT": "after-journal"})
    pending = run_cli("record", "--pending", cwd=repo)
    assert pending.returncode == 0, pending.stderr
    assert (
        "claude-code 2.1.199: not read: permission-mode (2), last-prompt (1) (newer than 2.1.143, the "
        "newest version git-intent's fixtures cover)"
    ) in pending.stdout.splitlines()


def test_doctor_says_nothing_was_left_unread_when_so(repo: Path) -> None:
    proc = run_cli("doctor", "--json", cwd=repo)
    checks = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}
    assert checks["transcripts"] == {
        "name": "transcripts",
        "ok": True,
        "repaired": False,
        "hint": None,
        "detail": "The transcripts of the last 7 days hold no record type git-intent does not read.",
    }
