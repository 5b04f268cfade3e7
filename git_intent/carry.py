"""Carrying credits from the notes of other commits: rewrites (amend, rebase, squash), cherry-picks,
reverts, abandoned commits recommitted after `reset --soft`, and squash-merges made on a forge.

A source commit's note says which session and message wrote which of its lines. Those lines, read from
the source commit, become edits that the target commit's added lines are matched against, exactly
(never near matches): a carried credit is the same line, not a similar one.
"""

from __future__ import annotations

from pathlib import Path

from .attribute import MappedEdit
from .errors import IntentError
from .models import AddedLine, Edit, Session
from .notes import read_note
from .repo import Repository

CARRIED = Path("refs/notes/intent")  # the transcript of a session known only from a note


def carried_edits(repo: Repository, sources: list[str]) -> list[MappedEdit]:
    """One edit per credited range in the notes of `sources` (oldest source first), ordered before any
    live edit so a live edit of the same line wins. Sources without a readable note contribute nothing."""
    edits: list[MappedEdit] = []
    files: dict[tuple[str, str], list[str]] = {}
    for source in sources:
        try:
            note = read_note(repo, source)
        except IntentError:
            continue
        if note is None:
            continue
        for record in note.records:
            if (record.kind != "lines" or not record.path or record.start is None or record.end is None
                    or not record.agent or not record.session_id):
                continue
            key = (source, record.path)
            if key not in files:
                try:
                    files[key] = repo.show_file(source, record.path).decode("utf-8", "replace").split("\n")
                except IntentError:
                    files[key] = []
            lines = files[key][record.start - 1:record.end]
            if not lines:
                continue
            session = Session(agent=record.agent, session_id=record.session_id, transcript=CARRIED,
                              parent_session_id=record.parent_session_id)
            edit = Edit(path=record.path, tool=record.tool or "", message_id=record.message_id or "",
                        call_id=record.call_id, added=tuple(AddedLine(text=t, line=record.start + i)
                                                            for i, t in enumerate(lines)))
            origin = record.derived_from or source  # a carried credit keeps pointing at the first commit
            edits.append(MappedEdit(session=session, edit=edit, path=record.path, order=-1_000_000 + len(edits),
                                    fuzzy=False, derived_from=origin))
    return edits


def rewritten_sources(repo: Repository, commit: str, previous: list[str], subject: str) -> list[str]:
    """The commits whose credits a new commit inherits, from its reflog context (DESIGN.md: classify a
    commit from the reflog subject): the pre-amend commit, the cherry-picked commit, the reverted
    commit's history, or the commits abandoned by a `reset` just before. `previous` holds the earlier
    reflog entries as "<sha> <subject>" lines, newest first."""
    entries = [line.split(" ", 1) for line in previous if " " in line]
    if subject.startswith("commit (amend)") and entries:
        return [entries[0][0]]
    if subject.startswith("revert"):
        body = repo.git("show", "-s", "--format=%B", commit)
        reverted = [w.rstrip(".") for line in body.splitlines() if line.startswith("This reverts commit ")
                    for w in line.split()[3:4]]
        if reverted:
            return _history(repo, reverted[0] + "^", commit)
    if subject.startswith("commit") and len(entries) >= 2 and entries[0][1].startswith("reset:"):
        # reset --soft then recommit: the commits the reset left behind carry over.
        before_reset = entries[1][0]
        out = repo.git("rev-list", "--max-count=200", before_reset, f"^{commit}", check=False)
        return out.split()[::-1]
    return []


def commits_in(repo: Repository, revision_range: str) -> list[str]:
    """The commits of a range, oldest first; raises IntentError for a range git does not understand."""
    out = repo.git("rev-list", "--reverse", "--end-of-options", revision_range, check=False)
    commits = out.split()
    if not commits:
        raise IntentError(f"{revision_range!r} names no commits in this repository.",
                          hint="Example: git intent carry main..feature --onto <squash commit>")
    return commits


def _history(repo: Repository, start: str, commit: str) -> list[str]:
    """Recent commits before `start` touching the files `commit` changed (where a revert's lines came from)."""
    paths = [p for p in repo.git("diff-tree", "--no-commit-id", "--name-only", "-r", commit).splitlines() if p]
    if not paths:
        return []
    out = repo.git("rev-list", "--max-count=50", start, "--", *paths, check=False)
    return out.split()[::-1]
