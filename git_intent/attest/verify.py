"""Checking a range's attestations (`git intent verify`): each envelope's signature by a key of the
allowed-signers file, its statement against the commit (subjects) and the current note (records digest),
and the evidence it cites against refs/intent/evidence as it is now.

A commit passes when one of its envelopes passes every check. A commit whose note credits agent lines
needs one; a commit without agent lines and without an attestation needs none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import Key, Signature

from ..git.repo import Repository
from ..notes import Note, read_notes
from .make import range_commits
from .ssh import AllowedSignerKey, principals_of, ssh_program
from .statement import PAYLOAD_TYPE, EvidenceReader, Statement, Subject, commit_subjects, note_digest
from .store import read_attestations

FailureKind = Literal[
    "no-attestation",
    "malformed",
    "unsigned",
    "unknown-signer",
    "bad-signature",
    "other-commit",
    "other-files",
    "tampered-note",
    "swapped-evidence",
]
Status = Literal["verified", "failed", "not-required"]


class Failure(BaseModel):
    """One reason a commit's attestation does not hold: `kind`, and a sentence saying what differs."""

    kind: FailureKind
    message: str


class CommitVerdict(BaseModel):
    """A commit's result: `verified` (an envelope passed every check: `signers` are the principals that
    signed it), `failed` (`failures`, from every envelope), or `not-required` (no agent lines, no
    attestation)."""

    commit: str
    status: Status
    signers: list[str] = []
    failures: list[Failure] = []


class VerifyReport(BaseModel):
    """`git intent verify RANGE --json`: the allowed-signers file used and each commit's verdict, oldest
    first; `ok` when no commit failed."""

    allowed_signers: str
    ok: bool
    commits: list[CommitVerdict]


class _Checker:
    def __init__(self, repo: Repository, allowed: Path, commits: list[str]) -> None:
        self.repo = repo
        self.allowed = allowed
        self.program = ssh_program(repo)
        self.notes: dict[str, Note] = read_notes(repo, commits)
        self.subjects = commit_subjects(repo, commits)
        self.evidence = EvidenceReader(repo)
        # keyid -> principals: found once per key; `ssh-keygen -Y verify` then checks every signature, and the
        # key it reports must be the keyid claimed.
        self.principals: dict[str, list[str]] = {}

    def envelope(self, commit: str, line: str) -> tuple[list[str], list[Failure]]:
        """(the principals whose signature holds, the failures) of one envelope line on `commit`."""
        try:
            envelope = Envelope.from_dict(json.loads(line))
            statement = Statement.model_validate_json(envelope.payload)
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            return [], [Failure(kind="malformed", message=f"its attestation is not a DSSE envelope ({exc}).")]
        if envelope.payload_type != PAYLOAD_TYPE:
            return [], [
                Failure(kind="malformed", message=f"its envelope's payload type is {envelope.payload_type}.")
            ]
        signers, failures = self.signature(envelope)
        return signers, failures + self.content(commit, statement)

    def signature(self, envelope: Envelope) -> tuple[list[str], list[Failure]]:
        if not envelope.signatures:
            return [], [Failure(kind="unsigned", message="its attestation is unsigned.")]
        failures: list[Failure] = []
        for signature in envelope.signatures.values():
            principals = self._principals(signature)
            if not principals:
                failures.append(
                    Failure(
                        kind="unknown-signer",
                        message=f"its attestation is signed by {signature.keyid}, which {self.allowed} "
                        "does not allow.",
                    )
                )
                continue
            keys: list[Key] = [
                AllowedSignerKey(
                    signature.keyid, principal=p, allowed_signers=self.allowed, program=self.program
                )
                for p in principals
            ]
            try:
                accepted = envelope.verify(keys, 1)
            except VerificationError:
                failures.append(
                    Failure(
                        kind="bad-signature",
                        message=f"the signature by {signature.keyid} does not verify: the envelope was "
                        "altered after it was signed.",
                    )
                )
                continue
            return [k.principal for k in accepted.values() if isinstance(k, AllowedSignerKey)], []
        return [], failures

    def _principals(self, signature: Signature) -> list[str]:
        if signature.keyid not in self.principals:
            self.principals[signature.keyid] = principals_of(self.program, self.allowed, signature)
        return self.principals[signature.keyid]

    def content(self, commit: str, statement: Statement) -> list[Failure]:
        named = [s.digest.get("gitCommit") for s in statement.subject if "gitCommit" in s.digest]
        if named != [commit] or statement.predicate.commit != commit:
            other = next((n for n in named if n != commit), statement.predicate.commit)
            return [Failure(kind="other-commit", message=f"its statement is for another commit ({other}).")]
        failures: list[Failure] = []
        if _files(statement.subject) != _files(self.subjects[commit]):
            failures.append(
                Failure(kind="other-files", message="its statement's files differ from the commit's.")
            )
        note = self.notes.get(commit)
        if statement.predicate.note.sha256 != note_digest(note):
            attested, now = len(statement.predicate.note.records), len(note.records) if note else 0
            failures.append(
                Failure(
                    kind="tampered-note",
                    message=f"its note differs from the attested one ({attested} records attested, "
                    f"{now} now).",
                )
            )
        for cited in statement.predicate.evidence:
            if cited.shared is None:
                continue
            now_shared = self.evidence.shared(cited.agent, cited.session_id)
            if now_shared is None:
                failures.append(
                    Failure(
                        kind="swapped-evidence",
                        message=f"the evidence of session {cited.session_id} ({cited.shared.path}) is no "
                        "longer shared.",
                    )
                )
                continue
            changed = sorted(m for m, d in cited.shared.messages.items() if now_shared.messages.get(m) != d)
            if changed:
                failures.append(
                    Failure(
                        kind="swapped-evidence",
                        message=f"the evidence of session {cited.session_id} ({now_shared.path}) differs "
                        f"from the attested: message {changed[0]}"
                        + (f" and {len(changed) - 1} more" if len(changed) > 1 else "")
                        + ".",
                    )
                )
        return failures


