"""Reading a range of commits in bulk (backfill): parents and commit times from one `git rev-list`, and the
added lines of every commit, merges included, from one streamed `git log -p -U0`, instead of a few `git`
processes per commit (issue 14, item 2: 8.9, then 2.8 processes per commit).
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from .errors import GitError, IntentError
from .repo import DIFF_OPTIONS, PINNED, Hunk, Repository, new_against_all, parse_added_hunks

# Porcelain `git log -p`, like the `git diff` of `Repository.added_hunks`, so the user's diff settings
# (algorithm, textconv, interHunkContext) shape both alike; the rest is pinned. A root commit shows as a
# creation diff (`log.showRoot`, git's default, pinned); a merge shows one diff per parent, in parent order
# (`--diff-merges=separate`), each under its own format line, and none for a parent whose tree equals the
# merge's (git prints no header for an empty diff). Before this the merges were diffed one `git diff` per
# parent: 616 of backfill's 640 git processes on entireio/cli (308 merges), 13% of its time (issue 14).
_LOG_PATCHES = ("-c", "log.showRoot=true", "log", "--no-walk=unsorted", "--stdin", "-p", *DIFF_OPTIONS,
                "--diff-merges=separate", "--format=%x00%H")


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
    """(sha, hunks) for each of `commits` in order, equal to `repo.added_hunks(sha)` (for a merge, the lines
    new against every parent), all read from one streamed `git log -p`. Raises GitError when git fails or
    prints the commits out of order."""
    patches = _stream_patches(repo, [c.sha for c in commits]) if commits else iter(())
    pending = next(patches, None)
    for commit in commits:
        diffs: list[list[Hunk]] = []
        while pending is not None and pending[0] == commit.sha:
            # Decoded per diff as `run_git` decodes a whole diff: a split at a newline changes no character.
            diffs.append(parse_added_hunks(pending[1].decode("utf-8", "replace")))
            pending = next(patches, None)
        wanted = max(len(commit.parents), 1)
        if len(commit.parents) <= 1 and len(diffs) != 1 or len(diffs) > wanted:
            found = pending[0][:12] if pending is not None else "nothing"
            raise GitError(f"git log printed {found} where {commit.sha[:12]} was expected.")
        # A merge with fewer diffs than parents equals some parent's tree: no line is new against that one.
        yield commit.sha, new_against_all(diffs) if len(diffs) == wanted else []
    if pending is not None:
        raise GitError(f"git log printed {pending[0][:12]} after the last commit asked for.")


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
