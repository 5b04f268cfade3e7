"""`git intent push` and `fetch`: git-intent's refs to and from a remote, merged, never overwritten.

Notes are fetched into `refs/notes/remotes/<remote>/git-intent` and merged into refs/notes/git-intent
with `cat_sort_uniq` (docs/design.md: a forced `+refs/notes/git-intent:refs/notes/git-intent` silently
overwrites local notes; never). A remote that still has refs/notes/intent, where earlier versions kept the
notes, is read too (into `refs/notes/remotes/<remote>/git-intent-legacy`, merged the same way), and `push`
keeps that ref up to date there while it exists, so a teammate on an earlier version sees the new records;
it is never created where it is absent (SpecStory's refs/notes/intent/* could not be pushed there). The
evidence store is fetched into `refs/intent/remotes/<remote>/evidence` and merged tree by tree
(`merge.py`); both land first in a scratch namespace and are refused, nothing local
changed, unless each is a commit. A push first records what the hooks queued (or waits, bounded, for the
worker recording it: `capture.settle`), so a push right after a commit sends that commit's note. It sends
only these refs (never branches, with --no-verify so it never re-enters a pre-push hook); a rejected push
fetches and merges git-intent's refs and retries after a random pause, up to MAX_RETRIES times. Notes
are never pruned (in a shallow clone `git notes prune` deletes notes whose commits are merely absent).
After a fetch, commits a forge squashed or rebased from recorded ones get their records carried
(`capture.landed`); the next `push` shares them. `fetch` also reads a URL or path (a contributor's fork,
`sources`): its recorded commits become the sources a maintainer's squash or rebase is matched to.
"""

from __future__ import annotations

import os
import random
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel

from ..attest.store import ATTESTATIONS_REF, merge_attestations
from ..attest.store import tracking_ref as attestations_tracking_ref
from ..capture.landed import carry_landed
from ..capture.settle import WAIT_SECONDS, record_queued
from ..core.errors import IntentError, ShareError
from ..git.repo import Repository, run_git
from ..notes import LEGACY_NOTES_REF, NOTES_REF, adopt_legacy_notes, notes_lock
from ..notes import evidence_ref as store
from ..notes.fast_import import merge_notes_ref
from .collect import ShareResult, share_commits, share_level
from .sources import FetchSource, fetch_source, remote_source

# Twenty clones pushing at once to one remote: each round one push wins the ref and the rest fetch, merge and
# try again; a random pause, doubling up to 2 s, spreads them out. bench/push_contention.py: 20 clones on 2
# CPUs took 12 retries at most (127 in all, 25-33 s); with 5 retries and no pause 14 of 20 gave up.
MAX_RETRIES = 40
PAUSE_SECONDS = (0.05, 2.0)
_REJECTED = ("[rejected]", "(fetch first)", "(non-fast-forward)", "(stale info)", "[remote rejected]")


def notes_tracking_ref(remote: str) -> str:
    """Where `fetch` keeps REMOTE's notes."""
    return f"refs/notes/remotes/{remote}/git-intent"


def legacy_tracking_ref(remote: str) -> str:
    """Where `fetch` keeps REMOTE's refs/notes/intent (earlier versions' notes), while REMOTE has it."""
    return f"refs/notes/remotes/{remote}/git-intent-legacy"


class FetchResult(BaseModel):
    """What `fetch` brought: which refs the remote had, and whether local refs changed."""

    remote: str
    notes: bool = False
    notes_changed: bool = False
    evidence: bool = False
    evidence_changed: bool = False
    carried: list[str] = []  # commits a forge made whose records were carried from recorded ones
    carry_problem: str | None = None  # why carrying them failed (the fetch itself succeeded)
    attestations_changed: bool = False  # refs/notes/git-intent-attestations merged and moved


class UnsharedCommit(BaseModel):
    """A queued commit `push` could not record, so its note was not sent: `state` "queued" (still in the
    queue) or "failed" (set aside in failed/), and why."""

    commit: str
    state: Literal["queued", "failed"]
    reason: str


