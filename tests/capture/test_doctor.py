"""`git intent doctor` and a damaged refs/notes/intent, through real `git commit` and the
installed hooks.

A notes ref pointing at a blob or at a missing object makes every note write fail. It never blocks git:
install no longer sets notes.rewriteRef, so `git commit --amend` and `git rebase` succeed and
their jobs wait in the queue; an earlier install's notes.rewriteRef is taken back by the next install.
Status says so in one line; the worker leaves the jobs queued instead of failing them; doctor sets the ref
aside, rebuilds it (reflog, then the journal), queues failed jobs again and drains the queue, and the
credits follow the amended and rebased commits.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from support import (
    SYNC,
    blame_json,
    claude_session,
    commit_synced,
    git,
    install,
    journal,
    note_records,
    run_cli,
)

NOTES_REF = "refs/notes/intent"
STEPS = (
    "def step_one():\n    return 'first step of the pipeline'\n\n\ndef step_two():\n    return 'second "
    "step'\n"
)


def agent_commit(repo: Path) -> tuple[str, str]:
    """A Claude Code session writes steps.py; committed through the hook (worker in the foreground).
    Returns (commit, session id)."""
    agent = claude_session(repo.resolve())
    agent.prompt("Write steps.py with the two pipeline steps.")
    agent.write("I'll write steps.py.", repo.resolve() / "steps.py", STEPS)
    agent.save()
    return commit_synced(repo, "agent writes steps.py"), agent.session_id


def agent_blame(repo: Path, session_id: str) -> None:
    """Line 2 of steps.py answers with the agent's session, from the note."""
    line = blame_json(repo, "steps.py:2")["lines"][0]
    assert (line["status"], line["attribution"]["session_id"], line["attribution"]["method"]) == (
        "agent",
        session_id,
        "note",
    )


def status(repo: Path) -> dict[str, Any]:
    proc = run_cli("status", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def doctor(repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    proc = run_cli("doctor", "--json", *args, cwd=repo)
    assert proc.stderr == "", proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return proc.returncode, report


def amend(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "--amend", "-q", "-m", message],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **SYNC},
    )


def test_damaged_notes_ref_never_blocks_amend_and_doctor_rebuilds_it(repo: Path) -> None:
    install(repo)
    sha, session_id = agent_commit(repo)
    agent_blame(repo, session_id)
    good = git(repo, "rev-parse", NOTES_REF).strip()
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=repo,
        input="not a notes commit\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(repo, "update-ref", NOTES_REF, blob)

    amended_ok = amend(repo, "agent writes steps.py (amended)")
    assert (amended_ok.returncode, amended_ok.stderr) == (0, "")  # git never reads refs/notes/intent itself
    amended = git(repo, "rev-parse", "HEAD").strip()

    # the worker leaves the job queued (never three attempts and failed/), and says why in hook.log
    for _ in range(3):
        pending = run_cli("record", "--pending", cwd=repo)
        assert pending.returncode == 1
        assert pending.stderr == (
            f"refs/notes/intent points at a blob ({blob[:12]}), not a notes commit: "
            "the jobs stay queued; run `git intent doctor`.\n"
        )
    report = status(repo)
    assert report["notes_ref_damage"] == f"points at a blob ({blob[:12]}), not a notes commit"
    assert report["rewrite_ref_breaks_git"] is False
    assert (
        sorted((j["hook"], j["commit"]) for j in report["pending"])
        == [("post-commit", amended), ("post-rewrite", amended)]
        and report["failed"] == []
    )
    log = (repo / ".git" / "intent" / "hook.log").read_text(encoding="utf-8")
    assert "2 job(s) stay queued; run `git intent doctor` to repair it and record them." in log
    record = run_cli("record", "HEAD", cwd=repo)
    assert record.returncode == 1
    assert record.stderr.splitlines() == [
        f"error: refs/notes/intent points at a blob ({blob[:12]}), not a notes commit; no note can be "
        "written until it is repaired.",
        "hint: Run `git intent doctor` to set it aside and rebuild it from the local journal.",
    ]

    # --check reports and changes nothing
    code, checked = doctor(repo, "--check")
    assert code == 1 and checked["ok"] is False
    notes_check = next(c for c in checked["checks"] if c["name"] == "notes-ref")
    assert notes_check["ok"] is False and "notes.rewriteRef" not in notes_check["detail"]
    assert git(repo, "rev-parse", NOTES_REF).strip() == blob

    code, fixed = doctor(repo)
    assert code == 0 and fixed["ok"] is True, fixed
    kept = fixed["notes_ref_kept"]
    assert kept.startswith("refs/notes/intent-damaged-") and git(repo, "rev-parse", kept).strip() == blob
    assert fixed["notes_restored_from"] == good
    assert (fixed["rerecorded"], fixed["requeued"], fixed["recorded"]) == (0, 0, 2)
    assert (fixed["still_queued"], fixed["still_failed"]) == (0, 0)
    assert [r["commit"] for r in note_records(repo, amended) if r["kind"] == "commit"] == [amended]
    assert status(repo)["notes_ref_damage"] is None

    again = amend(repo, "agent writes steps.py (amended twice)")
    assert (again.returncode, again.stderr) == (0, "")
    assert git(repo, "notes", "--ref", NOTES_REF, "list").count("\n") == 3  # sha, amended, HEAD
    agent_blame(repo, session_id)
    assert sha != amended


