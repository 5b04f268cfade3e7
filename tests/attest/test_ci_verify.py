"""The Action's verify mode (ci/verify.sh) against a bare remote: a pull request whose agent commits carry
attestations by a key the base commit allows passes; one with an unattested agent commit, or signed by a
key only the pull request itself adds to the allowed signers, fails with the reason."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import git, run_cli
from support import claude_session, commit_synced, install, keygen

ROOT = Path(__file__).resolve().parents[2]


def run_verify(clone: Path, base: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(ROOT / "ci" / "verify.sh")],
        cwd=clone,
        capture_output=True,
        text=True,
        env={**os.environ, "INTENT_BASE": base, "INTENT_HEAD": "origin/feature"},
    )


def test_verify_mode_passes_an_attested_pull_request_and_fails_others(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    keys = tmp_path / "keys"
    alice, alice_pub = keygen(keys, "alice")
    mallory, mallory_pub = keygen(keys, "mallory")
    (repo / ".github").mkdir()
    (repo / ".github" / "allowed_signers").write_text(f"alice@example.com {alice_pub}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "allow alice")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "push", "-q", "origin", "main")

    install(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    session = claude_session(repo)
    session.prompt("Add a helper")
    session.write("Writing it.", repo / "helper.py", "def helper():\n    return 42\n")
    session.save()
    agent = commit_synced(repo, "add helper")
    assert run_cli("attest", "--key", str(alice), f"{base}..", cwd=repo).returncode == 0
    git(repo, "push", "-q", "origin", "feature")
    assert run_cli("push", cwd=repo).returncode == 0

    clone = tmp_path / "ci"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    passed = run_verify(clone, base)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert passed.stdout.endswith("All attestations hold: 1 commit(s) verified, 0 without agent lines.\n")

    # The pull request signs its next commit with mallory's key and adds that key to the allowed signers:
    # the base commit's file decides, so it fails.
    (repo / ".github" / "allowed_signers").write_text(
        f"alice@example.com {alice_pub}\nmallory@example.com {mallory_pub}\n"
    )
    session.prompt("Another helper")
    session.write("Writing it.", repo / "other.py", "def other():\n    return 7\n")
    session.save()
    signed_by_mallory = commit_synced(repo, "add other")
    assert run_cli("attest", "--key", str(mallory), "HEAD~1..", cwd=repo).returncode == 0
    git(repo, "push", "-q", "origin", "feature")
    assert run_cli("push", cwd=repo).returncode == 0
    failed = run_verify(clone, base)
    assert failed.returncode == 1
    listed = subprocess.run(["ssh-keygen", "-l", "-f", str(mallory)], capture_output=True, text=True)
    fingerprint = listed.stdout.split()[1]
    assert failed.stdout.splitlines()[-1].startswith(
        f"{signed_by_mallory[:12]} unknown-signer: its attestation is signed by {fingerprint}"
    )
    assert agent != signed_by_mallory


def test_action_yml_runs_verify_mode_on_pull_requests() -> None:
    action = (ROOT / "action.yml").read_text(encoding="utf-8").splitlines()
    for line in (
        "      if: github.event_name != 'push' && inputs.mode == 'verify'",
        '      run: sh "${{ github.action_path }}/ci/verify.sh"',
        "        INTENT_ALLOWED_SIGNERS: ${{ inputs.allowed-signers }}",
        "    default: .github/allowed_signers",
    ):
        assert line in action, line
