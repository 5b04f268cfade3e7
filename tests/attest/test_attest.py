"""`git intent attest` and `verify`: real commits recorded through the installed hook from a Claude Code
transcript, SSH keys made with ssh-keygen in tmp dirs, and every way an attestation can fail to hold."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import git, run_cli
from jsonschema import Draft202012Validator
from support import SYNC, claude_session, commit_synced, install, keygen, note_records

ROOT = Path(__file__).resolve().parents[2]
ATTESTATIONS = "refs/notes/git-intent-attestations"
NOTES = "refs/notes/git-intent"
APP = "def total(items):\n    return sum(item.price for item in items)\n"
MORE = "\n\ndef count(items):\n    return len(items)\n"


def fingerprint(key: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-l", "-f", str(key)], capture_output=True, text=True)
    return out.stdout.split()[1]


def schema(name: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads((ROOT / "docs" / "schemas" / f"{name}.json").read_text()))


class World:
    """A repository with git-intent installed, a person's commit, two agent commits recorded through the
    hook, alice's signing key configured the git way, and an allowed-signers file naming alice only."""

    def __init__(self, repo: Path, tmp: Path) -> None:
        self.repo = repo
        self.keys = tmp / "keys"
        self.alice, alice_pub = keygen(self.keys, "alice")
        self.mallory, _ = keygen(self.keys, "mallory")
        self.allowed = self.keys / "allowed_signers"
        self.allowed.write_text(f"alice@example.com {alice_pub}\n")
        install(repo)
        (repo / "notes.txt").write_text("a person's notes\n")
        self.person = commit_synced(repo, "a person's commit")
        self.session = claude_session(repo)
        self.session.prompt("Add a total() helper to app.py")
        self.first_message = self.session.write("Writing the helper.", repo / "app.py", APP)
        self.session.save()
        self.first = commit_synced(repo, "add total")
        self.session.prompt("And a count() helper")
        last = APP.splitlines(keepends=True)[-1]
        self.second_message = self.session.edit("Adding count.", repo / "app.py", last, last + MORE)
        self.session.save()
        self.second = commit_synced(repo, "add count")
        git(repo, "config", "gpg.format", "ssh")
        git(repo, "config", "user.signingKey", str(self.alice))
        git(repo, "config", "gpg.ssh.allowedSignersFile", str(self.allowed))

    def cli(self, *args: str, code: int = 0) -> str:
        proc = run_cli(*args, cwd=self.repo)
        assert proc.returncode == code, (args, proc.stdout, proc.stderr)
        return proc.stdout

    def envelopes(self, commit: str) -> list[dict[str, Any]]:
        text = git(self.repo, "notes", "--ref", ATTESTATIONS, "show", commit)
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def statement(self, commit: str) -> dict[str, Any]:
        [envelope] = self.envelopes(commit)
        value: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))
        return value

    def verify_lines(self, *args: str) -> list[str]:
        return self.cli("verify", *args, code=1).splitlines()


@pytest.fixture
def world(repo: Path, tmp_path: Path) -> World:
    return World(repo, tmp_path)


def test_attest_then_verify_round_trip(world: World) -> None:
    out = world.cli("attest")
    assert out == (
        f"Attested 3 commit(s), signed by {fingerprint(world.alice)}; 0 already attested alike; 1 without a "
        "git-intent note skipped.\n"
    )
    statement = world.statement(world.second)
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicateType"] == "https://git-intent.dev/provenance/v1"
    app = (world.repo / "app.py").read_bytes()
    assert statement["subject"] == [
        {"name": "commit", "digest": {"gitCommit": world.second}},
        {
            "name": "app.py",
            "digest": {
                "gitBlob": git(world.repo, "rev-parse", f"{world.second}:app.py").strip(),
                "sha256": hashlib.sha256(app).hexdigest(),
            },
        },
    ]
    predicate = statement["predicate"]
    assert predicate["commit"] == world.second
    assert sorted(predicate["note"]["records"], key=json.dumps) == sorted(
        note_records(world.repo, world.second), key=json.dumps
    )
    [conversation] = predicate["agent_trace"]["files"][0]["conversations"]
    assert conversation["contributor"] == {"type": "ai", "model_id": "anthropic/claude-opus-4-5-20251101"}
    assert predicate["agent_trace"]["metadata"]["git-intent"]["conversations"][0]["message_ids"] == [
        world.second_message
    ]
    [cited] = predicate["evidence"]
    assert cited["session_id"] == world.session.session_id and "shared" not in cited
    schema("agent-trace").validate(predicate["agent_trace"])
    schema("in-toto-statement").validate(statement)
    [envelope] = world.envelopes(world.second)
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    assert [s["keyid"] for s in envelope["signatures"]] == [fingerprint(world.alice)]

    assert world.cli("verify") == "All attestations hold: 3 commit(s) verified, 1 without agent lines.\n"
    report = json.loads(world.cli("verify", "--json"))
    schema("verify").validate(report)
    assert report["ok"] is True
    assert [(c["commit"], c["status"], c["signers"]) for c in report["commits"]] == [
        (git(world.repo, "rev-list", "--max-parents=0", "HEAD").strip(), "not-required", []),
        (world.person, "verified", ["alice@example.com"]),
        (world.first, "verified", ["alice@example.com"]),
        (world.second, "verified", ["alice@example.com"]),
    ]
    # Attesting again changes nothing: the same statement, the same signer.
    assert "0 commit(s)" in world.cli("attest") and len(world.envelopes(world.second)) == 1


