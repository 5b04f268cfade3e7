"""What a sharing level puts on the evidence ref for recorded commits, built from this machine's sessions.

`evidence`: for each recorded commit, the messages that explain its agent lines — the user
message that asked, the assistant's text and reasoning around each edit, the edit itself, the topic
summary and the annotations of those turns — never tool outputs (command output, file reads), where most
secrets live. `sessions`: the whole session. Both pass through `redact.seal()`; lines identical to the
commits' own diff lines are left as they are (they are already in the repository).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config import setting
from ..core.errors import IntentError
from ..core.values import MOVE_KINDS, Edit, Message, Session, TurnAnnotation, to_json
from ..explain.evidence import find_edit, gather_evidence
from ..git.repo import Repository
from ..notes import LinesRecord, note_blobs, read_notes
from ..notes import evidence_ref as store
from ..redaction.redact import seal
from ..sessions.discovery import find_session

LEVELS = ("notes", "evidence", "sessions")
SCHEMA = "git-intent-evidence/1"


@dataclass
class ShareResult:
    """What one sharing pass did: commits marked shared, session blobs written, sessions without a
    transcript here (their commits are tried again at the next push), and redactions by rule."""

    commits: int = 0
    sessions: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    redactions: dict[str, int] = field(default_factory=dict)


def share_level(repo: Repository) -> str:
    """`intent.share` (env GIT_INTENT_SHARE first): notes (default) | evidence | sessions.

    Raises IntentError for any other value."""
    level = (setting(repo, "share") or "notes").strip().lower()
    if level not in LEVELS:
        raise IntentError(
            f"intent.share must be one of {', '.join(LEVELS)}, not {level!r}.",
            hint="git config intent.share evidence",
        )
    return level


def noted_commits(repo: Repository) -> dict[str, str]:
    """`{commit: note blob}` for every note on refs/notes/git-intent."""
    return note_blobs(repo)


def note_records(repo: Repository, blobs: dict[str, str]) -> dict[str, list[LinesRecord]]:
    """`{commit: lines records}` of the notes on the commits of `blobs` (unreadable notes give none)."""
    return {commit: note.lines for commit, note in read_notes(repo, blobs).items()}


def diff_lines(repo: Repository, commits: list[str]) -> frozenset[str]:
    """Stripped added and removed lines of each commit's diff (commits absent here are skipped)."""
    lines: set[str] = set()
    for commit in commits:
        proc = repo.git(
            "diff-tree", "-p", "-U0", "--no-color", "--no-ext-diff", "--root", commit, check=False
        )
        for line in proc.splitlines():
            if line[:1] in "+-" and not line.startswith(("+++", "---")) and line[1:].strip():
                lines.add(line[1:].strip())
    return frozenset(lines)


def local_session(repo: Repository, agent: str, session_id: str) -> Session | None:
    """The session from this machine's transcripts or backup (never the shared store), or None."""
    try:
        session = find_session(repo, session_id, agent, exact=True, shared=False)
    except IntentError:
        return None
    return session


def _message(message: Message, kinds: tuple[str, ...]) -> dict[str, Any]:
    return {
        "message_id": message.message_id,
        "role": message.role,
        "timestamp": message.timestamp.isoformat() if message.timestamp else None,
        "is_prompt": message.is_prompt,
        "is_summary": message.is_summary,
        "model": message.model,  # the org view counts lines by model; an id, never prose
        "redacted": False,
        "parts": [
            {"kind": p.kind, "text": p.text, "tool": p.tool, "call_id": p.call_id, "is_error": p.is_error}
            for p in message.parts
            if p.kind in kinds
        ],
    }


def _edit(edit: Edit, path: str | None) -> dict[str, Any]:
    return {
        "message_id": edit.message_id,
        "call_id": edit.call_id,
        "tool": edit.tool,
        "path": path or edit.path,
        "kind": edit.kind,
        "timestamp": edit.timestamp.isoformat() if edit.timestamp else None,
        "old_text": edit.old_text,
        "new_text": edit.new_text,
        "redacted": False,
        "added": [{"text": a.text, "line": a.line} for a in edit.added],
    }


