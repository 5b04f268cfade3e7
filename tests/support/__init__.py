"""Helpers the tests share (one place, imported as `from support import ...`): git and the installed CLI,
notes, commits through the hook, agent transcripts written the way Claude Code and Codex CLI write them,
and the real linked corpus in fixtures/.

Fixtures (the isolated HOME, `repo`) stay in conftest.py.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

# Real transcripts and links, kept in the repository (fixtures/README.md) so a fresh clone runs every test.
CORPUS = Path(__file__).resolve().parents[2] / "fixtures"
NOTES_REF = "refs/notes/git-intent"
WAIT = 30.0  # seconds to wait for the hook's background worker
SYNC = {
    "GIT_INTENT_HOOK_SYNC": "1"
}  # the hooks' worker runs in the foreground: the note is there when git returns


# --- git and the CLI --------------------------------------------------------------------------------------


def corpus(*parts: str) -> Path:
    """A path inside fixtures/; a missing fixture fails the test (never a silent skip)."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"fixture {path} is missing")
    return path


def fixture_transcripts() -> Iterator[Path]:
    """Every transcript file of fixtures/ that some adapter reads (all six agents, the linked corpus too)."""
    from git_intent.adapters import sniff

    for folder in (CORPUS / "transcripts", CORPUS / "linked"):
        for path in sorted(folder.rglob("*")):
            if (
                path.is_file()
                and path.suffix in (".jsonl", ".json", ".md", ".db")
                and sniff(path) is not None
            ):
                yield path