def test_an_unattested_agent_commit_fails(world: World) -> None:
    world.cli("attest", f"{world.first}^..{world.first}")
    assert world.verify_lines() == [
        f"{world.second[:12]} no-attestation: its 1 agent ranges have no attestation."
    ]


def test_an_unsigned_attestation_fails(world: World) -> None:
    world.cli("attest", "--unsigned")
    assert world.envelopes(world.second)[0]["signatures"] == []
    assert world.verify_lines() == [
        f"{world.person[:12]} unsigned: its attestation is unsigned.",
        f"{world.first[:12]} unsigned: its attestation is unsigned.",
        f"{world.second[:12]} unsigned: its attestation is unsigned.",
    ]


def test_a_signer_not_in_the_allowed_signers_fails(world: World) -> None:
    world.cli("attest", "--key", str(world.mallory), "HEAD~1..")
    world.cli("attest", "HEAD~2..HEAD~1")
    assert world.verify_lines() == [
        f"{world.second[:12]} unknown-signer: its attestation is signed by {fingerprint(world.mallory)}, "
        f"which {world.allowed} does not allow."
    ]
    # Once alice attests too, her attestation holds beside mallory's.
    world.cli("attest", "HEAD~1..")
    assert len(world.envelopes(world.second)) == 2
    assert world.cli("verify") == "All attestations hold: 2 commit(s) verified, 2 without agent lines.\n"


def test_a_tampered_note_fails(world: World) -> None:
    world.cli("attest")
    records = note_records(world.repo, world.second)
    for record in records:
        if record["kind"] == "lines":
            record["session_id"] = "forged-session"
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    git(world.repo, "notes", "--ref", NOTES, "add", "-f", "-m", text.strip(), world.second)
    assert world.verify_lines() == [
        f"{world.second[:12]} tampered-note: its note differs from the attested one (3 records attested, "
        "3 now)."
    ]


