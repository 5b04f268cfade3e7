"""Only a clone that can carry is told to: `git intent carry` copies the notes of the commits a forge
squashed, so it needs them here, recorded. The author's clone holds its branch and is given the exact
command (following it credits the line); a teammate's fresh clone, after the forge deleted the branch, is
told what it can do instead: fetch what the author pushes.

A bare remote, the author's clone (installed; an agent session writes two commits on a branch, pushed with
their notes), and a forge clone without git-intent that squash-merges the branch and deletes it. The
author's clone sees the squash through plain git only (no hook ran, so nothing carried it yet) and its
transcript and its backup are gone (agents delete old sessions), so no session here explains the lines either.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from support import claude_session, commit_synced, git, install, note_text, run_cli

PARSE = "def parse_rows(text):\n    return [line.split(',') for line in text.splitlines() if line]\n"
TOTAL = "def total_amount(rows):\n    return round(sum(float(row[2]) for row in rows), 2)\n"
OFF = {"GIT_INTENT": "0"}


def clone(remote: Path, path: Path, *extra: str) -> Path:
    git(remote.parent, "clone", "-q", *extra, str(remote), str(path))
    git(path, "config", "commit.gpgsign", "false")
    return path.resolve()


def ok(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = run_cli(*args, cwd=cwd, env=env)
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc.stdout


def squashed(tmp: Path) -> tuple[Path, Path, str, list[str]]:
    """(remote, the author's clone at the squash commit, the squash commit, the branch's commits)."""
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    author = clone(remote, tmp / "author")
    (author / "README.md").write_text("# ledger\n", encoding="utf-8")
    git(author, "add", "README.md")
    git(author, "commit", "-q", "-m", "base")
    git(author, "push", "-q", "origin", "main")
    install(author)
    git(author, "checkout", "-q", "-b", "ledger", env=OFF)
    agent = claude_session(author)
    agent.prompt("Write the ledger parser, then its total.")
    agent.write("Writing parse.py.", author / "parse.py", PARSE)
    transcript = agent.save()
    commit_synced(author, "parser")
    agent.write("Writing total.py.", author / "total.py", TOTAL)
    agent.save()
    commit_synced(author, "total")
    branch = git(author, "rev-list", "--reverse", "main..ledger").split()
    git(author, "push", "-q", "origin", "ledger", env=OFF)
    ok("push", cwd=author)

    forge = clone(remote, tmp / "forge")
    git(forge, "merge", "-q", "--squash", "origin/ledger")
    git(forge, "commit", "-q", "-m", "Ledger (#1)")
    git(forge, "push", "-q", "origin", "main", ":ledger")
    squash = git(forge, "rev-parse", "HEAD").strip()

    git(author, "fetch", "-q", "origin", env=OFF)
    git(author, "checkout", "-q", "--detach", "origin/main", env=OFF)
    # The agent deleted the old session and the backup was cleared: no session here matches the lines.
    transcript.unlink()
    shutil.rmtree(author / ".opencode" / "intent")
    assert note_text(author, squash) is None
    return remote, author, squash, branch


def blamed(repo: Path, location: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    line: dict[str, Any] = json.loads(ok("blame", location, "--json", cwd=repo, env=env))["lines"][0]
    return line


def teammate_env(tmp: Path) -> dict[str, str]:
    home = tmp / "teammate-home"
    home.mkdir()
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "CODEX_HOME": str(home / ".codex")}


def test_the_author_who_holds_the_branch_is_told_the_carry_that_credits_the_line(tmp_path: Path) -> None:
    _, author, squash, branch = squashed(tmp_path)

    line = blamed(author, "parse.py:2")
    assert line["status"] == "unrecorded", line
    command = f"git intent carry {squash[:12]}..ledger --onto {squash[:12]}"
    assert line["reason"] == (
        f"Commit {squash[:12]} has no git-intent note and no session on this machine wrote this line, so "
        "git-intent does not know who did. This clone holds recorded commits it may squash or rebase: "
        f"`{command}` copies their records; run `git intent record {squash[:12]}` if it was made here."
    )
    text = ok("blame", "parse.py:2", cwd=author)
    assert command in text and "git intent fetch" not in text
    review = ok("review", f"{squash}~1..{squash}", cwd=author)
    assert command in review

    # The command works as given (`ledger`: the author's own branch, still here after the forge deleted its).
    ok(*command.split()[2:], cwd=author)
    line = blamed(author, "parse.py:2")
    assert (line["status"], line["attribution"]["derived_from"]) == ("agent", branch[0])
    assert blamed(author, "total.py:2")["attribution"]["derived_from"] == branch[1]


def test_a_teammate_who_cannot_carry_is_told_to_fetch_what_the_author_pushes(tmp_path: Path) -> None:
    remote, _, squash, _ = squashed(tmp_path)
    env = teammate_env(tmp_path)
    # --no-local: as from a forge, only reachable objects (a local clone copies the deleted branch's too).
    mate = clone(remote, tmp_path / "teammate", "--no-local")
    ok("fetch", cwd=mate, env=env)  # the branch's notes, not its commits: the forge deleted it

    line = blamed(mate, "parse.py:2", env)
    assert line["status"] == "unrecorded"
    assert line["reason"] == (
        f"Commit {squash[:12]} has no git-intent note and no session on this machine wrote this line, so "
        "git-intent does not know who did. If its author recorded it, `git intent fetch` brings the "
        "records once they ran `git intent push` (ask them to; after a squash-merge on a forge, their `git "
        "pull` or `git intent fetch` carries the records onto it first); run `git intent record "
        f"{squash[:12]}` only if it was made here."
    )
    for args in (
        ("blame", "parse.py:2"),
        ("why", "parse.py:2", "--offline"),
        ("review", f"{squash}~1..{squash}"),
    ):
        text = ok(*args, cwd=mate, env=env)
        assert "git intent carry" not in text, (args, text)
    audit = run_cli("audit", f"{squash}~1..{squash}", "--min-coverage", "1", cwd=mate, env=env)
    assert audit.returncode == 1
    assert "git intent carry" not in audit.stderr
    assert "`git intent fetch` brings the records of commits others made" in audit.stderr


def test_the_authors_audit_names_the_carry_and_lists_the_unrecorded_commits(tmp_path: Path) -> None:
    _, author, squash, _ = squashed(tmp_path)
    audit = run_cli("audit", f"{squash}~1..{squash}", "--min-coverage", "1", "--json", cwd=author)
    assert audit.returncode == 1
    assert json.loads(audit.stdout)["unrecorded_commits"] == [squash]
    assert f"`git intent carry {squash[:12]}..ledger --onto {squash[:12]}`" in audit.stderr
