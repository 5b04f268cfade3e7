"""Races and injected faults against the note writer and the capture queue, with real git.

- Races: commits made at once in four linked worktrees sharing one hooks folder and one queue; 20 processes
  writing 20 notes at once (the lock and the compare-and-swap keep 20/20; without them, see the printout).
- Crash points (`GIT_INTENT_CRASH_AT`, git_intent/core/faults.py): the worker dies after reading the job,
  after building the notes commit, and after moving the ref; the next drain leaves exactly one record.
- A full disk (`ulimit -f 1`): the note write fails, refs/notes/git-intent does not move, the job stays
  queued.
- A note blob of binary garbage: blame says "unreadable" for its lines only; log lists it with a problem.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from support import commit_file, git, install, note_records, run_cli

NOTES_REF = "refs/notes/git-intent"
SCRATCH_REFS = "refs/notes/git-intent-scratch/"
CRASH_EXIT = 86
WAIT = 30.0


# --- helpers
# --------------------------------------------------------------------------------------------------


def noted(repo: Path) -> set[str]:
    """The objects that have a note on refs/notes/git-intent."""
    out = git(repo, "notes", "--ref", NOTES_REF, "list")
    return {line.split()[1] for line in out.splitlines() if line.strip()}


def commit_records(repo: Path, sha: str) -> list[dict[str, Any]]:
    return [r for r in note_records(repo, sha) if r.get("kind") == "commit"]


def notes_head(repo: Path) -> str:
    return git(repo, "rev-parse", "-q", "--verify", NOTES_REF, check=False).strip()


def scratch_refs(repo: Path) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(refname)", SCRATCH_REFS.rstrip("/")).split()


def status(repo: Path) -> dict[str, Any]:
    proc = run_cli("status", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def pending_commits(repo: Path) -> list[str | None]:
    return [job["commit"] for job in status(repo)["pending"]]


def drain(repo: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = run_cli("record", "--pending", cwd=repo, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def wait_until(predicate: Any, what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.05)


def make_commits(repo: Path, count: int) -> list[str]:
    """`count` commits, each adding its own one-line file (no hook installed)."""
    shas = []
    for index in range(count):
        (repo / f"file{index:02}.txt").write_text(f"line of commit {index}\n", encoding="utf-8")
        git(repo, "add", f"file{index:02}.txt")
        git(repo, "commit", "-q", "-m", f"commit {index}")
        shas.append(git(repo, "rev-parse", "HEAD").strip())
    return shas


# 20 writers at once: each imports first, says it is ready, then waits for the same starting signal.
RECORDER = """
import os, sys, time
from pathlib import Path
from git_intent.git.repo import Repository
from git_intent.capture.record import record_commit
root, sha, ready, go = sys.argv[1:5]
Path(ready).touch()
while not os.path.exists(go):
    time.sleep(0.001)
record_commit(Repository(Path(root)), sha)
"""
# The note writer as it was before the lock, patched into each writer process: no lock, no compare-and-swap,
# `git notes add` straight onto refs/notes/git-intent (what the lock prevents is what this loses).
UNLOCKED = """
from contextlib import nullcontext
import git_intent.notes.store as store
def unlocked_swap(repo, commit, text, old, attempt):
    blob = repo.git("hash-object", "-w", "--stdin", input_text=text).strip()
    repo.git("notes", "--ref", store.NOTES_REF, "add", "-f", "-C", blob, commit)
    return True
