"""Property tests (Hypothesis) of the redactor: a planted secret of every family and every form that once
slipped past it is removed whole wherever it stands in any text, and across any split of a message into
parts; SHAs, UUIDs, digests and identifiers are never touched; no text makes it raise. Bounded
(`max_examples`) so the suite stays fast."""

from __future__ import annotations

import hashlib
import json
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.planted import Planted, evasions, plant

from git_intent.redaction.redact import redact_text, seal

BOUNDED = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FAKES = [*plant(2, seed=7), *evasions(seed=5)]
# Prose around a secret: any printable text, kept apart from the secret by a separator (a letter glued to a
# token makes another token, which is not the property under test).
PROSE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Cf")), max_size=80)
SEPARATORS = st.sampled_from([" ", "\n", "\t", " (", ": ", "\n\n> "])


def fragments(fake: Planted, around: str, size: int = 8) -> list[str]:
    secret = fake.secret.replace("\u200b", "")
    if "PRIVATE KEY" in secret:
        secret = "".join(line for line in secret.splitlines() if "-----" not in line)
    return [
        secret[i : i + size]
        for i in range(max(1, len(secret) - size + 1))
        if secret[i : i + size] not in around
    ]


@BOUNDED
@given(st.sampled_from(FAKES), PROSE, PROSE, SEPARATORS, SEPARATORS)
def test_a_planted_secret_is_removed_whole_wherever_it_stands(
    fake: Planted, left: str, right: str, a: str, b: str
) -> None:
    text = f"{left}{a}{fake.text}{b}{right}"
    out = redact_text(text).text
    context = text.replace(fake.secret, "")
    assert [f for f in fragments(fake, context) if f in out.replace("\u200b", "")] == [], out


@BOUNDED
@given(
    st.sampled_from(
        [f for f in FAKES if f.family in ("github", "stripe", "gitlab", "google", "npm", "openai")]
    ),
    st.lists(st.integers(0, 10_000), min_size=1, max_size=3),
    PROSE,
)
def test_a_secret_split_across_the_parts_of_a_message_is_removed_whole(
    fake: Planted, cuts: list[int], prose: str
) -> None:
    text = f"{prose}\n{fake.text}"
    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces = [text[i:j] for i, j in zip([0, *points], [*points, len(text)], strict=True)]
    parts = [{"kind": "text", "text": p} for p in pieces]
    payload = {
        "schema": "git-intent-evidence/1",
        "messages": [{"message_id": "m", "redacted": False, "parts": parts}],
    }
    sealed = json.loads(seal(payload).data)
    out = "".join(p["text"] for p in sealed["messages"][0]["parts"])
    assert len(sealed["messages"][0]["parts"]) == len(pieces)
    assert [f for f in fragments(fake, text.replace(fake.secret, "")) if f in out] == [], out


TOKENS = st.one_of(
    st.binary(min_size=1, max_size=64).map(lambda b: hashlib.sha1(b).hexdigest()),
    st.binary(min_size=1, max_size=64).map(lambda b: hashlib.sha256(b).hexdigest()),
    st.binary(min_size=1, max_size=64).map(lambda b: hashlib.sha1(b).hexdigest()[:12]),
    st.uuids().map(str),
    st.uuids().map(lambda u: u.hex),
)
TEST_DATA = st.sampled_from(
    [
        "TestTrackCommandDetachedDefaultsAgentToAuto",
        "newSmartHTTPRepoServerV2",
        "max_tokens: 4096",
        "cmd/entire/cli/telemetry/detached_unix_test.go",
        'Token: "test-token"',
        'APIKey: "fake-api-key-for-tests"',
        "password: str = field(default_factory=get_password)",
        "token = os.environ['GITHUB_TOKEN']",
        "the password is wrong.",
        "docker login --password-stdin",
        "mysql -h db -P 3306 -u app",
        f"see {uuid.UUID(int=7)}",
        "https://git@github.com/org/repo.git",
        "https://example.com/a%20b%20c%20d",
        'Password: "pass"',
        'TokenAuth{Token: "my-token"}',
        'PostHogAPIKey = "phc_development_key"',
    ]
)


@BOUNDED
@given(
    st.lists(TOKENS, min_size=1, max_size=8),
    st.lists(TEST_DATA, max_size=4),
    st.sampled_from([" ", "\n", ", "]),
)
def test_shas_uuids_digests_and_test_data_are_never_redacted(
    tokens: list[str], data: list[str], separator: str
) -> None:
    text = separator.join(tokens) + "".join(f"\n{line}" for line in data)
    assert redact_text(text).text == text


@BOUNDED
@given(st.text(max_size=500))
def test_no_text_makes_the_redactor_raise(text: str) -> None:
    done = redact_text(text)
    assert isinstance(done.text, str)
    assert all(0 <= f.start < f.end <= len(text) for f in done.findings)
