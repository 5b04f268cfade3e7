"""Carrying credits from the notes of other commits: rewrites (amend, rebase, squash), cherry-picks,
reverts, abandoned commits recommitted after `reset --soft`, and squash-merges made on a forge.

A source commit's note says which session and message wrote which of its lines. Those lines, read from
the source commit, become edits that the target commit's added lines are matched against, exactly
(never near matches): a carried credit is the same line, not a similar one.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..core.errors import IntentError
from ..core.values import AddedLine, Edit
from ..git.repo import Repository
from ..notes import SessionRecord, read_note
from .attribute import CarriedEdit


def carried_edits(repo: Repository, sources: list[str], target: str | None = None) -> list[CarriedEdit]:
    """One edit per credited range in the notes of `sources` (oldest source first), ordered before any
    live edit so a live edit of the same line wins. Sources without a readable note, and ranges that no
    longer hash to their digest, contribute nothing.

    Each keeps every field of its source record (match, confidence, tool, unknown fields) and the source
    note's record of its session; `derived_from` keeps pointing at the first commit the credit came from,
    and a source equal to `target` (the commit being recorded keeps its own credits) adds no pointer."""
    edits: list[CarriedEdit] = []
    for source in sources:
        try:
            note = read_note(repo, source)
        except IntentError:
            continue
        if note is None:
            continue
        sessions = {s.key: s for s in note.sessions}
        for record in note.lines:
            lines = repo.file_lines(source, record.path)[record.start - 1 : record.end]
            if not lines or not record.matches(repo.file_lines(source, record.path)):
                continue  # a range git copied from another commit that no longer fits this one
            credit = record.credit
            if credit.derived_from is None and source != target:
                credit = replace(credit, derived_from=source)
            session = sessions.get((record.agent, record.session_id)) or SessionRecord(
                agent=record.agent, session_id=record.session_id, lines_attributed=0
            )
            edit = Edit(
                path=record.path,
                tool=record.tool,
                message_id=record.message_id,
                call_id=record.call_id,
                added=tuple(AddedLine(text=t, line=record.start + i) for i, t in enumerate(lines)),
            )
            edits.append(
                CarriedEdit(
                    credit=credit, session=session, edit=edit, path=record.path, order=-1_000_000 + len(edits)
                )
            )
    return edits


def rewritten_sources(repo: Repository, commit: str, previous: list[str], subject: str) -> list[str]:
    """The commits whose credits a new commit inherits, from its reflog context (docs/design.md: classify a
    commit from the reflog subject): the pre-amend commit, the cherry-picked commit, the reverted
    commit's history, or the commits abandoned by a `reset` just before. `previous` holds the earlier
    reflog entries as "<sha> <subject>" lines, newest first."""
    entries = [line.split(" ", 1) for line in previous if " " in line]
    if subject.startswith("commit (amend)") and entries:
        return [entries[0][0]]
    reverted = reverted_commit(repo, commit) if subject.startswith(("revert", "commit")) else None
    if reverted:
        return _history(repo, reverted + "^", commit)
    if subject.startswith("commit") and len(entries) >= 2 and entries[0][1].startswith("reset:"):
        # reset --soft then recommit: the commits the reset left behind carry over.
        before_reset = entries[1][0]
        out = repo.git("rev-list", "--max-count=200", before_reset, f"^{commit}", check=False)
        return out.split()[::-1]
    return []


def reverted_commit(repo: Repository, commit: str) -> str | None:
    """The commit a revert names in its message ("This reverts commit <sha>."), also when the revert was
    concluded after a conflict (its reflog subject is then a plain "commit")."""
    body = repo.git("show", "-s", "--format=%B", commit)
    for match in re.finditer(r"This reverts commit ([0-9a-f]{7,64})", body):
        if repo.succeeds("rev-parse", "-q", "--verify", f"{match.group(1)}^{{commit}}"):
            return repo.resolve(match.group(1))
    return None


def picked_source(repo: Repository, commit: str) -> list[str]:
    """The commit a cherry-pick copied, found after the fact: the same author, email and author date
    (cherry-pick keeps them) and, among several, the same patch id. [] when none is found."""
    ident = repo.git("show", "-s", "--format=%an%x00%ae%x00%at", commit).strip()
    out = repo.git(
        "log",
        "--branches",
        "--tags",
        "--remotes",
        "--max-count=5000",
        "--format=%H%x00%an%x00%ae%x00%at",
        check=False,
    )
    same = [
        row.split("\0", 1)[0]
        for row in out.splitlines()
        if row.split("\0", 1)[-1] == ident and not row.startswith(commit)
    ]
    if len(same) <= 1:
        return same
    wanted = _patch_id(repo, commit)
    exact = [c for c in same if _patch_id(repo, c) == wanted][:1]
    return exact or same  # a resolved conflict changes the patch; the author stamp still names the source


def _patch_id(repo: Repository, commit: str) -> str:
    return next(iter(patch_ids(repo, repo.git("show", "--format=", "--no-color", commit)).values()), "")


def patch_ids(repo: Repository, diffs: str) -> dict[str, str]:
    """`git patch-id --stable` of `diffs` (a `git log -p` or one diff): commit (zeros for a bare diff) ->
    patch id. Read through `Repository.git`, so a diff that is not UTF-8 cannot fail it."""
    rows = (
        line.split() for line in repo.git("patch-id", "--stable", input_text=diffs, check=False).splitlines()
    )
    return {row[1]: row[0] for row in rows if len(row) == 2}


def commits_in(repo: Repository, revision_range: str) -> list[str]:
    """The commits of a range, oldest first; raises IntentError for a range git does not understand."""
    out = repo.git("rev-list", "--reverse", "--end-of-options", revision_range, check=False)
    commits = out.split()
    if not commits:
        raise IntentError(
            f"{revision_range!r} names no commits in this repository.",
            hint="Example: git intent carry main..feature --onto <squash commit>",
        )
    return commits


def _history(repo: Repository, start: str, commit: str) -> list[str]:
    """Recent commits before `start` touching the files `commit` changed (where a revert's lines came
    from)."""
    paths = [
        p for p in repo.git("diff-tree", "-z", "--no-commit-id", "--name-only", "-r", commit).split("\0") if p
    ]
    if not paths:
        return []
    out = repo.git("rev-list", "--max-count=50", start, "--", *paths, check=False)
    return out.split()[::-1]
