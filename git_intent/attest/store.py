"""Where attestations live: the notes ref `refs/notes/git-intent-attestations`, one note per commit holding
one DSSE envelope per line (JSON Lines, as the in-toto bundle format, so `cat_sort_uniq` merges two clones'
attestations of one commit by keeping both lines).

Writes go through one `git fast-import` under `<git common dir>/intent/attestations.lock` and move the ref
only if it did not move meanwhile (fast-import's `from`); `push`/`fetch` carry the ref beside the notes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.errors import AttestationError
from ..core.state_files import locked, private_dir
from ..git.repo import Repository
from ..notes.fast_import import import_notes, merge_notes_ref, not_read_back
from ..notes.refs import ref_note_blobs

ATTESTATIONS_REF = "refs/notes/git-intent-attestations"


def tracking_ref(remote: str) -> str:
    """Where `fetch` keeps REMOTE's attestations."""
    return f"refs/notes/remotes/{remote}/git-intent-attestations"


def render_envelope(envelope: Mapping[str, Any]) -> str:
    """One envelope as one line of compact JSON with sorted keys (equal envelopes, equal lines)."""
    return json.dumps(envelope, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def envelope_digest(line: str) -> str:
    """sha256 (hex) of an envelope's line: how a carried attestation names the one it was carried from."""
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def read_attestations(repo: Repository, commits: Iterable[str] | None = None) -> dict[str, list[str]]:
    """commit -> the non-blank lines of its attestation note, for `commits` (default: every attested one);
    commits without one are absent. One `git notes list` and one `cat-file --batch`."""
    listed = ref_note_blobs(repo, ATTESTATIONS_REF)
    wanted = list(listed) if commits is None else [c for c in dict.fromkeys(commits) if c in listed]
    found: dict[str, list[str]] = {}
    for commit, (_, body) in zip(wanted, repo.cat_blobs([listed[c] for c in wanted]), strict=True):
        if body is not None:
            found[commit] = [line for line in body.decode("utf-8", "replace").splitlines() if line.strip()]
    return found


def signers_of(line: str) -> frozenset[str]:
    """The keyids an envelope line is signed with (empty: unsigned, or not an envelope)."""
    try:
        value = json.loads(line)
        return frozenset(str(s.get("keyid")) for s in value.get("signatures", []) if isinstance(s, dict))
    except (ValueError, AttributeError, TypeError, RecursionError):
        return frozenset()


def write_attestations(repo: Repository, envelopes: Mapping[str, str]) -> int:
    """Add each commit's envelope line (commit -> line) to its attestation note, replacing the lines signed
    by the same keys (an unsigned line replaces unsigned ones), keeping every other line (another signer's,
    another clone's). Returns how many notes changed. Raises AttestationError when fast-import fails (the
    ref moved meanwhile: run again) or a note does not read back as written."""
    if not envelopes:
        return 0
    with locked(private_dir(repo.state_dir) / "attestations.lock"):
        old = repo.git("rev-parse", "-q", "--verify", ATTESTATIONS_REF, check=False).strip()
        current = read_attestations(repo, envelopes)
        texts: dict[str, str] = {}
        for commit, line in envelopes.items():
            mine = signers_of(line)
            kept = [other for other in current.get(commit, []) if signers_of(other) != mine and other != line]
            text = "".join(f"{x}\n" for x in sorted({*kept, line}))
            if text != "".join(f"{x}\n" for x in current.get(commit, [])):
                texts[commit] = text
        if not texts:
            return 0
        failed = import_notes(repo, ATTESTATIONS_REF, texts, old, "attestations")
        if failed is not None:
            raise AttestationError(
                f"git fast-import could not write {len(texts)} attestations: {failed}.",
                hint="Run the command again.",
            )
        wrong = not_read_back(repo, ATTESTATIONS_REF, texts)
        if wrong:
            raise AttestationError(f"{len(wrong)} attestations did not read back as written.")
        return len(texts)


def merge_attestations(repo: Repository, ref: str) -> bool:
    """Merge the attestation notes at `ref` (a remote's, fetched) into ATTESTATIONS_REF with cat_sort_uniq;
    True when the local ref moved. Raises ShareError when git cannot merge them."""
    with locked(private_dir(repo.state_dir) / "attestations.lock"):
        return merge_notes_ref(repo, ATTESTATIONS_REF, ref, "attestations")
