"""Bad input gets one clear sentence, never a traceback; nothing is lost; the hook never fails a commit."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest
from support import commit_file, git, run_cli

NOTES_REF = "refs/notes/intent"


def assert_one_error(proc: subprocess.CompletedProcess[str], *, starts: str = "error: ") -> str:
    """Non-zero exit; stderr is one sentence starting with `starts`, optionally a `hint:` line; no traceback.
    Returns the sentence."""
    assert proc.returncode != 0, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    lines = proc.stderr.splitlines()
    assert 1 <= len(lines) <= 2, proc.stderr
    assert lines[0].startswith(starts), proc.stderr
    sentence = lines[0][len(starts) :]
    assert sentence[:1].isupper() or sentence[:1] in "'\"/." or sentence[:1].isalnum(), sentence
    assert sentence.endswith((".", ")")), f"not a full sentence: {sentence!r}"
    assert not re.search(r"[a-z)][.!?] +[A-Z]", sentence), f"more than one sentence: {sentence!r}"
    if len(lines) == 2:
        assert lines[1].startswith("hint: "), proc.stderr
    return sentence


@pytest.fixture
def app_repo(repo: Path) -> Path:
    """The test repo with a committed three-line app.py and a binary file."""
    commit_file(repo, "app.py", "def main():\n    print('hello from app')\n    return 0\n")
    (repo / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    git(repo, "add", "blob.bin")
    git(repo, "commit", "-q", "-m", "binary")
    return repo


# --- blame arguments ---------------------------------------------------------------------------------------


def test_not_a_git_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    env = {"GIT_CEILING_DIRECTORIES": str(tmp_path)}
    for args in (("blame", "app.py:1"), ("log",), ("record",), ("install",), ("show", "abc")):
        proc = run_cli(*args, cwd=plain, env=env)
        sentence = assert_one_error(proc)
        assert sentence == f"{plain.resolve()} is not inside a git work tree.", args
        assert proc.returncode == 1


@pytest.mark.parametrize("location", ["../outside.txt:1", "OUTSIDE:1"])
def test_path_outside_the_repository(app_repo: Path, location: str) -> None:
    outside = app_repo.parent / "outside.txt"
    outside.write_text("not in the repo\n", encoding="utf-8")
    location = location.replace("OUTSIDE", str(outside))
    proc = run_cli("blame", location, cwd=app_repo)
    sentence = assert_one_error(proc)
    assert "outside the repository" in sentence
    assert proc.returncode == 1 and proc.stdout == ""


def test_line_past_the_end(app_repo: Path) -> None:
    proc = run_cli("blame", "app.py:4", cwd=app_repo)
    assert assert_one_error(proc) == "app.py has 3 lines; line 4 is past its end."
    proc = run_cli("blame", "app.py:2-9", cwd=app_repo, env={})
    assert assert_one_error(proc) == "app.py has 3 lines; line 9 is past its end."


def test_binary_file(app_repo: Path) -> None:
    proc = run_cli("blame", "blob.bin:1", cwd=app_repo)
    sentence = assert_one_error(proc)
    assert "binary" in sentence and "blob.bin" in sentence


@pytest.mark.parametrize(
    "location", ["app.py:", "app.py:abc", "app.py:-3", ":3", "app.py:0", "app.py:3-1", "app.py:1-2-3"]
)
def test_malformed_location(app_repo: Path, location: str) -> None:
    proc = run_cli("blame", location, cwd=app_repo)
    assert_one_error(proc)
    assert proc.returncode == 1 and proc.stdout == ""


def test_missing_file(app_repo: Path) -> None:
    proc = run_cli("blame", "nope.py:1", cwd=app_repo)
    assert assert_one_error(proc) == "nope.py is not a file in the work tree."


def test_path_inside_dot_git(app_repo: Path) -> None:
    proc = run_cli("blame", ".git/config:1", cwd=app_repo)
    sentence = assert_one_error(proc)
    assert "git -c" not in sentence and "fatal:" not in sentence


# --- show / record
# ----------------------------------------------------------------------------------------------


def test_show_unknown_session(app_repo: Path) -> None:
    unknown = str(uuid.uuid4())
    proc = run_cli("show", unknown, cwd=app_repo)
    sentence = assert_one_error(proc)
    assert sentence.startswith(f"No session matches {unknown}: ")  # what is known, before any guess
    assert "deleted" not in sentence and "`git intent sessions` lists" in proc.stderr
    proc = run_cli("show", f"{unknown}:abc", cwd=app_repo)
    assert unknown in assert_one_error(proc)
    proc = run_cli("show", ":abc", cwd=app_repo)
    assert_one_error(proc)


def test_record_with_missing_transcript(app_repo: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    note_before = git(app_repo, "notes", "--ref", NOTES_REF, "list")
    proc = run_cli("record", "--transcript", str(missing), cwd=app_repo)
    sentence = assert_one_error(proc)
    assert str(missing) in sentence
    proc = run_cli("record", "--transcript", str(tmp_path), cwd=app_repo)  # a directory
    assert str(tmp_path) in assert_one_error(proc)
    assert git(app_repo, "notes", "--ref", NOTES_REF, "list") == note_before  # nothing written


@pytest.mark.parametrize(
    "content",
    [
        "just some text\n",
        "",
        '{"foo": 1}\n{"bar": 2}\n',
        "\x00\x01\x02 binary junk",
    ],
)
def test_record_with_a_file_that_is_not_a_transcript(app_repo: Path, tmp_path: Path, content: str) -> None:
    bogus = tmp_path / "bogus.jsonl"
    bogus.write_text(content, encoding="utf-8")
    proc = run_cli("record", "--transcript", str(bogus), cwd=app_repo)
    sentence = assert_one_error(proc)
    assert str(bogus) in sentence and "not a transcript" in sentence
    assert git(app_repo, "notes", "--ref", NOTES_REF, "list") == ""


def test_record_of_an_unknown_revision(app_repo: Path) -> None:
    proc = run_cli("record", "no-such-rev", cwd=app_repo)
    assert "no-such-rev" in assert_one_error(proc)


def test_log_of_an_unknown_revision(app_repo: Path) -> None:
    proc = run_cli("log", "no-such-rev", cwd=app_repo)
    sentence = assert_one_error(proc)
    assert "no-such-rev" in sentence and "fatal:" not in sentence


# --- notes: corrupt, missing; uncommitted lines
# --------------------------------------------------------------------


def test_blame_on_a_corrupt_note_loses_nothing(app_repo: Path) -> None:
    sha = git(app_repo, "log", "-1", "--format=%H", "--", "app.py").strip()
    git(app_repo, "notes", "--ref", NOTES_REF, "add", "-f", "-m", "garbage", sha)
    proc = run_cli("blame", "app.py:2", cwd=app_repo)
    sentence = assert_one_error(proc, starts="warning: ")
    assert sha[:12] in sentence
    assert proc.returncode == 1
    assert "print('hello from app')" in proc.stdout  # the line is still shown
    as_json = run_cli("blame", "app.py:2", "--json", cwd=app_repo)
    assert as_json.returncode == 1 and "Traceback" not in as_json.stderr
    line = json.loads(as_json.stdout)["lines"][0]
    assert (line["commit"], line["attribution"], line["status"]) == (sha, None, "unreadable")
    # nothing lost: the note is exactly what was there
    assert git(app_repo, "notes", "--ref", NOTES_REF, "show", sha) == "garbage\n"
    # log reports it without failing
    log = run_cli("log", cwd=app_repo)
    assert log.returncode == 0 and "Traceback" not in log.stderr
    assert git(app_repo, "notes", "--ref", NOTES_REF, "show", sha) == "garbage\n"


def test_blame_on_a_commit_without_note(app_repo: Path) -> None:
    sha = git(app_repo, "log", "-1", "--format=%H", "--", "app.py").strip()
    proc = run_cli("blame", "app.py:1-3", "--json", cwd=app_repo)
    # "unrecorded" is an answer: exit 0, like git blame; the reason is in the JSON only
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = json.loads(proc.stdout)["lines"]
    assert [(ln["line"], ln["commit"], ln["status"], ln["attribution"]) for ln in lines] == [
        (1, sha, "unrecorded", None),
        (2, sha, "unrecorded", None),
        (3, sha, "unrecorded", None),
    ]
    assert sha[:12] in lines[0]["reason"] and "git intent record" in lines[0]["reason"]


def test_uncommitted_line(app_repo: Path) -> None:
    app = app_repo / "app.py"
    app.write_text(
        app.read_text(encoding="utf-8").replace("return 0", "return 42  # not committed"), encoding="utf-8"
    )
    proc = run_cli("blame", "app.py:3", "--json", cwd=app_repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    line = json.loads(proc.stdout)["lines"][0]
    assert (line["line"], line["content"], line["commit"], line["attribution"], line["status"]) == (
        3,
        "    return 42  # not committed",
        None,
        None,
        "uncommitted",
    )
    text = run_cli("blame", "app.py:3", cwd=app_repo)
    assert text.returncode == 0 and "not committed" in text.stdout.lower()


def test_uncommitted_new_file(app_repo: Path) -> None:
    (app_repo / "new.py").write_text("print('brand new')\n", encoding="utf-8")
    proc = run_cli("blame", "new.py:1", "--json", cwd=app_repo)
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout)["lines"][0]
    assert (line["commit"], line["status"]) == (None, "uncommitted")


# --- the hook never fails a commit
# -------------------------------------------------------------------------------


def hook_log(repo: Path) -> str:
    path = repo / ".git" / "intent" / "hook.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def wait_for_log(repo: Path, needle: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while needle not in hook_log(repo):
        if time.monotonic() > deadline:
            raise AssertionError(f"hook.log never mentioned {needle!r}:\n{hook_log(repo)}")
        time.sleep(0.05)
    return hook_log(repo)


def commit_through_hook(repo: Path, name: str, text: str) -> subprocess.CompletedProcess[str]:
    (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", name)
    return subprocess.run(
        ["git", "commit", "-q", "-m", f"add {name}"], cwd=repo, capture_output=True, text=True
    )


@pytest.mark.slow
def test_worker_crash_does_not_fail_the_commit(repo: Path) -> None:
    assert run_cli("install", cwd=repo).returncode == 0
    # the worker cannot take the notes lock: it is a directory
    (repo / ".git" / "intent" / "notes.lock").mkdir(parents=True)
    proc = commit_through_hook(repo, "crash.txt", "a line the worker will fail to record\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    sha = git(repo, "rev-parse", "HEAD").strip()
    log = wait_for_log(repo, f"record {sha} failed")
    assert "notes.lock" in log  # the reason, in the log rather than in the user's terminal
    assert (
        subprocess.run(
            ["git", "notes", "--ref", NOTES_REF, "show", sha], cwd=repo, capture_output=True
        ).returncode
        != 0
    )
    # the work is not lost: it stays queued, and `status` says so
    status = run_cli("status", "--json", cwd=repo)
    assert [job["commit"] for job in json.loads(status.stdout)["pending"]] == [sha]


@pytest.mark.slow
def test_hook_fast_path_failure_does_not_fail_the_commit(repo: Path) -> None:
    assert run_cli("install", cwd=repo).returncode == 0
    # the state folder cannot be used: a file stands in its place (the job goes to the fallback queue)
    shutil.rmtree(repo / ".git" / "intent")
    (repo / ".git" / "intent").write_text("not a folder\n", encoding="utf-8")
    proc = commit_through_hook(repo, "fast.txt", "committed even though the hook cannot queue it\n")
    assert proc.returncode == 0, proc.stderr
    sha = git(repo, "rev-parse", "HEAD").strip()
    # no worker can run without the state folder: one line says so
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(
        f"git-intent: commit {sha[:12]} was not queued"
    )
    assert proc.stderr.endswith(f"record it with: git intent record {sha}\n")
    assert git(repo, "log", "-1", "--format=%s") == "add fast.txt\n"


def claude_project(repo: Path) -> Path:
    name = re.sub(r"[^A-Za-z0-9]", "-", str(repo.resolve()))
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.slow
def test_corrupt_transcripts_do_not_fail_the_commit(repo: Path) -> None:
    assert run_cli("install", cwd=repo).returncode == 0
    folder = claude_project(repo)
    (folder / f"{uuid.uuid4()}.jsonl").write_bytes(
        b'{"type":"user","sessionId":"x","message":{"con\n\xff\xfe\x00'
    )
    (folder / f"{uuid.uuid4()}.jsonl").write_text('{"type": "assistant", "message": 5}\n[1, 2]\n"str"\n')
    (folder / f"{uuid.uuid4()}.jsonl").mkdir()  # a folder named like a transcript
    codex = Path(os.environ["CODEX_HOME"]) / "sessions" / "2026" / "01" / "01"
    codex.mkdir(parents=True)
    (codex / f"rollout-2026-01-01T00-00-00-{uuid.uuid4()}.jsonl").write_text(
        '{"timestamp": "x", "type": "session_meta", "payload": {"id": 5, "cwd": null}}\n'
        '{"type": "event_msg", "payload": {"type": "patch_apply_end", "call_id": 1, "changes": []}}\n'
    )
    proc = commit_through_hook(repo, "ok.txt", "a line a person wrote\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    sha = git(repo, "rev-parse", "HEAD").strip()
    log = wait_for_log(repo, sha[:12])
    assert "failed" not in log, log
    note = git(repo, "notes", "--ref", NOTES_REF, "show", sha)
    assert '"lines_added":1' in note and '"lines_attributed":0' in note


def naive_transcript(repo: Path, other: Path) -> None:
    """A Claude Code transcript of another folder whose timestamps carry no UTC offset."""
    sid = str(uuid.uuid4())
    stamp = datetime.now(timezone.utc).replace(tzinfo=None).isoformat(timespec="milliseconds")
    base = {"sessionId": sid, "cwd": str(other), "timestamp": stamp, "version": "2.1.7"}
    records = [
        {
            **base,
            "type": "user",
            "uuid": str(uuid.uuid4()),
            "message": {"role": "user", "content": "write x.py"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Write",
                        "input": {"file_path": str(other / "x.py"), "content": "print('x')\n"},
                    }
                ],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": str(uuid.uuid4()),
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
            },
            "toolUseResult": {"type": "create", "filePath": str(other / "x.py"), "content": "print('x')\n"},
        },
    ]
    folder = claude_project(other)
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


@pytest.mark.slow
def test_hook_survives_a_transcript_with_naive_timestamps(repo: Path) -> None:
    assert run_cli("install", cwd=repo).returncode == 0
    naive_transcript(repo, repo.resolve())
    proc = commit_through_hook(repo, "ok.txt", "a line a person wrote\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert wait_for_log(repo, sha[:12])


def test_record_survives_a_transcript_with_naive_timestamps(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "repo-elsewhere"
    other.mkdir()
    naive_transcript(repo, other.resolve())
    commit_file(repo, "ok.txt", "a line a person wrote\n")
    proc = run_cli("record", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert git(repo, "notes", "--ref", NOTES_REF, "show", "HEAD")


def test_record_keeps_note_lines_it_does_not_own(app_repo: Path) -> None:
    foreign = '{"tool": "another-tool", "says": "keep me"}'
    git(app_repo, "notes", "--ref", NOTES_REF, "add", "-f", "-m", foreign, "HEAD")
    proc = run_cli("record", cwd=app_repo)
    assert proc.returncode == 0, proc.stderr
    note = git(app_repo, "notes", "--ref", NOTES_REF, "show", "HEAD")
    assert foreign in note.splitlines()
    assert '"kind":"commit"' in note
