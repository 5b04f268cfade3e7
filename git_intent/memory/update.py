"""Bringing the log up to date: every session of the repository observed offline (and by the model past its
threshold), citations checked, reversals marked, appended; then reflection, the project state and the
guard's index.

Incremental: `memory/observed.json` keeps, per session, how many messages each observer has read and the
files the session edited here; a session with no new message is not observed again. Appends dedupe by id,
so an update run twice writes nothing the second time.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from ..core.state_files import replace_file
from ..core.values import to_json
from ..git.repo import Repository
from ..notes.store import read_notes
from ..sessions.discovery import candidate_sessions
from ..sessions.path_mapping import PathMapper
from .citing import checked, shown
from .extract import extract
from .log import append_observations, log_path, memory_dir, memory_lock, read_log, view
from .observer import observe, observer_settings
from .reflect import derive_state, reflect
from .reversal import mark_reversals
from .share import shared_observations
from .stored import CURSOR, GUARD, STATE, load_json
from .values import MemoryUpdate, Observation, Remembered

DEFAULT_REFLECT_AT = 400  # live observations before the older half is folded


def update_memory(repo: Repository, *, use_model: bool = True) -> MemoryUpdate:
    """Observe every session of the repository not observed yet and append what was found; reflect and
    derive the state and the guard's index. Raises IntentError for a bad memory setting, OSError when the
    state folder cannot be written."""
    from ..config import setting

    settings = observer_settings(repo) if use_model else None
    reflect_at = int(setting(repo, "memoryReflectAt") or DEFAULT_REFLECT_AT)
    result = MemoryUpdate()
    with memory_lock(repo):
        folder = memory_dir(repo)
        cursor = load_json(folder / CURSOR)
        offline: dict[str, int] = cursor.setdefault("offline", {})
        by_model: dict[str, int] = cursor.setdefault("model", {})
        edited: dict[str, list[str]] = cursor.setdefault("edited", {})
        sessions = sorted(
            candidate_sessions(repo, None),
            key=lambda s: (s.started_at is None, s.started_at or datetime.min.replace(tzinfo=timezone.utc)),
        )
        files = _files(repo)
        mapper = PathMapper(repo.root, files, repo.worktrees)
        log = read_log(log_path(repo))
        earlier = view([*log, *shared_observations(repo)])
        have = {o.id for o in log}
        found: list[Observation] = []
        fresh = [s for s in sessions if offline.get(s.session_id, -1) != len(s.messages)]
        read, known = shown(fresh)
        for session in fresh:
            for raw in extract(session, mapper.to_repo, files):
                observation, dropped = checked(raw, read, known)
                result.dropped_citations += dropped
                if observation is not None and observation.id not in have:
                    found.append(observation)
            offline[session.session_id] = len(session.messages)
            edited[session.session_id] = sorted(
                {p for e in session.edits if (p := mapper.to_repo(e.path, session.cwd))}
            )
        result.offline = len(found)
        if settings is not None:
            observed = observe(settings, sessions, by_model)
            by_model.update(observed.cursor)
            result.model_calls, result.model_tokens = observed.calls, observed.tokens
            result.dropped_citations += observed.dropped
            result.model_skipped = observed.skipped
            models = [_repo_paths(o, files) for o in observed.observations if o.id not in have]
            result.model = len(models)
            found += models
        else:
            result.model_skipped = "no model is configured (intent.memoryModel or intent.model)"
        found.sort(
            key=lambda o: (o.observed_at is None, o.observed_at or datetime.min.replace(tzinfo=timezone.utc))
        )
        result.appended = append_observations(repo, mark_reversals(found, earlier))
        log = read_log(log_path(repo))
        folded = reflect(view(log), reflect_at)
        if folded:
            result.reflected = True
            append_observations(repo, folded)
            log = read_log(log_path(repo))
        current = view([*log, *shared_observations(repo)])
        result.sessions = len(sessions)
        result.log_lines = len(log)
        state = to_json(derive_state(current, len(log)))
        replace_file(folder / STATE, json.dumps(state, indent=1).encode())
        replace_file(folder / GUARD, json.dumps(_guard_index(repo, current, edited)).encode())
        replace_file(folder / CURSOR, json.dumps(cursor).encode())
    return result


def _guard_index(repo: Repository, current: list[Remembered], edited: dict[str, list[str]]) -> dict[str, Any]:
    """What the edit guard reads (stdlib JSON, `guard.py`): the live observations with the sessions they
    cite, and each noted commit's line ranges with their sessions, for blame's answer without pydantic."""
    lines: dict[str, list[list[Any]]] = {}
    for commit, note in read_notes(repo).items():
        for record in note.lines:
            if record.session_id:
                lines.setdefault(commit, []).append(
                    [record.path, record.start, record.end, record.session_id]
                )
    return {
        "version": 1,
        "observations": [
            {
                "id": o.id,
                "kind": o.kind,
                "text": o.text,
                "paths": o.paths,
                "citations": o.citations,
                "sessions": sorted({c.split(":", 1)[0] for c in o.citations}),
                "observed_at": o.observed_at.isoformat() if o.observed_at else "",
            }
            for o in current
            if o.superseded_by is None
        ],
        "edited": edited,
        "lines": lines,
    }


def _repo_paths(observation: Observation, files: frozenset[str]) -> Observation:
    """A model's observation with only paths of this repository (a suffix naming one file counts)."""
    kept = []
    for path in observation.paths:
        hits = [f for f in files if f == path.strip("/") or f.endswith("/" + path.strip("/"))]
        if len(hits) == 1:
            kept.append(hits[0])
    return replace(observation, paths=sorted(set(kept)))


def _files(repo: Repository) -> frozenset[str]:
    return repo.tree_files("HEAD") if repo.succeeds("rev-parse", "-q", "--verify", "HEAD") else frozenset()


__all__ = ["update_memory"]
