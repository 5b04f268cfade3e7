"""Making attestations: a range's commits (`git intent attest`), a commit whose records were carried from
attested ones (rewrites, cherry-picks, forge merges), and the in-toto bundle `export --format in-toto`
writes."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping

from pydantic import BaseModel
from securesystemslib.dsse import Envelope
from securesystemslib.signer import Signer

from ..core.errors import AttestationError, IntentError
from ..git.repo import Repository
from ..notes import NOTES_REF, Note, read_note, read_notes
from .ssh import signer_for
from .statement import (
    PAYLOAD_TYPE,
    CarriedFrom,
    EvidenceReader,
    Models,
    Statement,
    build_statement,
    commit_subjects,
)
from .store import envelope_digest, read_attestations, render_envelope, signers_of, write_attestations


class AttestResult(BaseModel):
    """What `attest` did: the commits attested now, those whose attestation by this signer already said the
    same, those skipped (no git-intent note), and the key that signed (its SHA256 fingerprint; None:
    unsigned)."""

    attested: list[str] = []
    unchanged: list[str] = []
    skipped: list[str] = []
    signer: str | None = None


def range_commits(repo: Repository, revision_range: str) -> list[str]:
    """The commits of `revision_range` (`git rev-list` syntax), oldest first. Raises IntentError for a range
    git does not understand or that names no commit."""
    commits = repo.git("rev-list", "--reverse", "--end-of-options", revision_range, "--", check=False).split()
    if not commits:
        raise IntentError(
            f"{revision_range!r} names no commits in this repository.",
            hint="Example: git intent attest main..",
        )
    return commits


def commit_dates(repo: Repository, commits: list[str]) -> dict[str, str]:
    """commit -> committer date (RFC 3339), in one `git log --no-walk --stdin`."""
    out = repo.git(
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "--format=%H %cI",
        input_text="".join(f"{c}\n" for c in commits),
    )
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def envelope_line(statement: Statement, signer: Signer | None) -> str:
    """The statement in a DSSE envelope (securesystemslib), signed by `signer` unless None, as one line."""
    envelope = Envelope(statement.payload(), PAYLOAD_TYPE, {})
    if signer is not None:
        envelope.sign(signer)
    return render_envelope(envelope.to_dict())


def attest_range(
    repo: Repository, revision_range: str, signer: Signer | None, models: Models | None = None
) -> AttestResult:
    """Attest every commit of `revision_range` that has a git-intent note: build its Statement and add the
    envelope, signed by `signer` (None: unsigned), to its note on refs/notes/git-intent-attestations,
    replacing this signer's earlier one. `models`: the model each credited message was written with.
    Raises IntentError for a bad range, AttestationError when signing or writing fails (nothing written)."""
    commits = range_commits(repo, revision_range)
    notes = {c: n for c, n in read_notes(repo, commits).items() if n.records}
    result = AttestResult(
        skipped=[c for c in commits if c not in notes], signer=signer.public_key.keyid if signer else None
    )
    noted = [c for c in commits if c in notes]
    subjects = commit_subjects(repo, noted)
    dates = commit_dates(repo, noted)
    evidence = EvidenceReader(repo)
    existing = read_attestations(repo, noted)
    mine = frozenset([result.signer]) if result.signer else frozenset()
    lines: dict[str, str] = {}
    for commit in noted:
        before = [line for line in existing.get(commit, []) if signers_of(line) == mine]
        carried = _carried_from(before)
        statement = build_statement(
            commit,
            notes[commit],
            subjects[commit],
            dates[commit],
            evidence,
            models=models,
            carried_from=carried,
            notes_ref=NOTES_REF,
        )
        if any(_payload(line) == statement.payload() for line in before):
            result.unchanged.append(commit)
            continue
        lines[commit] = envelope_line(statement, signer)
        result.attested.append(commit)
    write_attestations(repo, lines)
    return result


def attest_carried(repo: Repository, target: str, sources: Iterable[str]) -> bool:
    """When any of `sources` (the commits `target`'s records were carried from) is attested, attest `target`
    naming each of their envelopes, with the models they named, signed by git's signing key when one is
    set and usable without a terminal (else unsigned: `verify` says so). True when an attestation was
    written. Raises IntentError (AttestationError, NoteError) when it cannot be written."""
    found = read_attestations(repo, [s for s in sources if s != target])
    if not found:
        return False
    note = read_note(repo, target)
    if note is None or not note.records:
        return False
    try:
        signer = signer_for(repo, interactive=False)
    except AttestationError:
        signer = None
    carried = [
        CarriedFrom(commit=c, envelope_sha256=envelope_digest(line)) for c, ls in found.items() for line in ls
    ]
    statement = _statement(
        repo, target, note, carried, _models_named([x for ls in found.values() for x in ls])
    )
    try:
        line = envelope_line(statement, signer)
    except AttestationError:  # a key that needs a passphrase, no agent: the carrier's attestation is unsigned
        line = envelope_line(statement, None)
    return write_attestations(repo, {target: line}) > 0


def _statement(
    repo: Repository, commit: str, note: Note, carried: list[CarriedFrom], models: Models
) -> Statement:
    return build_statement(
        commit,
        note,
        commit_subjects(repo, [commit])[commit],
        commit_dates(repo, [commit])[commit],
        EvidenceReader(repo),
        models=models,
        carried_from=carried,
        notes_ref=NOTES_REF,
    )


def in_toto_bundle(repo: Repository, revision_range: str) -> tuple[list[str], list[str]]:
    """(the envelope lines of the range's commits, oldest first: an in-toto bundle, in-toto/attestation
    spec/v1/bundle.md; the commits with agent lines and no attestation). Raises IntentError for a bad
    range."""
    commits = range_commits(repo, revision_range)
    found = read_attestations(repo, commits)
    lines = [line for commit in commits for line in found.get(commit, [])]
    notes = read_notes(repo, [c for c in commits if c not in found])
    return lines, [c for c in commits if c not in found and c in notes and notes[c].lines]


def statement_of(line: str) -> Statement | None:
    """The Statement an envelope line carries, or None when it carries none that parses."""
    payload = _payload(line)
    try:
        return Statement.model_validate_json(payload) if payload else None
    except ValueError:
        return None


def _payload(line: str) -> bytes:
    try:
        value = json.loads(line)
        return base64.b64decode(value["payload"], validate=True)
    except (ValueError, KeyError, TypeError, RecursionError):  # a fetched line is anyone's
        return b""


def _carried_from(lines: list[str]) -> list[CarriedFrom]:
    """The attestations the commit's earlier envelope by the same signer named: kept when it is attested
    again."""
    for line in lines:
        statement = statement_of(line)
        if statement is not None:
            return statement.predicate.carried_from
    return []


def _models_named(lines: list[str]) -> Models:
    """(agent, session id, message id) -> model, as the Agent Trace records of `lines` name them."""
    named: dict[tuple[str, str], str] = {}
    for line in lines:
        statement = statement_of(line)
        trace = statement.predicate.agent_trace if statement else None
        if not trace:
            continue
        files = {f.get("path"): f.get("conversations", []) for f in trace.get("files", [])}
        for entry in trace.get("metadata", {}).get("git-intent", {}).get("conversations", []):
            try:
                model = files[entry["path"]][entry["conversation"]]["contributor"].get("model_id")
            except (KeyError, IndexError, TypeError, AttributeError):
                continue
            if isinstance(model, str):
                named.setdefault((str(entry.get("agent")), str(entry.get("session_id"))), model)
    return lambda agent, session_id, _message: named.get((agent, session_id))


def models_from(listing: Mapping[tuple[str, str], Mapping[str, str | None]]) -> Models:
    """A `Models` lookup from (agent, session id) -> {message id: model} (the record cache's listing)."""
    return lambda agent, session_id, message_id: listing.get((agent, session_id), {}).get(message_id)