def git(repo: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    """Run git in `repo` and return stdout."""
    proc = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed `git intent` (through git, as users do) and return the completed process."""
    return subprocess.run(
        ["git", "intent", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def run_in_terminal(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> tuple[int, str]:
    """Run `argv` with stdin, stdout and stderr on a new pseudo-terminal (as a person at a terminal runs it);
    (exit code, everything the terminal received, CRLF turned back into LF)."""
    import pty
    import select

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    received = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer of the terminal is gone
                break
            if not chunk:
                break
            received += chunk
    finally:
        os.close(master)
        code = proc.wait(timeout=timeout)
    return code, received.decode("utf-8", "replace").replace("\r\n", "\n")


def keygen(folder: Path, name: str) -> tuple[Path, str]:
    """A new ed25519 key without a passphrase: (private key file, public key line)."""
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / name
    proc = subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], capture_output=True
    )
    assert proc.returncode == 0, proc.stderr
    return key, (folder / f"{name}.pub").read_text().strip()


def install(repo: Path) -> None:
    """`git intent install` in `repo`; it must succeed."""
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 0, proc.stderr


# Two small files an agent writes in the record tests (tests/capture/test_record_history.py,
# test_record_cache.py).
A_PY = "def alpha_feature(x):\n    return x * 41 + 1\n"
B_PY = "def beta_feature(y):\n    return y * 43 + 7\n"


def commit_at(repo: Path, message: str, when: datetime, *paths: str) -> str:
    """`git add PATHS` and a commit authored and committed at `when`; the new SHA."""
    stamp = when.isoformat()
    env = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    git(repo, "add", *paths, env=env)
    git(repo, "commit", "-q", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


def commit_all(repo: Path, message: str, *args: str, env: dict[str, str] | None = None) -> str:
    """`git add -A` and `git commit -q -m MESSAGE ARGS` through whatever hook is installed; the new SHA."""
    git(repo, "add", "-A", env=env)
    proc = subprocess.run(
        ["git", "commit", "-q", "-m", message, *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert proc.returncode == 0, proc.stderr
    return git(repo, "rev-parse", "HEAD").strip()


def commit_synced(repo: Path, message: str, *args: str, env: dict[str, str] | None = None) -> str:
    """`commit_all` with the hooks' worker in the foreground (`SYNC`)."""
    return commit_all(repo, message, *args, env={**SYNC, **(env or {})})


def agent_commit(
    repo: Path, before: dict[str, str], after: dict[str, str], started: datetime, ended: datetime
) -> str:
    """In the empty repository `repo`: a person commits `before` (relative path → text) half an hour before
    the session `started`; git-intent is installed; the agent's files `after` are committed a minute after
    it `ended`, through the hook with its worker in the foreground. The session's transcript must already
    be where its agent keeps it. Returns the agent commit's sha."""
    write_files(repo, before)
    commit_at_all(repo, "baseline", started - timedelta(minutes=30))
    install(repo)
    write_files(repo, after)
    stamp = (ended + timedelta(minutes=1)).isoformat()
    return commit_all(
        repo, "the agent's change", env={**SYNC, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    )


def write_files(repo: Path, files: dict[str, str]) -> None:
    """Write each relative path's text (UTF-8) below `repo`."""
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")


def commit_at_all(repo: Path, message: str, when: datetime) -> str:
    """`git add -A` and a commit authored and committed at `when` (allowed to be empty); the new SHA."""
    stamp = when.isoformat()
    env = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-q", "--allow-empty", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


def commit_file(
    repo: Path, name: str, text: str, message: str | None = None, env: dict[str, str] | None = None
) -> str:
    """Write `name` (UTF-8), commit it alone (through whatever hook is installed, which must print nothing)
    and return the new commit's SHA."""
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    git(repo, "add", name)
    proc = subprocess.run(
        ["git", "commit", "-q", "-m", message or f"add {name}"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return git(repo, "rev-parse", "HEAD").strip()


# --- notes ------------------------------------------------------------------------------------------------


def wait_for(predicate: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """The first truthy value of `predicate()`, polled every 50 ms; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.05)


def note_text(repo: Path, rev: str = "HEAD") -> str | None:
    """The git-intent note on `rev`, or None when it has none."""
    proc = subprocess.run(
        ["git", "notes", "--ref", NOTES_REF, "show", rev], cwd=repo, capture_output=True, text=True
    )
    return proc.stdout if proc.returncode == 0 else None


def wait_for_note(repo: Path, rev: str = "HEAD", timeout: float = WAIT) -> str:
    """The git-intent note on `rev`, waiting for the hook's background worker to write it."""
    text: str = wait_for(lambda: note_text(repo, rev), f"the note on {rev} in {repo}", timeout)
    return text


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every non-blank line of `text` decoded as JSON."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def note_records(repo: Path, rev: str = "HEAD") -> list[dict[str, Any]]:
    """The JSON lines of the note on `rev`, which must exist."""
    text = note_text(repo, rev)
    assert text is not None, f"no note on {rev}"
    return json_lines(text)


def journal(repo: Path) -> list[dict[str, Any]]:
    """The entries of the backup's journal (`.opencode/intent/journal.jsonl`)."""
    path = repo / ".opencode" / "intent" / "journal.jsonl"
    if not path.is_file():
        return []
    return json_lines(path.read_text(encoding="utf-8"))


# --- blame ------------------------------------------------------------------------------------------------


def blame_json(repo: Path, location: str) -> dict[str, Any]:
    """`git intent blame LOCATION --json`, which must exit 0 with nothing on stderr."""
    proc = run_cli("blame", location, "--json", cwd=repo)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert proc.stderr == ""
    answer: dict[str, Any] = json.loads(proc.stdout)
    return answer


def blamed(repo: Path, path: str, text: str) -> tuple[Any, ...]:
    """What `blame --json` says of the one line of `path` that reads `text`: (commit, status, agent,
    session id, message id, tool, and the role and message id of its first evidence); None for what it does
    not say."""
    got = blame_json(repo, f"{path}:{line_of(repo / path, text)}")["lines"][0]
    assert got["content"] == text
    credit, first = got["attribution"] or {}, (got["evidence"] or [{}])[0]
    return (
        got["commit"],
        got["status"],
        credit.get("agent"),
        credit.get("session_id"),
        credit.get("message_id"),
        credit.get("tool"),
        first.get("role"),
        first.get("message_id"),
    )


def line_of(path: Path, text: str) -> int:
    """The 1-based number of the one line of `path` that reads `text`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines.count(text) == 1, f"{text!r} occurs {lines.count(text)} times in {path}"
    return lines.index(text) + 1


# --- transcripts, written where and how the agents write them ----------------------------------------------


def write_records(path: Path, records: list[Any]) -> Path:
    """A JSON Lines file: each record as compact-enough JSON (a string is written verbatim), one per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8"
    )
    return path


def iso(when: datetime) -> str:
    """An ISO-8601 UTC timestamp with milliseconds and a Z, as both agents write them."""
    return when.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Clock:
    """Strictly increasing timestamps starting at `start` (default: now)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime.now(timezone.utc)

    def tick(self, ms: int = 7) -> str:
        self.now += timedelta(milliseconds=ms)
        return iso(self.now)


def claude_project_dir(cwd: Path) -> Path:
    """$CLAUDE_CONFIG_DIR/projects/<cwd with every non-alphanumeric character replaced by '-'>."""
    name = re.sub(r"[^A-Za-z0-9]", "-", str(cwd))
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / name


@dataclass
class ClaudeSession:
    """Builds a Claude Code transcript record by record, the way Claude Code 2.x writes them."""

    cwd: Path
    clock: Clock
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    records: list[dict[str, Any]] = field(default_factory=list)
    last_uuid: str | None = None

    def _base(self, kind: str) -> dict[str, Any]:
        return {
            "parentUuid": self.last_uuid,
            "isSidechain": False,
            "userType": "external",
            "cwd": str(self.cwd),
            "sessionId": self.session_id,
            "version": "2.1.7",
            "gitBranch": "main",
            "type": kind,
            "uuid": str(uuid.uuid4()),
            "timestamp": self.clock.tick(),
        }

    def _add(self, record: dict[str, Any]) -> str:
        self.records.append(record)
        self.last_uuid = record["uuid"]
        return str(record["uuid"])

    def prompt(self, text: str) -> str:
        record = self._base("user")
        record["message"] = {"role": "user", "content": text}
        return self._add(record)

    def say(self, text: str) -> str:
        record = self._base("assistant")
        record["message"] = {
            "model": "claude-opus-4-5-20251101",
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 10},
        }
        return self._add(record)

    def _tool(self, text: str, name: str, args: dict[str, Any]) -> tuple[str, str]:
        call_id = f"toolu_01{uuid.uuid4().hex[:22]}"
        record = self._base("assistant")
        record["message"] = {
            "model": "claude-opus-4-5-20251101",
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "text", "text": text},
                {"type": "tool_use", "id": call_id, "name": name, "input": args},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 10},
        }
        return self._add(record), call_id

    def _result(self, call_id: str, source: str, content: str, result: dict[str, Any]) -> str:
        record = self._base("user")
        record["message"] = {
            "role": "user",
            "content": [{"tool_use_id": call_id, "type": "tool_result", "content": content}],
        }
        record["toolUseResult"] = result
        record["sourceToolAssistantUUID"] = source
        return self._add(record)

    def write(self, text: str, path: Path, content: str) -> str:
        """An assistant message with a Write of a new file, its result, and the file on disk."""
        message_id, call_id = self._tool(text, "Write", {"file_path": str(path), "content": content})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        self._result(
            call_id,
            message_id,
            f"File created successfully at: {path}",
            {
                "type": "create",
                "filePath": str(path),
                "content": content,
                "structuredPatch": [],
                "originalFile": None,
            },
        )
        return message_id

    def edit(self, text: str, path: Path, old: str, new: str) -> str:
        """An assistant message with an Edit, its result (originalFile = the file before), the file on
        disk."""
        original = path.read_text(encoding="utf-8")
        assert original.count(old) == 1
        message_id, call_id = self._tool(
            text, "Edit", {"file_path": str(path), "old_string": old, "new_string": new, "replace_all": False}
        )
        path.write_text(original.replace(old, new), encoding="utf-8")
        self._result(
            call_id,
            message_id,
            f"The file {path} has been updated successfully.",
            {
                "filePath": str(path),
                "oldString": old,
                "newString": new,
                "originalFile": original,
                "structuredPatch": [],
                "userModified": False,
                "replaceAll": False,
            },
        )
        return message_id

    def bash(self, text: str, command: str, output: str = "") -> str:
        """An assistant message with a Bash call and its successful result; the command is not run here."""
        message_id, call_id = self._tool(text, "Bash", {"command": command, "description": text})
        self._result(
            call_id,
            message_id,
            output,
            {"stdout": output, "stderr": "", "interrupted": False, "isImage": False},
        )
        return message_id

    def save(self) -> Path:
        folder = claude_project_dir(self.cwd)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.session_id}.jsonl"
        path.write_text(
            "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in self.records), encoding="utf-8"
        )
        return path


def claude_session(repo: Path, clock: Clock | None = None) -> ClaudeSession:
    """A Claude Code session working in `repo` (timestamps from `clock`, default: from now)."""
    return ClaudeSession(cwd=repo, clock=clock or Clock())


def unified(before: str, after: str) -> str:
    """The `unified_diff` Codex puts in patch_apply_end: hunks only, no ---/+++ header."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1))
    return "\n".join(lines[2:]) + "\n"


@dataclass
class CodexSession:
    """Builds a Codex CLI rollout (0.12x layout) record by record."""

    cwd: Path
    clock: Clock
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    records: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.started = self.clock.now
        self._add(
            "session_meta",
            {
                "id": self.session_id,
                "timestamp": iso(self.started),
                "cwd": str(self.cwd),
                "originator": "codex_cli_rs",
                "cli_version": "0.125.0",
                "source": "cli",
                "model_provider": "openai",
            },
        )

    def _add(self, kind: str, payload: dict[str, Any]) -> str:
        self.records.append({"timestamp": self.clock.tick(), "type": kind, "payload": payload})
        return f"r{len(self.records)}"  # the 1-based ordinal of the record in the file

    def prompt(self, text: str) -> str:
        self._add("turn_context", {"cwd": str(self.cwd), "approval_policy": "on-request", "model": "gpt-5.5"})
        self._add(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n</environment_context>",
                    }
                ],
            },
        )
        self._add(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        )
        return self._add(
            "event_msg",
            {"type": "user_message", "message": text, "images": [], "local_images": [], "text_elements": []},
        )

    def say(self, text: str, phase: str = "commentary") -> str:
        return self._add(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
                "phase": phase,
            },
        )

    def apply_patch(self, files: dict[Path, str]) -> str:
        """One apply_patch call updating or adding `files` (path -> new text); the files change on disk."""
        call_id = f"call_{uuid.uuid4().hex[:24]}"
        envelope = ["*** Begin Patch"]
        changes: dict[str, dict[str, Any]] = {}
        for path, after in files.items():
            if path.exists():
                before = path.read_text(encoding="utf-8")
                envelope.append(f"*** Update File: {path}")
                envelope.append("@@")
                for row in unified(before, after).splitlines():
                    if not row.startswith("@@"):
                        envelope.append(row)
                changes[str(path)] = {
                    "type": "update",
                    "unified_diff": unified(before, after),
                    "move_path": None,
                }
            else:
                envelope.append(f"*** Add File: {path}")
                envelope += [f"+{row}" for row in after.splitlines()]
                changes[str(path)] = {"type": "add", "content": after}
        envelope.append("*** End Patch")
        message_id = self._add(
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "apply_patch",
                "input": "\n".join(envelope) + "\n",
            },
        )
        for path, after in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(after, encoding="utf-8")
        summary = "".join(f"{'M' if c['type'] == 'update' else 'A'} {p}\n" for p, c in changes.items())
        self._add(
            "event_msg",
            {
                "type": "patch_apply_end",
                "call_id": call_id,
                "turn_id": str(uuid.uuid4()),
                "stdout": f"Success. Updated the following files:\n{summary}",
                "stderr": "",
                "success": True,
                "changes": changes,
                "status": "completed",
            },
        )
        self._add(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": call_id,
                "output": json.dumps(
                    {
                        "output": f"Success. Updated the following files:\n{summary}",
                        "metadata": {"exit_code": 0, "duration_seconds": 0.0},
                    }
                ),
            },
        )
        return message_id

    def save(self) -> Path:
        day = self.started.astimezone(timezone.utc)
        folder = Path(os.environ["CODEX_HOME"]) / "sessions" / day.strftime("%Y/%m/%d")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"rollout-{day.strftime('%Y-%m-%dT%H-%M-%S')}-{self.session_id}.jsonl"
        path.write_text(
            "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in self.records), encoding="utf-8"
        )
        return path


