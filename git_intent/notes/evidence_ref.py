"""The shared evidence store on `refs/intent/evidence`: one sealed blob per session, merged, forgotten.

The ref points at a single parentless commit whose tree is the whole store (docs/json.md):

    evidence/<agent>/<session id>.json   a session's redacted evidence (intent.share = evidence)
    sessions/<agent>/<session id>.json   a whole session, redacted (intent.share = sessions)
    commits/<sha[:2]>/<sha[2:]>          "<agent>/<session id>" lines: the sessions shared for a commit
    forgotten                            "<agent>/<session id>" lines: never shared again, dropped on merge
    memory/observations.json             the memory's observation log, redacted (git_intent.memory.share)

Every update writes a new parentless commit (compare-and-swap locally, `--force-with-lease` remotely), so
a session removed with `share --forget` leaves no reachable copy on the ref. Blobs are content-addressed:
a session shared by many commits is stored once. Session blobs come only from `redact.seal()`; the other
files hold ids and SHAs only, checked before they are written.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..core.errors import ShareError
from ..core.state_files import locked, private_dir
from ..git.repo import Repository, run_git
from ..redaction.redact import Sealed
from .fast_import import committer_identity
from .records import nesting

EVIDENCE_REF = "refs/intent/evidence"
LEVEL_DIRS = {"evidence": "evidence", "sessions": "sessions"}
FORGOTTEN = "forgotten"
_ID_TEXT = re.compile(r"[A-Za-z0-9._:/@+=-]*")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
# A shared blob is data other people wrote: one 60 MB message made `show` take 30 s and 392 MB, and
# JSON nested 200,000 deep crashed every reader. Larger blobs are not read; deeper documents are not used.
MAX_BLOB_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 32  # a real blob nests 5 deep (payload > messages > message > parts > part)
_LISTS = ("messages", "edits", "topics", "annotations")


def tracking_ref(remote: str) -> str:
    """Where `fetch` keeps REMOTE's copy of the store."""
    return f"refs/intent/remotes/{remote}/evidence"


def session_key(agent: str, session_id: str) -> str:
    """`<agent>/<session id>` with characters unsafe in a path replaced by `_`."""
    return f"{agent}/{_UNSAFE.sub('_', session_id)}"


def session_path(level: str, key: str) -> str:
    """The tree path of a session's blob at `level` (evidence | sessions)."""
    return f"{LEVEL_DIRS[level]}/{key}.json"


def commit_path(commit: str) -> str:
    """The tree path of a commit's marker."""
    return f"commits/{commit[:2]}/{commit[2:]}"


def split_session_path(path: str) -> tuple[str, str] | None:
    """`(level, key)` of a session blob path, or None for any other path."""
    level, _, rest = path.partition("/")
    if level in LEVEL_DIRS and rest.endswith(".json") and rest.count("/") == 1:
        return level, rest[:-5]
    return None


@contextmanager
def store_lock(repo: Repository) -> Iterator[None]:
    """Hold the repository-wide lock on store updates (`<git common dir>/intent/evidence.lock`)."""
    with locked(private_dir(repo.state_dir) / "evidence.lock"):
        yield


