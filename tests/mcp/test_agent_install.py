"""`git intent install --agent NAME` / `uninstall --agent NAME`: the MCP server entry in each agent's own
config, other entries untouched, the diff shown, and the files restored byte for byte."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import git, run_cli

from git_intent.mcp.rules import ANNOTATE_BEGIN, ANNOTATE_END, ANNOTATE_GUIDANCE, RULES_BEGIN, RULES_END

CLAUDE = {
    "numStartups": 7,
    "theme": "dark",
    "projects": {"/x": {"mcpServers": {}}},
    "mcpServers": {"other": {"type": "stdio", "command": "npx", "args": ["-y", "other"], "env": {"K": "v"}}},
}
CODEX = """\
# my settings
model = "gpt-5.1-codex"  # keep this comment

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[mcp_servers.docs.env]
TOKEN = "t"

[profiles.fast]
model = "gpt-5.1-codex-mini"
"""


def user_file(agent: str, home: Path) -> Path:
    return {
        "claude-code": Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json",
        "codex": Path(os.environ["CODEX_HOME"]) / "config.toml",
        "gemini-cli": home / ".gemini" / "settings.json",
        "cursor": home / ".cursor" / "mcp.json",
        "opencode": home / ".config" / "opencode" / "opencode.json",
    }[agent]


def servers(agent: str, path: Path) -> dict[str, Any]:
    if agent == "codex":
        return tomllib.loads(path.read_text())["mcp_servers"]  # type: ignore[no-any-return]
    data = json.loads(path.read_text())
    return data["mcp" if agent == "opencode" else "mcpServers"]  # type: ignore[no-any-return]


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".local/state" not in p.as_posix()
    }


def install(*args: str, cwd: Path) -> str:
    proc = run_cli("install", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def uninstall(*args: str, cwd: Path) -> str:
    proc = run_cli("uninstall", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli", "cursor", "opencode"])
def test_install_into_an_existing_config_keeps_other_entries_and_uninstall_restores_it(
    agent: str, isolated_env: Path, tmp_path: Path
) -> None:
    path = user_file(agent, isolated_env)
    path.parent.mkdir(parents=True, exist_ok=True)
    if agent == "codex":
        path.write_text(CODEX)
    elif agent == "claude-code":
        path.write_text(json.dumps(CLAUDE, indent=2))  # as Claude Code writes it: no final newline
    else:
        key = "mcp" if agent == "opencode" else "mcpServers"
        path.write_text(
            json.dumps({"$schema": "x", key: {"other": {"command": "o"}}, "z": [1, 2]}, indent=4) + "\n"
        )
    before = snapshot(isolated_env)

    out = install("--agent", agent, cwd=tmp_path)
    assert f"--- {path}\n+++ {path}\n" in out
    assert any(line.startswith("+") and "git-intent" in line for line in out.splitlines())
    assert f"{path}: added git-intent." in out
    found = servers(agent, path)
    assert set(found) == {"docs" if agent == "codex" else "other", "git-intent"}
    entry = found["git-intent"]
    command = entry["command"] if agent == "opencode" else [entry["command"], *entry["args"]]
    assert Path(command[0]).is_absolute() and command[1:3] in (
        ["mcp"],
        ["-m", "git_intent"],
        ["mcp", "--repo"],
    )
    if agent == "claude-code":
        data = json.loads(path.read_text())
        assert {k: v for k, v in data.items() if k != "mcpServers"} == {
            k: v for k, v in CLAUDE.items() if k != "mcpServers"
        }
        assert data["mcpServers"]["other"] == CLAUDE["mcpServers"]["other"]  # type: ignore[index]
        assert entry["type"] == "stdio" and entry["env"] == {} and not path.read_text().endswith("\n")
    if agent == "codex":
        text = path.read_text()
        assert text.startswith(CODEX.split("[profiles.fast]")[0]) and "# keep this comment" in text
        assert tomllib.loads(text)["profiles"] == {"fast": {"model": "gpt-5.1-codex-mini"}}
        assert found["docs"]["env"] == {"TOKEN": "t"}
    if agent == "opencode":
        assert entry["type"] == "local" and entry["enabled"] is True
    if agent == "cursor":
        assert entry["args"][-2:] == ["--repo", "${workspaceFolder}"]

    again = install("--agent", agent, cwd=tmp_path)
    assert f"{path}: already has git-intent; unchanged." in again and "---" not in again

    out = uninstall("--agent", agent, cwd=tmp_path)
    assert f"{path}: restored as it was before install." in out
    assert snapshot(isolated_env) == before


def test_install_creates_missing_files_and_uninstall_removes_them(isolated_env: Path, tmp_path: Path) -> None:
    before = snapshot(isolated_env)
    out = install("--agent", "gemini-cli", "--agent", "opencode", cwd=tmp_path)
    settings = isolated_env / ".gemini" / "settings.json"
    assert f"--- /dev/null\n+++ {settings}\n" in out and f"{settings}: created." in out
    assert oct(settings.stat().st_mode & 0o777) == "0o600"
    assert set(servers("opencode", user_file("opencode", isolated_env))) == {"git-intent"}
    uninstall("--agent", "gemini-cli", "--agent", "opencode", cwd=tmp_path)
    assert snapshot(isolated_env) == before
    assert not (isolated_env / ".gemini").exists() and not (isolated_env / ".config").exists()


def test_uninstall_after_the_agent_changed_its_file_removes_only_our_entry(
    isolated_env: Path, tmp_path: Path
) -> None:
    path = user_file("claude-code", isolated_env)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(CLAUDE, indent=2))
    install("--agent", "claude-code", cwd=tmp_path)
    data = json.loads(path.read_text())
    data["numStartups"] = 8  # Claude Code rewrites its file all the time
    path.write_text(json.dumps(data, indent=2))
    out = uninstall("--agent", "claude-code", cwd=tmp_path)
    assert "removed the git-intent entry (the file changed since install" in out
    assert json.loads(path.read_text()) == {**CLAUDE, "numStartups": 8}

    codex = user_file("codex", isolated_env)
    codex.parent.mkdir(parents=True)
    codex.write_text(CODEX)
    install("--agent", "codex", cwd=tmp_path)
    codex.write_text(codex.read_text() + "\n[tui]\nnotifications = true\n")
    uninstall("--agent", "codex", cwd=tmp_path)
    assert codex.read_text() == CODEX + "\n[tui]\nnotifications = true\n"


def test_project_install_writes_the_repository_config_not_the_users(repo: Path, isolated_env: Path) -> None:
    before = snapshot(isolated_env)
    out = install("--agent", "claude-code", "--agent", "codex", "--project", "--rules", cwd=repo)
    assert snapshot(isolated_env) == before
    assert servers("claude-code", repo / ".mcp.json")["git-intent"] == {
        "type": "stdio",
        "command": "git",
        "args": ["intent", "mcp"],
        "env": {},
    }
    assert servers("codex", repo / ".codex" / "config.toml")["git-intent"] == {
        "command": "git",
        "args": ["intent", "mcp"],
    }
    skill = repo / ".claude" / "skills" / "git-intent" / "SKILL.md"
    assert (
        skill.read_text().startswith("---\nname: git-intent\n")
        and "call its `intent_for` tool" in skill.read_text()
    )
    assert RULES_BEGIN in (repo / "AGENTS.md").read_text()
    assert f"{repo / '.mcp.json'}: created." in out.replace(str(repo.resolve()), str(repo))
    assert git(repo, "status", "--porcelain", "--untracked-files=all").splitlines() == [
        "?? .claude/skills/git-intent/SKILL.md",
        "?? .codex/config.toml",
        "?? .mcp.json",
        "?? AGENTS.md",
    ]
    uninstall("--agent", "claude-code", "--agent", "codex", "--project", cwd=repo)
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    assert not (repo / ".claude").exists() and not (repo / ".codex").exists()


def test_rules_block_in_an_existing_agents_md_comes_out_exactly(isolated_env: Path, tmp_path: Path) -> None:
    agents_md = Path(os.environ["CODEX_HOME"]) / "AGENTS.md"
    agents_md.parent.mkdir(parents=True)
    agents_md.write_text("# My rules\n\nAlways run the tests.\n")
    install("--agent", "codex", "--rules", cwd=tmp_path)
    text = agents_md.read_text()
    assert text.startswith("# My rules\n\nAlways run the tests.\n\n" + RULES_BEGIN) and text.endswith(
        RULES_END + "\n"
    )
    agents_md.write_text(text.replace("Always run the tests.", "Always run the tests. Twice."))
    uninstall("--agent", "codex", cwd=tmp_path)
    assert agents_md.read_text() == "# My rules\n\nAlways run the tests. Twice.\n"
    out = install("--agent", "cursor", "--rules", cwd=tmp_path)
    assert "cursor keeps user rules in its settings" in out


def test_a_config_that_is_not_json_is_left_untouched(isolated_env: Path, tmp_path: Path) -> None:
    path = user_file("cursor", isolated_env)
    path.parent.mkdir(parents=True)
    path.write_text('{\n  // my servers\n  "mcpServers": {}\n}\n')
    proc = run_cli("install", "--agent", "cursor", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {path} is not the JSON git-intent expects (")
    assert 'hint: Add this under `mcpServers` by hand: {"git-intent": ' in proc.stderr
    assert path.read_text() == '{\n  // my servers\n  "mcpServers": {}\n}\n'


def test_agent_options_need_an_agent_and_a_known_name(tmp_path: Path) -> None:
    proc = run_cli("install", "--project", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--project, --rules, --annotate and --guard go with --agent NAME." in proc.stderr
    proc = run_cli("install", "--agent", "vim", cwd=tmp_path)
    assert proc.returncode == 2 and "'vim' is not one of" in proc.stderr
    proc = run_cli("uninstall", "--agent", "codex", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout == "git-intent was not registered in codex's configuration; nothing changed.\n"


def test_annotate_asks_the_agent_for_blocks_git_intent_reads_back(isolated_env: Path, tmp_path: Path) -> None:
    from git_intent.core.values import Message, Part, Session
    from git_intent.fidelity.annotations import agent_annotations

    claude_md = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "CLAUDE.md"
    claude_md.parent.mkdir(parents=True, exist_ok=True)
    claude_md.write_text("# Mine\n\nBe brief.\n")
    before = snapshot(isolated_env)
    out = install("--agent", "claude-code", "--annotate", cwd=tmp_path)
    assert f"{claude_md}: added git-intent." in out
    text = claude_md.read_text()
    assert text == f"# Mine\n\nBe brief.\n\n{ANNOTATE_BEGIN}\n{ANNOTATE_GUIDANCE}{ANNOTATE_END}\n"
    # the example the instruction gives is a block git-intent reads as the agent's own annotation
    example = ANNOTATE_GUIDANCE[ANNOTATE_GUIDANCE.index("```intent-annotation") :]
    example = example[: example.index("```", 5) + 3]
    session = Session(
        agent="claude-code",
        session_id="s",
        transcript=Path("s.jsonl"),
        messages=[
            Message(message_id="u", role="user", is_prompt=True, parts=(Part(kind="text", text="fix it"),)),
            Message(message_id="a", role="assistant", parts=(Part(kind="text", text=f"Done.\n\n{example}"),)),
        ],
    )
    (annotation,) = agent_annotations(session)
    assert (annotation.source, annotation.topic, annotation.key_facts) == (
        "agent",
        "fix_chunk_size_limit",
        ("A single JSONL line must never exceed MaxChunkSize.",),
    )
    uninstall("--agent", "claude-code", cwd=tmp_path)
    assert snapshot(isolated_env) == before
    both = install("--agent", "codex", "--rules", "--annotate", cwd=tmp_path)  # two blocks, one AGENTS.md
    agents_md = Path(os.environ["CODEX_HOME"]) / "AGENTS.md"
    assert both.count(f"{agents_md}: ") == 2
    assert RULES_BEGIN in agents_md.read_text() and ANNOTATE_BEGIN in agents_md.read_text()
    uninstall("--agent", "codex", cwd=tmp_path)
    assert not agents_md.exists()
    proc = run_cli("install", "--agent", "cursor", "--annotate", cwd=tmp_path)
    assert proc.returncode == 1 and "git-intent cannot ask cursor to annotate its turns" in proc.stderr
