"""Reading git blobs as streams: memory stays bounded by a piece, whatever size the objects have (a few KiB of
packed objects can inflate to hundreds of MiB)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

from ..core.errors import GitError
from .repo import Repository

PIECE = 1 << 20  # bytes read from git at a time


def blob_pieces(repo: Repository, oid: str) -> Iterator[bytes]:
    """The bytes of blob `oid` in pieces of at most `PIECE`, streamed from `git cat-file blob`; raises
    GitError when it is not a blob of the repository."""
    with subprocess.Popen(
        ["git", "cat-file", "blob", "--end-of-options", oid],
        cwd=repo.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdout is not None
        while piece := proc.stdout.read(PIECE):
            yield piece
    if proc.returncode != 0:
        raise GitError(f"{oid} is not a blob of this repository.")


def blob_heads(repo: Repository, oids: list[str], limit: int) -> dict[str, bytes]:
    """{blob id: its first `limit` bytes} for each distinct blob of `oids`, from one `git cat-file --batch`
    read as a stream: the rest of each blob is read and dropped a piece at a time, so memory stays near
    `limit` per blob whatever their sizes (the head of an Entire transcript was read whole to sniff 64 KiB
    of it). Missing objects and objects that are not blobs are left out."""
    heads: dict[str, bytes] = {}
    wanted = [oid for oid in dict.fromkeys(oids) if "\n" not in oid]
    if not wanted:
        return heads
    # Without --buffer git flushes after each object: one name written, one object read, no pipe fills up.
    with subprocess.Popen(
        ["git", "cat-file", "--batch"],
        cwd=repo.root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for oid in wanted:
            proc.stdin.write(f"{oid}\n".encode())
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) != 3 or not header[2].isdigit():
                continue  # "<name> missing" (or ambiguous): no body follows
            size = int(header[2])
            head = proc.stdout.read(min(size, limit))
            left = size - len(head)
            while left > 0 and (dropped := proc.stdout.read(min(left, PIECE))):
                left -= len(dropped)
            proc.stdout.read(1)  # the newline after each object
            if header[1] == b"blob":
                heads[oid] = head
        proc.stdin.close()
    return heads
