"""The pull-request comment without a service: action.yml's script, ci/pr-comment.sh, run
as the GitHub Action runs it, in a CI clone of a bare remote, with a fake `gh` on PATH that serves the pull
request's comments from a JSON file, applies `--jq` with the jq library (gh's own is gojq) and records every
call. The author's clone recorded an agent's commit on a branch and pushed the branch and its notes; a person
added a line without git-intent. Only a comment the token's own login wrote is ever edited.
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
BOT = "github-actions[bot]"  # how GitHub shows the comments of a workflow's GITHUB_TOKEN
FAKE_GH = """#!{python}
import json, os, sys
import jq

args = sys.argv[1:]
with open(os.environ["GH_FAKE_STATE"], encoding="utf-8") as handle:
    state = json.load(handle)
body = None
for arg in args:
    if arg.startswith("body=@"):
        with open(arg[len("body=@"):], encoding="utf-8") as handle:
            body = handle.read()
with open(os.environ["GH_FAKE_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"args": args, "body": body}}) + "\\n")
options, words, rest = {{}}, [], args[1:]
while rest:
    word = rest.pop(0)
    if word in ("--method", "--jq", "-F"):
        options[word] = rest.pop(0)
    elif not word.startswith("-"):
        words.append(word)
method, endpoint = options.get("--method", "GET"), words[0]


def fail(message):
    sys.stderr.write(message + "\\n")
    sys.exit(1)


if endpoint == "user":
    if state["user"] is None:  # an installation token, as the workflow's GITHUB_TOKEN: no /user
        fail("gh: Resource not accessible by integration (HTTP 403)")
    value = {{"login": state["user"]}}
elif endpoint.endswith("/comments") and method == "GET":
    value = state["comments"]
elif method == "POST":
    value = {{"id": 1000 + len(state["comments"]), "user": {{"login": state["author"]}}, "body": body}}
    state["comments"].append(value)
elif method == "PATCH":
    wanted = int(endpoint.rsplit("/", 1)[1])
    value = next((c for c in state["comments"] if c["id"] == wanted), None)
    if value is None:
        fail("gh: Not Found (HTTP 404)")
    if value["user"]["login"] != state["author"]:  # GitHub refuses; the script must never try
        fail("gh: Must have admin rights to Repository. (HTTP 403)")
    value["body"] = body
else:
    fail("gh: unexpected call " + " ".join(args))
with open(os.environ["GH_FAKE_STATE"], "w", encoding="utf-8") as handle:
    json.dump(state, handle)
if "--jq" in options:
    for result in jq.compile(options["--jq"]).input_value(value).all():
        print(result if isinstance(result, str) else json.dumps(result))
else:
    print(json.dumps(value))
"""


def github(
    tmp: Path, comments: list[dict[str, Any]] | None = None, *, user: str | None = None, author: str = BOT
) -> Path:
    """The fake GitHub's state: the pull request's comments, what `/user` answers for the token (None: an
    installation token, which cannot read it) and the login the token's comments are posted as."""
    state = tmp / "github.json"
    state.write_text(
        json.dumps({"user": user, "author": author, "comments": comments or []}), encoding="utf-8"
    )
    return state


def comment(comment_id: int, login: str, body: str) -> dict[str, Any]:
    return {"id": comment_id, "user": {"login": login}, "body": body}


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


def run_action(
    ci: Path, tmp: Path, base: str, head: str, **extra: str
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    fakes = tmp / "fake-bin"
    fakes.mkdir(exist_ok=True)
    gh = fakes / "gh"
    gh.write_text(FAKE_GH.format(python=sys.executable), encoding="utf-8")
    gh.chmod(0o755)
    log = tmp / "gh.log"
    log.unlink(missing_ok=True)
    state = tmp / "github.json"
    if not state.exists():
        github(tmp)
    env = {
        **os.environ,
        "PATH": f"{fakes}{os.pathsep}{os.environ['PATH']}",
        "GH_FAKE_LOG": str(log),
        "GH_FAKE_STATE": str(state),
        "INTENT_BASE": base,
        "INTENT_HEAD": head,
        "INTENT_PR": "7",
        "GITHUB_REPOSITORY": "acme/payments",
        "GH_TOKEN": "fake",
        **extra,
    }
    proc = subprocess.run(["sh", str(SCRIPT)], cwd=ci, capture_output=True, text=True, env=env)
    calls = (
        [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    )
    return proc, calls


def comments(tmp: Path) -> list[dict[str, Any]]:
    return list(json.loads((tmp / "github.json").read_text(encoding="utf-8"))["comments"])


def test_the_action_posts_one_review_comment_then_updates_it(tmp_path: Path) -> None:
    ci, base, head, session_id = setup(tmp_path)
    proc, calls = run_action(ci, tmp_path, base, head)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "git-intent: commented on pull request #7."
    assert [c["args"][:3] for c in calls] == [
        ["api", "user", "--jq"],
        ["api", "repos/acme/payments/issues/7/comments", "--paginate"],
        ["api", "--method", "POST"],
    ]
    assert calls[2]["args"][3:] == ["repos/acme/payments/issues/7/comments", "-F", calls[2]["args"][-1]]
    body = calls[2]["body"]
    review = run_cli("review", f"{base}..{head}", "--format", "markdown", "--offline", cwd=ci).stdout
    assert body == f"{MARKER}\n{review}"
    assert session_id[:8] in body and "fees.py" in body and "CHANGES.txt" in body

    assert comments(tmp_path) == [comment(1000, BOT, body)]
    proc, calls = run_action(ci, tmp_path, base, head)  # the next push: the comment posted before is edited
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "git-intent: updated comment 1000 on pull request #7."
    assert calls[2]["args"][:5] == [
        "api",
        "--method",
        "PATCH",
        "repos/acme/payments/issues/comments/1000",
        "-F",
    ]
    assert calls[2]["body"] == body
    assert comments(tmp_path) == [comment(1000, BOT, body)]


def test_a_marked_comment_someone_else_wrote_is_never_edited(tmp_path: Path) -> None:
    ci, base, head, _ = setup(tmp_path)
    planted = comment(900, "mallory", f"{MARKER}\nA review saying every line is a person's.")
    github(tmp_path, [planted])
    proc, calls = run_action(ci, tmp_path, base, head)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "git-intent: commented on pull request #7."
    assert [c["args"][2] for c in calls if "--method" in c["args"]] == ["POST"]
    posted = comments(tmp_path)
    assert posted[0] == planted
    assert [(c["id"], c["user"]["login"]) for c in posted] == [(900, "mallory"), (1001, BOT)]
    # The next run edits its own comment, still not mallory's.
    proc, calls = run_action(ci, tmp_path, base, head)
    assert proc.stdout.splitlines()[-1] == "git-intent: updated comment 1001 on pull request #7."
    assert comments(tmp_path)[0] == planted


def test_a_person_token_edits_only_its_own_login_s_comment(tmp_path: Path) -> None:
    ci, base, head, _ = setup(tmp_path)
    bots = comment(900, BOT, f"{MARKER}\nan older review by the workflow token")
    mine = comment(901, "release-bot", f"{MARKER}\nan older review by this token")
    github(tmp_path, [bots, mine], user="release-bot", author="release-bot")
    proc, _ = run_action(ci, tmp_path, base, head)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "git-intent: updated comment 901 on pull request #7."
    assert comments(tmp_path)[0] == bots
    # A login named by hand wins over `gh api user`, and must be a login.
    proc, calls = run_action(ci, tmp_path, base, head, INTENT_BOT_LOGIN='x") or true or ("')
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "git-intent: 'x\") or true or (\"' is not a GitHub login; set INTENT_BOT_LOGIN to the login the "
        "token comments as."
    )
    assert calls == []  # nothing was read or posted


def test_min_coverage_fails_the_check_after_commenting(tmp_path: Path) -> None:
    ci, base, head, _ = setup(tmp_path)
    passing, _ = run_action(ci, tmp_path, base, head, INTENT_MIN_COVERAGE="0.5")
    assert passing.returncode == 0, passing.stderr  # 2 agent lines of 3: 67% recorded
    failing, calls = run_action(ci, tmp_path, base, head, INTENT_MIN_COVERAGE="0.9")
    assert failing.returncode == 1
    assert [c["args"][2] for c in calls if "--method" in c["args"]] == [
        "PATCH"
    ]  # the comment is still updated
    assert "is below the required 90.00%" in failing.stderr


def test_action_yml_runs_the_script_with_the_pull_requests_commits() -> None:
    action = (ROOT / "action.yml").read_text(encoding="utf-8").splitlines()
    assert "  using: composite" in action
    assert action[-1] == '      run: sh "${{ github.action_path }}/ci/pr-comment.sh"'
    for line in (
        "        INTENT_BASE: ${{ inputs.base }}",
        "        INTENT_HEAD: ${{ inputs.head }}",
        "        INTENT_PR: ${{ inputs.pull-request }}",
        "        INTENT_MIN_COVERAGE: ${{ inputs.min-coverage }}",
        "    default: ${{ github.event.pull_request.base.sha }}",
        "    default: ${{ github.event.pull_request.number }}",
    ):
        assert line in action, line
