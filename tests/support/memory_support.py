"""A repository whose sessions carry planted constraints, decisions, a convention, a correction, a reversal
and noise, for the memory tests and bench/memory.py.

Two Claude Code sessions (tests/support.py's builder, the records Claude Code 2.x writes) edit
`src/http_client.py` and `src/cache.py`; each commit is recorded by the installed hook. Between the planted
prompts sit real prompts, typed by people in the fixtures' transcripts (`real_prompts`, each file's source
in fixtures/README.md), with real assistant replies: the noise the offline observer must not take for rules.
`PLANTED` lists what must be found: kind, the words the observation holds, and which planted message(s)
it cites. The fixtures `template` (built once per test module) and `planted` (a test's view of it, its
memory emptied) are imported by the test modules.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import cache
from pathlib import Path

import pytest

from git_intent.explain.reasons import is_request
from git_intent.sessions.discovery import read_transcript
from git_intent.sessions.prose import request_text
from support import (
    SYNC,
    Clock,
    claude_session,
    commit_all,
    commit_at_all,
    git,
    install,
    make_repo,
    write_files,
)
from support.review_repo import isolated_env

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
START = datetime(2026, 5, 4, 9, 0, tzinfo=timezone.utc)

CLIENT = """import requests


def send(method, url, body=None):
    return requests.request(method, url, data=body)
"""
CLIENT_RETRY = """import requests

IDEMPOTENT = {"GET", "HEAD", "PUT", "DELETE"}


def send(method, url, body=None, attempts=3):
    tries = attempts if method in IDEMPOTENT else 1
    for attempt in range(tries):
        response = requests.request(method, url, data=body)
        if response.status_code < 500 or attempt == tries - 1:
            return response
"""
CACHE = "CACHE = {}\n"
CACHE_SQLITE = 'import sqlite3\n\nCACHE_DB = sqlite3.connect("cache.db")\n'
CACHE_REDIS = 'import redis\n\nCACHE = redis.Redis(host="localhost")\n'


@dataclass
class Planted:
    """One planted item: its kind, words its text must hold, and the planted message ids it must cite."""

    kind: str
    words: str
    cites: list[str] = field(default_factory=list)


@dataclass
class PlantedRepo:
    """The repository, its two sessions' ids, the planted items, and named message ids."""

    root: Path
    first: str
    second: str
    planted: list[Planted]
    ids: dict[str, str]


@cache
def real_prompts() -> tuple[str, ...]:
    """Short prompts people typed in the fixtures' Claude Code and Codex transcripts, in file order."""
    found: list[str] = []
    for path in sorted(FIXTURES.glob("**/*.jsonl")):
        if not any(agent in str(path) for agent in ("claude-code", "codex", "linked")):
            continue
        try:
            sessions = read_transcript(path)
        except Exception:
            continue
        for session in sessions:
            for message in session.messages:
                text = request_text(message) if is_request(message) else ""
                if 0 < len(text) < 300 and "[trimmed" not in text and text not in found:
                    found.append(text)
    return tuple(found)


def _noise(session: object, prompts: list[str]) -> None:
    for prompt in prompts:
        session.prompt(prompt)  # type: ignore[attr-defined]
        session.say("Looked at it; here is what I found.")  # type: ignore[attr-defined]


