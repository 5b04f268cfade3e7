"""The pull-request comment without a service (issue 24, item 5): action.yml's script, ci/pr-comment.sh, run
as the GitHub Action runs it, in a CI clone of a bare remote, with a stub `gh` on PATH that records what it
was asked to post. The author's clone recorded an agent's commit on a branch and pushed the branch and
its notes; a person added a line without git-intent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from support import claude_session, commit_synced, git, install, run_cli

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "ci" / "pr-comment.sh"
MARKER = "<!-- git-intent review -->"
CODE = "def fee(amount):\n    return round(amount * 0.029 + 0.30, 2)\n"
STUB = """#!{python}
import json, os, sys
args = sys.argv[1:]
body = None
for arg in args:
    if arg.startswith("body=@"):
        with open(arg[len("body=@"):], encoding="utf-8") as handle:
            body = handle.read()
with open(os.environ["GH_STUB_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"args": args, "body": body}}) + "\\n")
if "--jq" in args and os.path.exists(os.environ["GH_STUB_EXISTING"]):
    sys.stdout.write(open(os.environ["GH_STUB_EXISTING"], encoding="utf-8").read())
"""


def setup(tmp: Path) -> tuple[Path, str, str, str]:
    """(CI clone, base commit, head commit, session id)."""
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    author = tmp / "author"
    git(tmp, "clone", "-q", str(remote), str(author))
    author = author.resolve()
    git(author, "config", "commit.gpgsign", "false")
    (author / "README.md").write_text("# payments\n", encoding="utf-8")
    git(author, "add", "README.md")
    git(author, "commit", "-q", "-m", "base")
    git(author, "push", "-q", "origin", "main")
    base = git(author, "rev-parse", "HEAD").strip()
    install(author)
    git(author, "checkout", "-q", "-b", "fees")
    agent = claude_session(author)
    agent.prompt("Add the card fee.")
    agent.write("Writing fees.py.", author / "fees.py", CODE)
    agent.save()
    commit_synced(author, "card fee")
    (author / "CHANGES.txt").write_text("Card fees added by a person.\n", encoding="utf-8")
    git(author, "add", "CHANGES.txt")
    git(author, "commit", "-q", "-m", "changelog", env={"GIT_INTENT": "0"})  # never recorded
    git(author, "push", "-q", "origin", "fees")
    assert run_cli("push", cwd=author).returncode == 0
    head = git(author, "rev-parse", "HEAD").strip()
    ci = tmp / "ci"
    git(tmp, "clone", "-q", "--branch", "fees", str(remote), str(ci))
    return ci.resolve(), base, head, agent.session_id


def run_action(ci: Path, tmp: Path, base: str, head: str, **extra: str) -> tuple[subprocess.CompletedProcess[str],
                                                                                 list[dict[str, Any]]]:
    stubs = tmp / "stub-bin"
    stubs.mkdir(exist_ok=True)
    gh = stubs / "gh"
    gh.write_text(STUB.format(python=sys.executable), encoding="utf-8")
    gh.chmod(0o755)
    log = tmp / "gh.log"
    log.unlink(missing_ok=True)
    env = {**os.environ, "PATH": f"{stubs}{os.pathsep}{os.environ['PATH']}", "GH_STUB_LOG": str(log),
           "GH_STUB_EXISTING": str(tmp / "existing"), "INTENT_BASE": base, "INTENT_HEAD": head,
           "INTENT_PR": "7", "GITHUB_REPOSITORY": "acme/payments", "GH_TOKEN": "stub", **extra}
    proc = subprocess.run(["sh", str(SCRIPT)], cwd=ci, capture_output=True, text=True, env=env)
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    return proc, calls


def test_the_action_posts_one_review_comment_then_updates_it(tmp_path: Path) -> None:
    ci, base, head, session_id = setup(tmp_path)
    proc, calls = run_action(ci, tmp_path, base, head)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "git-intent: commented on pull request #7."
    assert [c["args"][:3] for c in calls] == [
        ["api", "repos/acme/payments/issues/7/comments", "--paginate"],
        ["api", "--method", "POST"]]
    assert calls[1]["args"][3:] == ["repos/acme/payments/issues/7/comments", "-F", calls[1]["args"][-1]]
    body = calls[1]["body"]
    review = run_cli("review", f"{base}..{head}", "--format", "markdown", "--offline", cwd=ci).stdout
    assert body == f"{MARKER}\n{review}"
    assert session_id[:8] in body and "fees.py" in body and "CHANGES.txt" in body

    (tmp_path / "existing").write_text("4242\n", encoding="utf-8")  # the comment posted before
    proc, calls = run_action(ci, tmp_path, base, head)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "git-intent: updated comment 4242 on pull request #7."
    assert calls[1]["args"][:5] == ["api", "--method", "PATCH", "repos/acme/payments/issues/comments/4242", "-F"]
    assert calls[1]["body"] == body


def test_min_coverage_fails_the_check_after_commenting(tmp_path: Path) -> None:
    ci, base, head, _ = setup(tmp_path)
    passing, _ = run_action(ci, tmp_path, base, head, INTENT_MIN_COVERAGE="0.5")
    assert passing.returncode == 0, passing.stderr  # 2 agent lines of 3: 67% recorded
    failing, calls = run_action(ci, tmp_path, base, head, INTENT_MIN_COVERAGE="0.9")
    assert failing.returncode == 1
    assert [c["args"][2] for c in calls if "--method" in c["args"]] == ["POST"]  # the comment is still posted
    assert "is below the required 90.00%" in failing.stderr


def test_action_yml_runs_the_script_with_the_pull_requests_commits() -> None:
    action = (ROOT / "action.yml").read_text(encoding="utf-8").splitlines()
    assert "  using: composite" in action
    assert action[-1] == '      run: sh "${{ github.action_path }}/ci/pr-comment.sh"'
    for line in ("        INTENT_BASE: ${{ inputs.base }}", "        INTENT_HEAD: ${{ inputs.head }}",
                 "        INTENT_PR: ${{ inputs.pull-request }}",
                 "        INTENT_MIN_COVERAGE: ${{ inputs.min-coverage }}",
                 "    default: ${{ github.event.pull_request.base.sha }}",
                 "    default: ${{ github.event.pull_request.number }}"):
        assert line in action, line
