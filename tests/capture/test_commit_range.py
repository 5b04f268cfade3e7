"""`commit_range.added_hunks_of`: the streamed `git log -p` gives every commit, merges included, exactly the
hunks `Repository.added_hunks` computes for it one `git diff` per parent."""

from __future__ import annotations

from pathlib import Path

from support import git, make_repo

from git_intent.capture.commit_range import added_hunks_of, list_range
from git_intent.git.repo import Hunk, Repository


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


def _write(repo: Path, name: str, text: str) -> None:
    (repo / name).write_bytes(text.encode())


def _merges(repo: Path) -> None:
    """A history of merges of every kind: a conflict resolved by hand with evil lines (lines no parent has,
    in a CRLF file, and in a new file with a space in its name) beside a binary file and a file one side
    deleted; an octopus merge with a line of its own; a merge whose tree equals its first parent's (`-s
    ours`), and one whose tree equals both parents' (git prints no diff for it at all)."""
    _write(repo, "a.txt", "one\ntwo\nthree\n")
    _write(repo, "crlf.txt", "x\r\ny\r\nz\r\n")
    _write(repo, "calm.txt", "calm\n")
    _write(repo, "gone.txt", "main deletes it\n")
    _commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "left")
    _write(repo, "a.txt", "one\nLEFT\nthree\n")
    _write(repo, "crlf.txt", "x\r\nleft\r\ny\r\nz\r\n")
    (repo / "bin.dat").write_bytes(b"\0left")
    _commit(repo, "left")
    git(repo, "checkout", "-q", "main")
    _write(repo, "a.txt", "one\nMAIN\nthree\n")
    _write(repo, "crlf.txt", "x\r\ny\r\nz\r\nmain\r\n")
    (repo / "gone.txt").unlink()
    # Over 1 MB of diff in one commit: the stream is read in 1 MB chunks.
    _write(repo, "big.txt", "".join(f"line {i} of a big file\n" for i in range(60_000)))
    _commit(repo, "main")
    git(repo, "merge", "-q", "left", "-m", "conflict", check=False)
    _write(repo, "a.txt", "one\nMAIN\nresolved by hand\nLEFT\nthree\n")
    _write(repo, "crlf.txt", "x\r\nleft\r\ny\r\nevil\r\nz\r\nmain\r\n")
    _write(repo, "my notes.txt", "an evil file, a space in its name\n")
    (repo / "bin.dat").write_bytes(b"\0merged")
    _commit(repo, "conflict resolved, and evil lines")
    for name in ("p", "q", "r"):
        git(repo, "checkout", "-q", "-b", name, "main~1")
        _write(repo, f"{name}.txt", f"{name}\n")
        _commit(repo, name)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "p", "q", "r")
    _write(repo, "calm.txt", "calm\noctopus's own\n")
    _commit(repo, "octopus with a line of its own")
    git(repo, "checkout", "-q", "-b", "other", "main~1")
    _write(repo, "o.txt", "other\n")
    _commit(repo, "other")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-s", "ours", "other", "-m", "ours")
    git(repo, "checkout", "-q", "-b", "twin")
    _commit(repo, "empty")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "twin", "-m", "nothing new: both parents hold the merge's tree")
    _write(repo, "calm.txt", "calm\nafter\n")
    _commit(repo, "after the merges")


def test_streamed_hunks_equal_added_hunks_on_merges(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _merges(repo)
    handle = Repository(repo)
    commits = list_range(handle, "HEAD")
    merges = [c for c in commits if len(c.parents) > 1]
    assert [len(c.parents) for c in merges] == [2, 4, 2, 2]
    streamed = dict(added_hunks_of(handle, commits))
    assert list(streamed) == [c.sha for c in commits]
    assert streamed == {c.sha: handle.added_hunks(c.sha) for c in commits}
    resolved, octopus, ours, nothing = (streamed[c.sha] for c in merges)
    assert resolved == [
        Hunk("a.txt", 3, ("resolved by hand",)),
        Hunk("crlf.txt", 4, ("evil\r",)),
        Hunk("my notes.txt", 1, ("an evil file, a space in its name",)),
    ]
    assert sum(len(h.lines) for h in streamed[commits[2].sha]) == 60_002  # and a.txt's and crlf.txt's
    assert octopus == [Hunk("calm.txt", 2, ("octopus's own",))]
    assert ours == nothing == []
    # Part of a range, in any order git lists: the stream follows the commits it is given.
    tail = commits[-4:]
    assert dict(added_hunks_of(handle, tail)) == {c.sha: streamed[c.sha] for c in tail}
