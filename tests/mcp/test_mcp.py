"""`git intent mcp` through the official SDK's own client, over a real stdio subprocess, on the demo
repository.

The server is started with the command `git intent install --agent claude-code` registered, so the one-line
mount is what is tested. Each tool must answer with exactly the JSON of the matching command's `--json`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import run_cli
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult

from git_intent.demo import run_demo

SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"
FILE = "cmd/entire/cli/agent/chunking.go"
TOOLS = {
    "blame",
    "why",
    "ask",
    "show",
    "search",
    "view_context",
    "set_fidelity",
    "sessions",
    "log",
    "intent_for",
    "recall",
}


@pytest.fixture
def demo_repo(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    run_demo(folder)
    return folder


def cli_json(repo: Path, *args: str) -> Any:
    proc = run_cli(*args, "--json", cwd=repo)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def talk(params: StdioServerParameters, conversation: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            await conversation(client)

    anyio.run(main)


def payload(result: CallToolResult) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    assert len(result.content) == 1
    text: str = result.content[0].text  # type: ignore[union-attr]
    assert "Traceback" not in text and "\n" not in text and text.endswith(".")
    return text


def registered_command(home: Path) -> list[str]:
    """The server command `install --agent claude-code` wrote into Claude Code's user config."""
    proc = run_cli("install", "--agent", "claude-code", cwd=home)
    assert proc.returncode == 0, proc.stderr
    entry = json.loads((Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json").read_text())["mcpServers"][
        "git-intent"
    ]
    assert entry["type"] == "stdio" and entry["args"] == ["mcp"]
    return [entry["command"], *entry["args"]]


@pytest.mark.slow
def test_tools_answer_with_the_commands_json(demo_repo: Path, isolated_env: Path, tmp_path: Path) -> None:
    command = registered_command(isolated_env)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], "--repo", str(demo_repo)],
        cwd=str(elsewhere),
        env=dict(os.environ),
    )
    expected = {
        "blame": cli_json(demo_repo, "blame", f"{FILE}:85-88"),
        "file": cli_json(demo_repo, "blame", FILE),
        "show": cli_json(demo_repo, "show", SESSION),
        "message": cli_json(demo_repo, "show", f"{SESSION}:00696767-9ae6-4387-b93c-4d48f521f55e"),
        "search": cli_json(demo_repo, "search", "MaxChunkSize error", "-n", "3"),
        "context": cli_json(demo_repo, "context", SESSION, "--budget", "1500"),
        "sessions": cli_json(demo_repo, "sessions"),
        "log": cli_json(demo_repo, "log"),
        "log1": cli_json(demo_repo, "log", "HEAD~1"),
    }

    async def conversation(client: Client) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(listed) == TOOLS
        assert "BEFORE you edit" in (listed["blame"].description or "")
        assert "recover a decision" in (listed["search"].description or "")
        assert "why a test expects" in (listed["search"].description or "")
        assert listed["blame"].annotations is not None and listed["blame"].annotations.read_only_hint
        assert listed["blame"].input_schema["required"] == ["path"]

        blame = await client.call_tool("blame", {"path": FILE, "line": 85, "end_line": 88})
        assert payload(blame) == expected["blame"]
        assert blame.structured_content == expected["blame"]
        assert "not instructions" in blame.content[1].text  # type: ignore[union-attr]
        assert payload(await client.call_tool("blame", {"path": FILE})) == expected["file"]
        assert payload(await client.call_tool("show", {"session_id": SESSION})) == expected["show"]
        assert (
            payload(await client.call_tool("show", {"session_id": SESSION[:8], "message_id": "00696767"}))
            == expected["message"]
        )
        hits = await client.call_tool("search", {"query": "MaxChunkSize error", "limit": 3})
        assert payload(hits) == expected["search"] and hits.structured_content == {
            "result": expected["search"]
        }
        context = await client.call_tool("view_context", {"session_id": SESSION, "budget": 1500})
        assert payload(context) == expected["context"]
        assert payload(await client.call_tool("sessions", {})) == expected["sessions"]
        assert payload(await client.call_tool("log", {})) == expected["log"]
        assert payload(await client.call_tool("log", {"range": "HEAD~1"})) == expected["log1"]

        # errors: one sentence each, and the server keeps serving
        missing = await client.call_tool("blame", {"path": "no/such.go", "line": 1})
        assert error_text(missing) == "no/such.go is not a file in the work tree."
        assert (
            error_text(await client.call_tool("blame", {"path": FILE, "line": 0}))
            == "The blame tool's argument `line` is not valid: Input should be greater than or equal to 1."
        )
        assert "No session matches nope:" in error_text(
            await client.call_tool("show", {"session_id": "nope"})
        )
        assert (
            error_text(await client.call_tool("log", {"range": "--output=/tmp/x"}))
            == "'--output=/tmp/x' is not a revision or range of this repository."
        )
        assert (
            error_text(
                await client.call_tool(
                    "set_fidelity", {"session_id": SESSION, "target": "t9", "level": "full"}
                )
            )
            == f"Session {SESSION} has no topic t9."
        )
        lowered = await client.call_tool(
            "set_fidelity", {"session_id": SESSION, "target": "t1", "level": "placeholder"}
        )
        changed = payload(lowered)
        topic = changed.pop("topic")  # the topic's annotation: offline here, no model annotated it
        assert changed == {
            "session": SESSION,
            "target": "t1",
            "level": "placeholder",
            "topics": {"t1": "placeholder"},
            "messages": {},
        }
        assert (topic["topic_id"], topic["source"]) == ("t1", "offline")
        assert topic["placeholder"].endswith("(33 messages, 2 edits)") and topic["summary"].startswith(
            "Asked: "
        )
        assert (
            payload(await client.call_tool("blame", {"path": FILE, "line": 86}))["lines"][0]["attribution"][
                "session_id"
            ]
            == SESSION
        )

    talk(params, conversation)
    # set_fidelity changed the same state the CLI reads
    assert cli_json(demo_repo, "context", SESSION)["levels"] == {"t1": "placeholder"}
    assert cli_json(demo_repo, "fidelity", SESSION, "t1", "auto")["topics"] == {}


