"""The log on the shared evidence store: one sealed blob, `memory/observations.json` on
`refs/intent/evidence`, so a teammate's agent sees the same memory after `git intent fetch`.

Written at `git intent push` when `intent.share` is evidence or sessions, through the one redaction
choke point (`redact.seal`); read back as observations of source "shared". Merging two stores takes the
union by id (`share/merge.py`).
"""

from __future__ import annotations

import json
from typing import Any

from ..core.values import validate
from ..git.repo import Repository
from ..notes import evidence_ref as store
from .log import log_path, read_log, to_row
from .values import Observation

MEMORY_PATH = "memory/observations.json"
SCHEMA = "git-intent-memory/1"


def share_memory(repo: Repository) -> int:
    """Put this clone's log (with what was shared before) on the store, sealed; returns how many
    observations the shared blob holds (0 when there is nothing to share). Raises RedactionError (nothing
    written) when redaction fails, ShareError when the store moved meanwhile."""
    from ..redaction.redact import seal  # re2 and the rule data: only when something is shared

    mine = read_log(log_path(repo))
    if not mine:
        return 0
    with store.store_lock(repo):
        old, entries = store.read_entries(repo)
        shared = _payload_observations(repo, entries.get(MEMORY_PATH))
        merged = {o["id"]: o for o in shared if isinstance(o.get("id"), str)}
        for o in mine:
            merged.setdefault(o.id, to_row(o))
        payload = {"schema": SCHEMA, "observations": sorted(merged.values(), key=lambda o: o["id"])}
        oid = store.write_sealed(repo, seal(payload))
        if entries.get(MEMORY_PATH) != oid:
            entries[MEMORY_PATH] = oid
            store.commit_entries(repo, entries, old, f"git-intent: share memory ({len(merged)} observations)")
    return len(merged)


def shared_observations(repo: Repository) -> list[Observation]:
    """The observations on the local store (yours and fetched ones), as source "shared"; unreadable ones
    are skipped (someone else wrote them)."""
    oid = store.read_entries(repo)[1].get(MEMORY_PATH) if store.ref_oid(repo) else None
    if oid is None:
        return []
    from pydantic import ValidationError  # someone else wrote it: pydantic checks it

    found: list[Observation] = []
    for item in _payload_observations(repo, oid):
        try:
            found.append(validate(Observation, {**item, "source": "shared"}))
        except ValidationError:
            continue
    return found


def _payload_observations(repo: Repository, oid: str | None) -> list[dict[str, Any]]:
    if oid is None:
        return []
    try:
        value = json.loads(store.read_blob(repo, oid))
    except ValueError:
        return []
    if not isinstance(value, dict) or value.get("schema") != SCHEMA:
        return []
    items = value.get("observations")
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []
