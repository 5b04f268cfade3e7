"""Finding the commits a forge made from recorded ones (a squash-merge, a rebase-merge) by patch identity,
and carrying their records onto them.

A forge's "Squash and merge" and "Rebase and merge" make new commits without a note (issue 24). A new,
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
`derived_from`. What was examined is remembered in `<state>/landed.json`, so a run looks only at commits
it has not seen since the notes last changed.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from dataclasses import dataclass, field

from ..errors import IntentError
from ..git.repo import Repository
from ..notes import note_blobs, write_note
from ..private import private_dir, write_text
from .record import RecordResult, attribute_commit, note_records, summarize

LIMIT = 200  # newest non-merge commits on branches looked at per run (a forge lands a handful per fetch)
TIPS = 50  # newest recorded tips tried as the branch a commit squashes
CHAIN = 200  # commits of a recorded branch at most (a longer one is not a pull request)
STATE = "landed.json"  # {"notes": n, "seen": [commits examined while the notes held n commits]}
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
        return (f"{self.commit[:12]}: carried from {len(self.sources)} recorded commit(s) "
                f"({self.how} on the forge): {self.result.lines_attributed} of {self.result.lines_added} "
                "added lines credited.\n")


@dataclass
class _Unit:
    """Recorded work a landed commit may copy: one commit, or a branch's commits (oldest first)."""

    commits: list[str]
    patch_id: str
    hunks: set[str] = field(default_factory=set)


def carry_landed(repo: Repository, *, limit: int = LIMIT) -> list[Landed]:
    """Carry records onto the unrecorded commits among the newest `limit` on branches and remote-tracking
    branches that squash or rebase recorded commits; returns what was carried, oldest commit first.
    Writes a note only where a line is credited. Raises NoteError when a note cannot be written."""
    recorded = note_blobs(repo)
    if not recorded:
        return []
    out = repo.git("log", "--no-merges", f"--max-count={limit}", "--format=%H %P", "--branches", "--remotes",
                   check=False)
    parents = {row[0]: row[1] for row in (line.split() for line in out.splitlines()) if len(row) >= 2}
    seen = _seen(repo, len(recorded))
    targets = [c for c in reversed(list(parents)) if c not in recorded and c not in seen]
    if not targets:
        return []
    target_ids = _patch_ids(repo, targets)
    by_id: dict[str, list[str]] = {}
    for commit, pid in _patch_ids(repo, [c for c in recorded if _exists(repo, c)]).items():
        by_id.setdefault(pid, []).append(commit)
    tips = _tips(repo, list(recorded))
    landed: list[Landed] = []
    for target in targets:
        found = _match(repo, target, parents[target], target_ids.get(target), by_id, tips)
        if found is not None:
            done = _carry(repo, target, *found)
            if done is not None:
                landed.append(done)
    _remember(repo, len(note_blobs(repo)), [*seen, *targets])
    return landed


def _match(repo: Repository, target: str, parent: str, pid: str | None, by_id: dict[str, list[str]],
           tips: list[str]) -> tuple[list[str], str] | None:
    """(sources, how) for `target`, or None when no recorded work has its patch identity."""
    if pid and pid in by_id:
        return sorted(by_id[pid]), "rebase"
    units = _units(repo, target, parent, tips)
    for unit in units:
        if pid and unit.patch_id == pid and len(unit.commits) > 1:
            return unit.commits, "squash"
    wanted = _hunks(_diff(repo, parent, target))
    best: tuple[int, int, list[str]] | None = None
    for unit in units:
        shared = len(wanted & unit.hunks)
        if shared and 2 * shared >= len(wanted) and (best is None or (shared, len(unit.commits)) > best[:2]):
            best = (shared, len(unit.commits), unit.commits)
    return (best[2], "edited") if best else None