# --- the linked corpus (fixtures/linked): real commits and the transcripts that wrote them ------------------

ENTIRE_8ECE = ("entire-cli", "checkpoints", "8e", "ce5fc12e98", "0", "full.jsonl")
ENTIRE_AC3F_S0 = ("entire-cli", "checkpoints", "ac", "3f02a3c337", "0", "full.jsonl")
ENTIRE_AC3F_S2 = ("entire-cli", "checkpoints", "ac", "3f02a3c337", "2", "full.jsonl")
GITSYNC_8FEA = ("git-sync", "checkpoints", "8f", "eaf84a600f", "0", "full.jsonl")
ENTIRE_SOURCES = ("entire-cli", "git-sync")


def json_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based ordinal, object) for every JSON object in a JSON Lines file, glued objects included; read
    independently of the product."""
    decoder = json.JSONDecoder()
    n = 0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            i = 0
            while i < len(line):
                while i < len(line) and line[i].isspace():
                    i += 1
                if i >= len(line):
                    break
                try:
                    value, i = decoder.raw_decode(line, i)
                except ValueError:
                    nxt = line.find('{"', i + 1)
                    if nxt < 0:
                        break
                    i = nxt
                    continue
                if isinstance(value, dict):
                    n += 1
                    yield n, value


def session_cwd(path: Path) -> str:
    """The working directory a Claude Code or Codex transcript recorded."""
    for _, record in json_objects(path):
        if isinstance(record.get("cwd"), str):
            return str(record["cwd"])
        payload = record.get("payload")
        if record.get("type") == "session_meta" and isinstance(payload, dict):
            return str(payload["cwd"])
    raise AssertionError(f"no cwd in {path}")


def make_repo(path: Path) -> Path:
    """An empty repository (branch main, no commit) at `path`."""
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "commit.gpgsign", "false")
    return path.resolve()


def at(stamp: str) -> datetime:
    """An ISO-8601 timestamp as a datetime."""
    return datetime.fromisoformat(stamp)


def write_tree(repo: Path, files: dict[str, bytes]) -> str:
    """A tree object holding `files` (path -> bytes), built through a scratch index."""
    env = {"GIT_INDEX_FILE": str(repo / ".git" / "scratch-index")}
    for path, data in sorted(files.items()):
        oid = (
            subprocess.run(
                ["git", "hash-object", "-w", "--stdin"], cwd=repo, input=data, capture_output=True, check=True
            )
            .stdout.decode()
            .strip()
        )
        git(repo, "update-index", "--add", "--cacheinfo", f"100644,{oid},{path}", env=env)
    tree = git(repo, "write-tree", env=env).strip()
    os.remove(repo / ".git" / "scratch-index")
    return tree


def set_ref(repo: Path, ref: str, tree: str, message: str) -> str:
    """Point `ref` at a new commit of `tree`; returns the commit."""
    commit = git(repo, "commit-tree", tree, "-m", message).strip()
    git(repo, "update-ref", ref, commit)
    return commit


def corpus_files() -> dict[str, bytes]:
    """Every file of the corpus's Entire checkpoint folders, keyed by its path on the checkpoints branch."""
    files: dict[str, bytes] = {}
    for source in ENTIRE_SOURCES:
        root = corpus("linked", source, "checkpoints")
        files.update({p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()})
    return files


