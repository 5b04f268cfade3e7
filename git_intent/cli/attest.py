"""Commands that sign and check provenance: attest, verify."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._base import cli, echo, open_repo, print_json


@cli.command()
@click.argument("revision_range", default="HEAD")
@click.option(
    "--key",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Sign with this SSH key file (default: user.signingKey when gpg.format is ssh).",
)
@click.option("--unsigned", is_flag=True, help="Write the statements without a signature.")
@click.option("--json", "as_json", is_flag=True, help="Print what was attested as JSON.")
def attest(revision_range: str, key: Path | None, unsigned: bool, as_json: bool) -> None:
    """Sign the provenance of every recorded commit of REVISION_RANGE (default HEAD; `main..` for a branch).

    Each commit with a git-intent note gets an in-toto Statement (v1) whose subjects are the commit and the
    files it touched (git object id and sha256), with the predicate https://git-intent.dev/provenance/v1:
    the note's records, an Agent Trace record of its agent ranges, and digests of the evidence they cite
    (docs/schemas/in-toto-statement.json). The Statement goes in a DSSE envelope signed with your SSH key
    through `ssh-keygen -Y sign -n git-intent`, as git signs commits, and is kept on
    refs/notes/git-intent-attestations (`git intent push` shares it). Attesting again replaces your own
    earlier attestation of a commit and leaves other signers' alone.
    """
    from ..attest.make import attest_range, models_from
    from ..attest.ssh import signer_for
    from ..capture.candidate_sessions import listed_sessions
    from ..core.errors import AttestationError

    repo = open_repo()
    signer = None if unsigned else signer_for(repo, key)
    if signer is None and not unsigned:
        raise AttestationError(
            "No signing key: pass --key FILE, or set git's (gpg.format ssh and user.signingKey).",
            hint="--unsigned writes the statements without a signature; `verify` then reports them unsigned.",
        )
    listing = {(s.agent, s.session_id): s.message_models for s in listed_sessions(repo)}
    result = attest_range(repo, revision_range, signer, models_from(listing))
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    who = f"signed by {result.signer}" if result.signer else "unsigned"
    echo(
        f"Attested {len(result.attested)} commit(s), {who}; {len(result.unchanged)} already attested alike; "
        f"{len(result.skipped)} without a git-intent note skipped."
    )


@cli.command()
@click.argument("revision_range", default="HEAD")
@click.option(
    "--allowed-signers",
    type=click.Path(path_type=Path, dir_okay=False),
    help="ssh-keygen's allowed-signers file (default: gpg.ssh.allowedSignersFile).",
)
@click.option("--json", "as_json", is_flag=True, help="Print each commit's result as JSON.")
def verify(revision_range: str, allowed_signers: Path | None, as_json: bool) -> None:
    """Check the attestations of REVISION_RANGE (default HEAD; `main..` for a branch).

    Every signature must verify (`ssh-keygen -Y verify -n git-intent`) for a key the allowed-signers file
    lists, the statement must name the commit and its files, its note digest must match the commit's note
    now, and the shared evidence it cites must still hold the attested messages. A commit whose note credits
    agent lines needs an attestation that passes; other commits need none. Exit 0 when all hold; exit 1
    with one line per failure (`<commit> <kind>: <why>`; kinds: no-attestation, malformed, unsigned,
    unknown-signer, bad-signature, other-commit, other-files, tampered-note, swapped-evidence).
    """
    from ..attest.ssh import allowed_signers_file
    from ..attest.verify import failure_lines, verify_range

    repo = open_repo()
    report = verify_range(repo, revision_range, allowed_signers_file(repo, allowed_signers))
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        for line in failure_lines(report):
            echo(line)
        if report.ok:
            counts = {
                s: sum(1 for v in report.commits if v.status == s) for s in ("verified", "not-required")
            }
            echo(
                f"All attestations hold: {counts['verified']} commit(s) verified, "
                f"{counts['not-required']} without agent lines."
            )
    if not report.ok:
        sys.exit(1)
