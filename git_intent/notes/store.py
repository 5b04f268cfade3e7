"""Reading and writing notes on refs/notes/git-intent, one at a time or in batches.

Writes go through the git CLI under an exclusive lock in `<git common dir>/intent/notes.lock` and are
verified by reading them back (docs/design.md: 20 concurrent `git notes add` kept 3-5 of 20 notes without a
lock, 20/20 with one; libgit2 writes flat note trees whose cost grows per note). One note is written with
`git notes add` on a scratch ref and a compare-and-swap; many (backfill) through one `git fast-import`.
Reads also take the notes an earlier version left on refs/notes/intent, for commits the new ref lacks; the
first write moves them (`refs.py`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..core.errors import GitError, NoteError, NotesRefDamagedError
from ..core.faults import crash_point
from ..core.state_files import locked, private_dir
from ..git.repo import Repository
from .fast_import import committer_identity, import_notes, not_read_back
from .records import CommitRecord, LinesRecord, Note, SessionRecord, parse_note, render_note
from .refs import (
    LEGACY_NOTES_REF,
    LEGACY_SCRATCH_PREFIX,
    NOTES_REF,
    SCRATCH_PREFIX,
    adopt_legacy_notes,
    ref_note_blobs,
)

CAS_ATTEMPTS = 20
Records = Sequence[CommitRecord | SessionRecord | LinesRecord]


def notes_ref_damage(repo: Repository) -> str | None:
    """What is wrong with refs/notes/git-intent, as a phrase ("points at a blob (45b983be36b7)", "points at a
    missing object (…)", "names a notes tree that is missing", "cannot be parsed"), or None when it is
    absent or a readable notes commit. One git process when it is readable (the worker asks once per drain).

    A damaged ref makes every note write fail and, while notes.rewriteRef names it, git's own
    `commit --amend` and rebase die with "Failed to read notes tree".
    """
    out = repo.git(
        "cat-file", "--batch-check", input_text=f"{NOTES_REF}\n{NOTES_REF}^{{tree}}\n", check=False
    ).splitlines()
    first = out[0].split() if out else []
    if len(first) == 3 and first[1] == "commit":
        return (
            None
            if len(out) > 1 and out[1].split()[1:2] == ["tree"]
            else f"names a notes tree that is missing (commit {first[0][:12]})"
        )
    if len(first) == 3:
        return f"points at a {first[1]} ({first[0][:12]}), not a notes commit"
    sha = repo.git("rev-parse", "-q", "--verify", NOTES_REF, check=False).strip()  # absent, or dangling?
    if sha:
        return f"points at a missing object ({sha[:12]})"
    loose = Path(repo.git("rev-parse", "--git-path", NOTES_REF).strip())
    return "cannot be parsed" if (repo.root / loose).is_file() else None


def damaged_ref_error(damage: str) -> NotesRefDamagedError:
    """The error every note write raises while refs/notes/git-intent is damaged."""
    return NotesRefDamagedError(
        f"{NOTES_REF} {damage}; no note can be written until it is repaired.",
        hint="Run `git intent doctor` to set it aside and rebuild it from the local journal.",
    )


def note_text(repo: Repository, commit: str) -> str:
    """The raw text of the note on `commit` ("" when it has none), from refs/notes/intent when the new ref
    has none (an earlier version's note, not yet moved)."""
    return repo.note_text(NOTES_REF, commit) or repo.note_text(LEGACY_NOTES_REF, commit)


def read_note(repo: Repository, commit: str) -> Note | None:
    """The note on `commit`, or None when it has none.

    Raises NoteError when the note exists but holds no git-intent record (corrupt or another tool's).
    """
    text = note_text(repo, commit)
    if not text:
        return None
    note = parse_note(commit, text)
    if not note.records:
        raise NoteError(
            f"The note on {commit[:12]} in {NOTES_REF} is not a git-intent record (corrupt, or written by "
            f"another tool).",
            hint=f"Run `git intent record {commit[:12]}` to record it again.",
        )
    return note


def read_notes(repo: Repository, commits: Iterable[str] | None = None) -> dict[str, Note]:
    """The notes on `commits` (default: every annotated commit), read in one batch; commit -> Note.

    Commits without a note are absent; a note without git-intent records is present with no records.
    """
    return {commit: parse_note(commit, text) for commit, text in _note_texts(repo, commits).items()}


def _note_texts(
    repo: Repository, commits: Iterable[str] | None = None, listed: dict[str, str] | None = None
) -> dict[str, str]:
    """commit -> raw note text, for `commits` (default: every annotated commit) that have a note in `listed`
    (default: `note_blobs`)."""
    listed = note_blobs(repo) if listed is None else listed
    wanted = list(listed) if commits is None else [c for c in dict.fromkeys(commits) if c in listed]
    texts: dict[str, str] = {}
    for commit, (_, body) in zip(wanted, repo.cat_blobs([listed[c] for c in wanted]), strict=True):
        if body is not None:
            texts[commit] = body.decode("utf-8", "replace")
    return texts


def still_matches(repo: Repository, commit: str, record: LinesRecord) -> bool:
    """Whether `record`'s lines of its path at `commit` still hash to its digest (see
    `LinesRecord.matches`)."""
    return record.matches(repo.file_lines(commit, record.path))


@contextmanager
def notes_lock(repo: Repository) -> Iterator[None]:
    """Hold the repository-wide lock on note writes (shared by linked worktrees)."""
    with locked(private_dir(repo.state_dir) / "notes.lock"):
        yield


def write_note(repo: Repository, commit: str, records: Records) -> bool:
    """Write `records` as the note of `commit`; returns False when the note already says exactly that.

    git-intent's earlier records are replaced; lines that are not git-intent records are kept. Under the
    lock, the new notes commit is built on a scratch ref and moved onto refs/notes/git-intent with a
    compare-and-swap (`git update-ref NEW OLD`), so even a writer that ignores the lock (another machine's
    tool on a shared disk, an older git-intent) cannot make a note vanish; a lost race is retried.
    Raises NoteError when the note cannot be written or does not read back as written,
    NotesRefDamagedError (a NoteError) when refs/notes/git-intent is damaged. The notes an earlier version
    left on refs/notes/intent are moved first (`adopt_legacy_notes`).
    """
    with notes_lock(repo):
        remove_stale_scratch_refs(repo)
        adopt_legacy_notes(repo)
        for attempt in range(CAS_ATTEMPTS):
            old = repo.git("rev-parse", "-q", "--verify", NOTES_REF, check=False).strip()
            current = repo.note_text(NOTES_REF, commit)
            text = render_note(records, parse_note(commit, current).foreign)
            if current == text:
                return False
            try:
                swapped = _swap(repo, commit, text, old, attempt)
            except GitError:
                # Only a failed write pays for the check: the happy path stays at its process count.
                damage = notes_ref_damage(repo)
                if damage:
                    raise damaged_ref_error(damage) from None
                raise
            if swapped:
                if repo.note_text(NOTES_REF, commit) != text:
                    raise NoteError(f"The note written on {commit[:12]} did not read back as written.")
                return True
    raise NoteError(
        f"{NOTES_REF} kept moving; the note on {commit[:12]} was not written.",
        hint="Run `git intent record --pending` again.",
    )


def _swap(repo: Repository, commit: str, text: str, old: str, attempt: int) -> bool:
    """Build the notes commit on a scratch ref and compare-and-swap it in; False when `old` moved."""
    # Through a blob: `notes add -F` would strip whitespace from other tools' lines.
    blob = repo.git("hash-object", "-w", "--stdin", input_text=text).strip()
    scratch = f"{SCRATCH_PREFIX}{os.getpid()}-{attempt}"
    try:
        if old:
            repo.git("update-ref", scratch, old)
        repo.git(*committer_identity(repo), "notes", "--ref", scratch, "add", "-f", "-C", blob, commit)
        new = repo.git("rev-parse", "--verify", scratch).strip()
        crash_point("before-ref-update")
        swapped = repo.succeeds("update-ref", NOTES_REF, new, old or "0" * 40)
    finally:
        repo.git("update-ref", "-d", scratch, check=False)
    return swapped


def write_notes(repo: Repository, notes: Mapping[str, Records]) -> int:
    """Write many notes (commit -> records) in one `git fast-import` transaction, then verify them.

    As `write_note`, each replaces git-intent's earlier records and keeps other lines (and the old ref's
    notes are moved first). fast-import builds a notes commit on top of the current refs/notes/git-intent
    and refuses to move the ref unless it still points there. Returns how many notes changed. Raises
    NoteError when fast-import fails (the ref moved meanwhile, a full disk) or a note does not read back
    with the expected blob id; the ref is then as before or fully updated.
    """
    if not notes:
        return 0
    with notes_lock(repo):
        adopt_legacy_notes(repo)
        old = repo.git("rev-parse", "-q", "--verify", NOTES_REF, check=False).strip()
        current = _note_texts(repo, notes, ref_note_blobs(repo, NOTES_REF))  # the old ones are moved by now
        texts = {
            commit: render_note(records, parse_note(commit, current.get(commit, "")).foreign)
            for commit, records in notes.items()
        }
        changed = {c: t for c, t in texts.items() if current.get(c) != t}
        if not changed:
            return 0
        failed = import_notes(repo, NOTES_REF, changed, old, "notes")
        if failed is not None:
            damage = notes_ref_damage(repo)
            if damage:
                raise damaged_ref_error(damage)
            raise NoteError(f"git fast-import could not write {len(changed)} notes: {failed}.")
        wrong = not_read_back(repo, NOTES_REF, changed)
        if wrong:
            raise NoteError(f"{len(wrong)} notes did not read back as written (first: {wrong[0][:12]}).")
        return len(changed)


def note_blobs(repo: Repository) -> dict[str, str]:
    """commit -> note blob id for every note on refs/notes/git-intent (`git notes list`), and on
    refs/notes/intent for the commits the new ref has no note on (an earlier version's, not yet moved)."""
    listed = ref_note_blobs(repo, NOTES_REF)
    for commit, blob in ref_note_blobs(repo, LEGACY_NOTES_REF).items():
        listed.setdefault(commit, blob)
    return listed


def remove_stale_scratch_refs(repo: Repository) -> int:
    """Delete scratch refs left by writers that crashed mid-write (an earlier version's too); returns how
    many."""
    prefixes = (SCRATCH_PREFIX, LEGACY_SCRATCH_PREFIX)
    out = repo.git("for-each-ref", "--format=%(refname)", *(p.rstrip("/") for p in prefixes), check=False)
    removed = 0
    for ref in out.split():
        prefix = next((p for p in prefixes if ref.startswith(p)), "")
        pid = ref[len(prefix) :].split("-", 1)[0] if prefix else ""
        if pid.isdigit() and not _alive(int(pid)):
            repo.git("update-ref", "-d", ref, check=False)
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def empty_notes_commit(repo: Repository, message: str) -> str:
    """A new notes commit with an empty tree (the start of `refs/notes/git-intent`), made even where git has
    no committer identity; its SHA. Raises GitError."""
    tree = repo.git("mktree", input_text="").strip()
    return repo.git(*committer_identity(repo), "commit-tree", tree, "-m", message).strip()
