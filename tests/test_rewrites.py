"""Credits across history rewrites, through the installed hooks and real git commands.

amend (with and without the post-rewrite hook), interactive rebase (pick, reword, squash, fixup) onto a
moved upstream while another agent session is live, cherry-pick, revert, `reset --soft` + recommit, a
forge squash-merge recorded with `git intent carry`, blame's content fallback for commits without a
note, and the capture queue seen through `git intent status` and drained by `record --pending`.

Every git command that should fire a hook runs with GIT_INTENT_HOOK_SYNC=1, so the worker records in the
foreground and the note is there when git returns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import git, run_cli
from test_e2e_hook import ClaudeSession, Clock, claude_project_dir, iso, wait_for

NOTES_REF = "refs/notes/intent"
SYNC = {"GIT_INTENT_HOOK_SYNC": "1"}


# --- helpers --------------------------------------------------------------------------------------------


def hgit(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """git with the hooks running in the foreground."""
    return git(repo, *args, env={**SYNC, **(env or {})})


def head(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", rev).strip()


def install(repo: Path) -> None:
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 0, proc.stderr


def note_text(repo: Path, rev: str) -> str | None:
    proc = subprocess.run(["git", "notes", "--ref", NOTES_REF, "show", rev], cwd=repo, capture_output=True,
                          text=True)
    return proc.stdout if proc.returncode == 0 else None


def records(repo: Path, rev: str) -> list[dict[str, Any]]:
    text = note_text(repo, rev)
    assert text is not None, f"no note on {rev}"
    return [json.loads(line) for line in text.splitlines() if line.strip()]


Credit = tuple[str, str, str | None]  # session_id, message_id, derived_from


def credited(repo: Path, rev: str) -> dict[tuple[str, str], Credit]:
    """(path, line text) -> credit, for every line the note of `rev` credits; checks the note's shape:
    exactly one commit record (about `rev` itself) and one session record per credited session."""
    sha = head(repo, rev)
    recs = records(repo, sha)
    commits = [r for r in recs if r["kind"] == "commit"]
    assert [c["commit"] for c in commits] == [sha], recs
    out: dict[tuple[str, str], Credit] = {}
    for r in recs:
        if r["kind"] != "lines":
            continue
        text = git(repo, "show", f"{sha}:{r['path']}").split("\n")
        for n in range(r["start"], r["end"] + 1):
            key = (r["path"], text[n - 1])
            assert key not in out, f"{key} credited twice in {recs}"
            out[key] = (r["session_id"], r["message_id"], r.get("derived_from"))
    sessions = {r["session_id"] for r in recs if r["kind"] == "session"}
    assert sessions == {c[0] for c in out.values()}, recs
    assert commits[0]["lines_attributed"] == sum(1 for (_, t) in out if t.strip()), recs
    return out


def blame_line(repo: Path, path: str, text: str) -> dict[str, Any]:
    """The `git intent blame --json` answer for the one line of `path` (work tree) that reads `text`."""
    lines = (repo / path).read_text(encoding="utf-8").splitlines()
    assert lines.count(text) == 1, f"{text!r} occurs {lines.count(text)} times in {path}"
    proc = run_cli("blame", f"{path}:{lines.index(text) + 1}", "--json", cwd=repo)
    assert proc.stdout, proc.stderr
    answer: dict[str, Any] = json.loads(proc.stdout)["lines"][0]
    assert answer["content"] == text
    return answer


def who(repo: Path, path: str, text: str) -> tuple[str, str | None, str | None, str | None]:
    """(status, session_id, message_id, derived_from) that blame gives the line."""
    got = blame_line(repo, path, text)
    a = got["attribution"]
    if a is None:
        return got["status"], None, None, None
    assert a["method"] == "note", got
    return got["status"], a["session_id"], a["message_id"], a.get("derived_from")


def all_notes_are_json_lines(repo: Path) -> int:
    """Every note on refs/notes/intent parses line by line as JSON objects; returns how many notes."""
    listing = git(repo, "notes", "--ref", NOTES_REF, "list").split("\n")
    count = 0
    for row in listing:
        if not row.strip():
            continue
        blob = row.split()[0]
        text = git(repo, "cat-file", "blob", blob)
        for line in text.splitlines():
            if line.strip():
                assert isinstance(json.loads(line), dict), line
        count += 1
    return count


def session(repo: Path, clock: Clock | None = None) -> ClaudeSession:
    return ClaudeSession(cwd=repo, clock=clock or Clock())


def commit(repo: Path, message: str, *args: str, env: dict[str, str] | None = None) -> str:
    git(repo, "add", "-A")
    hgit(repo, "commit", "-q", "-m", message, *args, env=env)
    return head(repo)


def new_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "commit.gpgsign", "false")
    for name, text in files.items():
        (path / name).write_text(text, encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path.resolve()


# --- 1. amend ---------------------------------------------------------------------------------------------

APP = ("def parse_config(path):\n"
       "    with open(path) as handle:\n"
       "        return json.load(handle)\n")
APP_MORE = ("\n"
            "def validate_config(config):\n"
            "    missing = [k for k in REQUIRED_KEYS if k not in config]\n"
            "    return not missing\n")
PERSON_LINE = "REQUIRED_KEYS = ('name', 'version')  # typed by the person"


def teammate_commit(tmp_path: Path) -> tuple[Path, str, ClaudeSession, str]:
    """A teammate's agent writes app.py and commits it with git-intent installed; this machine clones the
    repository and fetches the notes. The teammate's transcript exists only on the teammate's machine
    (another work tree path), so here the commit's credits are known from its note alone."""
    theirs = new_repo(tmp_path / "teammate", {"README.md": "# config tools\n"})
    install(theirs)
    agent = session(theirs)
    agent.prompt("Add a config parser in app.py")
    write_id = agent.write("Writing app.py.", theirs / "app.py", APP)
    agent.save()
    old = commit(theirs, "config parser")
    mine = (tmp_path / "mine").resolve()
    git(tmp_path, "clone", "-q", str(theirs), str(mine))
    git(mine, "fetch", "-q", "origin", f"{NOTES_REF}:{NOTES_REF}")
    git(mine, "config", "commit.gpgsign", "false")
    install(mine)
    assert set(credited(mine, old).values()) == {(agent.session_id, write_id, None)}
    return mine, old, agent, write_id