def build_payload(
    session: Session,
    records: list[LinesRecord],
    commits: list[str],
    level: str,
    annotations: Sequence[TurnAnnotation] = (),
) -> dict[str, Any]:
    """The unsealed blob content of `session` at `level` for the lines `records` credit to it, with the
    per-turn annotations a model or the agent wrote (`annotations`: those stored in the index) of the turns
    whose messages it shares; offline ones are not carried (a reader derives them from the shared, redacted
    messages)."""
    from ..fidelity.annotations import effective_annotations, session_turns
    from ..fidelity.topics import segment_topics

    edits: dict[tuple[str, str | None, str], dict[str, Any]] = {}
    wanted: set[str] = set()
    for record in records:
        edit = find_edit(session, record.message_id, record.call_id, record.path)
        wanted |= {e.message_id for e in gather_evidence(session, record.message_id, edit, record.path)}
        if edit is not None:
            edits[(edit.message_id, edit.call_id, record.path)] = _edit(edit, record.path)
    if level == "sessions":
        messages = [_message(m, ("text", "reasoning", "tool_call", "tool_result")) for m in session.messages]
        for edit in session.edits:
            # A move or copy adds no line to explain, and an older reader refuses its kind (the whole
            # blob with it): it is not shared.
            if edit.kind not in MOVE_KINDS:
                edits.setdefault((edit.message_id, edit.call_id, edit.path), _edit(edit, None))
    else:
        messages = [_message(m, ("text", "reasoning")) for m in session.messages if m.message_id in wanted]
    shared = {m["message_id"] for m in messages}
    segmented = segment_topics(session)
    turns = {t.turn_id: set(t.message_ids) for t in session_turns(session)}
    topics = [
        {
            "topic_id": t.topic_id,
            "label": t.label,
            "summary": t.summary,
            "first_message_id": t.message_ids[0] if t.message_ids else None,
            "last_message_id": t.message_ids[-1] if t.message_ids else None,
        }
        for t in segmented
        if shared & set(t.message_ids)
    ]
    carried = [
        a
        for a in effective_annotations(session, annotations, segmented)
        if a.source != "offline" and shared & turns.get(a.turn_id, set())
    ]
    return {
        "schema": SCHEMA,
        "level": level,
        "agent": session.agent,
        "session_id": session.session_id,
        "agent_version": session.agent_version,
        "commits": sorted(set(commits)),
        "topics": topics,
        "annotations": [to_json(a) for a in _safe_labels(session, carried)],
        "messages": messages,
        "edits": list(edits.values()),
    }


def _safe_labels(session: Session, carried: list[TurnAnnotation]) -> list[TurnAnnotation]:
    """`carried` with every topic label that holds a word of a secret in the session replaced: a snake_case
    label (`pgpassword_drprm42`) is a form of the secret the redactor does not know, so seal() cannot."""
    if not carried:
        return carried
    import re
    from dataclasses import replace

    from ..redaction.redact import redact_text

    words: set[str] = set()
    for message in session.messages:
        for part in message.parts:
            found = redact_text(part.text)
            for finding in found.findings:
                words |= {w for w in re.findall(r"[a-z0-9]+", part.text[finding.start : finding.end].lower())}
    secret = {w for w in words if len(w) >= 3}
    return [replace(a, topic="redacted_topic") if secret & set(a.topic.split("_")) else a for a in carried]


def share_commits(repo: Repository, commits: list[str], level: str) -> ShareResult:
    """Put the evidence of `commits` (recorded ones) on the store at `level`, under the store lock.

    Commits already marked shared are skipped, unless `level` is `sessions` and one of their sessions is
    shared only as evidence. Raises RedactionError (nothing written) when redaction fails.
    """
    from ..index.annotations import stored_annotations

    result = ShareResult()
    if level not in ("evidence", "sessions"):
        return result
    notes = noted_commits(repo)
    with store.store_lock(repo):
        old, entries = store.read_entries(repo)
        shared = store.sessions_in(entries)
        forgotten = store.id_lines(repo, entries.get(store.FORGOTTEN))

        def pending(commit: str) -> bool:
            marker = entries.get(store.commit_path(commit))
            if marker is None:
                return True
            return level == "sessions" and any(
                "sessions" not in shared.get(k, {}) and k not in forgotten
                for k in store.id_lines(repo, marker)
            )

        todo = [c for c in dict.fromkeys(commits) if c in notes and pending(c)]
        if not todo:
            return result
        records = note_records(repo, {c: notes[c] for c in todo})
        by_session: dict[str, list[str]] = {}
        sessions: dict[str, tuple[str, str]] = {}
        for commit in todo:
            for record in records.get(commit, []):
                key = store.session_key(record.agent, record.session_id)
                sessions[key] = (record.agent, record.session_id)
                by_session.setdefault(key, [])
                if commit not in by_session[key]:
                    by_session[key].append(commit)
        done: set[str] = set()
        for key, (agent, session_id) in sessions.items():
            if key in forgotten:
                done.add(key)
                continue
            session = local_session(repo, agent, session_id)
            if session is None:
                result.missing.append(key)
                continue
            all_commits = set(by_session[key])
            for oid in shared.get(key, {}).values():
                payload = store.read_payload(repo, oid)
                all_commits |= set(payload.get("commits", [])) if payload else set()
            all_commits &= set(notes)
            more = note_records(repo, {c: notes[c] for c in all_commits if c not in records})
            wanted = [
                r
                for c in sorted(all_commits)
                for r in {**records, **more}.get(c, [])
                if r.session_id == session_id and r.agent == agent
            ]
            stored = [s.annotation for s in stored_annotations(repo, agent, session_id)]
            sealed = seal(
                build_payload(session, wanted, sorted(all_commits), level, stored),
                keep=diff_lines(repo, sorted(all_commits)),
            )
            for rule, count in sealed.rules.items():
                result.redactions[rule] = result.redactions.get(rule, 0) + count
            for other in store.LEVEL_DIRS:
                entries.pop(store.session_path(other, key), None)
            entries[store.session_path(level, key)] = store.write_sealed(repo, sealed)
            result.sessions.append(key)
            done.add(key)
        for commit in todo:
            keys = {store.session_key(r.agent, r.session_id) for r in records.get(commit, [])}
            if keys <= done:
                entries[store.commit_path(commit)] = store.write_ids(repo, keys - forgotten)
                result.commits += 1
        if result.commits or result.sessions:
            store.commit_entries(repo, entries, old, f"git-intent: share {result.commits} commit(s)")
    return result