def ref_oid(repo: Repository, ref: str = EVIDENCE_REF) -> str | None:
    """The commit `ref` points at, or None when it does not exist."""
    oid = repo.git("rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False).strip()
    return oid or None


def read_entries(repo: Repository, ref: str = EVIDENCE_REF) -> tuple[str | None, dict[str, str]]:
    """`(commit, {path: blob oid})` of the store at `ref`; `(None, {})` when the ref does not exist."""
    oid = ref_oid(repo, ref)
    if oid is None:
        return None, {}
    entries: dict[str, str] = {}
    for row in repo.git("ls-tree", "-r", "-z", "--full-tree", oid).split("\0"):
        meta, _, path = row.partition("\t")
        parts = meta.split()
        if path and len(parts) == 3 and parts[1] == "blob":
            entries[path] = parts[2]
    return oid, entries


def read_blob(repo: Repository, oid: str) -> str:
    """A blob's text (UTF-8)."""
    return repo.git("cat-file", "blob", oid)


def read_payload(repo: Repository, oid: str) -> dict[str, Any] | None:
    """A session blob decoded, or None when it is not a readable git-intent evidence object
    (`load_payload`)."""
    return load_payload(repo, oid)[0]


def load_payload(repo: Repository, oid: str) -> tuple[dict[str, Any], None] | tuple[None, str]:
    """`(payload, None)` for a readable session blob, else `(None, problem)`: a phrase saying what is wrong
    ("is 61234567 bytes, over the 33554432-byte cap", "is not JSON", "nests deeper than 32 levels", "is not a
    git-intent evidence object", "has `messages` that is not a list of objects", "is missing"). Never raises
    for the blob's content: it comes from whoever pushed the ref."""
    data = _capped_blob(repo, oid)
    return (None, "is missing") if data is None else parse_payload(data)


def parse_payload(data: bytes) -> tuple[dict[str, Any], None] | tuple[None, str]:
    """`load_payload` on a blob's bytes (pure): the payload, or the phrase saying what is wrong."""
    if len(data) > MAX_BLOB_BYTES:
        return None, f"is over the {MAX_BLOB_BYTES}-byte cap"
    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except RecursionError:
        return None, f"nests deeper than {MAX_DEPTH} levels"
    except ValueError:
        return None, "is not JSON"
    if not isinstance(value, dict) or not str(value.get("schema", "")).startswith("git-intent-evidence/"):
        return None, "is not a git-intent evidence object"
    if nesting(value, MAX_DEPTH) > MAX_DEPTH:
        return None, f"nests deeper than {MAX_DEPTH} levels"
    for name in _LISTS:
        items = value.get(name, [])
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            return None, f"has `{name}` that is not a list of objects"
    if not all(isinstance(value.get(name), str) and value.get(name) for name in ("agent", "session_id")):
        return None, "names no agent or session id"
    return value, None


def bad_objects(repo: Repository) -> list[tuple[str, str, str]]:
    """`(ref:path, blob oid, problem)` of every session blob on `refs/intent/evidence` and the fetched
    copies (`refs/intent/remotes/*/evidence`) that `load_payload` refuses, for `doctor`."""
    refs = [
        EVIDENCE_REF,
        *repo.git("for-each-ref", "--format=%(refname)", "refs/intent/remotes/", check=False).split(),
    ]
    found: list[tuple[str, str, str]] = []
    checked: dict[str, str | None] = {}
    for ref in refs:
        for path, oid in sorted(read_entries(repo, ref)[1].items()):
            if split_session_path(path) is None:
                continue
            if oid not in checked:
                checked[oid] = load_payload(repo, oid)[1]
            problem = checked[oid]
            if problem:
                found.append((f"{ref}:{path}", oid, problem))
    return found


def _capped_blob(repo: Repository, oid: str) -> bytes | None:
    """At most MAX_BLOB_BYTES + 1 bytes of a blob (a longer one is never read whole), None when missing."""
    with subprocess.Popen(
        ["git", "cat-file", "blob", oid], cwd=repo.root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as proc:
        assert proc.stdout is not None
        data = proc.stdout.read(MAX_BLOB_BYTES + 1)
        if len(data) > MAX_BLOB_BYTES:
            proc.kill()
    return None if proc.returncode not in (0, -9) else data


def write_sealed(repo: Repository, sealed: Sealed) -> str:
    """Store redacted bytes as a blob; returns its oid. Only `Sealed` is accepted (the choke point)."""
    if not isinstance(sealed, Sealed):
        raise ShareError("Only sealed (redacted) evidence may be written to refs/intent/evidence.")
    return repo.git("hash-object", "-w", "--stdin", input_text=sealed.data.decode("utf-8")).strip()


def write_ids(repo: Repository, lines: set[str] | list[str]) -> str:
    """Store a list of ids (session keys) as a blob; refuses anything but id characters."""
    for line in lines:
        if not _ID_TEXT.fullmatch(line):
            raise ShareError(f"{line[:40]!r} is not an id; refusing to write it outside the redactor.")
    return repo.git(
        "hash-object", "-w", "--stdin", input_text="".join(f"{x}\n" for x in sorted(lines))
    ).strip()


def id_lines(repo: Repository, oid: str | None) -> set[str]:
    """The non-blank lines of an id-list blob (empty for None)."""
    return {line for line in read_blob(repo, oid).splitlines() if line.strip()} if oid else set()


def commit_entries(repo: Repository, entries: dict[str, str], old: str | None, message: str) -> str:
    """Write `entries` as the store's new tree in a parentless commit and move the ref from `old` to it
    (compare-and-swap). Returns the new commit. Raises ShareError when the ref moved meanwhile."""
    with tempfile.TemporaryDirectory(dir=repo.state_dir) as folder:
        env = {**os.environ, "GIT_INDEX_FILE": os.path.join(folder, "index")}
        listing = "".join(f"100644 blob {oid}\t{path}\n" for path, oid in sorted(entries.items()))
        run_git(["update-index", "--add", "--index-info"], repo.root, input_text=listing, env=env)
        tree = run_git(["write-tree"], repo.root, env=env).stdout.strip()
    new = repo.git(*committer_identity(repo), "commit-tree", tree, "-m", message).strip()
    if not repo.succeeds("update-ref", EVIDENCE_REF, new, old or "0" * 40):
        raise ShareError(
            f"{EVIDENCE_REF} moved while it was being updated; nothing was lost.",
            hint="Run the command again.",
        )
    return new


def sessions_in(entries: dict[str, str]) -> dict[str, dict[str, str]]:
    """`{key: {level: oid}}` of the session blobs in `entries`."""
    found: dict[str, dict[str, str]] = {}
    for path, oid in entries.items():
        split = split_session_path(path)
        if split:
            found.setdefault(split[1], {})[split[0]] = oid
    return found


def forget_sessions(repo: Repository, session_id: str) -> list[str]:
    """Remove every shared session whose id is `session_id` (or a unique prefix of it) from the store and
    list it as forgotten; returns the keys removed. Raises ShareError when none or several match."""
    with store_lock(repo):
        old, entries = read_entries(repo)
        keys = sorted(sessions_in(entries))
        exact = [k for k in keys if k.split("/", 1)[1] == _UNSAFE.sub("_", session_id)]
        found = exact or [k for k in keys if k.split("/", 1)[1].startswith(session_id)]
        if not found:
            raise ShareError(
                f"No shared session {session_id} is on {EVIDENCE_REF}.",
                hint="`git intent share` lists what is shared.",
            )
        if not exact and len(found) > 1:
            raise ShareError(f"The session id {session_id} is ambiguous: {', '.join(found)}.")
        gone = set(found)
        kept = {p: o for p, o in entries.items() if (split_session_path(p) or ("", ""))[1] not in gone}
        for path, oid in list(kept.items()):
            if path.startswith("commits/"):
                remaining = id_lines(repo, oid) - gone
                if remaining != id_lines(repo, oid):
                    kept[path] = write_ids(repo, remaining)
        kept[FORGOTTEN] = write_ids(repo, id_lines(repo, entries.get(FORGOTTEN)) | gone)
        commit_entries(repo, kept, old, f"git-intent: forget {', '.join(sorted(gone))}")
    return sorted(gone)