def migrated_metadata(raw: bytes, checkpoint_id: str) -> bytes:
    """A checkpoint's root metadata.json as Entire's `entire doctor migrate-checkpoints` writes it into the
    checkpoint's ref (entireio/cli `cmd/entire/cli/checkpoint/migrate.go` at 002e36a8,
    `normalizeMigratedMetadata`): `checkpoint_version` dropped, each session string under
    `/<id[:2]>/<id[2:]>/` made relative to the checkpoint (`/0/full.jsonl`), then, when anything changed,
    encoded again by Go's encoding/json: keys sorted, two-space indent, a final newline. The two encoders
    agree on this data: integers only, and none of the characters Go escapes (`<`, `>`, `&`, U+2028/9)."""
    doc = json.loads(raw)
    changed = "checkpoint_version" in doc
    doc.pop("checkpoint_version", None)
    prefix = f"/{checkpoint_id[:2]}/{checkpoint_id[2:]}"
    for session in doc.get("sessions") if isinstance(doc.get("sessions"), list) else []:
        for key, value in session.items() if isinstance(session, dict) else []:
            if isinstance(value, str) and value.startswith(prefix + "/"):
                session[key] = value[len(prefix) :]
                changed = True
    if not changed:
        return raw
    text = json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert _go_writes_alike(doc) and not re.search("[<>&\u2028\u2029]", text), "Go would encode it otherwise"
    return text.encode()


