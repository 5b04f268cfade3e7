"""Signing and checking DSSE signatures the way git signs commits with SSH: `ssh-keygen -Y sign` and
`ssh-keygen -Y verify` against an allowed-signers file, wrapped in securesystemslib's Signer and Key.

No cryptography of our own: ssh-keygen (git's `gpg.ssh.program`, default `ssh-keygen`) makes and checks the
SSHSIG signatures (OpenSSH PROTOCOL.sshsig) over the envelope's PAE bytes, in the namespace `git-intent`
(so a commit signature, namespace `git`, can never pass for an attestation or the other way round). The
DSSE `sig` holds the SSHSIG blob (the armored text's base64 body), `keyid` the key's SHA256 fingerprint as
`ssh-keygen -l` prints it.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from securesystemslib.exceptions import UnverifiedSignatureError
from securesystemslib.signer import Key, SecretsHandler, Signature, Signer

from ..core.errors import AttestationError
from ..core.state_files import private_dir, replace_file
from ..git.repo import Repository

NAMESPACE = "git-intent"
SCHEME = "sshsig-git-intent"
_ARMOR = ("-----BEGIN SSH SIGNATURE-----", "-----END SSH SIGNATURE-----")
_GOOD = re.compile(r'^Good "[^"]*" signature (?:for (?P<principal>.+) )?with \S+ key (?P<fingerprint>\S+)')
# ssh-keygen reads a key's passphrase from the terminal; a signer run without one (a hook's worker) must
# fail at once, never wait for input that cannot come.
TIMEOUT = 120.0


def ssh_program(repo: Repository) -> str:
    """git's `gpg.ssh.program`, else `ssh-keygen`."""
    return repo.git("config", "--get", "gpg.ssh.program", check=False).strip() or "ssh-keygen"


def armor(blob: bytes) -> str:
    """An SSHSIG blob as ssh-keygen writes it (base64 in 70-character lines between the armor lines)."""
    text = base64.b64encode(blob).decode()
    return "\n".join([_ARMOR[0], *(text[i : i + 70] for i in range(0, len(text), 70)), _ARMOR[1], ""])


def dearmor(text: str) -> bytes:
    """The SSHSIG blob of an armored signature. Raises AttestationError when it is not one."""
    body = text.strip().splitlines()
    if len(body) < 3 or body[0] != _ARMOR[0] or body[-1] != _ARMOR[1]:
        raise AttestationError("ssh-keygen wrote no SSH signature.")
    return base64.b64decode("".join(body[1:-1]))


