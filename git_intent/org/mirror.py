"""The bare mirror `org sync` keeps of each source: git-intent's refs fetched whole, the noted commits
fetched without trees or blobs (a partial clone, `--filter=tree:0`), and nothing else.

A mirror never has a work tree or a branch: the notes say which commits matter, and only those commits'
metadata (time, author, trailers) is fetched. A blob or tree is fetched on demand by git (the remote is
the mirror's promisor) only when a note was copied from a rewritten commit and its ranges must be checked
against the files, as `stats` checks them. For a source on this machine the mirror asks the local
upload-pack to allow filters and fetches by id (`uploadpack.allowFilter`, `allowAnySHA1InWant`: both off
by default for a plain repository); a hosting service allows them already.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..core.errors import GitError
from ..git.repo import PINNED, Repository, run_git
from ..notes.evidence_ref import EVIDENCE_REF
from ..notes.refs import LEGACY_NOTES_REF, NOTES_REF
from .sources import Source

# git-intent's refs a mirror fetches, and nothing else; the legacy notes ref is read until every source has
# moved its notes (notes/refs.py).
SYNCED_REFS = (NOTES_REF, LEGACY_NOTES_REF, EVIDENCE_REF)
LOCAL_UPLOAD_PACK = "git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true upload-pack"
FETCH_BATCH = 2000  # commit ids per fetch command line
_ZERO = "0" * 40


class MirrorRepository(Repository):
    """A `Repository` on a bare git directory: every git command runs in it (the readers of notes and
    evidence ask nothing of a work tree)."""

    def __init__(self, git_dir: Path) -> None:  # noqa: D107 — no super(): it refuses a bare repository
        self.root = self.common_dir = self.git_dir = git_dir.resolve()


def open_mirror(source: Source, cache: Path) -> MirrorRepository:
    """The bare mirror of `source` under `cache` (created, with `origin` set to the source, when new).

    Raises GitError when git cannot create it."""
    path = cache / source.mirror_name
    if not (path / "HEAD").is_file():
        path.mkdir(parents=True, exist_ok=True)
        run_git(["init", "-q", "--bare", str(path)], cache)
    mirror = MirrorRepository(path)
    # checked on every open (a key's URL may carry a new token), written only when it changed: an
    # unchanged source leaves its mirror untouched; config values are data to git, never options
    wanted = {"remote.origin.url": source.url}
    if source.local:
        wanted["remote.origin.uploadpack"] = LOCAL_UPLOAD_PACK
    for name, value in wanted.items():
        if mirror.git("config", "--get", name, check=False).rstrip("\n") != value:
            mirror.git("config", name, value)
    return mirror


def remote_refs(mirror: MirrorRepository) -> dict[str, str]:
    """ref -> commit id of the `SYNCED_REFS` the source has now (`git ls-remote`, nothing fetched).

    Raises GitError (git's first sentence of the cause) when the source cannot be read."""
    proc = run_git([*PINNED, "ls-remote", "origin", *SYNCED_REFS], mirror.root, check=False)
    if proc.returncode != 0:
        raise GitError(f"git cannot read it: {_cause(proc.stderr)}.")
    found: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        oid, _, ref = line.partition("\t")
        if ref in SYNCED_REFS:
            found[ref] = oid
    return found


def refs_digest(refs: dict[str, str]) -> str:
    """The `head` a snapshot is read at: 40 hex digits of sha256 over `ref oid` lines of `SYNCED_REFS`
    (absent refs as zeros), so a change to any of them (a new note, a new shared session) is seen."""
    text = "".join(f"{ref} {refs.get(ref, _ZERO)}\n" for ref in SYNCED_REFS)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:40]


def fetch_refs(mirror: MirrorRepository, refs: dict[str, str]) -> None:
    """Make the mirror's `SYNCED_REFS` what the source has (`refs`, from `remote_refs`): fetch those present
    whole, with their history (notes trees, evidence blobs), and delete those the source no longer has."""
    present = [ref for ref in SYNCED_REFS if ref in refs]
    if present:
        mirror.git(
            "fetch", "-q", "--no-tags", "--no-write-fetch-head", "origin", *(f"+{r}:{r}" for r in present)
        )
    for ref in SYNCED_REFS:
        if ref not in refs:
            mirror.git("update-ref", "-d", ref, check=False)


def fetch_commits(mirror: MirrorRepository, commits: list[str]) -> list[str]:
    """Fetch the metadata of `commits` (40-hex ids the notes name) that the mirror lacks, without trees or
    blobs; returns those still missing (a note on a commit the source no longer holds).

    Asks by id first; a source that refuses ids (or lacks one of them) is asked for its branches and tags,
    still without trees or blobs."""
    missing = _absent(mirror, commits)
    if not missing:
        return []
    try:
        for start in range(0, len(missing), FETCH_BATCH):
            mirror.git("fetch", *_COMMIT_FETCH, "origin", *missing[start : start + FETCH_BATCH])
    except GitError:
        mirror.git(
            "fetch", *_COMMIT_FETCH, "origin", "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"
        )
    return _absent(mirror, missing)


_COMMIT_FETCH = ("-q", "--no-tags", "--no-write-fetch-head", "--filter=tree:0")


def _absent(mirror: MirrorRepository, commits: list[str]) -> list[str]:
    """Of `commits`, those the mirror holds no commit object for, found from its object list: asking for one
    missing object by name would make git fetch it from the promisor remote, one round trip each."""
    out = mirror.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
    held = {line[:40] for line in out.splitlines() if line.endswith(" commit")}
    return [c for c in dict.fromkeys(commits) if c not in held]


def _cause(stderr: str) -> str:
    """git's first error line (it names the cause; "Could not read from remote repository" follows it),
    without its `fatal:` prefix."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    first = next((line for line in lines if line.startswith(("fatal:", "error:"))), lines[0] if lines else "")
    return first.removeprefix("fatal:").removeprefix("error:").strip().rstrip(".") or "no reason given"
