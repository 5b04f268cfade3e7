"""`list_trees` lists what `git ls-tree -r -l` lists, for many trees at once, down to a depth."""

from __future__ import annotations

from pathlib import Path

from support import git, write_tree

from git_intent.git.repo import Repository
from git_intent.git.trees import TreeFile, list_trees


def ls_tree(repo: Path, tree: str) -> list[TreeFile]:
    rows = [
        line.split(None, 4)
        for line in git(repo, "-c", "core.quotePath=false", "ls-tree", "-r", "-l", tree).splitlines()
    ]
    return [TreeFile(path, oid, int(size)) for _, kind, oid, size, path in rows if kind == "blob"]


def test_trees_list_as_ls_tree_does(repo: Path) -> None:
    one = write_tree(repo, {"metadata.json": b"{}", "0/full.jsonl": b"x" * 300, "0/tasks/t/c.json": b"[]"})
    two = write_tree(repo, {"a": b"1", "b/c": b"22", "b.txt": b"", "b-c/d": b"4", "é.txt": b"\xc3\xa9"})
    blob = git(repo, "rev-parse", f"{one}:metadata.json").strip()
    commit = git(repo, "rev-parse", "HEAD").strip()
    listed = list_trees(Repository(repo), [one, two, one, blob, commit, "0" * 40], depth=9)
    assert listed == {
        one: ls_tree(repo, one),
        two: ls_tree(repo, two),
        blob: [],  # not a tree: nothing is read of it
        commit: [],  # a commit is not its tree
        "0" * 40: [],
    }
    assert [f.path for f in list_trees(Repository(repo), [one], depth=2)[one]] == [
        "0/full.jsonl",
        "metadata.json",
    ]
    assert list_trees(Repository(repo), [one], depth=1)[one] == [TreeFile("metadata.json", blob, 2)]
    assert list_trees(Repository(repo), [], depth=2) == {}
