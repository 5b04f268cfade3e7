"""What a plain `git intent blame` and an offline `why` import: the answers people wait on most
start with no pydantic, no grammar pack once a file's symbols are kept, no adapter once a parse is kept, and
none of the other commands' modules; `blame LOCATION` without click (cli/printing.py). Measured by
`python -X importtime` of the real CLI on the demo."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from git_intent.demo import run_demo

LINE = "cmd/entire/cli/agent/chunking.go:85"
# Never on the read path of a plain answer: validation and JSON (pydantic), the model client, the other
# stages and interfaces, and every command module but the one that runs.
NEVER = (
    "pydantic",
    "pydantic_core",
    "litellm",
    "httpx",
    "git_intent.fidelity.budget",
    "git_intent.index",
    "git_intent.review",
    "git_intent.share",
    "git_intent.mcp.",
    "git_intent.serve",
    "git_intent.lsp.",
    "git_intent.capture.",
    "git_intent.interop",
    "git_intent.cli.capture",
    "git_intent.cli.sessions",
    "git_intent.cli.share",
    "git_intent.cli.review",
    "git_intent.cli.agents",
)
# Not once the caches hold the file's symbols and the session's parse.
WARM_NEVER = (
    "tree_sitter",
    "tree_sitter_language_pack",
    "git_intent.adapters.claude_code",
    "git_intent.transcripts.shell",
)


def imported(args: list[str], cwd: Path) -> set[str]:
    """The modules `python -m git_intent ARGS` imports, by `-X importtime` (bytecode written, as
    installed)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "git_intent", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


@pytest.mark.parametrize(
    ("args", "also_never"),
    [(["blame", LINE], ("click",)), (["why", LINE, "--offline"], ())],
    ids=["blame", "why"],
)
def test_a_plain_answer_imports_only_what_it_needs(
    args: list[str], also_never: tuple[str, ...], tmp_path: Path
) -> None:
    run_demo(tmp_path / "demo")
    first = imported(args, tmp_path / "demo")
    assert "git_intent.explain.blame" in first and "git_intent.sessions.parse_cache" in first  # it measured
    assert [m for m in first if m.startswith(NEVER + also_never)] == []
    warm = imported(args, tmp_path / "demo")
    assert [m for m in warm if m.startswith(NEVER + also_never + WARM_NEVER)] == []


def test_json_output_builds_no_pydantic_serializer_either(tmp_path: Path) -> None:
    """`models.to_json` prints the dataclasses (tests/test_json_form.py holds it to pydantic's form)."""
    run_demo(tmp_path / "demo")
    found = imported(["blame", LINE, "--json"], tmp_path / "demo")
    assert "git_intent.explain.blame" in found and not [m for m in found if m.startswith("pydantic")]
