"""Recording across a history: an agent's work committed in pieces, and notes git copied onto amends."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from conftest import git, run_cli
from support import A_PY, B_PY, ClaudeSession, Clock, commit_at


def blame(repo: Path, location: str) -> dict[str, object]:
    proc = run_cli("blame", location, "--json", cwd=repo)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_agent_work_committed_in_two_pieces_is_credited_in_both(repo: Path) -> None:
    repo = repo.resolve()
    start = datetime.now(timezone.utc) - timedelta(hours=1)
    session = ClaudeSession(cwd=repo, clock=Clock(start))
    session.prompt("Add alpha and beta features")
    session.write("Writing alpha.", repo / "a.py", A_PY)
    beta = session.write("Writing beta.", repo / "b.py", B_PY)
    session.save()
    first = commit_at(repo, "alpha", start + timedelta(minutes=5), "a.py")
    assert run_cli("record", first, cwd=repo).returncode == 0
    # The person commits the rest an hour after the session, long after the parent commit.
    second = commit_at(repo, "beta", start + timedelta(minutes=65), "b.py")
    out = run_cli("record", second, "--json", cwd=repo)
    result = json.loads(out.stdout)
    assert (result["lines_added"], result["lines_attributed"]) == (2, 2)
    line = blame(repo, "b.py:2")["lines"][0]  # type: ignore[index]
    assert line["attribution"]["session_id"] == session.session_id
    assert line["attribution"]["message_id"] == beta


def test_note_copied_onto_an_amend_does_not_credit_the_persons_rewrite(repo: Path) -> None:
    repo = repo.resolve()
    git(repo, "config", "notes.rewriteRef", "refs/notes/git-intent")  # as `git intent install` sets it
    start = datetime.now(timezone.utc) - timedelta(hours=1)
    session = ClaudeSession(cwd=repo, clock=Clock(start))
    session.prompt("Add alpha")
    session.write("Writing alpha.", repo / "a.py", A_PY)
    session.save()
    sha = commit_at(repo, "alpha", start + timedelta(minutes=5), "a.py")
    assert run_cli("record", sha, cwd=repo).returncode == 0
    (repo / "a.py").write_text("PERSON_CONSTANT = 1234567\n" + A_PY, encoding="utf-8")
    git(repo, "add", "a.py")
    git(repo, "commit", "-q", "--amend", "--no-edit")
    # git copied the old note; its line ranges describe the old commit.
    assert "git-intent/1" in git(repo, "notes", "--ref", "refs/notes/git-intent", "show", "HEAD")
    stale = blame(repo, "a.py:1-2")["lines"]
    assert [line["attribution"] for line in stale] == [None, None]  # type: ignore[index]
    assert {line["status"] for line in stale} == {"unrecorded"}  # type: ignore[union-attr]
    assert run_cli("record", "HEAD", cwd=repo).returncode == 0
    fresh = blame(repo, "a.py:1-2")["lines"]
    assert fresh[0]["status"] == "human"  # type: ignore[index]
    assert fresh[1]["attribution"]["session_id"] == session.session_id  # type: ignore[index]


def test_record_keeps_another_tools_note_text_verbatim(repo: Path) -> None:
    foreign = "Reviewed-by: someone  \n\nA paragraph of\nanother tool's note.\n"
    git(repo, "notes", "--ref", "refs/notes/git-intent", "add", "-f", "-m", foreign.rstrip("\n"))
    raw = git(repo, "notes", "--ref", "refs/notes/git-intent", "show", "HEAD")
    assert run_cli("record", "HEAD", cwd=repo).returncode == 0
    after = git(repo, "notes", "--ref", "refs/notes/git-intent", "show", "HEAD")
    assert after.startswith(raw.rstrip("\n") + "\n")
    assert '"kind":"commit"' in after
    assert run_cli("record", "HEAD", cwd=repo).returncode == 0  # and again: unchanged, no error
    assert git(repo, "notes", "--ref", "refs/notes/git-intent", "show", "HEAD") == after


def test_symlinked_backup_folder_is_never_written(repo: Path) -> None:
    """`.opencode -> docs` would send transcripts into committed files: the backup is refused."""
    repo = repo.resolve()
    (repo / "docs").mkdir()
    (repo / ".opencode").symlink_to("docs")
    session = ClaudeSession(cwd=repo, clock=Clock(datetime.now(timezone.utc) - timedelta(minutes=10)))
    session.prompt("Add alpha. My key is AKIAIOSFODNN7EXAMPLE")
    session.write("Writing alpha.", repo / "a.py", A_PY)
    session.save()
    sha = commit_at(repo, "alpha", datetime.now(timezone.utc), "a.py")
    out = json.loads(run_cli("record", sha, "--json", cwd=repo).stdout)
    assert out["lines_attributed"] == 2
    assert not (repo / "docs" / "intent").exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all").strip() == "?? .opencode"