def test_doctor_rebuilds_a_ref_pointing_at_a_missing_object_from_the_journal(repo: Path) -> None:
    install(repo)
    sha, session_id = agent_commit(repo)
    assert [e["commit"] for e in journal(repo)] == [sha]
    missing = "deadbeef" * 5
    # written past git (as a crashed tool or a bad sync would), and no reflog to fall back on
    (repo / ".git" / "refs" / "notes" / "intent").write_text(missing + "\n", encoding="utf-8")
    (repo / ".git" / "logs" / "refs" / "notes" / "intent").unlink()
    assert amend(repo, "amended").returncode == 0
    assert status(repo)["notes_ref_damage"] == "points at a missing object (deadbeefdead)"

    code, fixed = doctor(repo)
    assert code == 0, fixed
    kept = Path(fixed["notes_ref_kept"])
    assert kept.parent == (repo / ".git" / "intent").resolve() and kept.name.startswith("notes-ref-damaged-")
    assert kept.read_text(encoding="utf-8") == missing + "\n"
    assert fixed["notes_restored_from"] is None
    assert fixed["rerecorded"] == 1  # the journal's commit, recorded again through record_commit
    assert [r["lines_attributed"] for r in note_records(repo, sha) if r["kind"] == "commit"] == [4]
    assert fixed["recorded"] == 2  # the amend's post-commit and post-rewrite jobs
    assert amend(repo, "amended again").returncode == 0
    agent_blame(repo, session_id)
    fsck = subprocess.run(["git", "fsck", "--no-dangling"], cwd=repo, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


def test_doctor_queues_failed_jobs_again_and_removes_a_stale_pid(repo: Path) -> None:
    install(repo)
    # queue the commit without recording it (the foreground worker dies right after reading the job)
    sha, session_id = agent_commit_crashing(repo)
    state = repo / ".git" / "intent"
    [job] = list((state / "queue").glob("*.job"))
    (state / "failed").mkdir()
    job.rename(state / "failed" / job.name)  # as the worker leaves a job after its third failed attempt
    (state / "failed" / f"{job.name}.error").write_text("gave up after 3 attempts: git notes failed.\n")
    (state / "queue" / f"{job.stem}.attempts").write_text("2")
    dead = subprocess.Popen(["true"])
    dead.wait()
    (state / "worker.pid").write_text(str(dead.pid))
    assert [j["commit"] for j in status(repo)["failed"]] == [sha]
    assert "Run `git intent doctor` to queue the failed jobs again" in run_cli("status", cwd=repo).stdout

    code, fixed = doctor(repo)
    assert code == 0, fixed
    assert (fixed["requeued"], fixed["recorded"], fixed["still_failed"]) == (1, 1, 0)
    assert {c["name"]: (c["ok"], c["repaired"]) for c in fixed["checks"]} == {
        "state": (True, False),
        "notes-ref": (True, False),
        "worker-pid": (True, True),
        "queue": (True, True),
        "hooks": (True, False),
        "evidence": (True, False),
        "transcripts": (True, False),
    }
    assert not (state / "worker.pid").exists() and not list((state / "queue").iterdir())
    agent_blame(repo, session_id)


def agent_commit_crashing(repo: Path) -> tuple[str, str]:
    agent = claude_session(repo.resolve())
    agent.prompt("Write steps.py with the two pipeline steps.")
    agent.write("I'll write steps.py.", repo.resolve() / "steps.py", STEPS)
    agent.save()
    sha = commit_synced(repo, "agent writes steps.py", env={"GIT_INTENT_CRASH_AT": "after-journal"})
    return sha, agent.session_id


def test_doctor_reports_a_hook_whose_python_is_gone(repo: Path, tmp_path: Path) -> None:
    install(repo)
    hook = repo / ".git" / "hooks" / "post-commit"
    text = hook.read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if ln.startswith("INTENT_PYTHON="))
    hook.write_text(text.replace(line, f"INTENT_PYTHON={tmp_path / 'gone' / 'python'}"), encoding="utf-8")
    proc = run_cli("doctor", cwd=repo)
    assert proc.returncode == 1
    assert (
        f"PROBLEM  hooks       In {hook.parent}: post-commit calls a Python that is gone "
        f"({tmp_path / 'gone' / 'python'})" in proc.stdout
    )
    assert "Run `git intent install` to write them with this Python." in proc.stdout
    assert run_cli("install", cwd=repo).returncode == 0
    assert run_cli("doctor", cwd=repo).returncode == 0