store.notes_lock = lambda repo: nullcontext()
store._swap = unlocked_swap
"""


def record_at_once(repo: Path, shas: list[str], signals: Path, prelude: str = "") -> list[tuple[int, str]]:
    """Start one `record_commit` process per SHA (after running `prelude` in it), release them together;
    returns each exit code and the last line of its stderr."""
    signals.mkdir()
    go = signals / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", prelude + RECORDER, str(repo), sha, str(signals / f"ready-{i}"), str(go)],
            cwd=repo,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, sha in enumerate(shas)
    ]
    try:
        wait_until(
            lambda: (
                len(list(signals.glob("ready-*"))) == len(shas) or any(p.poll() is not None for p in procs)
            ),
            "the writers to start",
        )
        go.touch()
        errors = [proc.communicate(timeout=60)[1] for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    return [
        (proc.returncode, (err.strip().splitlines() or [""])[-1])
        for proc, err in zip(procs, errors, strict=True)
    ]


def assert_one_commit_record(repo: Path, sha: str, lines_added: int) -> None:
    records = commit_records(repo, sha)
    assert len(records) == 1, records
    assert (records[0]["commit"], records[0]["lines_added"], records[0]["lines_attributed"]) == (
        sha,
        lines_added,
        0,
    )


# --- 1. races
# -------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_commits_racing_in_four_worktrees_all_get_notes(repo: Path, tmp_path: Path) -> None:
    install(repo)
    trees = []
    for index in range(4):
        tree = tmp_path / f"wt{index}"
        git(repo, "worktree", "add", "-q", "-b", f"wt{index}", str(tree))
        trees.append(tree)
    # one hooks folder for all: the linked worktrees run the hook `install` wrote in the common dir
    for tree in trees:
        assert (
            Path(git(tree, "rev-parse", "--git-path", "hooks/post-commit").strip()).resolve()
            == (repo / ".git" / "hooks" / "post-commit").resolve()
        )

    def five_commits(index: int) -> list[str]:
        return [
            commit_file(trees[index], f"wt{index}-{n}.txt", f"line {n} of worktree {index}\n")
            for n in range(5)
        ]

    with ThreadPoolExecutor(max_workers=4) as pool:
        shas = [sha for batch in pool.map(five_commits, range(4)) for sha in batch]
    assert len(set(shas)) == 20
    # every commit was captured by its worktree's hook: a job leaves the queue only after its note is written,
    # so each commit has a queued job or a note (read the queue first, then the notes)
    queued = set(pending_commits(repo))
    assert set(shas) <= queued | noted(repo)

    proc = drain(repo)
    assert proc.returncode == 0, proc.stderr
    wait_until(lambda: not status(repo)["worker_running"], "the background workers to finish")
    assert noted(repo) == set(shas)
    for sha in shas:
        assert_one_commit_record(repo, sha, lines_added=1)
    report = status(repo)
    assert (report["pending"], report["failed"]) == ([], [])
    assert scratch_refs(repo) == []
    assert subprocess.run(["git", "fsck", "--no-dangling"], cwd=repo, capture_output=True).returncode == 0


@pytest.mark.slow
def test_twenty_writers_at_once_keep_twenty_notes(repo: Path, tmp_path: Path) -> None:
    shas = make_commits(repo, 20)
    outcomes = record_at_once(repo, shas, tmp_path / "signals")
    assert outcomes == [(0, "")] * 20
    assert noted(repo) == set(shas)
    for sha in shas:
        assert_one_commit_record(repo, sha, lines_added=1)
    assert scratch_refs(repo) == []
    # every write landed as its own notes commit on top of the last: 20 commits, a single line of history
    assert git(repo, "rev-list", "--count", NOTES_REF).strip() == "20"


@pytest.mark.slow
def test_without_the_lock_notes_are_lost(repo: Path, tmp_path: Path) -> None:
    """Not an assertion of loss (it is probabilistic): prints how many of 20 notes survive without the
    lock."""
    shas = make_commits(repo, 20)
    seen = []
    for run in range(3):
        git(repo, "update-ref", "-d", NOTES_REF, check=False)
        outcomes = record_at_once(repo, shas, tmp_path / f"signals-{run}", prelude=UNLOCKED)
        kept = noted(repo) & set(shas)
        failed = [err for code, err in outcomes if code != 0]
        silent = sum(
            1 for sha, (code, _) in zip(shas, outcomes, strict=True) if code == 0 and sha not in kept
        )
        seen.append((len(kept), len(failed), silent))
        print(
            f"\nunlocked run {run + 1}: {len(kept)}/20 notes survived; {len(failed)} writer(s) failed with "
            f"an error, {silent} succeeded but their note vanished"
        )
        for err, count in Counter(re.sub(r"[0-9a-f]{12,40}", "<sha>", e) for e in failed).most_common():
            print(f"  {count} x {err}")
        # whatever survived is still well formed
        for sha in kept:
            assert_one_commit_record(repo, sha, lines_added=1)
    print(f"unlocked runs (kept, failed loudly, lost silently): {seen}")


# --- 2. crash points
# ------------------------------------------------------------------------------------------


INSTALLED_NOTES_HEAD = ""


def crash_through_hook(repo: Path, point: str) -> str:
    install(repo)
    global INSTALLED_NOTES_HEAD
    INSTALLED_NOTES_HEAD = notes_head(repo)  # install creates an empty refs/notes/git-intent
    sha = commit_file(
        repo,
        "crash.txt",
        "one\ntwo\nthree\n",
        env={"GIT_INTENT_HOOK_SYNC": "1", "GIT_INTENT_CRASH_AT": point},
    )
    assert git(repo, "log", "-1", "--format=%s") == "add crash.txt\n"
    # the crash happened where it was asked for: the job is still queued
    assert pending_commits(repo) == [sha]
    return sha


@pytest.mark.slow
@pytest.mark.parametrize("point", ["after-journal", "before-ref-update", "after-ref-update"])
def test_crash_point_then_drain_leaves_exactly_one_record(repo: Path, point: str) -> None:
    sha = crash_through_hook(repo, point)
    # what the crash left: no note yet, except when it came after the ref moved
    assert (sha in noted(repo)) == (point == "after-ref-update")
    if point == "before-ref-update":
        assert notes_head(repo) == INSTALLED_NOTES_HEAD  # the notes commit was built on a scratch ref only
        assert len(scratch_refs(repo)) == 1

    proc = drain(repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("1 queued job(s) processed, 0 to retry, 0 failed.\n"), proc.stdout
    assert_one_commit_record(repo, sha, lines_added=3)
    assert noted(repo) == {sha}
    report = status(repo)
    assert (report["pending"], report["failed"]) == ([], [])
    fsck = subprocess.run(["git", "fsck", "--no-dangling"], cwd=repo, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr
    # a second drain has nothing to do and changes nothing
    head = notes_head(repo)
    again = drain(repo)
    assert again.returncode == 0 and again.stdout.endswith(
        "0 queued job(s) processed, 0 to retry, 0 failed.\n"
    )
    assert notes_head(repo) == head


@pytest.mark.slow
def test_crash_before_ref_update_leaves_no_scratch_ref_after_the_next_drain(repo: Path) -> None:
    sha = crash_through_hook(repo, "before-ref-update")
    assert drain(repo).returncode == 0
    assert sha in noted(repo)
    assert scratch_refs(repo) == []


# --- 3. a full disk
# -------------------------------------------------------------------------------------------


def many_notes(repo: Path, count: int) -> str:
    """Put notes on `count` blobs in one notes commit, so any new notes tree is larger than one 1 KiB
    block."""
    folder = repo.parent / "noted-blobs"
    folder.mkdir()
    paths = []
    for index in range(count):
        (folder / f"{index}").write_text(f"object {index}\n", encoding="utf-8")
        paths.append(str(folder / f"{index}"))
    targets = git(repo, "hash-object", "-w", *paths).split()
    proc = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=repo,
        capture_output=True,
        text=True,
        input='{"note": "another tool"}\n',
        check=True,
    )
    blob = proc.stdout.strip()
    tree = subprocess.run(
        ["git", "mktree"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
        input="".join(f"100644 blob {blob}\t{t}\n" for t in targets),
    ).stdout.strip()
    commit = git(repo, "commit-tree", tree, "-m", "notes of other objects").strip()
    git(repo, "update-ref", NOTES_REF, commit)
    return commit


@pytest.mark.slow
def test_full_disk_leaves_the_notes_ref_and_the_job_alone(repo: Path) -> None:
    install(repo)
    before = many_notes(repo, 100)
    # queue the commit without recording it: the hook's worker (run in the foreground) dies on reading the job
    sha = commit_file(
        repo,
        "big.txt",
        "".join(f"line {n} of a big file\n" for n in range(2000)),
        env={"GIT_INTENT_HOOK_SYNC": "1", "GIT_INTENT_CRASH_AT": "after-journal"},
    )
    assert pending_commits(repo) == [sha]

    full = subprocess.run(
        ["bash", "-c", "ulimit -f 1; exec git intent record --pending"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in full.stderr, full.stderr
    assert full.stdout.endswith("0 queued job(s) processed, 1 to retry, 0 failed.\n"), (
        full.stdout,
        full.stderr,
    )
    assert notes_head(repo) == before
    assert sha not in noted(repo)
    assert pending_commits(repo) == [sha]
    assert status(repo)["failed"] == []
    assert scratch_refs(repo) == []

    proc = drain(repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("1 queued job(s) processed, 0 to retry, 0 failed.\n"), proc.stdout
    assert_one_commit_record(repo, sha, lines_added=2000)
    assert git(repo, "rev-parse", f"{NOTES_REF}^").strip() == before
    assert len(noted(repo)) == 101
    assert pending_commits(repo) == []
    fsck = subprocess.run(["git", "fsck", "--no-dangling"], cwd=repo, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


# --- 4. a note blob of binary garbage
# -------------------------------------------------------------------------


def claude_write_session(tree: Path, name: str, content: str) -> str:
    """A Claude Code transcript in which the agent Writes `name` with `content` (the file appears on disk)."""
    cwd = tree.resolve()
    path = cwd / name
    sid = str(uuid.uuid4())
    stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": str(cwd),
        "sessionId": sid,
        "version": "2.1.7",
        "gitBranch": "main",
        "timestamp": stamp,
    }
    prompt, assistant, result = (str(uuid.uuid4()) for _ in range(3))
    call = f"toolu_01{uuid.uuid4().hex[:22]}"
    records = [
        {
            **base,
            "type": "user",
            "uuid": prompt,
            "parentUuid": None,
            "message": {"role": "user", "content": f"Create {name} with the three steps."},
        },
        {
            **base,
            "type": "assistant",
            "uuid": assistant,
            "parentUuid": prompt,
            "message": {
                "model": "claude-opus-4-5-20251101",
                "id": f"msg_{uuid.uuid4().hex[:24]}",
                "type": "message",
                "role": "assistant",
                "stop_reason": "tool_use",
                "content": [
                    {"type": "text", "text": f"I'll write {name}."},
                    {
                        "type": "tool_use",
                        "id": call,
                        "name": "Write",
                        "input": {"file_path": str(path), "content": content},
                    },
                ],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": result,
            "parentUuid": assistant,
            "sourceToolAssistantUUID": assistant,
            "message": {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": call,
                        "type": "tool_result",
                        "content": f"File created successfully at: {path}",
                    }
                ],
            },
            "toolUseResult": {
                "type": "create",
                "filePath": str(path),
                "content": content,
                "structuredPatch": [],
                "originalFile": None,
            },
        },
    ]
    folder = (
        Path(os.environ["CLAUDE_CONFIG_DIR"])
        / "projects"
        / "".join(c if c.isalnum() else "-" for c in str(cwd))
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    path.write_text(content, encoding="utf-8")
    return sid


def test_binary_garbage_note_is_unreadable_for_its_lines_only(repo: Path) -> None:
    agent_text = "def step_one():\n    return 'first step of the pipeline'\n"
    sid = claude_write_session(repo, "steps.py", agent_text)
    git(repo, "add", "steps.py")
    git(repo, "commit", "-q", "-m", "agent writes steps.py")
    good = git(repo, "rev-parse", "HEAD").strip()
    recorded = run_cli("record", cwd=repo)
    assert recorded.returncode == 0, recorded.stderr
    assert [r["lines_attributed"] for r in commit_records(repo, good)] == [2]

    (repo / "steps.py").write_text(agent_text + "# a person's line\nSTEPS = [step_one]\n", encoding="utf-8")
    git(repo, "add", "steps.py")
    git(repo, "commit", "-q", "-m", "person extends steps.py")
    bad = git(repo, "rev-parse", "HEAD").strip()
    garbage = repo.parent / "garbage.bin"
    garbage.write_bytes(bytes([0, 255, 254, 10, 123, 34]) + random.Random(7).randbytes(4096))
    blob = git(repo, "hash-object", "-w", str(garbage)).strip()
    git(repo, "notes", "--ref", NOTES_REF, "add", "-f", "-C", blob, bad)

    # one range across both commits
    proc = run_cli("blame", "steps.py:1-4", "--json", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    stderr = proc.stderr.splitlines()
    assert len(stderr) == 1, proc.stderr
    assert stderr[0].startswith("warning: ") and bad[:12] in stderr[0] and stderr[0].endswith(".")
    lines = json.loads(proc.stdout)["lines"]
    assert [(ln["line"], ln["commit"], ln["status"]) for ln in lines] == [
        (1, good, "agent"),
        (2, good, "agent"),
        (3, bad, "unreadable"),
        (4, bad, "unreadable"),
    ]
    for ln in lines[:2]:
        assert (ln["attribution"]["agent"], ln["attribution"]["session_id"], ln["attribution"]["method"]) == (
            "claude-code",
            sid,
            "note",
        )
    assert [ln["attribution"] for ln in lines[2:]] == [None, None]

    # a separate call on the recorded commit's lines answers normally
    alone = run_cli("blame", "steps.py:1-2", "--json", cwd=repo)
    assert (alone.returncode, alone.stderr) == (0, "")
    assert [ln["status"] for ln in json.loads(alone.stdout)["lines"]] == ["agent", "agent"]
    # and the text form of the corrupt line is one warning sentence, the line itself still shown
    text = run_cli("blame", "steps.py:4", cwd=repo)
    assert text.returncode == 1 and len(text.stderr.splitlines()) == 1
    assert "STEPS = [step_one]" in text.stdout

    log = run_cli("log", "--json", cwd=repo)
    assert (log.returncode, log.stderr) == (0, "")
    entries = {e["commit"]: e for e in json.loads(log.stdout)}
    assert (entries[bad]["recorded"], entries[good]["recorded"]) == (False, True)
    assert entries[bad]["problem"] and bad[:12] in entries[bad]["problem"]
    assert entries[good]["problem"] is None
    assert [(s["agent"], s["session_id"], s["lines"]) for s in entries[good]["sessions"]] == [
        ("claude-code", sid, 2)
    ]
    plain = run_cli("log", cwd=repo)
    assert (plain.returncode, plain.stderr) == (0, "")
    assert bad[:7] in plain.stdout and good[:7] in plain.stdout
    # nothing was overwritten
    assert git(repo, "rev-parse", f"{NOTES_REF}:{bad}").strip() == blob
