"""Where Entire keeps its checkpoints: the refs that hold them, in the order Entire trusts them, and the
checkpoint folders of their trees (`peers.entire` reads what the folders hold).

Two layouts, both read, in one repository too. The `entire/checkpoints/v1` branch (Entire CLI 0.3 on) keeps
one folder `<id[:2]>/<id[2:]>/` per checkpoint in a single tree. The `git-refs` store (selectable since
Entire CLI 0.8.1, the default for new setups since 0.9.0) keeps one ref `refs/entire/checkpoints/<shard>/<id>`
per checkpoint, `<shard>` the id's *last* two characters (12-hex and ULID ids alike), pointing at a commit
whose tree root is that same folder (`metadata.json`, `0/`, `1/`, ..., `tasks/`). Every write to a
checkpoint adds a commit on its ref (the first an orphan), so the tip is the checkpoint's latest state.
`entire doctor migrate-checkpoints` copies branch checkpoints into hex-named refs, the folder unchanged but
for its root `metadata.json` (session paths made relative to the checkpoint, `checkpoint_version` dropped).
Entire pushes and fetches the refs one by one under their own names (no remote-tracking copies); `git fetch
origin 'refs/entire/checkpoints/*:refs/entire/checkpoints/*'` brings them all. Entire reads a checkpoint from
its ref first and from the branch only when no ref holds it.

Source read: entireio/cli `cmd/entire/cli/checkpoint/refs_naming.go` at 0468bf67 (`RefName`, `ParseRef`),
`checkpoint/id/id.go` at 178a6d92 (`ShardFor`), `refs_store.go` at 16d8b1a7 (`refTip`: the ref must name a
commit), `migrate.go` at 002e36a8 (`MigrateBranchToRefs`), `docs/architecture/ref-checkpoint-backend.md` at
028f038e; versions from the CHANGELOG and the 0.8.1 and 0.9.0 release notes (pull requests 1668, 1862).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..core.errors import GitError
from ..git.repo import CAT_BATCH, Repository
from ..git.trees import list_trees

BRANCH = "entire/checkpoints/v1"
PREFIX = "refs/entire/checkpoints/"
ID = re.compile(r"[0-9a-f]{12}|[0-9A-HJKMNP-TV-Z]{26}")  # legacy 12-hex, or a ULID (Crockford base32)


@dataclass(frozen=True)
class CheckpointRef:
    """A ref shaped `refs/entire/checkpoints/<two characters>/<checkpoint id>`.

    `checkpoint_id` is None when the shard is not the id's last two characters (Entire's `ParseRef` refuses
    such a ref: it never writes one). `kind` is the type of the object the ref points at ("missing" when the
    object is not in the repository) and `tree` the tree of that commit, None unless `kind` is "commit".
    """

    ref: str
    checkpoint_id: str | None
    kind: str
    tree: str | None

    @property
    def readable(self) -> bool:
        """Whether Entire would read a checkpoint here: a well-formed name pointing at a commit."""
        return self.checkpoint_id is not None and self.tree is not None


@dataclass
class Folder:
    """A folder of a checkpoint tree: its files {name: (blob id, size in bytes)} and its subfolders."""

    files: dict[str, tuple[str, int]] = field(default_factory=dict)
    children: dict[str, Folder] = field(default_factory=dict)


class Place(NamedTuple):
    """Where a checkpoint folder was found: the ref, the folder's path in the ref's tree ("" for the root),
    the checkpoint id the place names (None when it names none), and whether that id is the checkpoint's
    whatever its metadata claims (a per-checkpoint ref's is: Entire finds checkpoints by ref name)."""

    ref: str
    path: str
    folder: Folder
    checkpoint_id: str | None
    by_name: bool


def checkpoint_refs(repo: Repository) -> list[str]:
    """Refs that may hold checkpoints, in the order they are trusted (Entire's own: a checkpoint's ref before
    the branch): per-checkpoint refs `refs/entire/checkpoints/<id[-2:]>/<id>`, the local branch,
    remote-tracking copies (origin first), Entire's other `refs/entire/checkpoints/...` refs, then the pre-v1
    `entire/sessions` branch. A checkpoint-shaped ref Entire would not have written (its shard is not the
    id's last two characters) is not listed."""
    out = repo.git(
        "for-each-ref",
        "--format=%(refname)",
        "refs/heads/entire/",
        "refs/remotes/",
        "refs/entire/",
        check=False,
    )

    def rank(ref: str) -> tuple[int, str]:
        if is_checkpoint_shaped(ref):
            return (0, ref) if parse_ref(ref) is not None else (9, ref)
        if ref == f"refs/heads/{BRANCH}":
            return 1, ""
        if ref.startswith("refs/remotes/") and ref.endswith(f"/{BRANCH}"):
            return 2, "" if ref == f"refs/remotes/origin/{BRANCH}" else ref
        if ref.startswith(PREFIX):
            return 3, "" if ref.endswith("/full") else ref
        if ref == "refs/heads/entire/sessions":
            return 4, ""
        return 9, ref

    return sorted((r for r in out.split() if rank(r)[0] < 9), key=rank)


def ref_places(repo: Repository, tips: list[CheckpointRef]) -> list[Place]:
    """The checkpoint folders at the roots of the readable refs of `tips`, their trees listed together two
    levels down (the checkpoint's files and its session folders': all `peers.entire` reads) in a few git
    calls whatever their number."""
    readable = [t for t in tips if t.readable]
    listed = list_trees(repo, [t.tree or "" for t in readable], depth=2)
    return [
        Place(
            t.ref,
            "",
            _folder((f.path, f.oid, f.size) for f in listed.get(t.tree or "", [])),
            t.checkpoint_id,
            True,
        )
        for t in readable
    ]


def branch_places(repo: Repository, ref: str, tree: str) -> list[Place]:
    """The checkpoint folders of a branch's tree `tree` (one `git ls-tree`): `<id[:2]>/<id[2:]>/` (or
    `<shard>/<id>/`), or the root itself when it holds a checkpoint's metadata.json."""
    root = _list_tree(repo, tree)
    if "metadata.json" in root.files:
        return [Place(ref, "", root, None, False)]
    return [
        Place(ref, f"{shard}/{rest}", folder, _path_id(shard, rest), False)
        for shard, level in sorted(root.children.items())
        if len(shard) == 2
        for rest, folder in sorted(level.children.items())
    ]


def ref_name(checkpoint_id: str) -> str:
    """`refs/entire/checkpoints/<id[-2:]>/<id>`, the ref Entire stores checkpoint `checkpoint_id` under."""
    return f"{PREFIX}{checkpoint_id[-2:]}/{checkpoint_id}"


def parse_ref(ref: str) -> str | None:
    """The checkpoint id a per-checkpoint ref names (`ref_name`'s inverse), or None for any other ref."""
    shard, leaf = _shard_and_leaf(ref)
    return leaf if leaf is not None and shard == leaf[-2:] else None


def is_checkpoint_shaped(ref: str) -> bool:
    """Whether `ref` has a per-checkpoint ref's shape (two characters, then a checkpoint id), well-formed or
    not; Entire's other refs under the prefix (`v1.1`, `v2/main`, ...) have not."""
    return _shard_and_leaf(ref)[1] is not None


def checkpoint_ref_tips(repo: Repository, refs: list[str] | None = None) -> list[CheckpointRef]:
    """Every checkpoint-shaped ref under `refs/entire/checkpoints/` (or those of `refs` that exist), sorted by
    name, with the kind of object it points at and, for a commit, its tree: one `git for-each-ref` (none when
    `refs` are given) and two `git cat-file --batch-check`, whatever the number of refs; a ref whose object
    is missing does not fail the listing. Never raises on what git answers."""
    if refs is None:
        # Only the name and the id: an atom that reads the object (%(objecttype), %(tree)) makes
        # for-each-ref fail as a whole on one dangling ref.
        out = repo.git("for-each-ref", "--format=%(refname) %(objectname)", PREFIX, check=False)
        named = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    else:
        named = _check(repo, sorted(set(refs)), "%(objectname)")
    shaped = [(ref, oid) for ref, oid in sorted(named.items()) if is_checkpoint_shaped(ref)]
    kinds = _check(repo, [oid for _, oid in shaped], "%(objecttype)")
    commits = [oid for oid in dict.fromkeys(oid for _, oid in shaped) if kinds.get(oid) == "commit"]
    trees = _check(repo, commits, "%(objectname)", peel="^{tree}")
    return [
        CheckpointRef(ref, parse_ref(ref), kinds.get(oid, "missing"), trees.get(oid)) for ref, oid in shaped
    ]


def _shard_and_leaf(ref: str) -> tuple[str, str | None]:
    rest = ref.removeprefix(PREFIX)
    if rest == ref:
        return "", None
    shard, _, leaf = rest.partition("/")
    return shard, leaf if len(shard) == 2 and ID.fullmatch(leaf) else None


def _check(repo: Repository, oids: list[str], field: str, peel: str = "") -> dict[str, str]:
    """{object id: `field` of `<id><peel>`} from `git cat-file --batch-check`; ids git cannot answer for
    (missing, or not peelable) are left out. Nothing but object headers is read."""
    found: dict[str, str] = {}
    wanted = [oid for oid in dict.fromkeys(oids) if oid and "\n" not in oid]
    for start in range(0, len(wanted), CAT_BATCH):
        names = wanted[start : start + CAT_BATCH]
        asked = set(names)
        out = repo.git(
            "cat-file",
            f"--batch-check=%(rest)\t{field}",
            input_text="".join(f"{name}{peel} {name}\n" for name in names),
            check=False,
        )
        for line in out.splitlines():
            name, tab, value = line.partition("\t")
            if tab and name in asked and value:
                found[name] = value
    return found


def _list_tree(repo: Repository, tree: str) -> Folder:
    """The blobs of `tree` (recursively) as nested folders; an unreadable tree is empty."""
    try:
        out = repo.git("ls-tree", "-r", "-l", "-z", "--full-tree", tree)
    except GitError:
        return Folder()
    listed = (
        (path, fields[2], int(fields[3]))
        for meta, _, path in (entry.partition("\t") for entry in out.split("\0"))
        for fields in [meta.split()]
        if len(fields) == 4 and fields[1] == "blob" and fields[3].isdigit()
    )
    return _folder(listed)


def _folder(files: Iterable[tuple[str, str, int]]) -> Folder:
    """Nested folders of `(path, blob id, size)` rows."""
    root = Folder()
    for path, oid, size in files:
        *dirs, name = path.split("/")
        folder = root
        for part in dirs:
            folder = folder.children.setdefault(part, Folder())
        folder.files[name] = (oid, size)
    return root


def _path_id(shard: str, rest: str) -> str | None:
    """The checkpoint id a branch folder names: `<id[:2]>/<id[2:]>`, or `<shard>/<id>` for newer ids."""
    if ID.fullmatch(shard + rest):
        return shard + rest
    return rest if ID.fullmatch(rest) else None