class PushResult(BaseModel):
    """What `push` sent: the refs pushed, the sharing level, what was shared, and how many retries.
    `recorded_first`: queued commits recorded before pushing; `notes_shared`: commits whose note this push
    added to (or changed on) the remote; `not_shared`: queued commits that could not be recorded;
    `commits_shared`: commits whose evidence was shared (levels `evidence` and `sessions`)."""

    remote: str
    level: str
    pushed: list[str] = []
    retries: int = 0
    recorded_first: int = 0
    notes_shared: int = 0
    not_shared: list[UnsharedCommit] = []
    commits_shared: int = 0
    sessions_shared: list[str] = []
    sessions_missing: list[str] = []
    redactions: dict[str, int] = {}


@dataclass
class _Attempt:
    ok: bool
    rejected: bool
    message: str = ""
    refs: list[str] = field(default_factory=list)
    notes_shared: int = 0


def default_remote(repo: Repository) -> str:
    """The current branch's upstream remote, else `origin`. Raises ShareError when that remote is absent."""
    branch = repo.git("symbolic-ref", "-q", "--short", "HEAD", check=False).strip()
    remote = repo.git("config", "--get", f"branch.{branch}.remote", check=False).strip() if branch else ""
    return check_remote(repo, remote if remote and remote != "." else "origin")


def check_remote(repo: Repository, remote: str) -> str:
    """`remote` when it names a configured remote; raises ShareError otherwise."""
    if not repo.succeeds("remote", "get-url", "--end-of-options", remote):
        raise ShareError(
            f"This repository has no remote named {remote!r}.",
            hint="`git remote -v` lists the remotes; pass one: git intent push REMOTE",
        )
    return remote


def remote_refs(repo: Repository, remote: str) -> dict[str, str]:
    """`{ref: oid}` of git-intent's refs on `remote`. Raises ShareError when the remote cannot be read."""
    proc = run_git(
        [
            "ls-remote",
            "--end-of-options",
            remote,
            NOTES_REF,
            LEGACY_NOTES_REF,
            store.EVIDENCE_REF,
            ATTESTATIONS_REF,
        ],
        repo.root,
        check=False,
    )
    if proc.returncode != 0:
        raise ShareError(f"The remote {remote} cannot be read: {_last_line(proc.stderr)}.")
    pairs = (line.split() for line in proc.stdout.splitlines())
    return {p[1]: p[0] for p in pairs if len(p) == 2}


def fetch(repo: Repository, remote: str | None = None, *, branches: bool = True) -> FetchResult:
    """Fetch REMOTE's notes (refs/notes/git-intent, and refs/notes/intent where an earlier version's are
    still there) and evidence and merge them into the local refs (no `install` needed; the evidence comes
    whatever the local sharing level), with REMOTE's branches as `git fetch` updates them; then carry records
    onto the commits a forge squashed or rebased from recorded ones (`carried`). REMOTE is a remote's name,
    or a URL or path such as a contributor's fork (`sources.fetch_source`). Raises ShareError when git
    cannot fetch or merge, and, before any local ref moves, when the remote's notes or evidence ref is not a
    commit. Without `branches` (a rejected push catching up), only git-intent's refs are fetched and nothing
    is carried."""
    source = fetch_source(repo, remote) if remote else remote_source(repo, default_remote(repo))
    found = remote_refs(repo, source.location)
    notes = {ref: track for ref, track in _notes_refs(source.name).items() if ref in found}
    result = FetchResult(remote=source.shown, notes=bool(notes), evidence=store.EVIDENCE_REF in found)
    wanted = dict(notes)
    if result.evidence:
        wanted[store.EVIDENCE_REF] = store.tracking_ref(source.name)
    if ATTESTATIONS_REF in found:
        wanted[ATTESTATIONS_REF] = attestations_tracking_ref(source.name)
    if wanted:
        _fetch_checked(repo, source, wanted, branches=branches)
    if LEGACY_NOTES_REF not in found:  # gone from the remote: push must not create it again
        repo.git("update-ref", "-d", legacy_tracking_ref(source.name), check=False)
    for tracking in notes.values():
        result.notes_changed = merge_notes(repo, tracking) or result.notes_changed
    if ATTESTATIONS_REF in found:
        result.attestations_changed = merge_attestations(repo, attestations_tracking_ref(source.name))
    if result.evidence:
        from .merge import merge_store

        result.evidence_changed = merge_store(repo, store.tracking_ref(source.name))
    if not branches:
        return result
    try:
        result.carried = [landed.commit for landed in carry_landed(repo)]
    except IntentError as exc:  # the fetch was done; the next fetch or record carries them
        result.carry_problem = str(exc)
    return result


