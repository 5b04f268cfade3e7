"""Whether this clone can carry records onto an unrecorded commit: `git intent carry` copies the notes of the
commits a forge squashed or rebased, so it needs those commits here, recorded. The author's clone has them
(its branch); a teammate's clone usually does not (the forge deleted the branch), and is told what it can
do instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..git.repo import Repository
from ..notes import note_blobs

SLACK = 86_400  # seconds: a source authored up to a day after the commit (clock skew) may still be one
CANDIDATES = 200  # newest recorded commits looked at


def carry_range(repo: Repository, commit: str, recorded: Iterable[str] | None = None) -> str | None:
    """The revision range to give `git intent carry RANGE --onto COMMIT`, when this clone holds recorded
    commits (`recorded`: the commits with a note, default read here) that `commit` may copy: present here,
    authored before it (a day's slack), on no branch that contains it, and changing a file it changes.
    Returns `<commit>..<branch>` (or `<commit>..<sha>` when no branch holds them), else None. Never raises."""
    noted = [c for c in (recorded if recorded is not None else note_blobs(repo)) if c != commit]
    if not noted:
        return None
    committed = repo.git("log", "-1", "--format=%ct", "--end-of-options", commit, check=False).strip()
    if not committed.isdigit():
        return None
    rows = [
        line.split()
        for line in repo.git(
            "log",
            "--ignore-missing",  # before --stdin, or a note on a commit never fetched fails the whole read
            "--no-walk",
            "--stdin",
            "--format=%H %at",
            input_text="\n".join(noted) + "\n",
            check=False,
        ).splitlines()
    ]
    # Newest first (git log's order); commits absent here (a deleted branch never fetched) are not listed.
    present = [row[0] for row in rows if len(row) == 2 and int(row[1]) <= int(committed) + SLACK]
    candidates = present[:CANDIDATES]
    if not candidates:
        return None
    # Commits a branch holding `commit` also holds are its history or its future, never what it squashed.
    holders = repo.git(
        "for-each-ref",
        "--contains",
        commit,
        "--format=%(objectname)",
        "refs/heads",
        "refs/remotes",
        check=False,
    ).split()
    if repo.succeeds("merge-base", "--is-ancestor", commit, "HEAD"):
        holders.append(repo.git("rev-parse", "HEAD", check=False).strip())
    reachable = repo.git(
        "rev-list",
        "--stdin",
        input_text="\n".join([*candidates, *(f"^{oid}" for oid in {commit, *holders} if oid)]) + "\n",
        check=False,
    )
    unmerged = set(reachable.split())
    sources = [c for c in candidates if c in unmerged]
    if not sources:
        return None
    changed = _paths(repo, [commit]).get(commit, set())
    touched = _paths(repo, sources)
    matching = [c for c in sources if touched.get(c, set()) & changed]
    if not matching:
        return None
    branch = repo.git(
        "for-each-ref",
        "--contains",
        matching[0],
        "--count=1",
        "--format=%(refname:short)",
        "refs/heads",
        "refs/remotes",
        check=False,
    ).strip()
    return f"{commit[:12]}..{branch or matching[0][:12]}"


def _paths(repo: Repository, commits: list[str]) -> dict[str, set[str]]:
    """commit -> the paths its first-parent diff changes, for many commits in one git process."""
    out = repo.git(
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "--no-renames",
        "--name-only",
        "--format=%x00%H",
        input_text="\n".join(commits) + "\n",
        check=False,
    )
    paths: dict[str, set[str]] = {}
    for part in out.split("\0")[1:]:
        lines = [line for line in part.splitlines() if line]
        if lines:
            paths[lines[0]] = set(lines[1:])
    return paths
