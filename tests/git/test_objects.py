"""objects.InProcessRepository reads what the git CLI reads: parents, commit times, file bytes (CRLF kept,
no filters), notes, and the same GitError for what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import commit_file, git

from git_intent.core.errors import GitError
from git_intent.git.objects import InProcessRepository
from git_intent.git.repo import Repository


def test_in_process_reads_equal_the_git_cli(repo: Path) -> None:
    (repo / "dir").mkdir()
    (repo / "dir" / "crlf.bat").write_bytes(b"@echo off\r\nexit /b 0")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "crlf")
    second = git(repo, "rev-parse", "HEAD").strip()
    third = commit_file(repo, "b.txt", "b\n")
    git(repo, "notes", "--ref", "refs/notes/git-intent", "add", "-m", "one\n\n  two", second)
    cli, fast = Repository(repo), InProcessRepository.of(Repository(repo))
    for commit in (git(repo, "rev-list", "--max-parents=0", "HEAD").strip(), second, third):
        assert fast.parents(commit) == cli.parents(commit)
        assert fast.commit_time(commit) == cli.commit_time(commit)
        assert fast.note_text("refs/notes/git-intent", commit) == cli.note_text(
            "refs/notes/git-intent", commit
        )
    assert (
        fast.show_file(second, "dir/crlf.bat")
        == cli.show_file(second, "dir/crlf.bat")
        == b"@echo off\r\nexit /b 0"
    )
    assert fast.file_lines(second, "dir/crlf.bat") == ["@echo off\r", "exit /b 0"]
    assert fast.note_text("refs/notes/git-intent", second) == "one\n\n  two\n"
    assert fast.parents("HEAD") == cli.parents("HEAD")  # a name, not a SHA: through git
    for reader in (cli, fast):
        with pytest.raises(GitError):
            reader.show_file(second, "dir")  # a tree, not a file
        with pytest.raises(GitError):
            reader.show_file(second, "missing.txt")
        with pytest.raises(GitError):
            reader.parents("0" * 40)
