"""push / fetch while a team moves from refs/notes/intent (where earlier versions kept the notes) to
refs/notes/git-intent: a remote with only the old ref is read, a teammate who has not upgraded keeps seeing
new records and keeps being seen, and the old ref is never created on a remote that lacks it (SpecStory's
refs/notes/intent/* live there).

The teammate on an earlier version is played by the git commands that version ran: `git push REMOTE
refs/notes/intent:refs/notes/intent`, and `git fetch REMOTE
+refs/notes/intent:refs/notes/remotes/REMOTE/intent` followed by `git notes --ref refs/notes/intent merge
-s cat_sort_uniq`.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, run_cli

from git_intent.notes import LEGACY_NOTES_REF as OLD
from git_intent.notes import NOTES_REF as NEW

SPECSTORY = "refs/notes/intent/exchanges"


def bare(path: Path) -> Path:
    git(path.parent, "init", "-q", "--bare", "-b", "main", str(path))
    return path


def clone(remote: Path, path: Path) -> Path:
    git(remote.parent, "clone", "-q", str(remote), str(path))
    git(path, "config", "commit.gpgsign", "false")
    return path


def commit(repo: Path, name: str) -> str:
    (repo / name).write_text(f"{name}\n")
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", name)
    git(repo, "push", "-q", "origin", "HEAD:main")
    return git(repo, "rev-parse", "HEAD").strip()


def note(repo: Path, ref: str, commit: str, by: str) -> None:
    """A git-intent commit record as the note on `commit` in `ref` (the format is the same on both refs)."""
    record = {
        "schema": "git-intent/1",
        "kind": "commit",
        "commit": commit,
        "lines_added": 1,
        "lines_attributed": 0,
        "recorded_by": by,
    }
    git(repo, "notes", "--ref", ref, "add", "-f", "-m", json.dumps(record, sort_keys=True), commit)


def noted(repo: Path, ref: str) -> dict[str, str]:
    """commit -> who recorded it, for every note on `ref`."""
    found: dict[str, str] = {}
    for line in git(repo, "notes", "--ref", ref, "list", check=False).splitlines():
        blob, commit = line.split()
        by = [json.loads(row)["recorded_by"] for row in git(repo, "cat-file", "blob", blob).splitlines()]
        found[commit] = ",".join(sorted(by))
    return found


def old_push(repo: Path) -> None:
    git(repo, "push", "-q", "origin", f"{OLD}:{OLD}")


def old_fetch(repo: Path) -> None:
    git(repo, "fetch", "-q", "origin", f"+{OLD}:refs/notes/remotes/origin/intent")
    git(repo, "notes", "--ref", OLD, "merge", "-q", "-s", "cat_sort_uniq", "refs/notes/remotes/origin/intent")


def refs(repo: Path) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(refname)", "refs/notes/").split()


def test_a_teammate_on_an_earlier_version_and_one_on_this_one_see_each_others_records(tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    old = clone(remote, tmp_path / "old")
    first = commit(old, "one")
    note(old, OLD, first, "old")
    old_push(old)
    new = clone(remote, tmp_path / "new")
    # A remote with only the old ref: fetch brings its notes into the new ref.
    proc = run_cli("fetch", "--json", cwd=new)
    assert proc.returncode == 0, proc.stderr
    assert (json.loads(proc.stdout)["notes"], json.loads(proc.stdout)["notes_changed"]) == (True, True)
    assert noted(new, NEW) == {first: "old"}
    assert refs(new) == [NEW, "refs/notes/remotes/origin/git-intent-legacy"]
    # This version's records reach the old ref too, where the earlier version looks.
    second = commit(new, "two")
    note(new, NEW, second, "new")
    proc = run_cli("push", "--json", cwd=new)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["pushed"] == [NEW, OLD]
    assert noted(remote, NEW) == noted(remote, OLD) == {first: "old", second: "new"}
    old_fetch(old)
    assert noted(old, OLD) == {first: "old", second: "new"}
    # The earlier version keeps pushing to the old ref (a fast-forward: the new ref descends from it) ...
    git(old, "pull", "-q", "origin", "main")
    third = commit(old, "three")
    note(old, OLD, third, "old")
    old_push(old)
    # ... and this version's next push, with nothing fetched in between, merges it first.
    git(new, "pull", "-q", "origin", "main")
    fourth = commit(new, "four")
    note(new, NEW, fourth, "new")
    proc = run_cli("push", "--json", cwd=new)
    assert proc.returncode == 0, proc.stderr
    expected = {first: "old", second: "new", third: "old", fourth: "new"}
    assert noted(new, NEW) == noted(remote, NEW) == noted(remote, OLD) == expected
    old_fetch(old)
    assert noted(old, OLD) == expected


def test_push_never_creates_the_old_ref_and_leaves_specstorys_refs_alone(tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    a = clone(remote, tmp_path / "a")
    base = commit(a, "one")
    git(a, "notes", "--ref", SPECSTORY, "add", "-m", '{"exchangeId": "ex-1"}', base)
    git(a, "push", "-q", "origin", f"{SPECSTORY}:{SPECSTORY}")  # SpecStory's `intent git push`
    note(a, NEW, base, "new")
    proc = run_cli("push", "--json", cwd=a)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["pushed"] == [NEW]
    assert git(remote, "for-each-ref", "--format=%(refname)").split() == ["refs/heads/main", NEW, SPECSTORY]
    b = clone(remote, tmp_path / "b")
    proc = run_cli("fetch", cwd=b)
    assert proc.returncode == 0, proc.stderr
    assert noted(b, NEW) == {base: "new"}
    assert refs(b) == [NEW, "refs/notes/remotes/origin/git-intent"]  # SpecStory's refs are its own to fetch


def test_once_the_old_ref_is_deleted_from_the_remote_push_stops_updating_it(tmp_path: Path) -> None:
    """When every teammate has upgraded, `git push origin --delete refs/notes/intent` ends the mirroring:
    the next push of each clone forgets it (no lease would let it create the ref), and SpecStory can push."""
    remote = bare(tmp_path / "remote.git")
    old = clone(remote, tmp_path / "old")
    first = commit(old, "one")
    note(old, OLD, first, "old")
    old_push(old)
    new = clone(remote, tmp_path / "new")
    assert run_cli("fetch", cwd=new).returncode == 0
    git(new, "push", "-q", "origin", "--delete", OLD)
    second = commit(new, "two")
    note(new, NEW, second, "new")
    proc = run_cli("push", "--json", cwd=new)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["pushed"] == [NEW]
    assert git(remote, "for-each-ref", "--format=%(refname)").split() == ["refs/heads/main", NEW]
    assert refs(new) == [NEW, "refs/notes/remotes/origin/git-intent"]
    git(new, "notes", "--ref", SPECSTORY, "add", "-m", '{"exchangeId": "ex-2"}', second)
    git(new, "push", "-q", "origin", f"{SPECSTORY}:{SPECSTORY}")
    assert noted(remote, NEW) == {first: "old", second: "new"}


def test_a_clone_with_old_local_notes_fetching_a_remote_with_the_old_ref_moves_both(tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    old = clone(remote, tmp_path / "old")
    first = commit(old, "one")
    note(old, OLD, first, "teammate")
    old_push(old)
    mine = clone(remote, tmp_path / "mine")
    second = commit(mine, "two")
    note(mine, OLD, second, "me, before upgrading")
    old_fetch(mine)  # what the earlier version left here: its notes, and its copy of the remote's
    assert refs(mine) == [OLD, "refs/notes/remotes/origin/intent"]
    proc = run_cli("fetch", cwd=mine)  # the upgrade's first command
    assert proc.returncode == 0, proc.stderr
    assert noted(mine, NEW) == {first: "teammate", second: "me, before upgrading"}
    assert refs(mine) == [NEW, "refs/notes/remotes/origin/git-intent-legacy"]
    assert noted(mine, OLD) == {}


def test_the_first_push_after_the_upgrade_reaches_the_old_ref_without_a_fetch(tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    old = clone(remote, tmp_path / "old")
    first = commit(old, "one")
    note(old, OLD, first, "old")
    old_push(old)
    new = clone(remote, tmp_path / "new")
    second = commit(new, "two")
    note(new, NEW, second, "new")
    proc = run_cli("push", "--json", cwd=new)  # the remote's old ref is merged first, then updated
    assert proc.returncode == 0, proc.stderr
    assert (json.loads(proc.stdout)["pushed"], json.loads(proc.stdout)["retries"]) == ([NEW, OLD], 0)
    old_fetch(old)
    assert noted(old, OLD) == noted(remote, NEW) == {first: "old", second: "new"}
