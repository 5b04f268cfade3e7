"""Entire's per-checkpoint refs (its `git-refs` checkpoint store): which refs hold a checkpoint, and what each
points at, for every such ref of the repository in three git calls.

Layout (Entire CLI `cmd/entire/cli/checkpoint/refs_naming.go` at 0468bf67, `refs_store.go` at 16d8b1a7,
`migrate.go` at 002e36a8, `docs/architecture/ref-checkpoint-backend.md` at 028f038e; selectable since Entire
CLI 0.8.1, the default for new setups since 0.9.0, in place of the `entire/checkpoints/v1` branch): one ref
`refs/entire/checkpoints/<shard>/<id>` per checkpoint, `<shard>` the id's *last* two characters (12-hex and
ULID ids alike; the branch shards on the first two), pointing at a commit whose tree root is the checkpoint
folder the branch keeps under `<id[:2]>/<id[2:]>/` (`metadata.json`, `0/`, `1/`, ..., `tasks/`). Every write
to a checkpoint adds a commit on its ref (the first an orphan), so the tip is the checkpoint's latest state.
`entire doctor migrate-checkpoints` copies branch checkpoints into hex-named refs, the subtree unchanged but
for the root `metadata.json` (session paths made relative to the checkpoint, `checkpoint_version` dropped).
Entire pushes and fetches the refs one by one under their own names (no remote-tracking copies); `git fetch
origin 'refs/entire/checkpoints/*:refs/entire/checkpoints/*'` brings them all. Entire reads a checkpoint
from its ref first and from the branch only when no ref holds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..git.repo import CAT_BATCH, Repository

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
