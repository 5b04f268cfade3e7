"""A contributor's records live in their fork: an upstream bare repository, a fork of it (bare), the
contributor's clone of the fork (git-intent installed, evidence shared, an agent session writing two commits
on a branch, the branch and its records pushed to the fork), and the maintainer's clone of upstream, on
another machine (its own HOME: no transcript of the contributor's), that squash-merges or rebase-merges the
fork's branch and runs `git intent fetch <fork path>`. No `carry` is typed: `blame` on main answers with the
contributor's session, and the evidence the contributor shared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import claude_session, commit_synced, git, install, note_records, run_cli

PARSE = (
    "def parse_rows(text):\n"
    "    rows = [line.split(',') for line in text.splitlines() if line]\n"
    "    return [row for row in rows if len(row) == 3]\n"
)
TOTAL = (
    "def total_amount(rows):\n"
    "    amounts = [float(row[2]) for row in rows]\n"
    "    return round(sum(amounts), 2)\n"
)
HUMAN = "Maintainers: read CONTRIBUTING first.\n"


def ok(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = run_cli(*args, cwd=cwd, env=env)
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc.stdout


class Forked:
    """upstream.git, fork.git (a copy of upstream), the contributor's clone of the fork and the maintainer's
    clone of upstream, whose machine has its own HOME."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.upstream = tmp / "upstream.git"
        git(tmp, "init", "-q", "--bare", "-b", "main", str(self.upstream))
        seed = self.clone(self.upstream, "seed")
        (seed / "README.md").write_text("# ledger\n", encoding="utf-8")
        git(seed, "add", "README.md")
        git(seed, "commit", "-q", "-m", "base")
        git(seed, "push", "-q", "origin", "main")
        self.fork = tmp / "fork.git"
        git(tmp, "clone", "-q", "--bare", str(self.upstream), str(self.fork))
        self.contributor = self.clone(self.fork, "contributor")
        install(self.contributor)
        git(self.contributor, "config", "intent.share", "evidence")
        self.maintainer = self.clone(self.upstream, "maintainer")
        home = tmp / "maintainer-home"
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

    def contribute(self) -> str:
        """Two agent commits on the fork's branch `ledger`, pushed with their records; the session id."""
        git(self.contributor, "checkout", "-q", "-b", "ledger", env={"GIT_INTENT": "0"})
        agent = claude_session(self.contributor)
        agent.prompt("Write the ledger parser.")
        agent.write("Writing parse.py.", self.contributor / "parse.py", PARSE)
        agent.save()
        commit_synced(self.contributor, "parser")
        agent.prompt("And the total.")
        agent.write("Writing total.py.", self.contributor / "total.py", TOTAL)
        agent.save()
        commit_synced(self.contributor, "total")
        git(self.contributor, "push", "-q", "origin", "ledger")
        ok("push", cwd=self.contributor)  # to origin, the fork: the contributor cannot push upstream
        return agent.session_id

    def person_on_main(self) -> None:
        """A maintainer's own commit lands on main first, so a merge of the branch makes new commits."""
        (self.maintainer / "CONTRIBUTING.txt").write_text(HUMAN, encoding="utf-8")
        git(self.maintainer, "add", "CONTRIBUTING.txt")
        git(self.maintainer, "commit", "-q", "-m", "contributing")

    def git(self, *args: str) -> str:
        """git in the maintainer's clone, on the maintainer's machine."""
        return git(self.maintainer, *args, env=self.env)

    def who(self, path: str, text: str) -> tuple[str, str | None, str | None]:
        """(status, session_id, line_class) `git intent blame` gives the maintainer for the line `text`."""
        lines = (self.maintainer / path).read_text(encoding="utf-8").splitlines()
        proc = run_cli(
            "blame", f"{path}:{lines.index(text) + 1}", "--json", cwd=self.maintainer, env=self.env
        )
        assert proc.returncode == 0, proc.stderr
        line: dict[str, Any] = json.loads(proc.stdout)["lines"][0]
        session = line["attribution"]["session_id"] if line["attribution"] else None
        return line["status"], session, line.get("line_class")


