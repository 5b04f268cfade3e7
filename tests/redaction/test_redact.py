"""The redaction choke point: every planted family caught whole, SHAs/UUIDs/hashes spared, home paths
reduced, diff lines kept, and failure closed (nothing written, the push says so)."""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path

import pytest
from conftest import corpus, git, run_cli
from support.planted import FAMILIES, plant

from git_intent.core.errors import RedactionError
from git_intent.redaction import detectors
from git_intent.redaction.redact import Sealed, check_text, redact_text, seal


def test_every_planted_family_is_removed_whole() -> None:
    fakes = plant(30)
    assert len(fakes) == 420 and len(FAMILIES) >= 12
    survivors = []
    for fake in fakes:
        out = redact_text(fake.text).text
        context = fake.text.replace(fake.secret, "")
        body = "".join(line for line in fake.secret.splitlines() if "-----" not in line)
        five = {body[i : i + 5] for i in range(len(body) - 4)}
        if fake.secret in out or any(piece in out and piece not in context for piece in five):
            survivors.append((fake.family, out))
        assert "[REDACTED:" in out
    assert survivors == []


def test_shas_uuids_hashes_and_identifiers_are_spared() -> None:
    sha = hashlib.sha1(b"x").hexdigest()
    text = (
        f"commit {sha} and {sha[:12]}; session {uuid.uuid4()}; sha256:{hashlib.sha256(b'y').hexdigest()}\n"
        "func TestTrackCommandDetachedDefaultsAgentToAuto(t *testing.T) {\n"
        "see cmd/entire/cli/telemetry/detached_unix_test.go and newSmartHTTPRepoServerV2\n"
        "password: str = field(default_factory=get_password)\n"
    )
    assert redact_text(text).text == text


def test_home_paths_lose_the_user_name() -> None:
    text = "edited /Users/ann/work/app/main.py and /home/bob/x, C:\\Users\\carol\\proj\\a.py"
    assert redact_text(text).text == "edited ~/work/app/main.py and ~/x, C:~\\proj\\a.py".replace("C:~", "~")


def test_lines_of_the_commits_diff_are_kept() -> None:
    fake = plant(1)[0]
    code = f'AWS_KEY = "{fake.secret}"'
    text = f"{code}\n+{code}\nbut this one goes: {fake.secret}\n"
    out = redact_text(text, keep=frozenset({code})).text
    assert out.splitlines()[:2] == [code, f"+{code}"]
    assert fake.secret not in out.splitlines()[2]


def test_images_and_binary_outputs_are_never_shared() -> None:
    assert (
        redact_text("see data:image/png;base64," + "iVBORw0KGgo" * 20 + " ok").text
        == "see [image omitted] ok"
    )
    assert redact_text("ELF\0\0\x01binary").text == "[binary output omitted]"


def test_seal_marks_what_redaction_touched_and_keeps_ids() -> None:
    fake = plant(1)[1]
    sealed = seal(
        {
            "schema": "git-intent-evidence/1",
            "session_id": "s-1",
            "messages": [
                {"message_id": "m1", "redacted": False, "parts": [{"text": fake.text}]},
                {"message_id": "m2", "redacted": False, "parts": [{"text": "hello"}]},
            ],
        }
    )
    payload = json.loads(sealed.data)
    assert [m["redacted"] for m in payload["messages"]] == [True, False]
    assert fake.secret.encode() not in sealed.data
    assert sealed.rules == {"github-pat": 1}
    with pytest.raises(RedactionError):
        Sealed(data=b"{}")  # only seal() makes sealed bytes


def test_redaction_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str) -> list[detectors.Finding]:
        raise RuntimeError("detector crashed")

    monkeypatch.setattr(detectors, "all_findings", broken)
    with pytest.raises(RedactionError, match="nothing was shared"):
        redact_text("anything")


def test_redact_check_lists_findings_and_redact_prints_the_text(tmp_path: Path) -> None:
    fakes = {f.family: f for f in plant(1)}
    path = tmp_path / "notes.txt"
    path.write_text(f"line one\nkey {fakes['aws'].secret}\n{fakes['jwt'].text}\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    proc = run_cli("redact", "--check", str(path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"{path}:2:5  aws-access-token  (20 chars → [REDACTED:aws-access-token])" in proc.stdout
    assert proc.stdout.endswith("2 finding(s).\n")
    found = json.loads(run_cli("redact", "--check", "--json", str(path), cwd=tmp_path).stdout)
    assert [f["line"] for f in found] == [2, 3]
    assert found[0]["rule"] == "aws-access-token" and found[1]["rule"] in ("jwt", "curl-auth-header")
    printed = run_cli("redact", str(path), cwd=tmp_path).stdout
    assert fakes["aws"].secret not in printed and printed.startswith(
        "line one\nkey [REDACTED:aws-access-token]\n"
    )


def test_check_text_positions() -> None:
    fake = plant(1)[0]
    found = check_text(f"a\nb {fake.secret}")
    assert [(f.line, f.column, f.rule, f.length) for f in found] == [(2, 3, "aws-access-token", 20)]


def test_fixture_transcripts_code_edits_are_left_intact() -> None:
    """False redactions on real code: every edit of every fixture transcript, without the diff exemption."""
    from git_intent.sessions.discovery import read_transcript

    redacted: list[str] = []
    edits = 0
    for path in sorted(corpus("transcripts").rglob("*")) + sorted(corpus("linked").rglob("full.jsonl")):
        try:
            sessions = read_transcript(path)
        except Exception:
            continue
        for session in sessions:
            for edit in session.edits:
                edits += 1
                redacted += [
                    f"{f.rule}: {edit.new_text[f.start : f.end]}"
                    for f in redact_text(edit.new_text).findings
                    if f.rule != "home-path"
                ]
    assert edits > 100
    assert redacted == []