def _files(subjects: list[Subject]) -> list[tuple[str, str]]:
    return sorted(
        (s.name, json.dumps(s.digest, sort_keys=True)) for s in subjects if "gitCommit" not in s.digest
    )


def verify_range(repo: Repository, revision_range: str, allowed_signers: Path) -> VerifyReport:
    """Check the attestations of every commit of `revision_range` against `allowed_signers` (ssh-keygen's
    ALLOWED SIGNERS format). Raises IntentError for a bad range, AttestationError when ssh-keygen cannot
    run."""
    commits = range_commits(repo, revision_range)
    found = read_attestations(repo, commits)
    checker = _Checker(repo, allowed_signers, commits)
    verdicts: list[CommitVerdict] = []
    for commit in commits:
        lines = found.get(commit, [])
        note = checker.notes.get(commit)
        if not lines:
            if note is not None and note.lines:
                failure = Failure(
                    kind="no-attestation", message=f"its {len(note.lines)} agent ranges have no attestation."
                )
                verdicts.append(CommitVerdict(commit=commit, status="failed", failures=[failure]))
            else:
                verdicts.append(CommitVerdict(commit=commit, status="not-required"))
            continue
        failures: list[Failure] = []
        for line in lines:
            signers, problems = checker.envelope(commit, line)
            if signers and not problems:
                verdicts.append(CommitVerdict(commit=commit, status="verified", signers=signers))
                break
            failures += [p for p in problems if p not in failures]
        else:
            verdicts.append(CommitVerdict(commit=commit, status="failed", failures=failures))
    return VerifyReport(
        allowed_signers=str(allowed_signers),
        ok=all(v.status != "failed" for v in verdicts),
        commits=verdicts,
    )


def failure_lines(report: VerifyReport) -> list[str]:
    """One line per failure: `<commit 12> <kind>: <sentence>`."""
    return [f"{v.commit[:12]} {f.kind}: {f.message}" for v in report.commits for f in v.failures]