@pytest.mark.slow
def test_a_squash_merge_of_a_forks_branch_is_credited_by_fetching_the_fork(tmp_path: Path) -> None:
    team = Forked(tmp_path)
    session_id = team.contribute()
    team.person_on_main()
    team.git("fetch", "-q", str(team.fork), "ledger")
    team.git("merge", "-q", "--squash", "FETCH_HEAD")
    team.git("commit", "-q", "-m", "Ledger parser (#1)")
    squash = team.git("rev-parse", "HEAD").strip()
    assert team.who("parse.py", PARSE.splitlines()[1])[0] == "unrecorded"  # nothing here says who yet

    fetched = json.loads(ok("fetch", str(team.fork), "--json", cwd=team.maintainer, env=team.env))
    assert fetched == {
        "remote": str(team.fork),
        "notes": True,
        "notes_changed": True,
        "evidence": True,
        "evidence_changed": True,
        "carried": [squash],
        "carry_problem": None,
        "attestations_changed": False,
    }
    for text in (PARSE.splitlines()[1], TOTAL.splitlines()[2]):
        assert team.who("parse.py" if text in PARSE else "total.py", text) == (
            "agent",
            session_id,
            "agent_with_evidence",  # the contributor's shared evidence came with the notes
        )
    assert team.who("CONTRIBUTING.txt", HUMAN.strip())[1] is None
    commits = team.git("rev-list", "--reverse", "main..FETCH_HEAD").split()
    lines = [r for r in note_records(team.maintainer, squash) if r["kind"] == "lines"]
    assert {r["derived_from"] for r in lines} == set(commits)  # each range names the fork's commit
    # The fork's branches are kept where the carry found them, out of `git branch -r`.
    assert team.git("for-each-ref", "--format=%(refname)", "refs/intent/forks/").split() == [
        f"refs/intent/forks/{url_name(str(team.fork))}/{branch}" for branch in ("ledger", "main")
    ]
    assert team.git("branch", "-r").split() == ["origin/HEAD", "->", "origin/main", "origin/main"]
    again = json.loads(ok("fetch", str(team.fork), "--json", cwd=team.maintainer, env=team.env))
    assert (again["notes_changed"], again["carried"]) == (False, [])

    # Pushed upstream, the credit reaches anyone who fetches upstream only.
    team.git("push", "-q", "origin", "main")
    ok("push", cwd=team.maintainer, env=team.env)
    remote_note = git(team.upstream, "notes", "--ref", "refs/notes/git-intent", "show", squash)
    assert session_id in remote_note


@pytest.mark.slow
def test_a_rebase_merge_of_a_forks_branch_is_credited_by_fetching_the_fork_by_url(tmp_path: Path) -> None:
    team = Forked(tmp_path)
    session_id = team.contribute()
    team.person_on_main()
    team.git("fetch", "-q", str(team.fork), "ledger:landing")
    sources = team.git("rev-list", "--reverse", "main..landing").split()
    team.git("rebase", "-q", "main", "landing")
    team.git("checkout", "-q", "main")
    team.git("merge", "-q", "--ff-only", "landing")
    team.git("branch", "-q", "-D", "landing")
    landed = team.git("rev-list", "--reverse", "HEAD~2..HEAD").split()
    assert set(landed).isdisjoint(sources)

    fetched = json.loads(ok("fetch", f"file://{team.fork}", "--json", cwd=team.maintainer, env=team.env))
    assert fetched["carried"] == landed
    for commit, source in zip(landed, sources, strict=True):
        lines = [r for r in note_records(team.maintainer, commit) if r["kind"] == "lines"]
        assert lines and {r["derived_from"] for r in lines} == {source}
    assert team.who("parse.py", PARSE.splitlines()[0]) == ("agent", session_id, "agent_with_evidence")
    assert team.who("total.py", TOTAL.splitlines()[1]) == ("agent", session_id, "agent_with_evidence")

    # A fresh clone of upstream has none of the fork's commits: fetching the fork brings them (its branches,
    # into refs/intent/forks/), and the same carry.
    team.git("push", "-q", "origin", "main")
    fresh = team.clone(team.upstream, "fresh")
    assert git(fresh, "cat-file", "-t", sources[0], check=False) == ""
    fetched = json.loads(ok("fetch", f"file://{team.fork}", "--json", cwd=fresh, env=team.env))
    assert fetched["carried"] == landed
    assert note_records(fresh, landed[1]) == note_records(team.maintainer, landed[1])


def test_fetch_reads_a_remote_a_url_of_a_remote_or_a_path_and_refuses_anything_else(tmp_path: Path) -> None:
    from git_intent.git.repo import Repository
    from git_intent.share.sources import fetch_source

    team = Forked(tmp_path)
    repo = Repository(team.maintainer)
    git(team.maintainer, "remote", "add", "alice", str(team.fork))
    assert fetch_source(repo, "origin").branches == ("+refs/heads/*:refs/remotes/origin/*",)
    for given in (str(team.fork), "alice"):  # a URL some remote has is that remote
        assert (fetch_source(repo, given).name, fetch_source(repo, given).location) == ("alice", "alice")
    bob = tmp_path / "bob.git"
    git(tmp_path, "clone", "-q", "--bare", str(team.upstream), str(bob))
    source = fetch_source(repo, str(bob))
    assert (source.location, source.shown) == (str(bob), str(bob))
    assert source.branches == (f"+refs/heads/*:refs/intent/forks/{source.name}/*",)
    proc = run_cli("fetch", "no-such-fork", cwd=team.maintainer)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == (
        "error: 'no-such-fork' is neither a remote of this repository nor a URL or path of a repository."
    )


def test_a_forks_url_names_its_refs_without_credentials() -> None:
    from git_intent.share.sources import url_name

    named = url_name("https://alice:ghp_token@github.com/alice/ledger.git")
    assert named == url_name("https://github.com/alice/ledger.git")
    assert named.startswith("github-com-alice-ledger-") and len(named) == len("github-com-alice-ledger-") + 8
    assert url_name("git@github.com:alice/ledger.git").startswith("git-github-com-alice-ledger-")
    assert url_name("/srv/forks/ledger.git") != url_name("/srv/forks/ledger")
    git_check = [url_name(u) for u in ("https://h/x..y.lock", "ssh://h/@{x}", "/")]
    assert all(all(c.isalnum() or c in "-_" for c in name) for name in git_check)


def url_name(url: str) -> str:
    from git_intent.share.sources import url_name as name

    return name(url)