def test_each_kind_of_damage_is_named_and_set_aside_without_breaking_git_gc(repo: Path) -> None:
    from git_intent.git.repo import Repository
    from git_intent.notes import notes_ref_damage, set_aside

    loose = repo / ".git" / "refs" / "notes" / "intent"
    blob = git(repo, "hash-object", "-w", "README.md").strip()
    dangling = (
        f"tree {'1' * 40}\nauthor a <a> 1 +0000\ncommitter a <a> 1 +0000\n\nnotes\n"  # a tree never written
    )
    bad_tree = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin", "--literally"],
        cwd=repo,
        capture_output=True,
        text=True,
        input=dangling,
        check=True,
    ).stdout.strip()
    kinds = {
        "blob": (blob, f"points at a blob ({blob[:12]}), not a notes commit", True),
        "missing": ("d" * 40, f"points at a missing object ({'d' * 12})", False),
        "tree gone": (bad_tree, f"names a notes tree that is missing (commit {bad_tree[:12]})", False),
        "unparseable": ("not a sha", "cannot be parsed", False),
    }
    for value, damage, as_ref in kinds.values():
        loose.parent.mkdir(parents=True, exist_ok=True)
        loose.write_text(value + "\n", encoding="utf-8")
        assert notes_ref_damage(Repository(repo)) == damage
        aside = set_aside(Repository(repo))
        assert aside is not None and aside.damage == damage
        assert aside.kept.startswith("refs/notes/intent-damaged-") is as_ref
        if not as_ref:
            assert Path(aside.kept).read_text(encoding="utf-8") == value + "\n"
        assert notes_ref_damage(Repository(repo)) is None
        git(repo, "notes", "--ref", NOTES_REF, "list")
        git(repo, "update-ref", "-d", NOTES_REF)
        for kept in (repo / ".git" / "intent").glob("notes-ref-damaged-*"):
            kept.unlink()  # one per second: the next kind must not find this one's file
    # the blob kept as a ref reaches no missing object, so gc and fsck still work
    assert git(repo, "for-each-ref", "--format=%(objecttype)", "refs/notes/").split() == ["blob"]
    gc = subprocess.run(["git", "gc", "-q"], cwd=repo, capture_output=True, text=True)
    assert gc.returncode == 0, gc.stderr
    assert subprocess.run(["git", "fsck", "--no-dangling"], cwd=repo, capture_output=True).returncode == 0
    assert notes_ref_damage(Repository(repo)) is None  # absent is not damaged


def damage(repo: Path) -> str:
    """Point refs/notes/intent at a blob (as a bad sync or a crashed tool would); the blob."""
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=repo,
        input="not a notes commit\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(repo, "update-ref", NOTES_REF, blob)
    return blob


