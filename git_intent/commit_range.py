"""Reading a range of commits in bulk (backfill): parents and commit times from one `git rev-list`, and the
added lines of every commit from one streamed `git log -p -U0`, instead of a few `git` processes per commit
(issue 14, item 2: 8.9, then 2.8 processes per commit).
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from .errors import GitError, IntentError
from .repo import DIFF_OPTIONS, PINNED, Hunk, Repository, parse_added_hunks

# Porcelain `git log -p`, like the `git diff` of `Repository.added_hunks`, so the user's diff settings
# (algorithm, textconv, interHunkContext) shape both alike; the rest is pinned. A root commit shows as a
# creation diff (`log.showRoot`, git's default, pinned); merges print no diff here (`--diff-merges=off`) and
# are read one at a time, as `added_hunks` restricts their lines against every parent.
_LOG_PATCHES = ("-c", "log.showRoot=true", "log", "--no-walk=unsorted", "--stdin", "-p", *DIFF_OPTIONS,
                "--diff-merges=off", "--format=%x00%H")


@dataclass(frozen=True)
class RangeCommit:
    """One commit of a range: its 40-hex id, its parents (first parent first) and its committer time (UTC)."""

    sha: str
    parents: tuple[str, ...]
    time: datetime


def list_range(repo: Repository, revision_range: str) -> list[RangeCommit]:
    """The commits of `revision_range`, oldest first (`git rev-list --reverse` order), with parents and times.

    Raises IntentError for a range git does not understand."""
    try:
        out = repo.git("rev-list", "--reverse", "--parents", "--timestamp", "--end-of-options", revision_range)
    except GitError as exc:
        raise IntentError(f"{revision_range!r} is not a revision or range of this repository.",
                          hint="Examples: HEAD, main~50..main, v1.0..") from exc
    commits = []
    for line in out.splitlines():
        stamp, sha, *parents = line.split()
        commits.append(RangeCommit(sha, tuple(parents), datetime.fromtimestamp(int(stamp), timezone.utc)))
    return commits


def added_hunks_of(repo: Repository, commits: Sequence[RangeCommit]) -> Iterator[tuple[str, list[Hunk]]]:
    """(sha, hunks) for each of `commits` in order, equal to `repo.added_hunks(sha)`: one `git log -p` streams
    the diffs of all commits with at most one parent; each merge is diffed on its own (its lines are those new
    against every parent). Raises GitError when git fails."""
    plain = [c.sha for c in commits if len(c.parents) <= 1]
    patches = _stream_patches(repo, plain) if plain else iter(())
    for commit in commits:
        if len(commit.parents) > 1:
            yield commit.sha, repo.added_hunks(commit.sha)
            continue
        sha, patch = next(patches, ("", b""))
        if sha != commit.sha:
            raise GitError(f"git log printed {sha[:12] or 'nothing'} where {commit.sha[:12]} was expected.")
        # Decoded per commit as `run_git` decodes a whole diff: a split at a newline changes no character.
        yield sha, parse_added_hunks(patch.decode("utf-8", "replace"))


def _stream_patches(repo: Repository, shas: list[str]) -> Iterator[tuple[str, bytes]]:
    """(sha, patch bytes) per commit, in the order given, read from one `git log -p` as it prints them."""
    errors = tempfile.TemporaryFile()  # a file, not a pipe: a full stderr pipe would stall git
    proc = subprocess.Popen(["git", *PINNED, *_LOG_PATCHES], cwd=repo.root, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=errors)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        # git reads every revision from stdin before it prints anything, so writing all first cannot block.
        proc.stdin.write("".join(f"{sha}\n" for sha in shas).encode("ascii"))
        proc.stdin.close()
        sha = ""
        lines: list[bytes] = []
        # The format line starts with NUL: no diff line does (body lines start with '+', '-', ' ' or '\').
        for line in proc.stdout:
            if line.startswith(b"\0"):
                if sha:
                    yield sha, b"".join(lines)
                sha, lines = line[1:].strip().decode("ascii"), []
            else:
                lines.append(line)
        if sha:
            yield sha, b"".join(lines)
        if proc.wait() != 0:
            errors.seek(0)
            message = errors.read().decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git log failed: {(message[-1] if message else 'exit ' + str(proc.returncode))}.")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        errors.close()