def _go_writes_alike(value: Any) -> bool:
    """Whether Go's encoding/json writes every number of `value` as Python's json does: integers, and floats
    that are not integral with 1e-4 <= |f| < 1e16 (both then write the shortest round-trip decimal)."""
    if isinstance(value, dict):
        return all(_go_writes_alike(v) for v in value.values())
    if isinstance(value, list):
        return all(_go_writes_alike(v) for v in value)
    if isinstance(value, float):
        return not value.is_integer() and 1e-4 <= abs(value) < 1e16
    return True


def migrate_to_refs(repo: Path, branch: str = "refs/heads/entire/checkpoints/v1") -> dict[str, str]:
    """What `entire doctor migrate-checkpoints` (entireio/cli `MigrateBranchToRefs`, `migrate.go` at
    002e36a8; Entire CLI 0.9.0 on) does to `branch`: every checkpoint folder `<id[:2]>/<id[2:]>/` of its tip
    becomes an orphan commit "Import checkpoint <id> (migrated from git-branch)" whose tree is that folder
    with the root metadata.json migrated (`migrated_metadata`), at `refs/entire/checkpoints/<id[-2:]>/<id>`.
    The branch is left as it is. Returns {checkpoint id: ref}."""
    refs: dict[str, str] = {}
    for shard_line in git(repo, "ls-tree", "-d", branch).splitlines():
        shard = shard_line.split("\t", 1)[1]
        for line in git(repo, "ls-tree", "-d", f"{branch}:{shard}").splitlines():
            checkpoint_id = shard + line.split("\t", 1)[1]
            if not re.fullmatch(r"[0-9a-f]{12}|[0-9A-HJKMNP-TV-Z]{26}", checkpoint_id):
                continue
            folder = f"{branch}:{shard}/{checkpoint_id[2:]}"
            entries = git(repo, "ls-tree", folder).splitlines()
            raw = subprocess.run(
                ["git", "cat-file", "blob", f"{folder}/metadata.json"],
                cwd=repo,
                capture_output=True,
                check=True,
            ).stdout
            migrated = (
                subprocess.run(
                    ["git", "hash-object", "-w", "--stdin"],
                    cwd=repo,
                    input=migrated_metadata(raw, checkpoint_id),
                    capture_output=True,
                    check=True,
                )
                .stdout.decode()
                .strip()
            )
            listing = "".join(
                f"100644 blob {migrated}\tmetadata.json\n"
                if entry.endswith("\tmetadata.json")
                else entry + "\n"
                for entry in entries
            )
            tree = (
                subprocess.run(
                    ["git", "mktree"], cwd=repo, input=listing.encode(), capture_output=True, check=True
                )
                .stdout.decode()
                .strip()
            )
            refs[checkpoint_id] = f"refs/entire/checkpoints/{checkpoint_id[-2:]}/{checkpoint_id}"
            set_ref(
                repo,
                refs[checkpoint_id],
                tree,
                f"Import checkpoint {checkpoint_id} (migrated from git-branch)",
            )
    return refs


