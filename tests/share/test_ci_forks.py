"""The Action and a fork's pull request: on `pull_request` (a read-only token: GitHub gives no other to a
fork's pull request) ci/pr-comment.sh fetches the fork's records and reviews with them, and puts the review in
the job summary when it cannot comment; on the `push` to main after "Squash and merge", ci/carry-forks.sh asks
GitHub which pull requests the pushed commits merged, fetches each fork's records (and the pull request's
commits from refs/pull/N/head, the fork's branch being deleted), carries them onto the squash commit and
pushes them upstream (with `share: evidence`, the evidence the contributor shared too). Both run as
action.yml runs them, with the environment GitHub sets and a fake `gh` on PATH that serves a JSON file,
applies `--jq` with the jq library and records every call.
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
CODE = "def fee(amount):\n    return round(amount * 0.029 + 0.30, 2)\n"
CHANGES = "Card fees, by a person.\n"
MARKER = "<!-- git-intent review -->"
FAKE_GH = """#!{python}
import json, os, sys
import jq

args = sys.argv[1:]
with open(os.environ["GH_FAKE_STATE"], encoding="utf-8") as handle:
    state = json.load(handle)
with open(os.environ["GH_FAKE_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(args) + "\\n")
options, words, rest = {{}}, [], args[1:]
while rest:
    word = rest.pop(0)
    if word in ("--method", "--jq", "-F"):
        options[word] = rest.pop(0)
    elif not word.startswith("-"):
        words.append(word)
method, endpoint = options.get("--method", "GET"), words[0]
if endpoint == "user" or method != "GET":  # the workflow's token on a fork's pull request: read-only
    sys.stderr.write("gh: Resource not accessible by integration (HTTP 403)\\n")
    sys.exit(1)
if endpoint.endswith("/pulls"):
    value = state["pulls"].get(endpoint.split("/")[-2], [])
else:
    value = []
if "--jq" in options:
    for result in jq.compile(options["--jq"]).input_value(value).all():
        print(result if isinstance(result, str) else json.dumps(result))
else:
    print(json.dumps(value))
"""


class Fork:
    """upstream.git (acme/payments), fork.git (alice's), alice's clone of her fork with git-intent installed
    and evidence shared: an agent commit and a person's commit on `fees`, pushed with their records to the
    fork, and the pull request's head as GitHub keeps it upstream (refs/pull/7/head)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.upstream = tmp / "upstream.git"
        git(tmp, "init", "-q", "--bare", "-b", "main", str(self.upstream))
        seed = self.clone(self.upstream, "seed")
        (seed / "README.md").write_text("# payments\n", encoding="utf-8")
        git(seed, "add", "README.md")
        git(seed, "commit", "-q", "-m", "base")
        git(seed, "push", "-q", "origin", "main")
        self.base = git(seed, "rev-parse", "HEAD").strip()
        self.fork = tmp / "fork.git"
        git(tmp, "clone", "-q", "--bare", str(self.upstream), str(self.fork))
        alice = self.clone(self.fork, "alice")
        install(alice)
        git(alice, "config", "intent.share", "evidence")
        git(alice, "checkout", "-q", "-b", "fees", env={"GIT_INTENT": "0"})
        agent = claude_session(alice)
        agent.prompt("Add the card fee.")
        agent.write("Writing fees.py.", alice / "fees.py", CODE)
        agent.save()
        commit_synced(alice, "card fee")
        (alice / "CHANGES.txt").write_text(CHANGES, encoding="utf-8")
        git(alice, "add", "CHANGES.txt")
        git(alice, "commit", "-q", "-m", "changelog", env={"GIT_INTENT": "0"})  # never recorded
        git(alice, "push", "-q", "origin", "fees")
        assert run_cli("push", cwd=alice).returncode == 0
        git(alice, "push", "-q", str(self.upstream), "fees:refs/pull/7/head")  # what GitHub does
        self.alice, self.session_id = alice, agent.session_id
        self.head = git(alice, "rev-parse", "HEAD").strip()
        home = tmp / "runner-home"  # the runner: no transcript of alice's
        home.mkdir()
        self.env = {
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CODEX_HOME": str(home / ".codex"),
        }

    def clone(self, remote: Path, name: str) -> Path:
        git(self.tmp, "clone", "-q", str(remote), str(self.tmp / name))
        path = (self.tmp / name).resolve()
        git(path, "config", "commit.gpgsign", "false")
        return path

    def run(
        self, script: str, cwd: Path, pulls: dict[str, Any], **extra: str
    ) -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
        fakes = self.tmp / "fake-bin"
        fakes.mkdir(exist_ok=True)
        gh = fakes / "gh"
        gh.write_text(FAKE_GH.format(python=sys.executable), encoding="utf-8")
        gh.chmod(0o755)
        state, log = self.tmp / "github.json", self.tmp / "gh.log"
        state.write_text(json.dumps({"pulls": pulls}), encoding="utf-8")
        log.unlink(missing_ok=True)
        env = {
            **os.environ,
            **self.env,
            "PATH": f"{fakes}{os.pathsep}{os.environ['PATH']}",
            "GH_FAKE_STATE": str(state),
            "GH_FAKE_LOG": str(log),
            "GITHUB_REPOSITORY": "acme/payments",
            "GH_TOKEN": "fake",
            **extra,
        }
        proc = subprocess.run(
            ["sh", str(ROOT / "ci" / script)], cwd=cwd, capture_output=True, text=True, env=env
        )
        calls = (
            [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
            if log.exists()
            else []
        )
        return proc, calls


def test_a_forks_pull_request_is_reviewed_with_the_forks_records_and_a_read_only_token(
    tmp_path: Path,
) -> None:
    fork = Fork(tmp_path)
    ci = fork.clone(fork.upstream, "ci")  # actions/checkout of the pull request
    git(ci, "fetch", "-q", "origin", "refs/pull/7/head")
    git(ci, "checkout", "-q", "--detach", "FETCH_HEAD")
    summary = tmp_path / "summary.md"
    proc, calls = fork.run(
        "pr-comment.sh",
        ci,
        {},
        INTENT_BASE=fork.base,
        INTENT_HEAD=fork.head,
        INTENT_PR="7",
        INTENT_FORK=str(fork.fork),
        INTENT_ANNOTATE="true",
        GITHUB_STEP_SUMMARY=str(summary),
    )
    assert proc.returncode == 0, proc.stderr
    review = run_cli(
        "review", f"{fork.base}..{fork.head}", "--format", "markdown", "--offline", cwd=ci, env=fork.env
    )
    assert summary.read_text(encoding="utf-8") == f"{MARKER}\n{review.stdout}"
    assert fork.session_id[:8] in review.stdout  # the fork's records, fetched with read access only
    assert [c[:3] for c in calls] == [
        ["api", "user", "--jq"],
        ["api", "repos/acme/payments/issues/7/comments", "--paginate"],
        ["api", "--method", "POST"],
    ]
    out = proc.stdout.splitlines()
    assert (
        "git-intent: this token cannot comment on pull request #7 from a fork; the review is in the job "
        "summary."
    ) in out
    person = fork.head[:12]
    assert out[-1] == (
        "::warning file=CHANGES.txt,line=1,endLine=1,title=git-intent%3A unrecorded lines::No git-intent "
        f"record says who wrote line 1 (commit {person}). Its author can record it (`git intent record "
        f"{person}`, then `git intent push`); records kept in a fork come with `git intent fetch FORK-URL`."
    )


def test_the_push_after_a_squash_merge_carries_the_forks_records_upstream(tmp_path: Path) -> None:
    fork = Fork(tmp_path)
    forge = fork.clone(fork.upstream, "forge")  # GitHub's "Squash and merge"
    git(forge, "fetch", "-q", "origin", "refs/pull/7/head")
    git(forge, "merge", "-q", "--squash", "FETCH_HEAD")
    git(forge, "commit", "-q", "-m", "Card fee (#7)")
    git(forge, "push", "-q", "origin", "main")
    squash = git(forge, "rev-parse", "HEAD").strip()
    git(fork.alice, "push", "-q", "origin", ":fees")  # alice deletes her branch once it is merged
    ci = fork.clone(fork.upstream, "ci")  # actions/checkout of main, fetch-depth 0

    pulls = {
        squash: [
            {"number": 7, "head": {"repo": {"full_name": "alice/payments", "clone_url": str(fork.fork)}}}
        ]
    }
    proc, calls = fork.run(
        "carry-forks.sh", ci, pulls, INTENT_BEFORE=fork.base, INTENT_AFTER=squash, GIT_INTENT_SHARE="evidence"
    )
    assert proc.returncode == 0, proc.stderr
    assert calls == [["api", f"repos/acme/payments/commits/{squash}/pulls", "--jq", calls[0][-1]]]
    assert f"git-intent: fetched the records of pull request #7 from {fork.fork}." in proc.stdout.splitlines()
    assert git(ci, "rev-parse", "refs/pull/7/head").strip() == fork.head

    # Anyone who fetches upstream now gets the credit, and the evidence alice shared.
    mate = fork.clone(fork.upstream, "mate")
    assert run_cli("fetch", cwd=mate, env=fork.env).returncode == 0
    blamed = json.loads(run_cli("blame", "fees.py:2", "--json", cwd=mate, env=fork.env).stdout)["lines"][0]
    assert (blamed["commit"], blamed["status"], blamed["line_class"]) == (
        squash,
        "agent",
        "agent_with_evidence",
    )
    assert blamed["attribution"]["session_id"] == fork.session_id

    # A push of nothing new from a fork, and a pull request from the repository itself: nothing fetched.
    same = {squash: [{"number": 8, "head": {"repo": {"full_name": "acme/payments", "clone_url": "x"}}}]}
    proc, _ = fork.run("carry-forks.sh", ci, same, INTENT_BEFORE="0" * 40, INTENT_AFTER=squash)
    assert proc.returncode == 0, proc.stderr
    assert "fetched the records of pull request" not in proc.stdout


def test_action_yml_runs_the_fork_steps_with_githubs_values() -> None:
    action = (ROOT / "action.yml").read_text(encoding="utf-8").splitlines()
    for line in (
        "      ${{ github.event.pull_request.head.repo.full_name != github.repository",
        "      && github.event.pull_request.head.repo.clone_url || '' }}",
        "      if: github.event_name == 'push'",
        '      run: sh "${{ github.action_path }}/ci/carry-forks.sh"',
        "      if: github.event_name != 'push' && inputs.mode != 'verify'",
        "        INTENT_FORK: ${{ inputs.fork }}",
        "        INTENT_ANNOTATE: ${{ inputs.annotate }}",
        "        INTENT_MAX_ANNOTATIONS: ${{ inputs.max-annotations }}",
        "        INTENT_BEFORE: ${{ inputs.before }}",
        "        INTENT_AFTER: ${{ inputs.after }}",
        "        GIT_INTENT_SHARE: ${{ inputs.share }}",
        "    default: ${{ github.event.before }}",
        "    default: ${{ github.event.after }}",
    ):
        assert line in action, line
