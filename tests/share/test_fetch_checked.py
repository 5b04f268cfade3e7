"""`fetch` checks what a remote sends before any local ref moves: a notes or evidence ref that is not a
commit (a blob, a tree, a tag pointing at a blob) is refused with one sentence and every local ref stays as
it was."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import git, run_cli

NOTES = "refs/notes/git-intent"
EVIDENCE = "refs/intent/evidence"


def seeded(tmp: Path) -> tuple[Path, Path]:
    """A bare remote with one commit on main and a note on it, and clone A that pushed them."""
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    a = tmp / "a"
    git(tmp, "clone", "-q", str(remote), str(a))
    (a / "README.md").write_text("# shared\n")
    git(a, "add", "README.md")
    git(a, "commit", "-q", "-m", "initial")
    record = {
        "schema": "git-intent/1",
        "kind": "commit",
        "commit": git(a, "rev-parse", "HEAD").strip(),
        "lines_added": 1,
        "lines_attributed": 0,
    }
    git(a, "notes", "--ref", NOTES, "add", "-m", json.dumps(record), "HEAD")
    git(a, "push", "-q", "origin", "main", f"{NOTES}:{NOTES}")
    return remote, a


def hostile_object(remote: Path, kind: str) -> str:
    """An object of the remote that is not a commit: a blob, a tree, or an annotated tag naming a blob."""
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=remote,
        input="not a notes tree\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if kind == "blob":
        return blob
    if kind == "tree":
        return subprocess.run(
            ["git", "mktree"],
            cwd=remote,
            input=f"100644 blob {blob}\tx\n",
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    git(remote, "tag", "-a", "-m", "a tag naming a blob", "hostile", blob)
    tag = git(remote, "rev-parse", "refs/tags/hostile").strip()
    git(remote, "tag", "-d", "hostile")
    return tag


def local_refs(repo: Path) -> str:
    return git(repo, "for-each-ref", "--format=%(objectname) %(objecttype) %(refname)")


@pytest.mark.parametrize("kind", ["blob", "tree", "tag"])
@pytest.mark.parametrize("local_notes", [False, True])
def test_a_remote_notes_ref_that_is_not_a_commit_is_refused_and_nothing_local_changes(
    tmp_path: Path, kind: str, local_notes: bool
) -> None:
    remote, a = seeded(tmp_path)
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(b))
    if local_notes:
        git(b, "notes", "--ref", NOTES, "add", "-m", '{"kind": "commit"}', "HEAD")
    git(remote, "update-ref", NOTES, hostile_object(remote, kind))
    before = local_refs(b)
    proc = run_cli("fetch", cwd=b)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    type_name = "tag" if kind == "tag" else kind
    assert proc.stderr.splitlines()[0] == (
        f"error: The remote origin has a {NOTES} that points at a {type_name}, "
        "not a commit: nothing was fetched."
    )
    assert local_refs(b) == before
    assert ("refs/notes/git-intent" in before) is local_notes
    assert git(b, "cat-file", "-t", NOTES, check=False).strip() == ("commit" if local_notes else "")
    # Recording still works: the notes ref is a commit or absent, never the remote's object.
    assert "ok       notes-ref" in run_cli("doctor", cwd=b).stdout


def test_a_remote_evidence_ref_that_is_a_blob_is_refused_with_the_notes_left_alone(tmp_path: Path) -> None:
    remote, a = seeded(tmp_path)
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(b))
    git(remote, "update-ref", EVIDENCE, hostile_object(remote, "blob"))
    before = local_refs(b)
    proc = run_cli("fetch", "--json", cwd=b)
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"has a {EVIDENCE} that points at a blob" in proc.stderr
    assert local_refs(b) == before  # the remote's notes, a good commit, did not come either


def test_a_repaired_remote_fetches_and_leaves_no_scratch_refs(tmp_path: Path) -> None:
    remote, a = seeded(tmp_path)
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(b))
    good = git(remote, "rev-parse", NOTES).strip()
    git(remote, "update-ref", NOTES, hostile_object(remote, "blob"))
    assert run_cli("fetch", cwd=b).returncode == 1
    git(remote, "update-ref", NOTES, good)
    proc = run_cli("fetch", "--json", cwd=b)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["notes_changed"] is True
    assert git(b, "rev-parse", NOTES).strip() == good
    assert git(b, "for-each-ref", "--format=%(refname)", "refs/intent/") == ""
