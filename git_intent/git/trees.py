"""Listing many trees in a few git calls: `git ls-tree` reads one tree a call, and a repository keeping one
ref per record (Entire's per-checkpoint refs) holds thousands of them."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from .repo import CAT_BATCH, Repository

_TREE_MODE = b"40000"
_BLOB_MODES = (b"100644", b"100755", b"100664", b"120000")  # as `ls-tree` lists blobs (links are blobs too)


@dataclass(frozen=True)
class TreeFile:
    """A blob of a tree: its path from the tree's root ('/'-separated), its id and its size in bytes."""

    path: str
    oid: str
    size: int


def list_trees(repo: Repository, trees: Sequence[str], depth: int) -> dict[str, list[TreeFile]]:
    """{tree id: its blobs down to `depth` levels (1: the tree's own files; 2: those of its subtrees too)} for
    each distinct tree of `trees`, in the order `git ls-tree -r -l` lists them, through one
    `git cat-file --batch` per level and one `--batch-check` for the sizes, whatever the number of trees.

    An id that is missing or not a tree lists as []; gitlinks are left out. Never raises on what git answers;
    OSError when git cannot be started.
    """
    files: dict[str, list[tuple[str, str]]] = {tree: [] for tree in dict.fromkeys(trees) if "\n" not in tree}
    level: dict[str, list[tuple[str, str]]] = {tree: [(tree, "")] for tree in files}
    for _ in range(depth):
        if not level:
            break
        below: dict[str, list[tuple[str, str]]] = {}
        for oid, data in _cat_trees(repo, list(level)).items():
            for mode, name, entry in _entries(data, len(oid) // 2):
                for root, prefix in level[oid]:
                    if mode == _TREE_MODE:
                        below.setdefault(entry, []).append((root, f"{prefix}{name}/"))
                    elif mode in _BLOB_MODES:
                        files[root].append((f"{prefix}{name}", entry))
        level = below
    sizes = _sizes(repo, list(dict.fromkeys(oid for listed in files.values() for _, oid in listed)))
    return {
        # Paths sorted as bytes are `ls-tree -r`'s order (git sorts a subtree as if its name ended in '/').
        tree: [
            TreeFile(path, oid, sizes[oid])
            for path, oid in sorted(listed, key=lambda f: f[0].encode())
            if oid in sizes
        ]
        for tree, listed in files.items()
    }


def _cat_trees(repo: Repository, oids: list[str]) -> dict[str, bytes]:
    """{id: raw tree object} for the ids of `oids` that are trees; any other object is left out unread."""
    found: dict[str, bytes] = {}
    for start in range(0, len(oids), CAT_BATCH):
        names = oids[start : start + CAT_BATCH]
        # `^{tree}` makes git answer "missing" for anything that is not a tree (a commit would peel to its
        # tree, so the id the answer names is checked too): no blob is ever sent here, whatever its size.
        proc = subprocess.run(
            ["git", "cat-file", "--batch=%(objectname) %(objecttype) %(objectsize)"],
            cwd=repo.root,
            input="".join(f"{name}^{{tree}}\n" for name in names).encode(),
            capture_output=True,
        )
        out, pos = proc.stdout, 0
        for name in names:
            newline = out.find(b"\n", pos)
            if newline < 0:
                break
            header = out[pos:newline].split()
            pos = newline + 1
            if len(header) != 3 or not header[2].isdigit():
                continue  # "<name> missing": no body follows
            size = int(header[2])
            if header[0].decode() == name and header[1] == b"tree":
                found[name] = out[pos : pos + size]
            pos += size + 1
    return found


def _entries(data: bytes, width: int) -> list[tuple[bytes, str, str]]:
    """(mode, name, id) of each entry of a raw tree object whose ids are `width` bytes; stops at damage."""
    entries: list[tuple[bytes, str, str]] = []
    pos = 0
    while pos < len(data):
        space = data.find(b" ", pos)
        nul = data.find(b"\0", space + 1)
        if space < 0 or nul < 0 or nul + 1 + width > len(data):
            break
        name = data[space + 1 : nul].decode("utf-8", "replace")
        entries.append((data[pos:space], name, data[nul + 1 : nul + 1 + width].hex()))
        pos = nul + 1 + width
    return entries


def _sizes(repo: Repository, oids: list[str]) -> dict[str, int]:
    """{blob id: its size in bytes} for the ids of `oids` git has as blobs (sizes only: no content read)."""
    sizes: dict[str, int] = {}
    for start in range(0, len(oids), CAT_BATCH):
        names = oids[start : start + CAT_BATCH]
        out = repo.git(
            "cat-file",
            "--batch-check=%(objectname) %(objecttype) %(objectsize)",
            input_text="".join(f"{name}\n" for name in names),
            check=False,
        )
        for line in out.splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[1] == "blob" and fields[2].isdigit():
                sizes[fields[0]] = int(fields[2])
    return sizes
