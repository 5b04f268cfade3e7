"""Sharing end to end: a bare remote and clones in tmp dirs, a real Claude Code transcript with
planted fake secrets, push and fetch, blame on a machine without transcripts, and a scan of every object.

Clone A replays the linked fixture entire-cli 8ece5fc12e98 (54 agent lines, fixtures/linked/README.md)
from a copy of its transcript with fakes of 14 rule families planted in the user prompts, the
assistant's reasoning and text, and the tool outputs. Clone B has empty agent homes.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus, git, run_cli
from support.planted import Planted, fragments, plant, plant_claude
from support.transcript_replay import commit_replayed, rebuild_claude, write_replayed

TRANSCRIPT = ("linked", "entire-cli", "checkpoints", "8e", "ce5fc12e98", "0", "full.jsonl")
SESSION = "cc432c40-914a-4c1a-a972-0103199a736a"
CWD = "/Users/gtrrz-victor/wks/gtrrz-victor/improve-status-cmd-output"
REQUEST = "why this method does only work on unix and not windows?"


def clone(remote: Path, path: Path, *extra: str) -> Path:
    git(remote.parent, "clone", "-q", *extra, str(remote), str(path))
    git(path, "config", "commit.gpgsign", "false")
    return path


def ok(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = run_cli(*args, cwd=cwd, env=env)
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc


def all_objects(repo: Path) -> bytes:
    """The content of every object in `repo` (loose and packed), concatenated."""
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, capture_output=True, check=True
    ).stdout


def leaked(objects: bytes, fakes: list[Planted]) -> list[str]:
    return [
        f"{fake.family}: {piece!r}"
        for fake in fakes
        for piece in fragments(fake.secret)
        if piece.encode() in objects
    ]


def empty_homes(root: Path) -> dict[str, str]:
    """Environment of a machine that never ran an agent."""
    home = root / "home-b"
    home.mkdir(exist_ok=True)
    return {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "GIT_CONFIG_GLOBAL": os.environ["GIT_CONFIG_GLOBAL"],
    }


class World:
    """A bare remote, clone A with the recorded agent commit, and the fakes planted in its transcript."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.remote = tmp / "remote.git"
        git(tmp, "init", "-q", "--bare", "-b", "main", str(self.remote))
        self.a = clone(self.remote, tmp / "a")
        fakes = plant(3)
        self.prompts = fakes[:14]
        self.reasoning = fakes[14:28]
        self.outputs = fakes[28:42]
        self.transcript = tmp / "transcripts" / "session.jsonl"
        self.transcript.parent.mkdir()
        plant_claude(corpus(*TRANSCRIPT), self.transcript, self.prompts, self.reasoning, self.outputs)
        rebuild = rebuild_claude(self.transcript)
        write_replayed(self.a, rebuild.pre, CWD)
        from datetime import datetime

        self.base = commit_replayed(
            self.a, "baseline", datetime.fromisoformat(rebuild.first_edit_at) - timedelta(hours=1)
        )
        write_replayed(self.a, rebuild.post, CWD)
        self.commit = commit_replayed(
            self.a, "fix test", datetime.fromisoformat(rebuild.last_edit_at) + timedelta(minutes=1)
        )
        result = json.loads(
            ok("record", "HEAD", "--json", "--transcript", str(self.transcript), cwd=self.a).stdout
        )
        assert result["lines_attributed"] == 54
        git(self.a, "push", "-q", "origin", "main")

    @property
    def fakes(self) -> list[Planted]:
        return [*self.prompts, *self.reasoning, *self.outputs]

    def agent_line(self) -> tuple[str, int, str]:
        """(path, line, message id) of the first line the note credits."""
        note = git(self.a, "notes", "--ref", "refs/notes/intent", "show", self.commit)
        record = next(r for r in map(json.loads, note.splitlines()) if r["kind"] == "lines")
        return record["path"], record["start"], record["message_id"]


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def blame_json(repo: Path, location: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(ok("blame", location, "--json", cwd=repo, env=env).stdout)["lines"][0]
    return answer


@pytest.mark.slow
def test_evidence_travels_redacted_and_no_planted_secret_reaches_any_object(world: World) -> None:
    ok("share", "evidence", cwd=world.a)
    pushed = json.loads(ok("push", "--json", cwd=world.a).stdout)
    assert pushed["pushed"] == ["refs/notes/intent", "refs/intent/evidence"]
    assert (pushed["commits_shared"], pushed["sessions_shared"]) == (1, [f"claude-code/{SESSION}"])
    assert sum(pushed["redactions"].values()) >= 14

    b = clone(world.remote, world.tmp / "b")
    env = empty_homes(world.tmp)
    fetched = json.loads(ok("fetch", "--json", cwd=b, env=env).stdout)
    assert fetched["notes"] and fetched["evidence"]
    path, line, message_id = world.agent_line()
    answer = blame_json(b, f"{path}:{line}", env)
    assert answer["status"] == "agent"
    assert (answer["attribution"]["session_id"], answer["attribution"]["message_id"]) == (SESSION, message_id)
    request = answer["evidence"][0]
    assert (request["kind"], request["source"], request["redacted"]) == ("request", "shared", True)
    local = blame_json(world.a, f"{path}:{line}")["evidence"][0]  # A still has the transcript
    assert (local["source"], local["redacted"], local["message_id"]) == (
        "transcript",
        False,
        request["message_id"],
    )
    assert request["text"].splitlines()[0] == local["text"].splitlines()[0]
    assert world.prompts[0].secret in local["text"] and world.prompts[0].secret not in request["text"]
    assert request["text"].count("[REDACTED:") >= 13
    assert all(e["source"] == "shared" for e in answer["evidence"])
    assert any(e["kind"] == "edit" and e["message_id"] == message_id for e in answer["evidence"])
    text = ok("blame", f"{path}:{line}", cwd=b, env=env).stdout
    assert "(shared, redacted)" in text

    for repo in (world.remote, b):
        assert leaked(all_objects(repo), world.fakes) == []
    # The fakes in tool outputs were never given to the redactor at this level: outputs are not shared.
    assert "tool_result" not in all_objects(world.remote).decode("utf-8", "replace")


@pytest.mark.slow
def test_sessions_level_redacts_prompts_reasoning_and_tool_outputs(world: World) -> None:
    ok("share", "sessions", cwd=world.a)
    ok("push", cwd=world.a)
    b = clone(world.remote, world.tmp / "b")
    env = empty_homes(world.tmp)
    ok("fetch", cwd=b, env=env)
    shown = json.loads(ok("show", SESSION, "--json", cwd=b, env=env).stdout)
    kinds = {part["kind"] for message in shown["messages"] for part in message["parts"]}
    assert kinds == {"text", "reasoning", "tool_call", "tool_result"}
    outputs = "\n".join(
        p["text"] for m in shown["messages"] for p in m["parts"] if p["kind"] == "tool_result"
    )
    assert outputs.count("[REDACTED:") >= 14
    assert "/Users/gtrrz-victor" not in json.dumps(shown) and "~/wks/gtrrz-victor" in json.dumps(shown)
    for repo in (world.remote, b):
        assert leaked(all_objects(repo), world.fakes) == []
    context = ok("context", SESSION[:8], cwd=b, env=env).stdout
    assert "topics of claude-code" in context


@pytest.mark.slow
def test_default_level_sends_no_transcript_text(world: World) -> None:
    pushed = json.loads(ok("push", "--json", cwd=world.a).stdout)
    assert (pushed["level"], pushed["pushed"]) == ("notes", ["refs/notes/intent"])
    objects = all_objects(world.remote)
    assert REQUEST.encode() not in objects
    assert leaked(objects, world.fakes) == []
    assert git(world.remote, "for-each-ref", "refs/intent/") == ""
    b = clone(world.remote, world.tmp / "b")
    env = empty_homes(world.tmp)
    ok("fetch", cwd=b, env=env)
    path, line, _ = world.agent_line()
    answer = blame_json(b, f"{path}:{line}", env)
    assert (answer["status"], answer["evidence"]) == ("agent", [])
    assert answer["attribution"]["session_id"] == SESSION
    assert "none is shared on refs/intent/evidence" in answer["reason"]


def audit_json(repo: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    proc = run_cli("audit", *args, "--json", cwd=repo, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.slow
def test_audit_counts_lines_by_status_and_gates_on_thresholds(world: World) -> None:
    a = world.a
    (a / "HUMAN.md").write_text("written by a person\n\n")
    git(a, "add", "HUMAN.md")
    git(a, "commit", "-q", "-m", "human")
    ok("record", "HEAD", cwd=a)
    (a / "LATER.md").write_text("never recorded\n")
    git(a, "add", "LATER.md")
    git(a, "commit", "-q", "-m", "unrecorded")
    code, report = audit_json(a, f"{world.base}..HEAD")
    assert code == 0
    assert report["range"] == f"{world.base}..HEAD" and report["commits"] == 3
    assert report["lines"] == {
        "agent_with_evidence": 54,
        "agent_without_evidence": 0,
        "human": 1,
        "unrecorded": 1,
        "total": 56,
    }
    assert (report["coverage"], report["evidence_coverage"]) == (round(55 / 56, 4), 1.0)
    assert report["agents"] == {"claude-code": {"lines": 54, "with_evidence": 54}}
    assert {f["path"]: f["lines"]["total"] for f in report["files"]}["HUMAN.md"] == 1
    assert audit_json(a, f"{world.base}..HEAD", "--min-coverage", "0.9")[0] == 0
    proc = run_cli("audit", f"{world.base}..HEAD", "--min-coverage", "1.01", cwd=a)
    assert proc.returncode == 1 and "below the required" in proc.stderr
    assert run_cli("audit", "no-such-rev..HEAD", cwd=a).returncode == 1

    # A reviewer's machine: notes only, then shared evidence.
    git(a, "push", "-q", "origin", "main")
    ok("push", cwd=a)
    b = clone(world.remote, world.tmp / "b")
    env = empty_homes(world.tmp)
    assert (
        audit_json(b, f"{world.base}..HEAD", env=env)[1]["lines"]["unrecorded"] == 56
    )  # nothing fetched yet
    ok("fetch", cwd=b, env=env)
    code, report = audit_json(b, f"{world.base}..HEAD", "--min-evidence", "0.5", env=env)
    assert (
        code == 1 and report["lines"]["agent_without_evidence"] == 54 and report["evidence_coverage"] == 0.0
    )
    ok("share", "evidence", cwd=a)
    ok("push", cwd=a)
    ok("fetch", cwd=b, env=env)
    code, report = audit_json(b, f"{world.base}..HEAD", "--min-evidence", "1", env=env)
    assert code == 0 and report["lines"]["agent_with_evidence"] == 54


@pytest.mark.slow
def test_forget_removes_a_session_from_the_remote_and_other_clones_cannot_bring_it_back(world: World) -> None:
    ok("share", "evidence", cwd=world.a)
    ok("push", cwd=world.a)
    b = clone(world.remote, world.tmp / "b")
    env = empty_homes(world.tmp)
    ok("fetch", cwd=b, env=env)
    blob = git(world.remote, "rev-parse", f"refs/intent/evidence:evidence/claude-code/{SESSION}.json").strip()
    proc = ok("share", "--forget", SESSION[:8], cwd=world.a)
    assert f"claude-code/{SESSION}" in proc.stdout and "copies already fetched" in proc.stderr
    ok("push", cwd=world.a)
    reachable = git(world.remote, "rev-list", "--objects", "--all")
    assert blob not in reachable
    # B still holds the old copy; its next push merges the remote's tombstone instead of restoring it.
    git(b, "config", "intent.share", "evidence")
    assert json.loads(ok("push", "--json", cwd=b, env=env).stdout)["retries"] == 1
    assert blob not in git(world.remote, "rev-list", "--objects", "--all")
    assert blob not in git(b, "ls-tree", "-r", "refs/intent/evidence")
    status = json.loads(ok("share", "--json", cwd=world.a).stdout)
    assert (status["level"], status["sessions"], status["forgotten"]) == ("evidence", 0, 1)
    # Shared again? Never from here: the commit stays recorded, the session stays forgotten.
    ok("push", cwd=world.a)
    assert git(world.remote, "ls-tree", "-r", "--name-only", "refs/intent/evidence", "evidence/") == ""


def test_a_failing_redactor_writes_and_pushes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moved from tests/redaction: it needs this file's World and object scan."""
    from git_intent.core.errors import RedactionError
    from git_intent.git.repo import Repository
    from git_intent.redaction import detectors
    from git_intent.redaction.redact import Sealed
    from git_intent.share.remote import push

    world = World(tmp_path)
    git(world.a, "config", "intent.share", "evidence")
    monkeypatch.chdir(world.a)
    monkeypatch.setattr(detectors, "all_findings", lambda text: 1 / 0)
    with pytest.raises(RedactionError):
        push(Repository(world.a))
    assert git(world.a, "for-each-ref", "refs/intent/") == ""
    assert git(world.remote, "for-each-ref", "refs/intent/", "refs/notes/") == ""
    # The scan the sharing tests rely on does see secrets when redaction is bypassed.
    from git_intent.share import collect

    monkeypatch.setattr(
        collect,
        "seal",
        lambda payload, keep: Sealed(
            data=json.dumps(payload).encode(),
            token=Sealed.__dataclass_fields__["token"].default or _seal_token(),
        ),
    )
    collect.share_commits(Repository(world.a), [world.commit], "evidence")
    assert leaked(all_objects(world.a), world.prompts)


def _seal_token() -> object:
    from git_intent.redaction import redact

    return redact._SEAL
