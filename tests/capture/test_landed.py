"""Records survive the forge: a bare remote, the author's clone with git-intent installed, and a
"forge" clone without git-intent that squash-merges and rebase-merges the author's pull requests, with a
human commit landed on main in between and a line edited on the forge (a suggestion applied).

No `git intent carry` is typed anywhere: the author's `git pull` (post-merge hook), `git intent fetch`
and `git intent record` find the forge's commits by patch identity; `git intent push` shares the carried
records, and a fresh clone that only runs `git intent fetch` gets the same answers from `git intent blame`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import SYNC, claude_session, commit_synced, git, install, note_records, note_text, run_cli

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
REPORT = (
    "def report_line(rows):\n    count = len(rows)\n    return f'{count} rows, total {total_amount(rows)}'\n"
)
EDITED = "    amounts = [float(row[2]) for row in rows if row[2]]"  # the suggestion the reviewer applied
HUMAN = "Project notes kept by a person.\n"


def ok(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = run_cli(*args, cwd=cwd, env=env)
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc.stdout


def clone(remote: Path, path: Path) -> Path:
    git(remote.parent, "clone", "-q", str(remote), str(path))
    git(path, "config", "commit.gpgsign", "false")
    return path.resolve()


def who(repo: Path, path: str, text: str, env: dict[str, str] | None = None) -> tuple[str, str | None]:
    """(status, session_id) that `git intent blame` gives the one line of `path` reading `text`."""
    lines = (repo / path).read_text(encoding="utf-8").splitlines()
    assert lines.count(text) == 1, (text, lines)
    proc = run_cli("blame", f"{path}:{lines.index(text) + 1}", "--json", cwd=repo, env=env)
    assert proc.returncode == 0, proc.stderr
    line: dict[str, Any] = json.loads(proc.stdout)["lines"][0]
    attribution = line["attribution"]
    return line["status"], attribution["session_id"] if attribution else None


class Team:
    """remote.git; the author's clone (installed, an agent session writing two commits on a branch) and the
    forge's clone (no git-intent), with main at the same base in both."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.remote = tmp / "remote.git"
        git(tmp, "init", "-q", "--bare", "-b", "main", str(self.remote))
        self.author = clone(self.remote, tmp / "author")
        (self.author / "README.md").write_text("# ledger\n", encoding="utf-8")
        git(self.author, "add", "README.md")
        git(self.author, "commit", "-q", "-m", "base")
        git(self.author, "push", "-q", "origin", "main")
        install(self.author)
        self.forge = clone(self.remote, tmp / "forge")

    def agent_branch(self, branch: str) -> str:
        """Two agent commits on `branch` (parse.py + total.py, then report.py), pushed with their notes;
        the session id."""
        git(self.author, "checkout", "-q", "-b", branch, "main", env={"GIT_INTENT": "0"})
        agent = claude_session(self.author)
        agent.prompt("Write the ledger parser and its total.")
        agent.write("Writing parse.py.", self.author / "parse.py", PARSE)
        agent.write("Writing total.py.", self.author / "total.py", TOTAL)
        agent.save()
        commit_synced(self.author, "parser and total")
        agent.prompt("Add a report line.")
        agent.write("Writing report.py.", self.author / "report.py", REPORT)
        agent.save()
        commit_synced(self.author, "report line")
        git(self.author, "push", "-q", "origin", branch)
        ok("push", cwd=self.author)
        return agent.session_id

    def human_commit_on_main(self) -> None:
        """A person's commit lands on main (through the forge) before the pull request is merged."""
        git(self.forge, "checkout", "-q", "main")
        git(self.forge, "pull", "-q", "--ff-only", "origin", "main")
        (self.forge / "NOTES.txt").write_text(HUMAN, encoding="utf-8")
        git(self.forge, "add", "NOTES.txt")
        git(self.forge, "commit", "-q", "-m", "notes by a person")
        git(self.forge, "push", "-q", "origin", "main")

    def squash_merge(self, branch: str, *, edit: bool) -> str:
        """ "Squash and merge" on the forge, the reviewer's suggestion applied to total.py when `edit`; the
        branch deleted on the remote. The squash commit."""
        git(self.forge, "fetch", "-q", "origin")
        git(self.forge, "merge", "-q", "--squash", f"origin/{branch}")
        if edit:
            total = self.forge / "total.py"
            total.write_text(
                total.read_text(encoding="utf-8").replace(TOTAL.splitlines()[1], EDITED), encoding="utf-8"
            )
            git(self.forge, "add", "total.py")
        git(self.forge, "commit", "-q", "-m", "Ledger parser (#1)")
        git(self.forge, "push", "-q", "origin", "main", f":{branch}")
        return git(self.forge, "rev-parse", "HEAD").strip()

    def rebase_merge(self, branch: str) -> list[str]:
        """ "Rebase and merge" on the forge: the branch's commits replayed onto main; the branch deleted."""
        git(self.forge, "fetch", "-q", "origin")
        git(self.forge, "checkout", "-q", "-b", "landing", f"origin/{branch}")
        git(self.forge, "rebase", "-q", "main")
        git(self.forge, "checkout", "-q", "main")
        git(self.forge, "merge", "-q", "--ff-only", "landing")
        git(self.forge, "push", "-q", "origin", "main", f":{branch}")
        return git(self.forge, "rev-list", "--reverse", "HEAD~2..HEAD").split()