def test_an_envelope_altered_after_signing_fails(world: World) -> None:
    world.cli("attest")
    [envelope] = world.envelopes(world.second)
    statement = json.loads(base64.b64decode(envelope["payload"]))
    statement["predicate"]["evidence"][0]["transcript_sha256"] = "0" * 64
    envelope["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    git(world.repo, "notes", "--ref", ATTESTATIONS, "add", "-f", "-m", json.dumps(envelope), world.second)
    assert world.verify_lines() == [
        f"{world.second[:12]} bad-signature: the signature by {fingerprint(world.alice)} does not verify: "
        "the envelope was altered after it was signed."
    ]


def test_a_statement_for_another_commit_fails(world: World) -> None:
    world.cli("attest")
    blob = git(world.repo, "notes", "--ref", ATTESTATIONS, "list", world.first).strip()
    git(world.repo, "notes", "--ref", ATTESTATIONS, "add", "-f", "-C", blob, world.second)
    assert world.verify_lines() == [
        f"{world.second[:12]} other-commit: its statement is for another commit ({world.first})."
    ]


def test_swapped_evidence_fails(world: World) -> None:
    from git_intent.git.repo import Repository
    from git_intent.notes import evidence_ref as store
    from git_intent.share.collect import share_commits

    repo = Repository(world.repo)
    shared = share_commits(repo, [world.first, world.second], "evidence")
    assert shared.commits == 2
    world.cli("attest")
    [cited] = world.statement(world.second)["predicate"]["evidence"]
    path = cited["shared"]["path"]
    assert path == f"evidence/claude-code/{world.session.session_id}.json"
    assert world.second_message in cited["shared"]["messages"]
    assert world.cli("verify").startswith("All attestations hold: 3 commit(s) verified")

    # Someone who can push rewrites what the user asked, in the shared evidence.
    old, entries = store.read_entries(repo)
    payload = json.loads(git(world.repo, "cat-file", "blob", entries[path]))
    prompt = next(m for m in payload["messages"] if m["role"] == "user")
    prompt["parts"][0]["text"] = "Add a total() helper and send the keys to evil.example"
    blob = repo.git("hash-object", "-w", "--stdin", input_text=json.dumps(payload)).strip()
    entries[path] = blob
    store.commit_entries(repo, entries, old, "swap")
    lines = world.verify_lines()
    assert lines == [
        f"{commit[:12]} swapped-evidence: the evidence of session {world.session.session_id} ({path}) "
        f"differs from the attested: message {prompt['message_id']}."
        for commit in (world.first, world.second)
    ]


def test_sharing_more_later_keeps_the_attestation_valid(world: World) -> None:
    from git_intent.git.repo import Repository
    from git_intent.share.collect import share_commits

    repo = Repository(world.repo)
    share_commits(repo, [world.first], "evidence")
    world.cli("attest")
    # The session's blob is rebuilt for the second commit: new messages, the attested ones unchanged.
    share_commits(repo, [world.second], "evidence")
    assert world.cli("verify").startswith("All attestations hold: 3 commit(s) verified")


def test_attestations_travel_with_push_and_fetch(world: World, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(world.repo, "remote", "add", "origin", str(remote))
    git(world.repo, "push", "-q", "origin", "main")
    world.cli("attest")
    pushed = json.loads(world.cli("push", "--json"))["pushed"]
    assert pushed == [NOTES, ATTESTATIONS]
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    proc = run_cli("fetch", "--json", cwd=other)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["attestations_changed"] is True
    proc = run_cli("verify", "origin/main", "--allowed-signers", str(world.allowed), cwd=other)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "All attestations hold: 3 commit(s) verified, 1 without agent lines.\n"


def test_an_amended_commit_gets_an_attestation_naming_the_original(world: World) -> None:
    world.cli("attest")
    original = world.envelopes(world.second)[0]
    git(world.repo, "commit", "-q", "--amend", "-m", "add count (amended)", env=SYNC)
    amended = git(world.repo, "rev-parse", "HEAD").strip()
    assert amended != world.second
    predicate = world.statement(amended)["predicate"]
    line = json.dumps(original, sort_keys=True, separators=(",", ":"))
    assert predicate["carried_from"] == [
        {"commit": world.second, "envelope_sha256": hashlib.sha256(line.encode()).hexdigest()}
    ]
    [conversation] = predicate["agent_trace"]["files"][0]["conversations"]
    assert conversation["contributor"]["model_id"] == "anthropic/claude-opus-4-5-20251101"
    assert world.cli("verify").startswith("All attestations hold: 3 commit(s) verified")


def test_a_carrier_without_a_signing_key_leaves_the_attestation_unsigned(world: World) -> None:
    world.cli("attest")
    git(world.repo, "config", "--unset", "user.signingKey")
    git(world.repo, "commit", "-q", "--amend", "-m", "add count (amended)", env=SYNC)
    amended = git(world.repo, "rev-parse", "HEAD").strip()
    assert world.envelopes(amended)[0]["signatures"] == []
    assert world.verify_lines() == [f"{amended[:12]} unsigned: its attestation is unsigned."]


def test_records_carried_onto_a_squash_merge_get_an_attestation_naming_each_original(world: World) -> None:
    world.cli("attest")
    git(world.repo, "checkout", "-q", "-b", "landed", world.person)
    git(world.repo, "merge", "-q", "--squash", "main")
    git(world.repo, "commit", "-q", "-m", "add total and count (#1)", env=SYNC)
    squash = git(world.repo, "rev-parse", "HEAD").strip()
    world.cli("carry", f"{world.person}..main", "--onto", squash)
    carried = world.statement(squash)["predicate"]["carried_from"]
    assert [c["commit"] for c in carried] == [world.first, world.second]
    assert world.cli("verify", f"{world.person}..{squash}") == (
        "All attestations hold: 1 commit(s) verified, 0 without agent lines.\n"
    )


def test_export_in_toto_writes_the_bundle(world: World) -> None:
    world.cli("attest", "HEAD~1..")
    proc = run_cli("export", "--format", "in-toto", cwd=world.repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        f"warning: 1 commit(s) with agent lines have no attestation ({world.first[:12]}); `git intent attest "
        "RANGE` makes them.\n"
    )
    [envelope] = [json.loads(line) for line in proc.stdout.splitlines()]
    assert envelope == world.envelopes(world.second)[0]
    schema("in-toto-statement").validate(json.loads(base64.b64decode(envelope["payload"])))


def test_attest_without_a_key_and_verify_without_allowed_signers_say_what_to_do(world: World) -> None:
    git(world.repo, "config", "--unset", "gpg.format")
    git(world.repo, "config", "--unset", "gpg.ssh.allowedSignersFile")
    proc = run_cli("attest", cwd=world.repo)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        "error: No signing key: pass --key FILE, or set git's (gpg.format ssh and user.signingKey).\n"
    )
    proc = run_cli("verify", cwd=world.repo)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        "error: No allowed-signers file: pass --allowed-signers FILE or set gpg.ssh.allowedSignersFile.\n"
    )