def _notes_refs(remote: str) -> dict[str, str]:
    """{notes ref on REMOTE: its tracking ref}: the new name, then the earlier versions' one."""
    return {NOTES_REF: notes_tracking_ref(remote), LEGACY_NOTES_REF: legacy_tracking_ref(remote)}


def _fetch_checked(
    repo: Repository, source: FetchSource, wanted: dict[str, str], *, branches: bool = True
) -> None:
    """Fetch SOURCE's refs `wanted` (`{remote ref: tracking ref}`) and, once each is checked to be a
    commit, SOURCE's branches (unless not `branches`); then move the fetched refs to their tracking refs.
    Raises ShareError, with no local ref changed, when git cannot fetch or a fetched ref is not a commit (a
    notes ref pointing at a blob stopped every later record until `doctor`)."""
    remote = source.location
    # A scratch namespace of this run's own: what the remote sent is looked at before any ref we read moves.
    incoming = f"refs/intent/incoming/{os.getpid()}-{secrets.token_hex(4)}"
    scratch = {ref: f"{incoming}/{index}" for index, ref in enumerate(wanted)}
    try:
        _git_fetch(repo, remote, [f"+{ref}:{temp}" for ref, temp in scratch.items()])
        for ref, temp in scratch.items():
            kind = repo.git("cat-file", "-t", temp, check=False).strip() or "missing object"
            if kind != "commit":
                raise ShareError(
                    f"The remote {source.shown} has a {ref} that points at a {kind}, not a commit: nothing "
                    f"was fetched.",
                    hint=f"Ask whoever can push to {source.shown} to repair {ref}; your refs are unchanged.",
                )
        # The remote's own branches too (a remote's configured refspecs, as `git fetch` would; a fork's into
        # refs/intent/forks/): the commits a forge squashed or rebased must be here for their records to be
        # carried.
        if source.branches and branches:
            _git_fetch(repo, remote, list(source.branches))
        for ref, temp in scratch.items():
            # Forced, but only into the remote-tracking refs: they mirror the remote; local records are
            # merged.
            repo.git("update-ref", wanted[ref], repo.git("rev-parse", "--verify", temp).strip())
    finally:
        for temp in scratch.values():
            repo.git("update-ref", "-d", temp, check=False)


def _git_fetch(repo: Repository, remote: str, specs: list[str]) -> None:
    proc = run_git(
        ["fetch", "--no-tags", "--no-write-fetch-head", "--quiet", "--end-of-options", remote, *specs],
        repo.root,
        check=False,
    )
    if proc.returncode != 0:
        raise ShareError(f"git fetch from {remote} failed: {_last_line(proc.stderr)}.")


def merge_notes(repo: Repository, ref: str) -> bool:
    """Merge the notes at `ref` into refs/notes/git-intent with cat_sort_uniq (after moving the local notes
    an earlier version left on refs/notes/intent); True when the local ref moved."""
    with notes_lock(repo):
        adopt_legacy_notes(repo)
        return merge_notes_ref(repo, NOTES_REF, ref, "notes")