def amend_with_agent_and_person(root: Path, flags: tuple[str, ...]) -> tuple[str, ClaudeSession, str]:
    """An agent session here adds a validator, the person adds a line of their own, and HEAD is amended."""
    second = session(root)
    second.prompt("Add validate_config below parse_config")
    edit_id = second.edit("Adding the validator.", root / "app.py", "json.load(handle)\n",
                          "json.load(handle)\n" + APP_MORE)
    second.save()
    (root / "app.py").write_text(PERSON_LINE + "\n" + (root / "app.py").read_text(encoding="utf-8"))
    old = head(root)
    new = commit(root, "config parser and validator", "--amend", *flags)
    assert new != old and git(root, "rev-parse", "HEAD@{1}").strip() == old
    return new, second, edit_id


AMEND_FLAGS = pytest.mark.parametrize("flags", [(), ("--no-post-rewrite",)], ids=["amend", "no-post-rewrite"])


def assert_amended(root: Path, new: str, old: str, first: Credit, second: Credit) -> None:
    assert credited(root, new) == {
        **{("app.py", t): first for t in APP.splitlines()},
        **{("app.py", t): second for t in APP_MORE.splitlines() if t},
    }
    assert who(root, "app.py", "    with open(path) as handle:") == ("agent", *first)
    assert who(root, "app.py", "    return not missing") == ("agent", *second)
    assert who(root, "app.py", PERSON_LINE) == ("human", None, None, None)
    assert all_notes_are_json_lines(root) == 2  # the old commit's and the new one's


@AMEND_FLAGS
def test_amend_carries_old_credits_and_adds_live_ones(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """The pre-amend commit's lines are known only from its note (a teammate's agent wrote them): they
    must be carried (derived_from = the pre-amend commit); the new agent lines are credited live; the
    person's line stays null. Without --no-post-rewrite git also copies the old note onto the new commit
    (notes.rewriteRef) and runs post-rewrite; with it, only the post-commit job runs and must find the
    pre-amend commit in HEAD@{1} itself."""
    root, old, first, write_id = teammate_commit(tmp_path)
    new, second, edit_id = amend_with_agent_and_person(root, flags)
    assert_amended(root, new, old, (first.session_id, write_id, old), (second.session_id, edit_id, None))


@pytest.mark.xfail(strict=True, reason="BUG: a carried credit loses derived_from whenever the session that "
                   "wrote the line is still on disk: carry.py orders carried edits before live ones, so the "
                   "identical live edit (same session, same message) wins and the note depends on whether the "
                   "transcript still exists")
@AMEND_FLAGS
def test_amend_keeps_derived_from_while_the_old_session_is_on_disk(repo: Path, flags: tuple[str, ...]) -> None:
    root = repo.resolve()
    install(root)
    first = session(root)
    first.prompt("Add a config parser in app.py")
    write_id = first.write("Writing app.py.", root / "app.py", APP)
    first.save()
    old = commit(root, "config parser")
    assert set(credited(root, old).values()) == {(first.session_id, write_id, None)}
    new, second, edit_id = amend_with_agent_and_person(root, flags)
    assert_amended(root, new, old, (first.session_id, write_id, old), (second.session_id, edit_id, None))
