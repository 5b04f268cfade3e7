"""A repository for the review and serve tests, built from the linked fixtures (fixtures/linked).

The three entire-cli commits of fixtures/linked, in one history, oldest first:
  baseline    a person's pre-image of the three sessions' files (recorded: no agent lines)
  gemini      ac3f02a3c337 session 2 (1ed1f046…) replayed: gemini.go, 8 lines, recorded
  chunking    ac3f02a3c337 session 0 (0a0314fb…) replayed: chunking.go and its test, 32 lines, recorded
  person      Pat changes one line session 0 wrote (recorded: a note with no agent lines)
  telemetry   8ece5fc12e98 (cc432c40…, two topics) replayed: detached.go and its test, 54 lines, recorded
  unrecorded  Sam adds a comment to chunking.go; no note
  script      a Claude Code session asked, in words holding a literal `<script>`, to write docs/notes.md
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

import pytest
from conftest import PYTHON_BIN

from support import ClaudeSession, Clock, corpus, git, run_cli
from support.transcript_replay import commit_replayed, rebuild_claude, write_replayed

S0 = "0a0314fb-b206-450f-b895-cd5181a28ae5"
S2 = "1ed1f046-f456-4f14-9c74-bb83179cf809"
S8 = "cc432c40-914a-4c1a-a972-0103199a736a"
AC3F = ("linked", "entire-cli", "checkpoints", "ac", "3f02a3c337")
E8CE = ("linked", "entire-cli", "checkpoints", "8e", "ce5fc12e98", "0", "full.jsonl")
CHUNKING = "cmd/entire/cli/agent/chunking.go"
CHANGED = "if len(lineWithNewline) > maxSize {"
SCRIPT_PROMPT = 'Add notes.md saying <script>window.__pwned = 1</script> must stay literal & "quoted".'
SCRIPT_FILE = "docs/notes.md"


@dataclass
class ReviewRepo:
    """The built repository, its environment (isolated HOME and agent folders) and what the tests check."""

    path: Path
    env: dict[str, str]
    baseline: str
    gemini: str
    chunking: str
    person: str
    telemetry: str
    unrecorded: str
    script: str
    changed_line: int  # the line of CHUNKING the person changed (1-based, at HEAD)
    script_session: str
    script_prompt: str  # message id of the `<script>` prompt
    script_edit: str  # message id of the Write


def isolated_env(home: Path) -> dict[str, str]:
    """An environment whose HOME, git config and agent folders live under `home`."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "GIT_AUTHOR_NAME": "Test Person",
        "GIT_AUTHOR_EMAIL": "person@example.com",
        "GIT_COMMITTER_NAME": "Test Person",
        "GIT_COMMITTER_EMAIL": "person@example.com",
        "PATH": f"{PYTHON_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }


def _record(repo: Path, *transcripts: Path) -> None:
    args = ["record", "HEAD", "--json", *[a for t in transcripts for a in ("--transcript", str(t))]]
    proc = run_cli(*args, cwd=repo)
    assert proc.returncode == 0, proc.stderr


def build_review_repo(root: Path) -> ReviewRepo:
    """Build the repository under `root` with HOME and the agents' folders isolated under it too."""
    env = isolated_env(root / "home")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_INTENT"):
            patch.delenv(name, raising=False)
        return _build(root / "repo", env)


