"""Setting a damaged refs/notes/git-intent aside and putting a readable one in its place.

The damaged value is kept, never deleted: as `refs/notes/git-intent-damaged-<UTC time>` when every object
it reaches exists (a blob, say), else in `<state>/notes-ref-damaged-<UTC time>` (git will not point a ref
at a missing object, and a ref reaching one would break `git gc`). The new ref starts from the newest
notes commit in the ref's reflog that still reads (every note up to the damage, exactly as written), or
from an empty notes commit; re-recording what the journal names is the caller's (`git_intent.capture.doctor`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ..core.state_files import private_dir, write_text
from ..git.repo import Repository
from .refs import NOTES_REF
from .store import empty_notes_commit, notes_lock, notes_ref_damage

DAMAGED_PREFIX = f"{NOTES_REF}-damaged-"
REFLOG_LOOKS = 50  # reflog entries searched for the last readable notes commit


@dataclass
class SetAside:
    """What `set_aside` did: the damage, where the old value is kept, and the commit the new ref starts
    from (`restored_from`, a notes commit from the reflog, or None for an empty notes commit)."""

    damage: str
    kept: str
    restored_from: str | None


def set_aside(repo: Repository) -> SetAside | None:
    """Move a damaged refs/notes/git-intent aside and point it at a readable notes commit; None when it was
    not damaged. Under the notes lock, so no writer races the swap. Raises GitError when git refuses a
    step."""
    with notes_lock(repo):
        damage = notes_ref_damage(repo)
        if damage is None:
            return None
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        old = repo.git("rev-parse", "-q", "--verify", NOTES_REF, check=False).strip()
        restored = _last_readable(repo, old)  # before the ref (and its reflog) goes
        loose = repo.root / repo.git("rev-parse", "--git-path", NOTES_REF).strip()
        # Only a value whose every object is there becomes a ref: a ref reaching a missing tree would make
        # `git gc` and `git fsck` fail, and the doctor must not break git either.
        if old and repo.succeeds("rev-list", "--objects", old):
            kept = f"{DAMAGED_PREFIX}{stamp}"
            repo.git("update-ref", "-m", "git intent doctor: damaged", kept, old)
        else:
            record = private_dir(repo.state_dir) / f"notes-ref-damaged-{stamp}"
            write_text(record, _raw(loose, old) + "\n")  # 0600, like everything under .git/intent
            kept = str(record)
        if old:
            repo.git("update-ref", "-d", NOTES_REF, old)
        else:
            loose.unlink(missing_ok=True)  # unparseable: git itself cannot delete it
        start = restored or empty_notes_commit(repo, "git-intent notes (rebuilt by git intent doctor)")
        repo.git("update-ref", "-m", "git intent doctor: rebuilt", NOTES_REF, start, "0" * 40)
        return SetAside(damage=damage, kept=kept, restored_from=restored)


def _last_readable(repo: Repository, damaged: str) -> str | None:
    """The newest notes commit in the reflog of refs/notes/git-intent whose tree is there, other than
    `damaged`."""
    for n in range(REFLOG_LOOKS):
        sha = repo.git("rev-parse", "-q", "--verify", f"{NOTES_REF}@{{{n}}}", check=False).strip()
        if not sha:
            return None
        if (
            sha != damaged
            and repo.git("cat-file", "-t", sha, check=False).strip() == "commit"
            and repo.succeeds("cat-file", "-e", f"{sha}^{{tree}}")
        ):
            return sha
    return None


def _raw(loose: Path, old: str) -> str:
    """What the damaged ref held: its object name, or the text of its unparseable file."""
    if old:
        return old
    try:
        return loose.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
