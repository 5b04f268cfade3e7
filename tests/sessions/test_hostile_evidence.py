"""Fetched evidence other people wrote: a blob nested 200,000 deep, one over the
size cap, one of the wrong shape, and a 3 MB message, on `refs/intent/evidence` next to a good blob. Every
reader answers (blame, show, review, why offline), warns once per bad blob, and `doctor` names each bad
object."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import git, run_cli

from git_intent.notes import CommitRecord, LinesRecord, SessionRecord, range_digest, render_note
from git_intent.notes import evidence_ref as store

GOOD, DEEP, HUGE, WRONG = "good-session", "deep-session", "huge-session", "wrong-session"
REQUEST = "Please write the greeting helpers"


def blob(repo: Path, data: bytes) -> str:
    return (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"], cwd=repo, input=data, capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )


def payload(session_id: str, request: str = REQUEST) -> dict[str, Any]:
    return {
        "schema": "git-intent-evidence/1",
        "level": "sessions",
        "agent": "claude-code",
        "session_id": session_id,
        "commits": [],
        "topics": [],
        "messages": [
            {
                "message_id": "m1",
                "role": "user",
                "is_prompt": True,
                "redacted": False,
                "timestamp": "2026-01-01T10:00:00+00:00",
                "parts": [{"kind": "text", "text": request}],
            },
            {
                "message_id": "m2",
                "role": "assistant",
                "redacted": False,
                "timestamp": "2026-01-01T10:00:05+00:00",
                "parts": [{"kind": "text", "text": "Writing the helpers."}],
            },
        ],
        "edits": [
            {
                "message_id": "m2",
                "tool": "Write",
                "path": "app.py",
                "kind": "create",
                "new_text": "x",
                "timestamp": "2026-01-01T10:00:05+00:00",
                "added": [],
            }
        ],
    }


def hostile_world(repo: Path) -> tuple[Path, str, dict[str, str]]:
    """A commit of four lines, each credited to another session; the store holds one good blob and three
    bad."""
    root = repo.resolve()
    lines = ["def a():", "def b():", "def c():", "def d():"]
    (root / "app.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    git(root, "add", "app.py")
    git(root, "commit", "-q", "-m", "helpers")
    sha = git(root, "rev-parse", "HEAD").strip()
    sessions = [GOOD, DEEP, HUGE, WRONG]
    records: list[Any] = [CommitRecord(commit=sha, lines_added=4, lines_attributed=4, recorded_by="test")]
    for n, session_id in enumerate(sessions, start=1):
        records.append(SessionRecord(agent="claude-code", session_id=session_id, lines_attributed=1))
        records.append(
            LinesRecord(
                agent="claude-code",
                session_id=session_id,
                message_id="m2",
                tool="Write",
                path="app.py",
                start=n,
                end=n,
                match="exact",
                confidence=1.0,
                sha=range_digest([lines[n - 1]]),
            )
        )
    git(root, "notes", "--ref", "refs/notes/intent", "add", "-f", "-m", render_note(records).strip(), sha)
    deep = (
        b'{"schema":"git-intent-evidence/1","agent":"claude-code","session_id":"deep-session","messages":'
        + b"[" * 200_000
        + b"]" * 200_000
        + b"}"
    )
    huge = json.dumps(payload(HUGE, "x" * (33 << 20))).encode()
    wrong = json.dumps({**payload(WRONG), "messages": "not a list"}).encode()
    oids = {
        GOOD: blob(root, json.dumps(payload(GOOD)).encode()),
        DEEP: blob(root, deep),
        HUGE: blob(root, huge),
        WRONG: blob(root, wrong),
    }
    entries = {store.session_path("sessions", f"claude-code/{s}"): oid for s, oid in oids.items()}
    (root / ".git" / "intent").mkdir(mode=0o700, exist_ok=True)
    store.commit_entries(_repository(root), entries, None, "hostile")
    return root, sha, oids


def _repository(root: Path) -> Any:
    from git_intent.git.repo import Repository

    return Repository(root)


@pytest.fixture
def world(repo: Path) -> tuple[Path, str, dict[str, str]]:
    return hostile_world(repo)


def test_every_reader_answers_past_hostile_blobs_and_warns_once_each(
    world: tuple[Path, str, dict[str, str]],
) -> None:
    root, sha, oids = world
    proc = run_cli("blame", "app.py", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    lines = json.loads(proc.stdout)["lines"]
    assert [(ln["status"], ln["attribution"]["session_id"]) for ln in lines] == [
        ("agent", GOOD),
        ("agent", DEEP),
        ("agent", HUGE),
        ("agent", WRONG),
    ]
    assert any(e["text"] == REQUEST for e in lines[0]["evidence"])
    assert all(ln["evidence"] == [] for ln in lines[1:])
    warnings = proc.stderr.splitlines()
    assert len(warnings) == 3 and all(w.startswith("warning: The shared blob ") for w in warnings), (
        proc.stderr
    )
    assert {oids[s][:12] for s in (DEEP, HUGE, WRONG)} == {w.split()[4] for w in warnings}
    assert "nests deeper than 32 levels" in proc.stderr and "byte cap" in proc.stderr
    assert "`messages` that is not a list of objects" in proc.stderr

    for args in (
        ("blame", "app.py:2"),
        ("show", GOOD),
        ("show", GOOD, "--json"),
        ("review", f"{sha}~1..{sha}"),
        ("review", f"{sha}~1..{sha}", "--format", "markdown"),
        ("review", f"{sha}~1..{sha}", "--json"),
        ("why", "app.py:1", "--offline"),
    ):
        proc = run_cli(*args, cwd=root)
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) <= 3, (args, proc.stderr)
    assert REQUEST in run_cli("show", GOOD, cwd=root).stdout
    missing = run_cli(
        "show", DEEP, cwd=root
    )  # the one session it holds is unreadable: not found, one sentence
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert missing.stderr.splitlines()[0].startswith(f"warning: The shared blob {oids[DEEP][:12]}")


def test_doctor_names_each_bad_evidence_object(world: tuple[Path, str, dict[str, str]]) -> None:
    root, _, oids = world
    proc = run_cli("doctor", "--json", cwd=root)
    report = json.loads(proc.stdout)
    check = next(c for c in report["checks"] if c["name"] == "evidence")
    assert not check["ok"] and proc.returncode == 1
    for session_id in (DEEP, HUGE, WRONG):
        assert f"sessions/claude-code/{session_id}.json ({oids[session_id][:12]})" in check["detail"]
    assert GOOD not in check["detail"]


def test_one_shared_message_contributes_at_most_the_cap_and_says_what_was_left_out() -> None:
    from git_intent.sessions.shared import MAX_PART_CHARS, session_from_payload

    big = payload(GOOD, "y" * 3_000_000)
    session = session_from_payload(big, "refs/intent/evidence:sessions/claude-code/good-session.json")
    text = session.messages[0].parts[0].text
    assert text.startswith("y" * MAX_PART_CHARS)
    assert text.endswith(
        f"\n[… {3_000_000 - MAX_PART_CHARS:,} more characters of this shared message left out]"
    )
    assert len(text) < MAX_PART_CHARS + 80
    assert session.messages[1].parts[0].text == "Writing the helpers."


def test_the_web_view_answers_past_hostile_blobs(world: tuple[Path, str, dict[str, str]]) -> None:
    from starlette.testclient import TestClient

    from git_intent.git.repo import Repository
    from git_intent.serve.app import create_app

    root, sha, _ = world
    client = TestClient(
        create_app(Repository(root), "t" * 32, "k" * 32),
        base_url="http://127.0.0.1",
        headers={"Authorization": f"Bearer {'k' * 32}"},
    )  # this run's key, as a script sends it
    for path in (
        "/file/app.py?line=1",
        "/file/app.py?line=2",
        "/file/app.py?line=3",
        f"/session/{GOOD}",
        f"/review?range={sha}~1..{sha}",
        "/sessions",
    ):
        page = client.get(path)
        assert page.status_code == 200, (path, page.text[:300])
    assert REQUEST in client.get(f"/session/{GOOD}").text
