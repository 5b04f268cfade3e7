"""The names of git-intent's notes refs, and moving the notes an earlier version kept under the old name.

Earlier versions wrote `refs/notes/intent`. SpecStory's Intent Git Mode writes `refs/notes/intent/exchanges`
and `refs/notes/intent/metadata` (its docs/git-provenance/systems/intent-git-mode.md), and git cannot hold
a ref and refs below it at once, so whichever tool came second failed to write. `refs/notes/git-intent`
is below no other tool's name and no other tool's name is below it (git-ai writes `refs/notes/ai`,
`refs/notes/ai-remote/<remote>`; Entire a branch `entire/checkpoints/v1` and `refs/entire/checkpoints/…`).

Until a repository's first note write, reads take the old ref's notes for the commits the new one lacks; that
write moves them (`adopt_legacy_notes`) and deletes the old ref, so SpecStory's refs can be created.
"""

from __future__ import annotations

import subprocess
import time

from ..git.repo import Repository

NOTES_REF = "refs/notes/git-intent"
# Where earlier versions kept the notes: read until moved, and kept up to date on a remote that still has it.
LEGACY_NOTES_REF = "refs/notes/intent"
SCRATCH_PREFIX = "refs/notes/git-intent-scratch/"
LEGACY_SCRATCH_PREFIX = "refs/notes/intent-scratch/"  # an earlier version's crashed writer's
# Earlier versions' copy of each remote's notes: nothing reads it any more.
LEGACY_TRACKING = ("refs/notes/remotes/", "/intent")


def legacy_oid(repo: Repository) -> str:
    """The commit the old notes ref names, "" when it is absent or names no commit (then it is left alone:
    no note is read from it)."""
    out = repo.git("rev-parse", "-q", "--verify", f"{LEGACY_NOTES_REF}^{{commit}}", check=False)
    return out.strip()


def ref_note_blobs(repo: Repository, ref: str) -> dict[str, str]:
    """commit -> note blob id for every note on `ref` (`git notes list`; empty when it is absent)."""
    listed: dict[str, str] = {}
    for line in repo.git("notes", "--ref", ref, "list", check=False).splitlines():
        fields = line.split()
        if len(fields) == 2:
            listed[fields[1]] = fields[0]
    return listed


def adopt_legacy_notes(repo: Repository) -> int:
    """Move the notes of the old ref into `NOTES_REF` and delete the old ref; how many notes moved (0 when
    there was no old ref, or when git could not move them: both refs are then as they were and the next
    write tries again). One git process when there is no old ref. The caller holds the notes lock.

    A commit noted on both keeps the new ref's note, as reads did. The notes commit made has the old ref's
    commit as a second parent, so the new ref descends from it (pushed to a remote's old ref, a
    fast-forward).
    """
    old = legacy_oid(repo)
    if not old:
        return 0
    new = repo.git("rev-parse", "-q", "--verify", NOTES_REF, check=False).strip()
    theirs = ref_note_blobs(repo, LEGACY_NOTES_REF)
    if not new:
        if not repo.succeeds("update-ref", NOTES_REF, old, "0" * 40):
            return 0
        moved = len(theirs)
    else:
        ours = ref_note_blobs(repo, NOTES_REF)
        missing = {commit: blob for commit, blob in theirs.items() if commit not in ours}
        proc = subprocess.run(
            ["git", "fast-import", "--quiet", "--date-format=raw"],
            cwd=repo.root,
            input=_merge_stream(new, old, missing),
            capture_output=True,
        )
        if proc.returncode != 0:
            return 0
        moved = len(missing)
    repo.git("update-ref", "-d", LEGACY_NOTES_REF, old, check=False)
    for ref in repo.git("for-each-ref", "--format=%(refname)", LEGACY_TRACKING[0], check=False).split():
        if ref.endswith(LEGACY_TRACKING[1]):
            repo.git("update-ref", "-d", ref, check=False)
    return moved


def _merge_stream(new: str, old: str, notes: dict[str, str]) -> bytes:
    """A fast-import stream: one notes commit on `NOTES_REF` from `new`, merging `old`, adding `notes`
    (commit -> existing blob id)."""
    message = f"git-intent: {len(notes)} notes moved from {LEGACY_NOTES_REF}".encode()
    lines = [
        f"commit {NOTES_REF}".encode(),
        f"committer git-intent <git-intent@localhost> {int(time.time())} +0000".encode(),
        f"data {len(message)}".encode(),
        message,
        f"from {new}".encode(),
        f"merge {old}".encode(),
        *(f"N {blob} {commit}".encode() for commit, blob in notes.items()),
    ]
    return b"\n".join(lines) + b"\n\n"


__all__ = [
    "LEGACY_NOTES_REF",
    "LEGACY_SCRATCH_PREFIX",
    "NOTES_REF",
    "SCRATCH_PREFIX",
    "adopt_legacy_notes",
    "legacy_oid",
    "ref_note_blobs",
]