def fresh_clone_answers(team: Team, session_id: str, edited: bool) -> None:
    """A teammate's fresh clone, with no agent ever run there: `git intent fetch`, then blame."""
    home = team.tmp / "teammate-home"
    home.mkdir()
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "CODEX_HOME": str(home / ".codex")}
    mate = clone(team.remote, team.tmp / "teammate")
    ok("fetch", cwd=mate, env=env)
    assert who(mate, "parse.py", PARSE.splitlines()[1], env) == ("agent", session_id)
    assert who(mate, "report.py", REPORT.splitlines()[2], env) == ("agent", session_id)
    if edited:
        assert who(mate, "total.py", EDITED, env)[1] is None
    assert who(mate, "NOTES.txt", HUMAN.strip(), env)[1] is None


@pytest.mark.slow
def test_a_squash_merge_on_the_forge_is_carried_by_the_authors_pull(tmp_path: Path) -> None:
    team = Team(tmp_path)
    session_id = team.agent_branch("ledger")
    team.human_commit_on_main()
    squash = team.squash_merge("ledger", edit=True)

    # the author pulls main: the post-merge hook queues a "landed" job and the worker carries the records
    git(team.author, "checkout", "-q", "main", env=SYNC)
    git(team.author, "pull", "-q", "--ff-only", "origin", "main", env=SYNC)
    assert git(team.author, "rev-parse", "HEAD").strip() == squash
    assert who(team.author, "parse.py", PARSE.splitlines()[1]) == ("agent", session_id)
    assert who(team.author, "total.py", TOTAL.splitlines()[2]) == ("agent", session_id)
    assert who(team.author, "report.py", REPORT.splitlines()[1]) == ("agent", session_id)
    assert who(team.author, "total.py", EDITED) == ("human", None)  # the forge's line is not the agent's
    assert who(team.author, "NOTES.txt", HUMAN.strip())[1] is None
    records = note_records(team.author, squash)
    lines = [r for r in records if r["kind"] == "lines"]
    feature = git(team.author, "rev-list", "--reverse", "main..ledger").split()
    assert {r["derived_from"] for r in lines} == set(feature)  # each range names the commit it came from
    assert [
        (r["commit"], r["lines_added"], r["lines_attributed"]) for r in records if r["kind"] == "commit"
    ] == [(squash, 9, 8)]

    ok("push", cwd=team.author)
    fresh_clone_answers(team, session_id, edited=True)


@pytest.mark.slow
def test_a_rebase_merge_on_the_forge_is_carried_by_git_intent_fetch(tmp_path: Path) -> None:
    team = Team(tmp_path)
    session_id = team.agent_branch("ledger")
    team.human_commit_on_main()
    landed = team.rebase_merge("ledger")

    fetched = ok("fetch", "--json", cwd=team.author)
    assert json.loads(fetched)["carried"] == landed
    for commit, source in zip(
        landed, git(team.author, "rev-list", "--reverse", "main..ledger").split(), strict=True
    ):
        lines = [r for r in note_records(team.author, commit) if r["kind"] == "lines"]
        assert lines and {r["derived_from"] for r in lines} == {source}
    again = ok("fetch", "--json", cwd=team.author)
    assert json.loads(again)["carried"] == []  # nothing new: nothing examined twice, nothing written
    git(team.author, "checkout", "-q", "main", env={"GIT_INTENT": "0"})
    git(team.author, "merge", "-q", "--ff-only", "origin/main", env={"GIT_INTENT": "0"})
    assert who(team.author, "total.py", TOTAL.splitlines()[1]) == ("agent", session_id)
    assert who(team.author, "report.py", REPORT.splitlines()[2]) == ("agent", session_id)

    ok("push", cwd=team.author)
    fresh_clone_answers(team, session_id, edited=False)


def test_the_next_record_carries_a_squash_the_author_fetched_with_plain_git(tmp_path: Path) -> None:
    team = Team(tmp_path)
    session_id = team.agent_branch("ledger")
    squash = team.squash_merge("ledger", edit=False)
    git(team.author, "fetch", "-q", "origin", env={"GIT_INTENT": "0"})
    assert note_text(team.author, squash) is None  # plain git ran no hook
    ok("record", cwd=team.author)  # records HEAD (ledger's tip, again) and looks for landed commits
    lines = [r for r in note_records(team.author, squash) if r["kind"] == "lines"]
    assert {(r["path"], r["session_id"]) for r in lines} == {
        ("parse.py", session_id),
        ("total.py", session_id),
        ("report.py", session_id),
    }
    assert os.path.exists(team.author / ".git" / "intent" / "landed.json")