def test_amend_and_rebase_succeed_with_a_damaged_ref_and_the_credits_follow_after_doctor(repo: Path) -> None:
    """With git-intent installed and its ref damaged, git's own amend and rebase exit 0
    with nothing on stderr; once doctor repairs the ref, the amended and rebased commits carry the
    agent's credits (the post-rewrite jobs waited in the queue)."""
    install(repo)
    _, session_id = agent_commit(repo)
    damage(repo)
    amended = amend(repo, "agent writes steps.py (amended)")
    assert (amended.returncode, amended.stderr) == (0, "")
    (repo / "other.txt").write_text("a person's line on main\n", encoding="utf-8")
    git(repo, "add", "other.txt")
    git(repo, "commit", "-q", "-m", "main moves on", env=SYNC)
    git(repo, "branch", "-q", "upstream")
    git(repo, "reset", "-q", "--hard", "HEAD~1", env=SYNC)
    rebased = subprocess.run(
        ["git", "rebase", "-q", "upstream"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **SYNC},
    )
    assert (rebased.returncode, rebased.stderr) == (0, "")
    assert git(repo, "log", "--format=%s", "-2").splitlines() == [
        "main moves on",
        "agent writes steps.py (amended)",
    ]
    assert (repo / "steps.py").read_text(encoding="utf-8") == STEPS

    code, fixed = doctor(repo)
    assert code == 0 and fixed["ok"] is True, fixed
    assert (fixed["still_queued"], fixed["still_failed"]) == (0, 0)
    rebased_commit = git(repo, "rev-parse", "HEAD~1").strip()
    agent_blame(repo, session_id)
    lines = [r for r in note_records(repo, rebased_commit) if r["kind"] == "lines"]
    assert [(r["path"], r["start"], r["end"], r["session_id"]) for r in lines] == [
        ("steps.py", 1, 6, session_id)
    ]


def test_install_takes_back_the_rewrite_ref_an_earlier_install_set(repo: Path) -> None:
    """An earlier git-intent set notes.rewriteRef (and recorded it in install.json): with it a damaged ref
    fails git's amend with rc 128. Installing this version unsets it, says why, and amend works."""
    state = repo / ".git" / "intent"
    state.mkdir()
    (state / "install.json").write_text(
        json.dumps({"config": {"notes.rewriteRef": [NOTES_REF]}}), encoding="utf-8"
    )
    git(repo, "config", "notes.rewriteRef", NOTES_REF)
    agent_commit(repo)
    blob = damage(repo)
    assert amend(repo, "before install").returncode == 128  # git itself fails on the damaged ref
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert (
        "Unset git config notes.rewriteRef = refs/notes/intent, which an earlier install set: with it, "
        "git's own amend and rebase fail while refs/notes/intent is damaged; the post-rewrite hook carries "
        "the records instead."
    ) in proc.stdout.splitlines()
    assert git(repo, "config", "--get-all", "notes.rewriteRef", check=False) == ""
    assert (
        json.loads((state / "install.json").read_text(encoding="utf-8"))["config"]["notes.rewriteRef"] == []
    )
    assert git(repo, "rev-parse", NOTES_REF).strip() == blob
    assert amend(repo, "after install").returncode == 0


def test_install_keeps_a_rewrite_ref_the_user_set(repo: Path) -> None:
    git(repo, "config", "notes.rewriteRef", NOTES_REF)  # the user's own choice, before any install
    install(repo)
    assert git(repo, "config", "--get-all", "notes.rewriteRef").splitlines() == [NOTES_REF]
    assert status(repo)["rewrite_ref_breaks_git"] is False  # the ref is fine


def test_the_first_commit_after_an_upgrade_takes_back_the_earlier_rewrite_ref(repo: Path) -> None:
    """Hooks an earlier version installed keep working after an upgrade without `install`: the worker of
    the next commit unsets the notes.rewriteRef that version set (its install.json says so)."""
    install(repo)
    state = repo / ".git" / "intent"
    record = json.loads((state / "install.json").read_text(encoding="utf-8"))
    record["config"]["notes.rewriteRef"] = [NOTES_REF]  # as an earlier install recorded it
    (state / "install.json").write_text(json.dumps(record), encoding="utf-8")
    git(repo, "config", "notes.rewriteRef", NOTES_REF)
    agent_commit(repo)
    assert git(repo, "config", "--get-all", "notes.rewriteRef", check=False) == ""
    assert (
        json.loads((state / "install.json").read_text(encoding="utf-8"))["config"]["notes.rewriteRef"] == []
    )
    assert "Unset git config notes.rewriteRef = refs/notes/intent, which an earlier install set" in (
        state / "hook.log"
    ).read_text(encoding="utf-8")
    damage(repo)
    assert amend(repo, "amended with a damaged ref").returncode == 0
