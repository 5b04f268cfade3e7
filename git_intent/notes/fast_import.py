"""Writing many notes at once on a notes ref through `git fast-import`, checking they read back, and merging a
fetched notes ref with `cat_sort_uniq`: what the notes of records and the attestations share."""

from __future__ import annotations

import hashlib
import subprocess
import time
from collections.abc import Mapping

from ..core.errors import ShareError
from ..git.repo import Repository, run_git
from .refs import ref_note_blobs


def committer_identity(repo: Repository) -> list[str]:
    """`-c user.*` options when git has no committer identity (a CI runner, a fresh container): a note write,
    merge or store update must not fail for that. [] when git has one."""
    if repo.git("var", "GIT_COMMITTER_IDENT", check=False).strip():
        return []
    return ["-c", "user.name=git-intent", "-c", "user.email=git-intent@localhost"]


def import_notes(repo: Repository, ref: str, texts: Mapping[str, str], old: str, what: str) -> str | None:
    """Write `texts` (commit -> whole note text) on `ref` in one commit on top of `old` ("" for a new ref),
    named "git-intent: N <what>". None when written; else git's last line of complaint (the ref is then as
    before: fast-import refuses to move a ref that moved meanwhile)."""
    proc = subprocess.run(
        ["git", "fast-import", "--quiet", "--date-format=raw"],
        cwd=repo.root,
        input=_stream(ref, texts, old, f"git-intent: {len(texts)} {what}"),
        capture_output=True,
    )
    if proc.returncode == 0:
        return None
    said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return said[-1] if said else f"exit {proc.returncode}"


def not_read_back(repo: Repository, ref: str, texts: Mapping[str, str]) -> list[str]:
    """The commits of `texts` whose note on `ref` is not that text byte for byte (by blob id)."""
    listed = ref_note_blobs(repo, ref)
    return [commit for commit, text in texts.items() if listed.get(commit) != blob_id(text.encode("utf-8"))]


def merge_notes_ref(repo: Repository, local: str, fetched: str, what: str) -> bool:
    """Merge the notes at `fetched` (a remote's, fetched) into `local` with `cat_sort_uniq` (the lines of both
    notes of a commit, sorted, each once); `local` simply takes `fetched` when it does not exist yet. True
    when `local` moved. The caller holds the lock of `local`. Raises ShareError, `local` unchanged, when git
    refuses the merge (`what` names the notes in the hint: "notes", "attestations")."""
    before = repo.git("rev-parse", "-q", "--verify", local, check=False).strip()
    theirs = repo.git("rev-parse", "-q", "--verify", fetched, check=False).strip()
    if not theirs or theirs == before:
        return False
    if not before:
        repo.git("update-ref", local, theirs, "0" * 40)
        return True
    proc = run_git(
        [*committer_identity(repo), "notes", "--ref", local, "merge", "-q", "-s", "cat_sort_uniq", fetched],
        repo.root,
        check=False,
    )
    if proc.returncode != 0:
        said = (proc.stderr.strip().splitlines() or ["no reason given"])[-1]
        raise ShareError(
            f"Merging {fetched} into {local} failed: {said}.",
            hint=f"Your {what} are unchanged; run `git intent fetch` again.",
        )
    return repo.git("rev-parse", "-q", "--verify", local, check=False).strip() != before


def blob_id(data: bytes) -> str:
    """The id git gives a blob of `data` (SHA-1 object format)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _stream(ref: str, texts: Mapping[str, str], old: str, message: str) -> bytes:
    said = message.encode()
    parts = [
        f"commit {ref}\n".encode(),
        f"committer git-intent <git-intent@localhost> {int(time.time())} +0000\n".encode(),
        f"data {len(said)}\n".encode(),
        said,
        b"\n",
    ]
    if old:
        parts.append(f"from {old}\n".encode())
    for commit, text in texts.items():
        data = text.encode("utf-8")
        parts += [f"N inline {commit}\n".encode(), f"data {len(data)}\n".encode(), data, b"\n"]
    parts.append(b"\n")
    return b"".join(parts)