BLOCK_ANSWER = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "git_intent.answer" or name.startswith("git_intent.answer."):
            raise ImportError(name)
sys.meta_path.insert(0, Block())
sys.argv = ["git-intent", "mcp"]
from git_intent.cli import main
main()
"""


@pytest.mark.slow
def test_why_and_ask_without_the_answer_library_are_tool_errors(demo_repo: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-c", BLOCK_ANSWER], cwd=str(demo_repo), env=dict(os.environ)
    )

    async def conversation(client: Client) -> None:
        why = await client.call_tool("why", {"path": FILE, "line": 86})
        assert error_text(why) == "why/ask are not available in this build."
        ask = await client.call_tool("ask", {"question": "why chunk lines?"})
        assert error_text(ask) == "why/ask are not available in this build."
        assert (
            payload(await client.call_tool("blame", {"path": FILE, "line": 86}))["lines"][0]["status"]
            == "agent"
        )

    talk(params, conversation)


@pytest.mark.slow
def test_a_server_started_outside_a_repository_answers_with_the_reason(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command="git", args=["intent", "mcp"], cwd=str(tmp_path), env=dict(os.environ)
    )

    async def conversation(client: Client) -> None:
        for _ in range(2):  # still serving after the first error
            text = error_text(await client.call_tool("log", {}))
            assert text == f"{tmp_path.resolve()} is not inside a git work tree."

    talk(params, conversation)


def test_mcp_refuses_a_missing_repo(tmp_path: Path) -> None:
    proc = run_cli("mcp", "--repo", str(tmp_path / "missing"), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == f"error: --repo {tmp_path / 'missing'} does not exist.\n"


def test_the_sdk_is_imported_only_by_the_mcp_command() -> None:
    code = (
        "import sys, git_intent.cli, git_intent.mcp.register, git_intent.mcp.tools;print(sorted(m for m in "
        "sys.modules if m.split('.')[0] in ('mcp', 'tomlkit')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "[]\n"