ODD_FILES = ("zero", "away.txt", "swapped.py", "pipe", "big.txt")


def add_odd_files(repo: Path, outside: Path) -> None:
    """Commit to `repo` `app.py`, then `big.txt` (over the size a work tree file is read), then `zero` (a
    link to /dev/zero), `away.txt` (a link to `outside`/secret.txt, which holds `PGPASSWORD=kept-outside`)
    and `swapped.py`, which is then replaced on disk by a FIFO; and make `pipe`, a FIFO git does not track.
    refs/notes/git-intent is made to exist (the language server answers nothing without it)."""
    from git_intent.git.worktree import MAX_FILE_BYTES

    (repo / "app.py").write_text("def main():\n    return 0\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-q", "-m", "a person's file")
    git(repo, "notes", "--ref", NOTES_REF, "add", "-m", "not a record", "HEAD~1")
    # a commit of its own: crediting app.py's commit by content reads that commit's added lines (8 Mi here)
    (repo / "big.txt").write_bytes(b"a\n" * (MAX_FILE_BYTES // 2 + 1))
    git(repo, "add", "big.txt")
    git(repo, "commit", "-q", "-m", "a large file")
    (outside / "secret.txt").write_text("PGPASSWORD=kept-outside\n")
    os.symlink("/dev/zero", repo / "zero")
    os.symlink(outside / "secret.txt", repo / "away.txt")
    (repo / "swapped.py").write_text("x = 1\n")
    git(repo, "add", "zero", "away.txt", "swapped.py")
    git(repo, "commit", "-q", "-m", "odd files")
    (repo / "swapped.py").unlink()
    os.mkfifo(repo / "swapped.py")
    os.mkfifo(repo / "pipe")


def unreadable_sentence(root: Path, path: str) -> str:
    """What `read_worktree_file` says of `path` in `root` (the web view and the language server say it as
    it is)."""
    from git_intent.core.errors import UnreadableFileError
    from git_intent.git.worktree import read_worktree_file

    try:
        read_worktree_file(root, path)
    except UnreadableFileError as exc:
        return str(exc)
    raise AssertionError(f"{path} was read")