class SSHSigner(Signer):
    """Signs with an SSH key through `ssh-keygen -Y sign -n git-intent -f KEY` (KEY: a private key file, or a
    public key whose private half ssh-agent holds, as git's `user.signingKey`). `interactive=False` runs
    ssh-keygen without a terminal, so a key that needs a passphrase fails instead of asking (a hook)."""

    def __init__(self, key_file: Path, program: str = "ssh-keygen", *, interactive: bool = True) -> None:
        self.key_file = key_file
        self.program = program
        self.interactive = interactive
        self._keyid: str | None = None

    @classmethod
    def from_priv_key_uri(
        cls, priv_key_uri: str, public_key: Key, secrets_handler: SecretsHandler | None = None
    ) -> SSHSigner:
        """`sshkey:PATH` (securesystemslib's factory; git-intent builds signers with `signer_for`)."""
        return cls(Path(priv_key_uri.removeprefix("sshkey:")))

    @property
    def public_key(self) -> Key:
        return AllowedSignerKey(self.keyid, principal="", allowed_signers=Path(os.devnull))

    @property
    def keyid(self) -> str:
        """The key's SHA256 fingerprint (`ssh-keygen -l -f KEY`)."""
        if self._keyid is None:
            out = self._run(["-l", "-f", str(self.key_file)], b"").split()
            if len(out) < 2 or not out[1].startswith("SHA256:"):
                raise AttestationError(f"{self.key_file} is not an SSH key ssh-keygen can read.")
            self._keyid = out[1]
        return self._keyid

    def sign(self, payload: bytes) -> Signature:
        """The SSHSIG signature of `payload` (the envelope's PAE bytes). Raises AttestationError when
        ssh-keygen cannot sign (a missing key, a passphrase asked for without a terminal, no agent)."""
        out = self._run(["-Y", "sign", "-q", "-n", NAMESPACE, "-f", str(self.key_file)], payload)
        return Signature(keyid=self.keyid, sig=dearmor(out).hex())

    def _run(self, args: list[str], data: bytes) -> str:
        try:
            proc = subprocess.run(
                [self.program, *args],
                input=data,
                capture_output=True,
                timeout=TIMEOUT,
                start_new_session=not self.interactive,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AttestationError(f"{self.program} could not run: {exc}.") from None
        if proc.returncode != 0:
            said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise AttestationError(
                f"{self.program} could not sign with {self.key_file}: "
                f"{said[-1] if said else 'no reason given'}.",
                hint="Check the key (`ssh-keygen -l -f KEY`), or add it to ssh-agent.",
            )
        return proc.stdout.decode("utf-8", "replace")


class AllowedSignerKey(Key):
    """A signer of an allowed-signers file (ssh-keygen(1) ALLOWED SIGNERS): `principal` as the file names it;
    checking runs `ssh-keygen -Y verify -n git-intent -f FILE -I PRINCIPAL`, and the fingerprint ssh-keygen
    reports must be the signature's `keyid`."""

    def __init__(self, keyid: str, *, principal: str, allowed_signers: Path, program: str = "ssh-keygen"):
        super().__init__(
            keyid, "ssh", SCHEME, {"principal": principal, "allowed_signers": str(allowed_signers)}
        )
        self.principal = principal
        self.allowed_signers = allowed_signers
        self.program = program

    @classmethod
    def from_dict(cls, keyid: str, key_dict: dict[str, Any]) -> AllowedSignerKey:
        _, _, keyval = cls._from_dict(key_dict)
        return cls(keyid, principal=keyval["principal"], allowed_signers=Path(keyval["allowed_signers"]))

    def to_dict(self) -> dict[str, Any]:
        return self._to_dict()

    def verify_signature(self, signature: Signature, data: bytes) -> None:
        with tempfile.TemporaryDirectory() as folder:
            sig = Path(folder) / "sig"
            sig.write_text(armor(bytes.fromhex(signature.signature)), encoding="ascii")
            args = ["-Y", "verify", "-n", NAMESPACE, "-f", str(self.allowed_signers), "-I", self.principal]
            proc = _run_checked(self.program, [*args, "-s", str(sig)], data)
        good = _GOOD.match(proc)
        if good is None or good.group("fingerprint") != signature.keyid:
            raise UnverifiedSignatureError(f"The signature by {signature.keyid} does not verify.")


def principals_of(program: str, allowed_signers: Path, signature: Signature) -> list[str]:
    """The principals `allowed_signers` lists for the key that made `signature` (`ssh-keygen -Y
    find-principals`); empty when it lists none."""
    with tempfile.TemporaryDirectory() as folder:
        sig = Path(folder) / "sig"
        sig.write_text(armor(bytes.fromhex(signature.signature)), encoding="ascii")
        out = _run_checked(
            program, ["-Y", "find-principals", "-f", str(allowed_signers), "-s", str(sig)], b""
        )
    return [line.strip() for line in out.splitlines() if line.strip()]


def _run_checked(program: str, args: list[str], data: bytes) -> str:
    """ssh-keygen's stdout, "" when it refuses (exit 255: no such principal, a bad signature)."""
    try:
        proc = subprocess.run([program, *args], input=data, capture_output=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AttestationError(f"{program} could not run: {exc}.") from None
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else ""


def signer_for(repo: Repository, key: Path | None = None, *, interactive: bool = True) -> SSHSigner | None:
    """The signer of `key` (a key file), else git's: `user.signingKey` when `gpg.format` is `ssh` (a path,
    `~` expanded, or a `key::` literal or bare public key, which ssh-agent must hold). None when neither is
    set. Raises AttestationError when the key named does not exist."""
    program = ssh_program(repo)
    if key is None:
        if repo.git("config", "--get", "gpg.format", check=False).strip() != "ssh":
            return None
        value = repo.git("config", "--get", "user.signingKey", check=False).strip()
        if not value:
            return None
        literal = value.removeprefix("key::")
        if literal != value or literal.startswith(("ssh-", "ecdsa-", "sk-")):
            # git writes a literal key to a file for ssh-keygen the same way; ours is kept with the private
            # state, so no temporary copy is left behind.
            key = private_dir(repo.state_dir) / "signing-key.pub"
            replace_file(key, (literal + "\n").encode("utf-8"))
        else:
            key = Path(value).expanduser()
    if not key.is_file():
        raise AttestationError(
            f"The signing key {key} does not exist.",
            hint="Pass --key FILE, or set git's: git config gpg.format ssh; git config user.signingKey FILE",
        )
    return SSHSigner(key, program, interactive=interactive)


def allowed_signers_file(repo: Repository, given: Path | None = None) -> Path:
    """`given`, else git's `gpg.ssh.allowedSignersFile` (`~` expanded, relative to the work tree's root as
    git reads it). Raises AttestationError when neither names an existing file."""
    if given is None:
        value = repo.git("config", "--get", "gpg.ssh.allowedSignersFile", check=False).strip()
        if not value:
            raise AttestationError(
                "No allowed-signers file: pass --allowed-signers FILE or set gpg.ssh.allowedSignersFile.",
                hint="Its lines are `PRINCIPAL KEYTYPE KEY` (ssh-keygen(1), ALLOWED SIGNERS).",
            )
        given = Path(value).expanduser()
        if not given.is_absolute():
            given = repo.root / given
    if not given.is_file():
        raise AttestationError(f"The allowed-signers file {given} does not exist.")
    return given
