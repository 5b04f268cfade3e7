"""Finding the commits a forge made from recorded ones (a squash-merge, a rebase-merge) by patch identity,
and carrying their records onto them.

A forge's "Squash and merge" and "Rebase and merge" make new commits without a note. A new,
unrecorded commit on a branch is matched, never by its message, to recorded commits by patch identity
(`git patch-id --stable`, which ignores line numbers, so a human commit landed in between does not hide
the match):

1. rebase: a recorded commit with the same patch id;
2. squash: a recorded branch (a recorded tip and its commits back to where it meets the new commit's
   parent) whose combined diff has the new commit's patch id;
3. edited on the forge (a conflict fix, a suggestion applied): the recorded commit or branch sharing the
   most hunks with the new commit, when it shares at least half of them (a hunk's identity is its path
   and its added and removed lines, whitespace ignored, as patch-id reads them).

The match only names the sources; the credits are carried line by line exactly as `git intent carry`
does (`carry.carried_edits`), so a line the forge changed is not credited, and every carried range says
`derived_from`. What was examined is remembered in `<state>/landed.json`: a run looks at the commits it has
not seen, and again at those a recorded commit new since then may be the source of.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from ..core.errors import IntentError
from ..core.state_files import private_dir, write_text
from ..git.repo import Repository
from ..notes import note_blobs, write_note
from .carry import patch_ids
from .record import RecordResult, attest_carried_records, attribute_commit, note_records, summarize

LIMIT = 200  # newest non-merge commits on branches looked at per run (a forge lands a handful per fetch)
TIPS = 50  # newest recorded tips tried as the branch a commit squashes
CHAIN = 200  # commits of a recorded branch at most (a longer one is not a pull request)
# seconds: a source authored up to a day after a commit's date (clock skew) may still be its source
SLACK = 86_400
STATE = "landed.json"  # {"sources": [recorded commits known], "seen": [unrecorded commits examined]}
PATCHES = "landed-patches.json"  # {recorded commit: [patch id, [hunk ids]]}
_WS = re.compile(r"\s+")


@dataclass
class Landed:
    """One commit the forge made and the recorded commits its records came from (oldest first);
    `how` is "rebase", "squash" or "edited" (matched by shared hunks)."""

    commit: str
    sources: list[str]
    how: str
    result: RecordResult

    def text(self) -> str:
        """One sentence on what was carried."""
        return (
            f"{self.commit[:12]}: carried from {len(self.sources)} recorded commit(s) ({self.how} on the "
            f"forge): {self.result.lines_attributed} of {self.result.lines_added} "
            "added lines credited.\n"
        )


@dataclass(frozen=True)
class _Patch:
    """The patch identity of a commit's first-parent diff, or of a branch's combined diff."""

    patch_id: str
    hunks: frozenset[str]


@dataclass
class _Recorded:
    """What every run needs about the recorded commits present here: their patches, author times and
    first parents, and the tips of recorded branches (newest first)."""

    patches: dict[str, _Patch] = field(default_factory=dict)
    authored: dict[str, int] = field(default_factory=dict)
    tips: list[str] = field(default_factory=list)

    def by_id(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for commit, patch in self.patches.items():
            if patch.patch_id:
                out.setdefault(patch.patch_id, []).append(commit)
        return out


def carry_landed(repo: Repository, *, limit: int = LIMIT) -> list[Landed]:
    """Carry records onto the unrecorded commits among the newest `limit` on branches and remote-tracking
    branches that squash or rebase recorded commits; returns what was carried, oldest commit first.
    Writes a note only where a line is credited. Raises NoteError when a note cannot be written."""
    recorded = note_blobs(repo)
    if not recorded:
        return []
    out = repo.git(
        "log",
        "--no-merges",
        f"--max-count={limit}",
        "--format=%H %ct %P",
        "--branches",
        "--remotes",
        check=False,
    )
    window = {
        row[0]: (int(row[1]), row[2]) for row in (line.split() for line in out.splitlines()) if len(row) >= 3
    }
    known, examined = _state(repo)
    seen = set(examined)
    fresh = [c for c in recorded if c not in known]
    unrecorded = [c for c in reversed(list(window)) if c not in recorded]
    if not [c for c in unrecorded if c not in seen] and not fresh:
        return []
    found = _recorded(repo, list(recorded))
    # A commit examined before is examined again only when a source new since then was authored before it.
    since = min((found.authored[c] for c in fresh if c in found.authored), default=None)
    targets = [
        c for c in unrecorded if c not in seen or (since is not None and window[c][0] + SLACK >= since)
    ]
    by_id, combined = found.by_id(), _Combined(repo)
    landed: list[Landed] = []
    for target, patch in _patches(repo, targets).items():
        match = _match(repo, target, window[target][1], patch, found, by_id, combined)
        if match is not None:
            done = _carry(repo, target, *match)
            if done is not None:
                landed.append(done)
    _remember(repo, list(note_blobs(repo)), [*examined, *targets])
    return landed


def _match(
    repo: Repository,
    target: str,
    parent: str,
    patch: _Patch,
    found: _Recorded,
    by_id: dict[str, list[str]],
    combined: _Combined,
) -> tuple[list[str], str] | None:
    """(sources, how) for `target`, or None when no recorded work has its patch identity."""
    if patch.patch_id in by_id:
        return sorted(by_id[patch.patch_id]), "rebase"
    branches = [] if not found.tips else _branches(repo, target, parent, found.tips, combined)
    for commits, whole in branches:
        if whole.patch_id == patch.patch_id and len(commits) > 1:
            return commits, "squash"
    # Edited on the forge: the recorded work sharing the most hunks, if at least half of the commit's.
    best: list[tuple[int, int, str, list[str]]] = []
    for commits, whole in branches:
        best.append((len(patch.hunks & whole.hunks), len(commits), commits[-1], commits))
    for commit, one in found.patches.items():
        best.append((len(patch.hunks & one.hunks), 1, commit, [commit]))
    for shared, _, _, commits in sorted(best, key=lambda b: (-b[0], -b[1], b[2])):
        if not shared or 2 * shared < len(patch.hunks):
            return None
        if len(commits) > 1 or not repo.succeeds("merge-base", "--is-ancestor", commits[0], target):
            return commits, "edited"
    return None


class _Combined:
    """Combined diffs of recorded branches, each computed once per run: (base, tip) -> patch."""

    def __init__(self, repo: Repository) -> None:
        self.repo, self.cache = repo, {}  # type: Repository, dict[tuple[str, str], _Patch]

    def get(self, base: str, tip: str) -> _Patch:
        if (base, tip) not in self.cache:
            diff = _diff(self.repo, base, tip)
            self.cache[(base, tip)] = _Patch(
                next(iter(patch_ids(self.repo, diff).values()), ""), _hunks(diff)
            )
        return self.cache[(base, tip)]


def _branches(
    repo: Repository, target: str, parent: str, tips: list[str], combined: _Combined
) -> list[tuple[list[str], _Patch]]:
    """The recorded branches not merged into `target`: each tip's commits back to where it meets `parent`
    (oldest first) and their combined patch; in a fixed order, so every clone derives the same answer."""
    unmerged = set(
        repo.git("rev-list", f"--max-count={CHAIN * len(tips)}", *tips, f"^{target}", check=False).split()
    )
    out: list[tuple[list[str], _Patch]] = []
    for tip in tips:
        if tip not in unmerged:
            continue
        base = repo.git("merge-base", tip, parent, check=False).strip()
        chain = (
            repo.git("rev-list", "--reverse", f"--max-count={CHAIN}", tip, f"^{base}", check=False).split()
            if base
            else []
        )
        if chain:
            out.append((chain, combined.get(base, tip)))
    return out


def _carry(repo: Repository, target: str, sources: list[str], how: str) -> Landed | None:
    """Carry the credits of `sources` onto `target` (no live session: this is older work replayed)."""
    try:
        credits = attribute_commit(repo, target, sources=sources, live=False)
    except IntentError:
        return None
    result = summarize(target, credits)
    if not result.lines_attributed:
        return None
    result.note_written = write_note(repo, target, note_records(target, credits))
    attest_carried_records(repo, target, sources)
    return Landed(commit=target, sources=sources, how=how, result=result)


def _recorded(repo: Repository, recorded: list[str]) -> _Recorded:
    """The patches, author times and branch tips of the recorded commits this clone has (a note may name a
    commit it never fetched: a branch the forge deleted)."""
    out = repo.git(
        "log",
        "--no-walk",
        "--ignore-missing",
        "--stdin",
        "--format=%H %at %P",
        input_text="\n".join(recorded) + "\n",
        check=False,
    )
    rows = [line.split() for line in out.splitlines() if len(line.split()) >= 2]
    firsts = {row[2] for row in rows if len(row) > 2}
    found = _Recorded(
        authored={row[0]: int(row[1]) for row in rows},
        tips=[row[0] for row in rows if row[0] not in firsts][:TIPS],
    )
    # A commit's patch never changes: kept in PATCHES, so a run computes only those of newly recorded commits
    # (733 entire-cli commits: 3.3 s for `git log -p` and the hunks, bench/landed_carry.py).
    cached = _cached_patches(repo)
    missing = [row[0] for row in rows if row[0] not in cached]
    found.patches = {
        **{row[0]: cached[row[0]] for row in rows if row[0] in cached},
        **_patches(repo, missing),
    }
    if missing:
        _save_patches(repo, found.patches)
    return found


def _cached_patches(repo: Repository) -> dict[str, _Patch]:
    try:
        data = json.loads((repo.state_dir / PATCHES).read_text(encoding="utf-8"))
        return {str(c): _Patch(str(v[0]), frozenset(str(h) for h in v[1])) for c, v in data.items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError):
        return {}


def _save_patches(repo: Repository, patches: dict[str, _Patch]) -> None:
    try:
        write_text(
            private_dir(repo.state_dir) / PATCHES,
            json.dumps(
                {c: [p.patch_id, sorted(p.hunks)] for c, p in sorted(patches.items())}, separators=(",", ":")
            )
            + "\n",
        )
    except OSError:
        pass  # a read-only state folder: computed again next time


def _diff(repo: Repository, old: str, new: str) -> str:
    return repo.git(
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-renames",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        old,
        new,
        check=False,
    )


def _patches(repo: Repository, commits: list[str]) -> dict[str, _Patch]:
    """commit -> the patch of its first-parent diff, for many commits in two git processes (one `git log
    -p`, one `git patch-id --stable` over all of it); an empty commit has an empty patch id."""
    if not commits:
        return {}
    # Through Repository.git: pinned settings, and a diff that is not UTF-8 decoded with replacements.
    log = repo.git(
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "-p",
        "--no-color",
        "--no-ext-diff",
        "--no-renames",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        "--format=commit %H",
        input_text="\n".join(commits) + "\n",
        check=False,
    )
    ids = patch_ids(repo, log)
    patches: dict[str, _Patch] = {}
    for part in re.split(r"^commit (?=[0-9a-f]{40}$)", log, flags=re.M)[1:]:
        commit, _, diff = part.partition("\n")
        patches[commit] = _Patch(ids.get(commit, ""), _hunks(diff))
    return patches


def _hunks(diff: str) -> frozenset[str]:
    """The identity of each hunk of `diff`: its path and its lines (added, removed and context, as patch-id
    reads them), whitespace and line numbers ignored. Context keeps a one-line hunk (`+import os`) from
    matching another commit's same line in another place."""
    keys: set[str] = set()
    path, body = "", []  # type: str, list[str]

    def close() -> None:
        if body:
            keys.add(hashlib.sha1("\0".join([path, *body]).encode("utf-8", "surrogatepass")).hexdigest()[:16])
        body.clear()

    in_hunk = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            close()
            in_hunk, path = False, line.rsplit(" b/", 1)[-1]
        elif line.startswith("@@"):
            close()
            in_hunk = True
        elif in_hunk and line[:1] in ("+", "-", " "):
            body.append(line[0] + _WS.sub("", line[1:]))
    close()
    return frozenset(keys)


def _state(repo: Repository) -> tuple[set[str], list[str]]:
    """(recorded commits known at the last run, unrecorded commits examined, oldest first); empty at first."""
    try:
        data = json.loads((repo.state_dir / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set(), []
    if not isinstance(data, dict):
        return set(), []
    return {str(c) for c in data.get("sources") or []}, [str(c) for c in data.get("seen") or []]


def _remember(repo: Repository, sources: list[str], seen: list[str]) -> None:
    try:
        write_text(
            private_dir(repo.state_dir) / STATE,
            json.dumps({"sources": sorted(sources), "seen": list(dict.fromkeys(seen))[-5 * LIMIT :]}) + "\n",
        )
    except OSError:
        pass  # a read-only state folder: the next run looks again