def push(
    repo: Repository,
    remote: str | None = None,
    tips: list[str] | tuple[str, ...] = (),
    *,
    wait: float = WAIT_SECONDS,
    say: Callable[[str], None] | None = None,
) -> PushResult:
    """Record what the hooks queued (waiting up to `wait` seconds for a running worker; `say` gets one
    progress line then), share what the level asks for, then push refs/notes/git-intent (and, unless the
    level is `notes`, refs/intent/evidence) to REMOTE. Evidence is shared for recorded commits reachable
    from REMOTE's branches or from `tips` (the commits a pre-push hook sees going out). Where REMOTE still
    has refs/notes/intent (the notes of earlier versions, which a teammate still on one fetches), it is
    merged first when it moved, and updated to the same notes.

    Raises ShareError when the push still fails after MAX_RETRIES fetch-and-merge retries, and
    RedactionError (nothing written or pushed) when redaction fails. Queued commits that could not be
    recorded are not an error: they are in `not_shared`, with the reason.
    """
    remote = check_remote(repo, remote) if remote else default_remote(repo)
    settled = record_queued(repo, timeout=wait, say=say)
    level = share_level(repo)
    result = PushResult(
        remote=remote,
        level=level,
        recorded_first=settled.recorded,
        not_shared=[
            UnsharedCommit(commit=u.commit, state=u.state, reason=u.reason) for u in settled.unrecorded
        ],
    )
    if level != "notes":
        _record(result, share_commits(repo, published(repo, remote, tips), level))
    _follow_legacy(repo, remote)
    for attempt in range(MAX_RETRIES + 1):
        outcome = _push_once(repo, remote, with_evidence=level != "notes")
        # The notes ref may go through while the evidence ref is rejected: counted in the attempt it went.
        result.notes_shared += outcome.notes_shared
        if outcome.ok:
            result.pushed, result.retries = outcome.refs, attempt
            return result
        if not outcome.rejected or attempt == MAX_RETRIES:
            break
        # Full jitter: clones rejected together must not come back together.
        time.sleep(random.uniform(0, min(PAUSE_SECONDS[1], PAUSE_SECONDS[0] * 2**attempt)))
        fetch(repo, remote, branches=False)
    raise ShareError(
        f"Pushing git-intent's refs to {remote} failed"
        + (f" after {MAX_RETRIES} retries" if outcome.rejected else "")
        + f": {outcome.message}.",
        hint="Your records are safe locally; run `git intent push` again.",
    )


def published(repo: Repository, remote: str, tips: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Commits reachable from REMOTE's branches (`refs/remotes/REMOTE/*`) or from `tips`."""
    heads = repo.git("for-each-ref", "--format=%(objectname)", f"refs/remotes/{remote}/", check=False).split()
    starts = [t for t in (*heads, *tips) if t and set(t) != {"0"}]
    if not starts:
        return []
    return repo.git("rev-list", "--ignore-missing", *starts, "--", check=False).split()


def _follow_legacy(repo: Repository, remote: str) -> None:
    """Whether REMOTE still has refs/notes/intent, as its tracking ref says for `_push_once`: deleted when
    REMOTE has none, fetched and merged when REMOTE's moved since the last fetch (a teammate on an earlier
    version pushed).
    Raises ShareError when REMOTE cannot be read or its notes cannot be merged."""
    theirs = remote_refs(repo, remote).get(LEGACY_NOTES_REF)
    tracked = repo.git("rev-parse", "-q", "--verify", legacy_tracking_ref(remote), check=False).strip()
    if theirs is None and tracked:
        repo.git("update-ref", "-d", legacy_tracking_ref(remote), tracked)
    elif theirs is not None and theirs != tracked:
        fetch(repo, remote)


def _push_once(repo: Repository, remote: str, *, with_evidence: bool) -> _Attempt:
    local = {NOTES_REF: repo.git("rev-parse", "-q", "--verify", NOTES_REF, check=False).strip()}
    args = ["push", "--porcelain", "--no-verify", "--end-of-options", remote]
    if local[NOTES_REF]:
        args.append(f"{NOTES_REF}:{NOTES_REF}")
    legacy = repo.git("rev-parse", "-q", "--verify", legacy_tracking_ref(remote), check=False).strip()
    if local[NOTES_REF] and legacy and legacy != local[NOTES_REF]:
        # The same notes for a teammate on an earlier version; the lease on what was last fetched (and merged)
        # means the ref is only ever updated, never created where the remote has none.
        args[1:1] = [f"--force-with-lease={LEGACY_NOTES_REF}:{legacy}"]
        args.append(f"{NOTES_REF}:{LEGACY_NOTES_REF}")
    evidence = store.ref_oid(repo) if with_evidence else None
    if evidence:
        # The store is one parentless commit per update: replacing it needs force, guarded by the lease
        # on what we last fetched (and merged) from this remote.
        expected = store.ref_oid(repo, store.tracking_ref(remote)) or ""
        args[1:1] = [f"--force-with-lease={store.EVIDENCE_REF}:{expected}"]
        args.append(f"{store.EVIDENCE_REF}:{store.EVIDENCE_REF}")
    attested = repo.git("rev-parse", "-q", "--verify", ATTESTATIONS_REF, check=False).strip()
    if attested:  # notes git-intent owns: merged on fetch with cat_sort_uniq, like the notes
        args.append(f"{ATTESTATIONS_REF}:{ATTESTATIONS_REF}")
    refs = [a.split(":")[1] for a in args if a.startswith("refs/")]
    if not refs:
        return _Attempt(ok=True, rejected=False, refs=[])
    proc = run_git(args, repo.root, check=False)
    text = proc.stdout + proc.stderr
    shared = _notes_shared(repo, proc.stdout, local[NOTES_REF]) if local[NOTES_REF] else 0
    if proc.returncode == 0:
        if evidence:
            repo.git("update-ref", store.tracking_ref(remote), evidence)
        if local[NOTES_REF]:
            repo.git("update-ref", notes_tracking_ref(remote), local[NOTES_REF])
        if attested:
            repo.git("update-ref", attestations_tracking_ref(remote), attested)
        if f"{NOTES_REF}:{LEGACY_NOTES_REF}" in args:
            repo.git("update-ref", legacy_tracking_ref(remote), local[NOTES_REF])
        return _Attempt(ok=True, rejected=False, refs=refs, notes_shared=shared)
    rejected = any(marker in text for marker in _REJECTED)
    return _Attempt(
        ok=False,
        rejected=rejected,
        message=_last_line(proc.stderr) or _last_line(proc.stdout),
        notes_shared=shared,
    )


def _notes_shared(repo: Repository, porcelain: str, pushed: str) -> int:
    """How many commits' notes the push that printed `porcelain` added or changed on the remote: the notes
    between the remote's old notes commit (`<old>..<new>` in git's porcelain line) and `pushed`; 0 when
    the notes ref was rejected or up to date."""
    line = next((row for row in porcelain.splitlines() if f"\t{NOTES_REF}:{NOTES_REF}\t" in row), "")
    if line[:1] not in (" ", "+", "*"):  # git's flags: updated, forced, new ("!" rejected, "=" up to date)
        return 0
    summary = line.rsplit("\t", 1)[-1]
    if "[new" in summary:
        return len(_note_paths(repo.git("ls-tree", "-r", "--name-only", pushed, check=False)))
    old = re.match(r"([0-9a-f]{4,64})\.\.\.?[0-9a-f]", summary)
    if not old:
        return 0  # [up to date]
    changed = repo.git(
        "diff-tree",
        "-r",
        "--no-renames",
        "--diff-filter=AM",
        "--name-only",
        old.group(1),
        pushed,
        check=False,
    )
    return len(_note_paths(changed))


def _note_paths(listing: str) -> set[str]:
    """The commits a notes tree listing names (fan-out slashes dropped)."""
    names = (line.replace("/", "") for line in listing.splitlines())
    return {name for name in names if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", name)}


def _record(result: PushResult, shared: ShareResult) -> None:
    result.commits_shared = shared.commits
    result.sessions_shared = shared.sessions
    result.sessions_missing = shared.missing
    result.redactions = shared.redactions


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].removeprefix("fatal: ").removeprefix("error: ").rstrip(".") if lines else "unknown error"
