"""`git intent mcp` answers `initialize` before the SDK is loaded, with exactly the answer the SDK
gives, and hands every later message to the SDK unchanged: raw JSON-RPC over a real stdio subprocess."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from git_intent.mcp import early

SCRIPT = Path(sys.executable).with_name("git-intent")


def _request(message_id: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": message_id, "method": method}
    if params is not None:
        body["params"] = params
    return json.dumps(body).encode() + b"\n"


def _initialize(version: str) -> bytes:
    return _request(
        0,
        "initialize",
        {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
    )


def _read_line(proc: subprocess.Popen[bytes], timeout: float = 60) -> dict[str, Any]:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "the server said nothing"
    line = proc.stdout.readline()
    assert line, "the server closed its output"
    value: dict[str, Any] = json.loads(line)
    return value


def _converse(cwd: Path, command: list[str], version: str) -> tuple[list[dict[str, Any]], str]:
    """initialize, initialized, ping, tools/list; the answers in order, and stderr."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    )
    assert proc.stdin is not None
    proc.stdin.write(_initialize(version))
    proc.stdin.flush()
    answers = [_read_line(proc)]
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n")
    proc.stdin.write(_request(1, "ping") + _request(2, "tools/list"))
    proc.stdin.flush()
    answers += [_read_line(proc), _read_line(proc)]
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert proc.stderr is not None
    return answers, proc.stderr.read().decode()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    return tmp_path / "r"


def test_the_versions_answered_early_are_the_ones_the_installed_sdk_negotiates_as_asked() -> None:
    assert early.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


@pytest.mark.slow
@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25", "1999-01-01"])
def test_the_early_answer_is_the_sdks_and_the_sdk_serves_the_rest(repo: Path, version: str) -> None:
    sdk_only = [
        sys.executable,
        "-c",
        "import pathlib, git_intent.mcp.server as s; s.serve(pathlib.Path('.'))",
    ]
    expected, _ = _converse(repo, sdk_only, version)
    answers, stderr = _converse(repo, [str(SCRIPT), "mcp"], version)
    assert answers == expected
    assert [a["id"] for a in answers] == [0, 1, 2]
    assert {t["name"] for t in answers[2]["result"]["tools"]} >= {"blame", "why", "ask", "show"}
    assert stderr == ""  # the SDK's own answer to the replayed initialize matched the one sent


def test_only_an_initialize_for_a_handshake_version_is_answered_early() -> None:
    args = ("git-intent", "9.9", "say hi")
    asked = json.loads(_initialize("2025-06-18"))
    assert early.initialize_result(asked, *args) == {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {
            "capabilities": early.CAPABILITIES,
            "instructions": "say hi",
            "protocolVersion": "2025-06-18",
            "serverInfo": {"name": "git-intent", "version": "9.9"},
        },
    }
    assert early.initialize_result(json.loads(_initialize("2026-07-28")), *args) is None
    assert early.initialize_result(json.loads(_request(3, "ping")), *args) is None
    assert (
        early.initialize_result({"method": "initialize", "params": {"protocolVersion": "2025-06-18"}}, *args)
        is None
    )  # a notification has no id: nothing to answer


GATE = """\
import os, sys, time
class _Gate:
    def find_spec(self, name, path=None, target=None):
        if name == "mcp.server.mcpserver":
            while not os.path.exists(os.environ["GIT_INTENT_TEST_GATE"]):
                time.sleep(0.01)
        return None
sys.meta_path.insert(0, _Gate())
"""


@pytest.mark.slow
def test_initialize_is_answered_while_the_sdk_cannot_load(repo: Path, tmp_path: Path) -> None:
    """The SDK's import is held at a gate (a sitecustomize finder) until the answer has arrived: were the
    answer the SDK's, it would never come."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(GATE, encoding="utf-8")
    gate = tmp_path / "open"
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "GIT_INTENT_TEST_GATE": str(gate)}
    proc = subprocess.Popen(
        [str(SCRIPT), "mcp"],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(_initialize("2025-06-18"))
        proc.stdin.flush()
        assert _read_line(proc, timeout=30)["result"]["serverInfo"]["name"] == "git-intent"
        gate.touch()
        proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n"
        )
        proc.stdin.write(_request(1, "ping"))
        proc.stdin.flush()
        assert _read_line(proc) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    finally:
        gate.touch()
        proc.stdin.close()
        proc.wait(timeout=30)
