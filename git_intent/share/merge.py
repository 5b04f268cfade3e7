"""Merging two evidence stores (ours and a remote's): a union that never loses a session or a commit.

Forgotten sessions (either side's `forgotten` list) are dropped from both. A session present on both
sides with different blobs is merged message by message (the higher level's copy first) and sealed
again: text only ever enters the store through `redact.seal()`.
"""

from __future__ import annotations

import json
from typing import Any

from ..git.repo import Repository
from ..notes import evidence_ref as store
from ..redaction.redact import seal
from .collect import diff_lines

MEMORY_DIR = "memory/"  # the observation log (git_intent.memory.share), merged as a union by id


def merge_payloads(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """The union of two blobs of one session: messages by id, edits by (message, call, path), commits
    and topics; the result has the higher level, and `first`'s copy of anything both hold."""
    order = {"evidence": 0, "sessions": 1}
    if order.get(second.get("level", ""), 0) > order.get(first.get("level", ""), 0):
        first, second = second, first
    merged = dict(first)
    ids = {m.get("message_id") for m in first.get("messages", [])}
    extra = [m for m in second.get("messages", []) if m.get("message_id") not in ids]
    merged["messages"] = sorted([*first.get("messages", []), *extra], key=lambda m: m.get("timestamp") or "")
    edit_ids = {(e.get("message_id"), e.get("call_id"), e.get("path")) for e in first.get("edits", [])}
    merged["edits"] = [
        *first.get("edits", []),
        *(
            e
            for e in second.get("edits", [])
            if (e.get("message_id"), e.get("call_id"), e.get("path")) not in edit_ids
        ),
    ]
    topic_ids = {t.get("topic_id") for t in first.get("topics", [])}
    merged["topics"] = [
        *first.get("topics", []),
        *(t for t in second.get("topics", []) if t.get("topic_id") not in topic_ids),
    ]
    merged["commits"] = sorted({*first.get("commits", []), *second.get("commits", [])})
    return merged


def merge_entries(repo: Repository, ours: dict[str, str], theirs: dict[str, str]) -> dict[str, str]:
    """The merged tree entries of two stores. Raises RedactionError when a merged blob cannot be sealed."""
    forgotten = store.id_lines(repo, ours.get(store.FORGOTTEN)) | store.id_lines(
        repo, theirs.get(store.FORGOTTEN)
    )
    out: dict[str, str] = {}
    if forgotten:
        out[store.FORGOTTEN] = store.write_ids(repo, forgotten)
    mine, other = store.sessions_in(ours), store.sessions_in(theirs)
    for key in sorted(set(mine) | set(other)):
        if key in forgotten:
            continue
        copies = {**other.get(key, {}), **mine.get(key, {})}
        blobs = set(mine.get(key, {}).values()) | set(other.get(key, {}).values())
        level = "sessions" if "sessions" in copies else "evidence"
        if len(blobs) == 1:
            out[store.session_path(level, key)] = blobs.pop()
            continue
        payloads = [p for p in (store.read_payload(repo, oid) for oid in sorted(blobs)) if p is not None]
        if not payloads:
            continue
        merged = payloads[0]
        for payload in payloads[1:]:
            merged = merge_payloads(merged, payload)
        level = str(merged.get("level", level))
        commits = [c for c in merged.get("commits", []) if isinstance(c, str)]
        out[store.session_path(level, key)] = store.write_sealed(
            repo, seal(merged, keep=diff_lines(repo, commits))
        )
    for path in sorted({p for p in (*ours, *theirs) if p.startswith(MEMORY_DIR)}):
        out[path] = _merged_memory(repo, ours.get(path), theirs.get(path))
    for path in sorted({p for p in (*ours, *theirs) if p.startswith("commits/")}):
        mine_oid, their_oid = ours.get(path), theirs.get(path)
        if mine_oid == their_oid or (not forgotten and (not mine_oid or not their_oid)):
            out[path] = mine_oid or their_oid or ""  # the common case: no blob to read
            continue
        keys = (store.id_lines(repo, mine_oid) | store.id_lines(repo, their_oid)) - forgotten
        out[path] = store.write_ids(repo, keys)
    return out


def _merged_memory(repo: Repository, mine: str | None, theirs: str | None) -> str:
    """One shared observation log blob: either side's when they are equal or one is absent, else the
    union of their observations by id (ours first), sealed again."""
    if not mine or not theirs or mine == theirs:
        return mine or theirs or ""
    merged: dict[str, Any] = {}
    schema = None
    for oid in (mine, theirs):
        try:
            value = json.loads(store.read_blob(repo, oid))
        except ValueError:
            continue
        if not isinstance(value, dict) or not isinstance(value.get("observations"), list):
            continue
        schema = schema or value.get("schema")
        for item in value["observations"]:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                merged.setdefault(item["id"], item)
    payload = {"schema": schema, "observations": sorted(merged.values(), key=lambda o: str(o["id"]))}
    return store.write_sealed(repo, seal(payload))


def merge_store(repo: Repository, theirs_ref: str) -> bool:
    """Merge the store at `theirs_ref` into refs/intent/evidence; True when the local store changed."""
    with store.store_lock(repo):
        old, ours = store.read_entries(repo)
        _, theirs = store.read_entries(repo, theirs_ref)
        merged = merge_entries(repo, ours, theirs)
        if merged == ours and old is not None:
            return False
        store.commit_entries(repo, merged, old, "git-intent: merge shared evidence")
        return True