def note_on_absent_commit(repo: Path) -> str:
    """Adds to refs/notes/git-intent a note on a commit this clone never had (a branch the forge deleted
    before this clone fetched it), the way a merged teammate's notes can; returns that commit's id."""

    def piped(*args: str, text: str) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=repo, input=text, capture_output=True, text=True, check=True
        )
        return proc.stdout.strip()

    absent = "1" * 40
    blob = piped("hash-object", "-w", "--stdin", text='{"kind": "commit"}\n')
    listing = git(repo, "ls-tree", "refs/notes/git-intent") + f"100644 blob {blob}\t{absent}\n"
    tree = piped("mktree", text=listing)
    parent = git(repo, "rev-parse", "refs/notes/git-intent").strip()
    notes = git(repo, "commit-tree", tree, "-p", parent, "-m", "a teammate's notes").strip()
    git(repo, "update-ref", "refs/notes/git-intent", notes)
    return absent


def test_a_note_on_a_commit_this_clone_lacks_does_not_hide_the_others(tmp_path: Path) -> None:
    """`git log --no-walk --stdin` stops at the first commit it cannot find: one note on an absent commit
    made every recorded commit look absent, and nothing was carried."""
    team = Team(tmp_path)
    session_id = team.agent_branch("ledger")
    squash = team.squash_merge("ledger", edit=False)
    git(team.author, "fetch", "-q", "origin", env={"GIT_INTENT": "0"})
    note_on_absent_commit(team.author)
    ok("record", cwd=team.author)
    lines = [r for r in note_records(team.author, squash) if r["kind"] == "lines"]
    assert {(r["path"], r["session_id"]) for r in lines} == {
        ("parse.py", session_id),
        ("total.py", session_id),
        ("report.py", session_id),
    }


@pytest.mark.slow
def test_a_teammate_who_only_fetches_derives_the_same_note(tmp_path: Path) -> None:
    """A teammate's clone that has the pull request's commits (cloned before the merge)
    runs `git intent fetch` after the squash; the author has not pushed the carried records. Both derive
    the same note byte for byte, and pushing both leaves one copy of each line on the remote."""
    team = Team(tmp_path)
    session_id = team.agent_branch("ledger")
    mate = clone(team.remote, tmp_path / "teammate")
    ok("fetch", cwd=mate)
    squash = team.squash_merge("ledger", edit=True)
    assert json.loads(ok("fetch", "--json", cwd=mate))["carried"] == [squash]
    assert json.loads(ok("fetch", "--json", cwd=team.author))["carried"] == [squash]
    ours, theirs = note_text(team.author, squash), note_text(mate, squash)
    assert ours is not None and ours == theirs
    assert session_id in ours
    ok("push", cwd=mate)
    ok("push", cwd=team.author)  # fetches and merges the teammate's notes (cat_sort_uniq) on rejection
    remote_note = git(team.remote, "notes", "--ref", "refs/notes/git-intent", "show", squash)
    assert remote_note == ours


def test_a_commit_sharing_lines_but_not_a_patch_with_an_open_branch_is_not_credited(tmp_path: Path) -> None:
    """A person's commit on main that writes two of the agent's lines (an open pull request, not merged) has
    no hunk of the branch: nothing is carried, its lines stay unrecorded."""
    team = Team(tmp_path)
    team.agent_branch("ledger")
    git(team.forge, "pull", "-q", "--ff-only", "origin", "main")
    (team.forge / "parse.py").write_text(
        "".join(PARSE.splitlines(keepends=True)[:2]) + "    return rows\n", encoding="utf-8"
    )
    git(team.forge, "add", "parse.py")
    git(team.forge, "commit", "-q", "-m", "a person's parser")
    git(team.forge, "push", "-q", "origin", "main")
    person = git(team.forge, "rev-parse", "HEAD").strip()
    assert json.loads(ok("fetch", "--json", cwd=team.author))["carried"] == []
    assert note_text(team.author, person) is None


def test_a_diff_that_is_not_utf8_has_a_patch(repo: Path) -> None:
    """A file in latin-1 (byte 0xe9) made `git patch-id`'s reader raise UnicodeDecodeError, so every `record`
    and `fetch` ended in exit 3 after its work."""
    from git_intent.capture.landed import _patches
    from git_intent.git.repo import Repository

    (repo / "latin.txt").write_bytes(b"caf\xe9\n")
    git(repo, "add", "latin.txt")
    git(repo, "commit", "-q", "-m", "latin-1")
    commit = git(repo, "rev-parse", "HEAD").strip()
    patch = _patches(Repository(repo), [commit])[commit]
    assert len(patch.patch_id) == 40 and patch.hunks