def build(root: Path, sessions: int = 1) -> PlantedRepo:
    """The planted repository under `root` (`sessions` copies of the first session's noise pattern are not
    needed by the tests: 1)."""
    repo = make_repo(root / "repo")
    noise = list(real_prompts())
    write_files(repo, {"src/http_client.py": CLIENT, "src/cache.py": CACHE, "README.md": "# demo\n"})
    commit_at_all(repo, "baseline", START - timedelta(minutes=30))
    install(repo)
    ids: dict[str, str] = {}
    one = claude_session(repo, Clock(START))
    _noise(one, noise[: len(noise) // 2])
    ids["constraint"] = one.prompt(
        "Add retries to src/http_client.py. Never retry POST requests: they are not idempotent."
    )
    ids["retry_edit"] = one.edit(
        "I'll retry idempotent methods only.", repo / "src/http_client.py", CLIENT, CLIENT_RETRY
    )
    ids["proposal"] = one.say(
        "Should I use exponential backoff in `send()` instead of a fixed delay between attempts?"
    )
    ids["confirm"] = one.prompt("yes")
    ids["decision"] = one.prompt("Let's use SQLite for the response cache in src/cache.py.")
    ids["cache_edit"] = one.edit("Switching the cache to SQLite.", repo / "src/cache.py", CACHE, CACHE_SQLITE)
    ids["log_proposal"] = one.say("I will also log each request body at debug level to help tracing.")
    ids["correction"] = one.prompt("No, don't log request bodies; they carry tokens.")
    ids["convention"] = one.prompt("Always use snake_case for config keys.")
    ids["question"] = one.prompt("Should we cache error responses too?")
    ids["fact"] = one.prompt("Note that the staging API rate-limits at 10 requests per second.")
    one.prompt("I always forget how the tests run.")
    one.prompt("Do not make changes yet.")
    one.save()
    commit_all(repo, "retries and the SQLite cache", env={**SYNC, **_dated(one.clock.now)})
    two = claude_session(repo, Clock(START + timedelta(days=2)))
    _noise(two, noise[len(noise) // 2 :])
    ids["reversal"] = two.prompt("Actually, switch the response cache to Redis instead of SQLite.")
    ids["redis_edit"] = two.edit(
        "Moving the cache to Redis.", repo / "src/cache.py", CACHE_SQLITE, CACHE_REDIS
    )
    two.save()
    commit_all(repo, "the Redis cache", env={**SYNC, **_dated(two.clock.now)})
    a, b = one.session_id, two.session_id
    planted = [
        Planted("constraint", "Never retry POST requests", [f"{a}:{ids['constraint']}"]),
        Planted(
            "decision",
            "exponential backoff in `send()` instead of a fixed delay",
            [f"{a}:{ids['proposal']}", f"{a}:{ids['confirm']}"],
        ),
        Planted("decision", "Let's use SQLite for the response cache", [f"{a}:{ids['decision']}"]),
        Planted(
            "rejected",
            "don't log request bodies",
            [f"{a}:{ids['log_proposal']}", f"{a}:{ids['correction']}"],
        ),
        Planted("convention", "Always use snake_case for config keys", [f"{a}:{ids['convention']}"]),
        Planted("open_question", "Should we cache error responses too?", [f"{a}:{ids['question']}"]),
        Planted("fact", "rate-limits at 10 requests per second", [f"{a}:{ids['fact']}"]),
        Planted(
            "decision", "switch the response cache to Redis instead of SQLite", [f"{b}:{ids['reversal']}"]
        ),
    ]
    return PlantedRepo(repo, a, b, planted, ids)


def _dated(when: datetime) -> dict[str, str]:
    stamp = (when + timedelta(minutes=1)).isoformat()
    return {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PlantedRepo, Path]]:
    """The planted repository, built once (its sessions live in the module's HOME)."""
    root = tmp_path_factory.mktemp("planted")
    with pytest.MonkeyPatch.context() as patch:
        for key, value in isolated_env(root / "home").items():
            patch.setenv(key, value)
        yield build(root), root / "home"


@pytest.fixture
def planted(template: tuple[PlantedRepo, Path], monkeypatch: pytest.MonkeyPatch) -> PlantedRepo:
    """The planted repository with its memory folder emptied, in the HOME its transcripts live in."""
    built, home = template
    for key, value in isolated_env(home).items():
        monkeypatch.setenv(key, value)
    shutil.rmtree(built.root / ".git" / "intent" / "memory", ignore_errors=True)
    # What a test may have added to the shared repository: a remote, the sharing level, the evidence refs.
    git(built.root, "remote", "remove", "origin", check=False)
    git(built.root, "config", "--unset", "intent.share", check=False)
    for ref in git(
        built.root, "for-each-ref", "--format=%(refname)", "refs/intent/", "refs/notes/remotes/"
    ).split():
        git(built.root, "update-ref", "-d", ref)
    return built
