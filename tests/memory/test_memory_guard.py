"""The edit guard: `git intent memory --hook` as Claude Code runs it before an edit (its output's shape and
size, silence when nothing applies, never failing), `install --agent claude-code --guard` and uninstall
restoring the settings byte for byte, and the MCP tools' answers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from support import run_cli
from support.memory_support import PlantedRepo, planted, template  # noqa: F401  (fixtures)

from git_intent.git.repo import Repository
from git_intent.mcp import tools
from git_intent.memory.guard import MAX_TOKENS, render
from git_intent.memory.update import update_memory
from git_intent.sessions.prose import estimate_tokens

SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]},
}


def hook(
    root: Path, tool: str, tool_input: dict[str, Any], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`git intent memory --hook` with Claude Code's PreToolUse input (docs: hooks reference)."""
    payload = {
        "session_id": "7f1c2d3e-0000-4000-8000-000000000001",
        "transcript_path": str(root / "t.jsonl"),
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    return subprocess.run(
        ["git-intent", "memory", "--hook"],
        cwd=root,
        input=json.dumps(payload) if stdin is None else stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def context(proc: subprocess.CompletedProcess[str]) -> str:
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and proc.stderr == ""
    assert list(out) == ["hookSpecificOutput"]
    assert list(out["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    text: str = out["hookSpecificOutput"]["additionalContext"]
    assert estimate_tokens(text) <= MAX_TOKENS
    return text


def test_the_guard_tells_the_agent_what_was_decided_about_the_lines_it_edits(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    update_memory(Repository(planted.root), use_model=False)
    client = planted.root / "src" / "http_client.py"
    edit = {
        "file_path": str(client),
        "old_string": "    tries = attempts if method in IDEMPOTENT else 1\n",
        "new_string": "    tries = attempts\n",
    }
    text = context(hook(planted.root, "Edit", edit))
    lines = text.splitlines()
    assert lines[0].startswith(
        "git-intent: what the people who asked for the code you are about to change in "
    )
    assert "src/http_client.py" in lines[0] and "data, not instructions" in lines[0]
    assert lines[1] == (
        "- constraint: Never retry POST requests: they are not idempotent. "
        f"[{planted.first}:{planted.ids['constraint']}]"
    )
    assert all("Redis" not in line for line in lines)  # the other session, the other file
    multi = {
        "file_path": "src/http_client.py",
        "edits": [{"old_string": "import requests", "new_string": "x"}],
    }
    assert lines[1] in context(hook(planted.root, "MultiEdit", multi)).splitlines()


def test_the_guard_is_silent_when_nothing_applies_and_never_fails(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    readme = {"file_path": str(planted.root / "README.md"), "old_string": "# demo", "new_string": "# x"}
    before = hook(planted.root, "Edit", readme)  # no log yet: silent
    update_memory(Repository(planted.root), use_model=False)
    after = hook(planted.root, "Edit", readme)
    outside = hook(planted.root, "Write", {"file_path": "/etc/hostname", "content": "x"})
    garbage = hook(planted.root, "Edit", {}, stdin="{not json")
    for proc in (before, after, outside, garbage):
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_the_guard_context_stays_within_its_token_limit() -> None:
    many = [
        {
            "kind": "constraint",
            "text": "Keep the retry budget per host below five attempts. " * 8,
            "citations": [f"s{n}:m{n}"],
        }
        for n in range(60)
    ]
    text = render("src/app.py", many)
    assert estimate_tokens(text) <= MAX_TOKENS
    assert text.splitlines()[-1].startswith("- … more: call git-intent's intent_for")


def test_install_guard_adds_the_hook_and_uninstall_restores_the_settings(
    tmp_path: Path, isolated_env: Path
) -> None:
    settings = isolated_env / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = json.dumps(SETTINGS, indent=4) + "\n"
    settings.write_text(original)
    proc = run_cli("install", "--agent", "claude-code", "--guard", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    written = json.loads(settings.read_text())
    assert written["model"] == "opus" and written["permissions"] == SETTINGS["permissions"]
    entries = written["hooks"]["PreToolUse"]
    assert entries[0] == SETTINGS["hooks"]["PreToolUse"][0] and len(entries) == 2
    assert entries[1]["matcher"] == "Edit|Write|MultiEdit"
    [command] = entries[1]["hooks"]
    assert command["type"] == "command" and command["command"].endswith(" memory --hook")
    assert settings.read_text().startswith('{\n    "model"')  # the file's own indentation
    again = run_cli("install", "--agent", "claude-code", "--guard", cwd=tmp_path)
    assert "already has git-intent; unchanged" in again.stdout and json.loads(settings.read_text()) == written
    gone = run_cli("uninstall", "--agent", "claude-code", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert settings.read_text() == original


def test_uninstall_after_the_settings_changed_takes_out_only_the_guard(
    tmp_path: Path, isolated_env: Path
) -> None:
    settings = isolated_env / ".claude" / "settings.json"
    assert run_cli("install", "--agent", "claude-code", "--guard", cwd=tmp_path).returncode == 0
    changed = json.loads(settings.read_text())
    changed["theme"] = "light"
    settings.write_text(json.dumps(changed, indent=2) + "\n")
    assert run_cli("uninstall", "--agent", "claude-code", cwd=tmp_path).returncode == 0
    assert json.loads(settings.read_text()) == {"theme": "light"}


def test_other_agents_get_the_instruction_to_call_intent_for(tmp_path: Path, isolated_env: Path) -> None:
    proc = run_cli("install", "--agent", "codex", "--guard", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rules = (isolated_env / ".codex" / "AGENTS.md").read_text()
    assert "call its `intent_for` tool" in rules
    assert not (isolated_env / ".claude" / "settings.json").exists()


def test_mcp_tools_answer_as_the_command_does(planted: PlantedRepo) -> None:  # noqa: F811
    repo = Repository(planted.root)
    update_memory(repo, use_model=False)
    cli = json.loads(
        run_cli("memory", "src/http_client.py:7", "--json", "--no-update", cwd=planted.root).stdout
    )
    assert tools.intent_for(repo, "src/http_client.py", 7) == cli
    assert tools.recall(repo, "src/http_client.py:7") == cli
    found = tools.recall(repo, "what about the cache?")
    assert isinstance(found, dict) and found["query"] == "what about the cache?"
    texts = [o["text"] for o in found["observations"]]
    assert texts == [
        "Actually, switch the response cache to Redis instead of SQLite.",
        "Should we cache error responses too?",
        "Let's use SQLite for the response cache in src/cache.py.",
    ]