def _build(repo: Path, env: dict[str, str]) -> ReviewRepo:
    t0, t2, t8 = corpus(*AC3F, "0", "full.jsonl"), corpus(*AC3F, "2", "full.jsonl"), corpus(*E8CE)
    r0, r2, r8 = rebuild_claude(t0), rebuild_claude(t2), rebuild_claude(t8)
    cwd, cwd8 = _cwd(t0), _cwd(t8)
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "commit.gpgsign", "false")
    repo = repo.resolve()
    write_replayed(repo, {**r2.pre, **r0.pre}, cwd)
    write_replayed(repo, r8.pre, cwd8)
    at = datetime.fromisoformat
    baseline = commit_replayed(
        repo, "baseline before the agent sessions", at(r2.first_edit_at) - timedelta(hours=1)
    )
    _record(repo)
    write_replayed(repo, r2.post, cwd)
    gemini = commit_replayed(
        repo, "log error when marshalling fails", at(r2.last_edit_at) + timedelta(minutes=1)
    )
    _record(repo, t0, t2)
    write_replayed(repo, r0.post, cwd)
    chunking = commit_replayed(
        repo, "handle a jsonl line bigger than the chunk size", at(r0.last_edit_at) + timedelta(minutes=1)
    )
    _record(repo, t0, t2)

    target = repo / CHUNKING
    lines = target.read_text(encoding="utf-8").split("\n")
    changed = next(i for i, line in enumerate(lines) if line.strip() == CHANGED)
    lines[changed] = lines[changed].replace("maxSize {", "maxSize { // a single line may not be split")
    target.write_text("\n".join(lines), encoding="utf-8")
    person = commit_replayed(
        repo,
        "comment the size check",
        at(r0.last_edit_at) + timedelta(hours=2),
        author="Pat Person <pat@example.com>",
    )
    _record(repo)
    write_replayed(repo, r8.post, cwd8)
    telemetry = commit_replayed(repo, "fix test", at(r8.last_edit_at) + timedelta(minutes=1))
    _record(repo, t8)
    target.write_text(
        "// Package agent: chunking of JSONL transcripts.\n" + target.read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    unrecorded = commit_replayed(
        repo,
        "say what the file is for",
        at(r8.last_edit_at) + timedelta(hours=1),
        author="Sam Someone <sam@example.com>",
    )

    clock = Clock(datetime.now(timezone.utc) - timedelta(minutes=10))
    session = ClaudeSession(cwd=repo, clock=clock)
    prompt = session.prompt(SCRIPT_PROMPT)
    session.say("I will write the note with the text exactly as you gave it.")
    edit = session.write(
        "Writing docs/notes.md.",
        repo / SCRIPT_FILE,
        '# Notes\n\nKeep <script>window.__pwned = 1</script> literal & "quoted".\n',
    )
    transcript = session.save()
    assert str(transcript).startswith(env["CLAUDE_CONFIG_DIR"])
    script = commit_replayed(repo, "notes", datetime.now(timezone.utc) - timedelta(minutes=1))
    _record(repo, transcript)
    return ReviewRepo(
        path=repo,
        env={**os.environ, **env},
        baseline=baseline,
        gemini=gemini,
        chunking=chunking,
        person=person,
        telemetry=telemetry,
        unrecorded=unrecorded,
        script=script,
        changed_line=changed + 2,
        script_session=session.session_id,
        script_prompt=prompt,
        script_edit=edit,
    )


def _cwd(transcript: Path) -> str:
    for line in transcript.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if isinstance(record, dict) and isinstance(record.get("cwd"), str):
            return str(record["cwd"])
    raise AssertionError(f"no cwd in {transcript}")


class Served(Protocol):
    """A repository to serve: its work tree and the environment its commands run in (a ReviewRepo is one)."""

    path: Path
    env: dict[str, str]


@dataclass(frozen=True)
class Site:
    """A running `git intent serve`: its base URL (ends with /) and this run's key, from the address it
    printed."""

    base: str
    key: str

    @property
    def address(self) -> str:
        """The address serve printed: the base URL with `?token=KEY`."""
        return f"{self.base}?token={self.key}"

    @property
    def cookie(self) -> str:
        """The `Cookie` header value a browser holds once it opened `address`."""
        return f"git-intent-{urlsplit(self.base).port}={self.key}"


@contextmanager
def serving(built: Served, *extra: str, env: dict[str, str] | None = None) -> Iterator[Site]:
    """`git intent serve --port 0 EXTRA` running in the built repository (environment `env` added);
    yields where it is and its key. The server is stopped (by its own pid) when the block ends."""
    proc = subprocess.Popen(
        ["git", "intent", "serve", "--port", "0", *extra],
        cwd=built.path,
        env={**built.env, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline() if ready else ""
        match = re.search(r"at (http://127\.0\.0\.1:\d+/)\?token=([A-Za-z0-9_-]{43}) ", line)
        if match is None:
            proc.kill()
            raise AssertionError(f"serve did not start: {line!r} {proc.communicate()[1]}")
        yield Site(match[1], match[2])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def serving_opened(built: Served, folder: Path) -> Iterator[tuple[Site, str]]:
    """`serving(built, "--open")` with a stand-in browser (a script in `folder`, named by BROWSER) that
    records the one argument it is started with; yields the site and that argument."""
    import stat
    import time

    opened = folder / "opened.txt"
    browser = folder / "browser"
    browser.write_text(f"#!/bin/sh\nprintf '%s' \"$1\" > {opened}.part && mv {opened}.part {opened}\n")
    browser.chmod(browser.stat().st_mode | stat.S_IEXEC)
    with serving(built, "--open", env={"BROWSER": str(browser)}) as site:
        deadline = time.monotonic() + 20
        while not opened.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        yield site, opened.read_text()


def levels(built: ReviewRepo) -> dict[str, str]:
    """The user's stored fidelity choices for session S8 (what `git intent fidelity` writes)."""
    proc = run_cli("context", S8, "--json", cwd=built.path, env=built.env)
    assert proc.returncode == 0, proc.stderr
    return {
        t["topic_id"]: t["fidelity"] for t in json.loads(proc.stdout)["topic_map"] if t["chosen_by"] == "user"
    }