def _units(repo: Repository, target: str, parent: str, tips: list[str]) -> list[_Unit]:
    """The recorded branches not merged into `target` (each tip back to where it meets `parent`), and each
    of their commits alone; in a fixed order, so every clone derives the same answer."""
    if not tips:
        return []
    unmerged = set(repo.git("rev-list", f"--max-count={CHAIN * len(tips)}", *tips, f"^{target}",
                            check=False).split())
    units: list[_Unit] = []
    for tip in tips:
        if tip not in unmerged:
            continue
        base = repo.git("merge-base", tip, parent, check=False).strip()
        chain = repo.git("rev-list", "--reverse", f"--max-count={CHAIN}", tip, *([f"^{base}"] if base else []),
                         check=False).split()
        if not base or not chain:
            continue
        diff = _diff(repo, base, tip)
        units.append(_Unit(chain, _patch_id(diff), _hunks(diff)))
        for commit in chain:
            first = repo.parents(commit)[:1]
            if first:
                one = _diff(repo, first[0], commit)
                units.append(_Unit([commit], _patch_id(one), _hunks(one)))
    return units


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
    return Landed(commit=target, sources=sources, how=how, result=result)


def _tips(repo: Repository, recorded: list[str]) -> list[str]:
    """Recorded commits no other recorded commit has as its first parent (a recorded branch's tip), newest
    first, at most `TIPS`."""
    out = repo.git("log", "--no-walk", "--stdin", "--format=%H %P", input_text="\n".join(recorded) + "\n",
                   check=False)
    rows = [line.split() for line in out.splitlines() if line.strip()]
    firsts = {row[1] for row in rows if len(row) > 1}
    return [row[0] for row in rows if row[0] not in firsts][:TIPS]


def _exists(repo: Repository, commit: str) -> bool:
    # A note may name a commit this clone never fetched (a deleted branch on the forge).
    return repo.succeeds("cat-file", "-e", f"{commit}^{{commit}}")


def _diff(repo: Repository, old: str, new: str) -> str:
    return repo.git("diff", "--no-color", "--no-ext-diff", "--no-renames", "--src-prefix=a/", "--dst-prefix=b/",
                    old, new, check=False)


def _patch_id(diff: str) -> str:
    proc = subprocess.run(["git", "patch-id", "--stable"], input=diff, capture_output=True, text=True)
    return proc.stdout.split(" ", 1)[0]


def _patch_ids(repo: Repository, commits: list[str]) -> dict[str, str]:
    """commit -> `git patch-id --stable` of its first-parent diff, for many commits in two git processes."""
    if not commits:
        return {}
    log = subprocess.run(["git", "log", "--no-walk=unsorted", "--stdin", "-p", "--no-color", "--no-ext-diff",
                          "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", "--format=commit %H"],
                         cwd=repo.root, input="\n".join(commits) + "\n", capture_output=True, text=True)
    proc = subprocess.run(["git", "patch-id", "--stable"], cwd=repo.root, input=log.stdout, capture_output=True,
                          text=True)
    return {row[1]: row[0] for row in (line.split() for line in proc.stdout.splitlines()) if len(row) == 2}


def _hunks(diff: str) -> set[str]:
    """The identity of each hunk of `diff`: its path and its added and removed lines, whitespace ignored."""
    keys: set[str] = set()
    path, body = "", []  # type: str, list[str]

    def close() -> None:
        if body:
            keys.add(hashlib.sha1("\0".join([path, *body]).encode("utf-8", "surrogatepass")).hexdigest())
        body.clear()

    in_hunk = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            close()
            in_hunk, path = False, line.rsplit(" b/", 1)[-1]
        elif line.startswith("@@"):
            close()
            in_hunk = True
        elif in_hunk and line[:1] in ("+", "-"):
            body.append(line[0] + _WS.sub("", line[1:]))
    close()
    return keys


def _seen(repo: Repository, notes: int) -> list[str]:
    """The commits examined while refs/notes/intent held `notes` notes (more notes: look again)."""
    try:
        data = json.loads((repo.state_dir / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("notes") != notes or not isinstance(data.get("seen"), list):
        return []
    return [str(c) for c in data["seen"]]


def _remember(repo: Repository, notes: int, seen: list[str]) -> None:
    try:
        write_text(private_dir(repo.state_dir) / STATE,
                   json.dumps({"notes": notes, "seen": list(dict.fromkeys(seen))[-5 * LIMIT:]}) + "\n")
    except OSError:
        pass  # a read-only state folder: the next run looks again
