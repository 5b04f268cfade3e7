"""Fake secrets of every rule family, for planting in transcripts (tests and bench/share_figures.py).

All are random (seeded) and fake: the right shape for each detector, valid for no service. `secret` is
the part that must not survive redaction; `text` is the sentence that carries it.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"


@dataclass(frozen=True)
class Planted:
    family: str
    secret: str
    text: str


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _private_key(rng: random.Random) -> str:
    body = "\n".join(_pick(rng, ALNUM + "+/", 64) for _ in range(6))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


def _jwt(rng: random.Random) -> str:
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64(
        json.dumps(
            {
                "sub": _pick(rng, string.digits, 10),
                "name": _pick(rng, ALNUM, 12),
                "iat": rng.randrange(1_600_000_000, 1_800_000_000),
            }
        ).encode()
    )
    return f"{header}.{payload}.{_pick(rng, URLSAFE, 43)}"


FAMILIES = {
    "aws": lambda r: (
        "AKIA" + _pick(r, string.ascii_uppercase + "234567", 16),
        "the deploy uses key {s} in us-east-1",
    ),
    "github": lambda r: ("ghp_" + _pick(r, ALNUM, 36), "git clone with token {s} failed"),
    "gitlab": lambda r: ("glpat-" + _pick(r, URLSAFE, 20), "export GL_PAT_VALUE={s}"),
    "slack": lambda r: (
        f"xoxb-{_pick(r, string.digits, 11)}-{_pick(r, string.digits, 12)}-{_pick(r, ALNUM, 24)}",
        "the bot posts with {s} to #deploys",
    ),
    "stripe": lambda r: ("sk_live_" + _pick(r, ALNUM, 24), "charge failed for {s} (live mode)"),
    "openai": lambda r: (
        "sk-proj-" + _pick(r, URLSAFE, 74) + "T3BlbkFJ" + _pick(r, URLSAFE, 74),
        "OPENAI key is {s} — rotate it later",
    ),
    "anthropic": lambda r: ("sk-ant-api03-" + _pick(r, URLSAFE, 93) + "AA", "use {s} for the eval run"),
    "private-key": lambda r: (_private_key(r), "the server key is:\n{s}\nkeep it safe"),
    "jwt": lambda r: (_jwt(r), "curl -H 'Authorization: Bearer {s}' https://api.example.test/v1/me"),
    "credentialed-url": lambda r: (
        _pick(r, ALNUM, 18),
        "connect to postgres://svc_app:{s}@db.internal.test:5432/app",
    ),
    "password-assignment": lambda r: (
        _pick(r, ALNUM, 14) + r.choice("!#%") + _pick(r, ALNUM, 5),
        "in .env: DB_PASSWORD={s}",
    ),
    "high-entropy": lambda r: (_pick(r, ALNUM, 40), "the opaque value was {s} when it broke"),
    "google": lambda r: ("AIza" + _pick(r, URLSAFE, 35), "maps key {s}"),
    "npm": lambda r: ("npm_" + _pick(r, ALNUM, 36), "//registry.npmjs.org/:_authToken={s}"),
}


def plant(count_per_family: int, seed: int = 11) -> list[Planted]:
    """`count_per_family` fakes of each of the FAMILIES (14 families), deterministic for a seed."""
    rng = random.Random(seed)
    out = []
    for _ in range(count_per_family):
        for family, make in FAMILIES.items():
            secret, template = make(rng)
            out.append(Planted(family, secret, template.format(s=secret)))
    return out


def fragments(secret: str, size: int = 12) -> list[str]:
    """The secret itself and windows of `size` characters taken across it (a partial leak shows in one).
    Private key blocks are judged by their body lines (their BEGIN/END markers are not secret)."""
    body = "".join(line for line in secret.splitlines() if "-----" not in line) or secret
    windows = [body[i : i + size] for i in range(0, max(1, len(body) - size + 1), size)]
    return [secret, *windows]


def plant_claude(
    source: Path, target: Path, prompts: list[Planted], reasoning: list[Planted], outputs: list[Planted]
) -> None:
    """Copy a Claude Code transcript, appending the `prompts` fakes to every typed user prompt, and
    spreading the `reasoning` fakes over thinking and text blocks and the `command_outputs` fakes over tool
    results (round robin). Every other byte of every record is kept."""
    lines = source.read_text(encoding="utf-8").splitlines()
    slots: dict[str, list[tuple[int, list[Any], int | None]]] = {"reasoning": [], "outputs": []}
    records: list[Any] = []
    for number, line in enumerate(lines):
        try:
            record = json.loads(line)
        except ValueError:
            records.append(line)
            continue
        records.append(record)
        message = record.get("message") if isinstance(record, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if record.get("type") == "user" and isinstance(content, str):
            message["content"] = content + "\n" + "\n".join(p.text for p in prompts)
        elif isinstance(content, list):
            for index, block in enumerate(content):
                kind = block.get("type") if isinstance(block, dict) else None
                if kind in ("thinking", "text") and record.get("type") == "assistant":
                    slots["reasoning"].append((number, content, index))
                elif kind == "tool_result":
                    slots["outputs"].append((number, content, index))
    for name, fakes in (("reasoning", reasoning), ("outputs", outputs)):
        places = slots[name]
        if not places:
            raise ValueError(f"{source} has no {name} block to plant in")
        for i, fake in enumerate(fakes):
            _, content, index = places[i % len(places)]
            block = content[index]
            field = {"thinking": "thinking", "text": "text"}.get(block["type"], "content")
            value = block.get(field)
            if isinstance(value, list):
                value.append({"type": "text", "text": fake.text})
            else:
                block[field] = f"{value or ''}\n{fake.text}"
    target.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8"
    )


# Forms that once slipped past redaction to a shared remote: (form, secret, text). Secrets are fake.
def _hex(text: str) -> str:
    return text.encode().hex()


def _percent(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


def evasions(seed: int = 21) -> list[Planted]:
    """One fake secret of each form once found reaching the remote, in the sentence that carried it."""
    rng = random.Random(seed)
    word = lambda: _pick(rng, string.ascii_lowercase, rng.randrange(5, 9))  # noqa: E731
    token = "ghp_" + _pick(rng, ALNUM, 36)
    pw = _pick(rng, ALNUM, 12) + "9x"
    phrase = " ".join(word() for _ in range(4))
    forms = [
        ("pgpassword", word() + "42", "PGPASSWORD={s} psql -h db.internal -U app"),
        ("mysql-p", pw[::-1], f"mysql -u root -p{pw[::-1]} shop < dump.sql"),
        ("password-option", pw.upper(), f"deploy --user ops --password {pw.upper()} --yes"),
        ("quoted-phrase", phrase, f'{{"user": "ops", "password": "{phrase}"}}'),
        ("prose-passphrase", phrase[::-1], f"my ssh passphrase is '{phrase[::-1]}' if you need it"),
        ("hex-token", _hex(token), f"the token, hex encoded: {_hex(token)}"),
        ("percent-token", _percent(token), f"callback?auth={_percent(token)}&next=/"),
        (
            "zero-width-token",
            token[:10] + "\u200b" + token[10:],
            f"token {token[:10]}\u200b{token[10:]} works",
        ),
        ("empty-user-url", pw + "R", f"REDIS_URL=redis://:{pw}R@cache.internal:6379/0"),
        ("letters-token", _pick(rng, string.ascii_letters, 40), "session token: {s}"),
        ("punctuated-secret", pw[:8] + ";!.,", 'WEBHOOK_SECRET="{s}"'),
    ]
    return [Planted(form, secret, text.replace("{s}", secret)) for form, secret, text in forms]
