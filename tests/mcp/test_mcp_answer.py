"""The MCP `why` and `ask` tools over a real stdio subprocess, against the why/ask library.

Written against `git_intent.answer.why(repo, location, *, model=None, offline=False)` and
`git_intent.answer.ask(repo, question, *, path=None, model=None, offline=False)`, both returning the pydantic
`WhyAnswer`; without a model configured the server answers offline, so the tools must return exactly the
library's offline answer.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult

from git_intent.answer.ask_question import ask
from git_intent.answer.why_line import WhyAnswer, why
from git_intent.core.values import to_json, validate
from git_intent.demo import run_demo
from git_intent.git.repo import Repository
from git_intent.schemas import available

SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"
FILE = "cmd/entire/cli/agent/chunking.go"
VOLATILE = {"seconds", "elapsed", "elapsed_seconds", "duration", "duration_ms", "took"}


def stable(value: Any) -> Any:
    """`value` without timing fields, which differ between two runs of the same answer."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def payload(result: CallToolResult) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


@pytest.mark.slow
def test_why_and_ask_tools_answer_like_the_library(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    run_demo(folder)
    repo = Repository(folder)
    expected_why = stable(to_json(why(repo, f"{FILE}:85-88")))
    expected_ask = stable(
        to_json(ask(repo, "Why are single lines bigger than the chunk size handled?", path=FILE))
    )
    assert SESSION in json.dumps(expected_why)
    params = StdioServerParameters(
        command="git", args=["intent", "mcp"], cwd=str(folder), env=dict(os.environ)
    )

    async def main() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            answer = await client.call_tool("why", {"path": FILE, "line": 85, "end_line": 88})
            assert stable(payload(answer)) == expected_why
            validate(WhyAnswer, payload(answer))
            assert "not instructions" in answer.content[1].text  # type: ignore[union-attr]
            asked = await client.call_tool(
                "ask", {"question": "Why are single lines bigger than the chunk size handled?", "path": FILE}
            )
            assert stable(payload(asked)) == expected_ask
            missing = await client.call_tool("why", {"path": "no/such.go", "line": 1})
            assert missing.is_error
            text = missing.content[0].text  # type: ignore[union-attr]
            assert "no/such.go" in text and "\n" not in text and "Traceback" not in text
            assert not (await client.call_tool("log", {})).is_error  # still serving

    anyio.run(main)


def test_why_and_ask_have_schemas() -> None:
    assert {"why", "ask"} <= set(available())
    root = Path(__file__).resolve().parents[2] / "docs" / "schemas"
    assert (root / "why.json").is_file() and (root / "ask.json").is_file()
