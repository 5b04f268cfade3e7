"""`git intent lsp` driven by a real editor: headless Neovim (Debian's package, installed by
scripts/ensure-neovim when missing; the test fails with the reason when it cannot be, never skips) starts
the server, opens a file of the demo repository, hovers an agent line and a human line, and requests code
lenses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from git_intent.demo import run_demo

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
ENSURE = ROOT / "scripts" / "ensure-neovim"
CLIENT = Path(__file__).with_name("neovim_client.lua")
FILE = "cmd/entire/cli/agent/chunking.go"
SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"


def neovim() -> str:
    """The path of nvim, installing Debian's neovim through scripts/ensure-neovim when missing."""
    found = shutil.which("nvim")
    if found:
        return found
    proc = subprocess.run([str(ENSURE)], capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0 or not proc.stdout.strip():
        pytest.fail(
            f"The editor tests need Debian's neovim, and scripts/ensure-neovim could not install it:\n"
            f"{proc.stderr.strip()}"
        )
    return proc.stdout.split()[-1]


def drive(
    nvim: str, root: Path, path: Path, lines: list[int], tmp_path: Path, *, user_config: bool = False
) -> dict[str, Any]:
    """Run neovim_client.lua; with `user_config`, Neovim loads $XDG_CONFIG_HOME (where `install --editor
    neovim --write` put its plugin) and that starts the server, else the script starts it itself."""
    out = tmp_path / "neovim.json"
    command = "" if user_config else json.dumps([sys.executable, "-m", "git_intent", "lsp"])
    env = {
        **os.environ,
        "GI_CMD": command,
        "GI_ROOT": str(root),
        "GI_FILE": str(path),
        "GI_LINES": json.dumps(lines),
        "GI_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    isolation = ["-u", str(tmp_path / "config" / "nvim" / "init.lua")] if user_config else ["--clean"]
    proc = subprocess.run(
        [nvim, "--headless", *isolation, "-n", "-c", f"luafile {CLIENT}"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert out.exists(), f"neovim wrote no result (exit {proc.returncode}): {proc.stderr}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert result["errors"] == [], result["errors"]
    return result


def test_neovim_hovers_an_agent_line_and_a_human_line_and_shows_code_lenses(tmp_path: Path) -> None:
    nvim = neovim()
    root = tmp_path / "demo"
    run_demo(root)
    result = drive(nvim, root, root / FILE, [85, 10], tmp_path)

    agent, human = result["hovers"]
    assert agent.startswith(f"**claude-code** wrote this line · session `{SESSION}` · message `b2f3c599`")
    assert "Handle single lines exceeding MaxChunkSize (error or split) in chunking.go:84" in agent
    assert human.startswith("**No agent wrote this line**: a person did (`A Person`).")

    # As Neovim rendered it: the float shows blame's text for the line, the request among it.
    shown_agent, shown_human = ("\n".join(lines) for lines in result["floats"])
    (tmp_path / "hover.txt").write_text(shown_agent, encoding="utf-8")
    assert f"more      git intent show {SESSION}:b2f3c599" in shown_agent
    assert "asked     2026-01-22 19:57 UTC [00696767]" in shown_agent
    assert "Handle single lines exceeding MaxChunkSize (error or split) in chunking.go:84" in shown_agent
    assert "written   by a person: No agent edit recorded for this commit wrote this line." in shown_human

    assert result["lenses"] == [
        {
            "start": 81,
            "end": 81,
            "command": "git-intent.showMessage",
            "title": "claude-code · b2f3c599 · asked: Handle single lines exceeding MaxChunkSize "
            "(error or split)…",
        },
        {
            "start": 84,
            "end": 89,
            "command": "git-intent.showMessage",
            "title": "claude-code · b2f3c599 · asked: Handle single lines exceeding MaxChunkSize "
            "(error or split)…",
        },
    ]


def test_the_config_install_writes_starts_the_server_in_neovim(tmp_path: Path) -> None:
    nvim = neovim()
    root = tmp_path / "demo"
    run_demo(root)
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    written = subprocess.run(
        ["git", "intent", "install", "--editor", "neovim", "--write"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert written.returncode == 0, written.stderr
    plugin = tmp_path / "config" / "nvim" / "plugin" / "git-intent.lua"
    assert f"{plugin}: created." in written.stdout
    (tmp_path / "config" / "nvim" / "init.lua").write_text("-- the user's own init\n", encoding="utf-8")
    result = drive(nvim, root, root / FILE, [86], tmp_path, user_config=True)
    assert result["hovers"][0].startswith("**claude-code** wrote this line")
    assert [(lens["start"], lens["end"]) for lens in result["lenses"]] == [(81, 81), (84, 89)]


def test_neovim_shows_trailer_and_unrecorded_lines_without_escapes_or_empty_ids(tmp_path: Path) -> None:
    """A line only a `Co-Authored-By: Claude` trailer credits (no transcript) and a line nothing records: the
    hover says what is known in plain words (Neovim 0.7 shows markdown escapes as typed), the code lens names
    the agent and the commit and opens nothing."""
    nvim = neovim()
    root = tmp_path / "demo"
    run_demo(root)

    def commit(text: str, message: str) -> str:
        (root / "tool.py").write_text(text, encoding="utf-8")
        subprocess.run(["git", "add", "tool.py"], cwd=root, check=True)
        subprocess.run(["git", "commit", "-q", "-m", message], cwd=root, check=True)
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True, text=True
        ).stdout.strip()

    sha = commit(
        "def tool():\n    return 42\n", "add the tool\n\nCo-Authored-By: Claude <noreply@anthropic.com>"
    )
    commit("def tool():\n    return 42\n\nNOTES = 1\n", "a person's note")
    result = drive(nvim, root, root / "tool.py", [1, 4], tmp_path)

    credit = f"named by a trailer of commit {sha[:12]}; no transcript here, so no session or message to show"
    trailer, unrecorded = result["hovers"]
    assert trailer.startswith(f"**claude-code** wrote this line, {credit}.\n\n```text\n")
    assert unrecorded.startswith("**Unrecorded**: git-intent does not know who wrote this line.\n\n```text\n")
    shown_trailer, shown_unrecorded = ("\n".join(lines) for lines in result["floats"])
    for shown in (shown_trailer, shown_unrecorded):
        assert "\\" not in shown and "``" not in shown and "session `" not in shown
    assert f"  commit    {sha[:12]}" in shown_trailer
    assert "git-intent does not know who wrote this line." in shown_unrecorded
    assert "has no git-intent note and no session on this machine wrote this line" in shown_unrecorded
    assert result["lenses"] == [
        {
            "start": 1,
            "end": 2,
            "command": "",
            "title": f"claude-code · named by a trailer of commit {sha[:12]} · no transcript",
        }
    ]
