"""Redaction without gaps on common forms: secret-named variables whatever their prefix and
quoting, password options, secrets named in prose, credentials in any URL authority, tokens hidden by an
invisible character or written as hex or %XX escapes, and a token split across two parts of one message —
sealed and shared, none of them reaches a git object; SHAs, UUIDs and test data are still spared."""

from __future__ import annotations

import hashlib
import json
import subprocess
import uuid
from pathlib import Path

import pytest
from support import claude_session, git, install, note_text, run_cli
from support import commit_synced as commit
from support.planted import Planted, evasions, fragments

from git_intent.redaction.redact import redact_text, seal

FORMS = evasions()


def survives(fake: Planted, text: str, size: int = 8) -> list[str]:
    """Pieces of the fake secret (`size` characters of its visible text) left in `text`, other than pieces of
    the sentence around it."""
    secret = fake.secret.replace("\u200b", "")
    pieces = {secret[i : i + size] for i in range(max(1, len(secret) - size + 1))}
    return sorted(
        p for p in pieces if p in text.replace("\u200b", "") and p not in fake.text.replace(fake.secret, "")
    )


@pytest.mark.parametrize("fake", FORMS, ids=[f.family for f in FORMS])
def test_each_form_is_removed_whole(fake: Planted) -> None:
    out = redact_text(fake.text).text
    assert "[REDACTED:" in out and survives(fake, out, 4) == [], out


def test_a_token_split_across_two_text_parts_of_a_message_is_removed_whole() -> None:
    token = "ghp_" + "aB3dEf9hIjKlMnOpQrStUvWxYz0123456789"
    for cut in (5, 20, 39):
        payload = {
            "schema": "git-intent-evidence/1",
            "messages": [
                {
                    "message_id": "m1",
                    "redacted": False,
                    "parts": [
                        {"kind": "text", "text": f"clone with {token[:cut]}"},
                        {"kind": "text", "text": f"{token[cut:]} please"},
                        {"kind": "text", "text": "and keep this"},
                    ],
                }
            ],
        }
        sealed = json.loads(seal(payload).data)
        texts = [p["text"] for p in sealed["messages"][0]["parts"]]
        assert texts == ["clone with [REDACTED:github-pat]", " please", "and keep this"], cut
        assert sealed["messages"][0]["redacted"] is True


def test_shas_uuids_and_test_data_are_still_spared() -> None:
    sha = hashlib.sha1(b"x").hexdigest()
    text = (
        f"commit {sha} ({sha[:12]}) session {uuid.uuid4()} digest {hashlib.sha256(b'y').hexdigest()}\n"
        'Token: "test-token", APIKey: "fake-api-key-for-tests", password: "<your password>"\n'
        "token: getSessionTokenFromEnvironment\nmax_tokens: 4096\npassword = os.environ['DB_PASSWORD']\n"
        "docker login --password-stdin\nmysql -h db -P 3306 -u app\nthe password is wrong\n"
        "see https://git@github.com/org/repo and https://example.com/a%20b%20c%20d\n"
        "func TestTrackCommandDetachedDefaultsAgentToAuto(t *testing.T) {\n"
        'auth := &transporthttp.BasicAuth{Username: "user", Password: "pass"}\n'
        'tokenAuth := &transporthttp.TokenAuth{Token: "my-token"}\nPostHogAPIKey = "phc_development_key"\n'
    )
    assert redact_text(text).text == text


@pytest.mark.slow
def test_no_form_reaches_a_git_object_when_sessions_are_shared(repo: Path) -> None:
    root = repo.resolve()
    install(root)
    agent = claude_session(root)
    agent.prompt("Set up the deployment. " + " ".join(f.text for f in FORMS[:6]))
    agent.say("Noted. " + " ".join(f.text for f in FORMS[6:]))
    token = "ghp_" + "Zz9yXw8vUt7sRq6pOn5mLk4jIh3gFe2dCb1aZz9y"
    record = agent._base("assistant")
    record["message"] = {
        "model": "claude-opus-4-5-20251101",
        "id": "msg_split",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": f"use {token[:17]}"},
            {"type": "text", "text": f"{token[17:]} for the clone"},
        ],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    agent._add(record)
    agent.write("Writing deploy.py.", root / "deploy.py", "def deploy():\n    return 'ok'\n")
    agent.save()
    sha = commit(root, "deploy script")
    assert note_text(root, sha) is not None
    remote = root.parent / "remote.git"
    git(root.parent, "init", "-q", "--bare", str(remote))
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "origin", "main")
    assert run_cli("share", "sessions", cwd=root).returncode == 0
    proc = run_cli("push", "origin", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert git(remote, "for-each-ref", "refs/intent/evidence") != ""
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=remote, capture_output=True, check=True
    ).stdout.decode("utf-8", "replace")
    assert "Set up the deployment." in objects  # the session was shared
    leaks = [(f.family, piece) for f in FORMS for piece in survives(f, objects)]
    leaks += [("split", piece) for piece in fragments(token, 8) if piece in objects]
    assert leaks == []


def test_only_text_and_reasoning_parts_are_joined_and_an_edits_added_lines_keep_the_diff_exemption() -> None:
    key = "AKIA" + "QWERTYUIOPASDFGH"
    code = f'KEY = "{key}"'
    payload = {
        "schema": "git-intent-evidence/1",
        "edits": [
            {
                "message_id": "m",
                "redacted": False,
                "added": [{"text": code, "line": 1}, {"text": "x = 1", "line": 2}],
            }
        ],
        "messages": [
            {
                "message_id": "m",
                "redacted": False,
                "parts": [
                    {"kind": "tool_call", "text": '{"a": "ghp_0123456789'},
                    {"kind": "text", "text": "abcdefghij"},
                    {"kind": "text", "text": "klmnopqrstuvwxyz0123"},
                ],
            }
        ],
    }
    sealed = json.loads(seal(payload, keep=frozenset({code})).data)
    assert [a["text"] for a in sealed["edits"][0]["added"]] == [code, "x = 1"]  # a line of the diff: kept
    assert [p["text"] for p in sealed["messages"][0]["parts"]] == [
        '{"a": "ghp_0123456789',
        "abcdefghij",
        "klmnopqrstuvwxyz0123",
    ]  # a tool call is not joined to text


@pytest.mark.parametrize(
    "text",
    [
        '"passphrase": "my latest horse"',
        'the passphrase is "contest horse river"',
        'curl --token "latest horse river"',
        '"secret": "Yourkiddo9"',
        "my ssh passphrase is 'none of yours'",
    ],
)
def test_a_placeholder_word_inside_a_secret_does_not_spare_it(text: str) -> None:
    """Placeholder words spare a value only as whole words of a one-word value (as
    substrings, "test" in "latest" and "your" in "Yourkiddo9" let these through)."""
    assert "[REDACTED:" in redact_text(text).text


@pytest.mark.parametrize(
    "text",
    [
        '"token": "test-token"',
        '"password": "<your password>"',
        '"api_key": "your_api_key"',
        '"secret": "${SECRET}"',
    ],
)
def test_placeholders_are_still_spared(text: str) -> None:
    assert redact_text(text).text == text