def test_a_forge_squash_found_by_fetch_gets_an_attestation_naming_the_originals(
    world: World, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(world.repo, "remote", "add", "origin", str(remote))
    git(world.repo, "branch", "-q", "-m", "main", "feature")
    git(world.repo, "push", "-q", "origin", f"{world.person}:refs/heads/main", "feature")
    world.cli("attest")
    world.cli("push")
    forge = tmp_path / "forge"  # the forge squash-merges the pull request: no git-intent there
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(forge))
    git(forge, "merge", "-q", "--squash", "origin/feature")
    git(forge, "commit", "-q", "-m", "add total and count (#1)")
    git(forge, "push", "-q", "origin", "main")
    squash = git(forge, "rev-parse", "HEAD").strip()

    fetched = json.loads(world.cli("fetch", "--json"))
    assert fetched["carried"] == [squash]
    carried = world.statement(squash)["predicate"]["carried_from"]
    assert [c["commit"] for c in carried] == [world.first, world.second]
    assert world.envelopes(squash)[0]["signatures"][0]["keyid"] == fingerprint(world.alice)
    assert world.cli("verify", f"{world.person}..{squash}") == (
        "All attestations hold: 1 commit(s) verified, 0 without agent lines.\n"
    )


def test_two_signers_attestations_of_one_commit_are_both_kept_through_push_and_fetch(
    world: World, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(world.repo, "remote", "add", "origin", str(remote))
    git(world.repo, "push", "-q", "origin", "main")
    world.cli("push")  # the notes, before anyone attests
    reviewer = tmp_path / "reviewer"
    git(tmp_path, "clone", "-q", str(remote), str(reviewer))
    assert run_cli("fetch", cwd=reviewer).returncode == 0
    bob, bob_pub = keygen(tmp_path / "bob-keys", "bob")
    with world.allowed.open("a") as handle:
        handle.write(f"bob@example.com {bob_pub}\n")
    assert run_cli("attest", "--key", str(bob), cwd=reviewer).returncode == 0
    assert run_cli("push", cwd=reviewer).returncode == 0
    world.cli("attest")
    pushed = json.loads(world.cli("push", "--json"))
    assert pushed["retries"] == 1  # rejected, fetched, merged (cat_sort_uniq), pushed again
    assert sorted(s["keyid"] for e in world.envelopes(world.second) for s in e["signatures"]) == sorted(
        [fingerprint(world.alice), fingerprint(bob)]
    )
    assert run_cli("fetch", cwd=reviewer).returncode == 0
    report = json.loads(
        run_cli("verify", "--json", "--allowed-signers", str(world.allowed), cwd=reviewer).stdout
    )
    assert report["ok"] is True
    assert {c["commit"]: c["signers"] for c in report["commits"]}[world.second] in (
        ["alice@example.com"],
        ["bob@example.com"],
    )


def test_a_literal_signing_key_signs_through_ssh_agent(world: World, tmp_path: Path) -> None:
    """user.signingKey = "key::ssh-ed25519 …" (git's literal form): ssh-keygen finds the private half in
    ssh-agent, as for git's own commit signatures."""
    socket = tmp_path / "agent.sock"
    agent = subprocess.run(["ssh-agent", "-a", str(socket)], capture_output=True, text=True)
    assert agent.returncode == 0, agent.stderr
    pid = next(
        part.split("=")[1]
        for part in agent.stdout.replace(";", "\n").splitlines()
        if "SSH_AGENT_PID=" in part
    )
    env = {"SSH_AUTH_SOCK": str(socket)}
    try:
        added = subprocess.run(
            ["ssh-add", "-q", str(world.alice)], capture_output=True, env={**os.environ, **env}
        )
        assert added.returncode == 0, added.stderr
        public = Path(f"{world.alice}.pub").read_text().strip()
        git(world.repo, "config", "user.signingKey", f"key::{public}")
        refused = run_cli("attest", cwd=world.repo, env={"SSH_AUTH_SOCK": str(tmp_path / "no-agent")})
        assert refused.returncode == 1 and "could not sign with" in refused.stderr, refused.stderr
        proc = run_cli("attest", cwd=world.repo, env=env)
        assert proc.returncode == 0, proc.stderr
        assert world.cli("verify").startswith("All attestations hold: 3 commit(s) verified")
    finally:
        subprocess.run(["kill", pid], check=False)


def test_an_attestation_that_is_not_an_envelope_is_malformed(world: World) -> None:
    world.cli("attest")
    git(world.repo, "notes", "--ref", ATTESTATIONS, "add", "-f", "-m", "[" * 100_000, world.second)
    [line] = world.verify_lines()
    assert line.startswith(f"{world.second[:12]} malformed: its attestation is not a DSSE envelope (")
