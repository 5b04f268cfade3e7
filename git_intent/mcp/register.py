"""Registering `git intent mcp` in a coding agent's own configuration, and taking it out again.

Each agent's user-level file, the way that agent documents it (`--project`: the project's file instead):

- claude-code: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`, top-level `mcpServers` (as
  `claude mcp add --scope user` writes it); project: `.mcp.json`.
- codex: `$CODEX_HOME/config.toml` (default `~/.codex`), table `[mcp_servers.git-intent]`; project:
  `.codex/config.toml`.
- gemini-cli: `$GEMINI_CLI_HOME/.gemini/settings.json` (default `~/.gemini`), `mcpServers`; project:
  `.gemini/settings.json`.
- cursor: `~/.cursor/mcp.json`, `mcpServers`; project: `.cursor/mcp.json`.
- opencode: `$XDG_CONFIG_HOME/opencode/opencode.json` (default `~/.config`), `mcp` with `type: local`;
  project: `opencode.json`.

Install keeps every other entry and table (JSON keeps its key order and indentation; TOML is edited with
tomlkit) and records the bytes each file had; uninstall puts those bytes back when the file is still as
install left it, and otherwise removes only git-intent's entry. The record lives in
`$XDG_STATE_HOME/git-intent/agents/` (default `~/.local/state`), or the repository's state folder for
`--project`; it is 0600, since agent configs may hold other servers' tokens.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..capture.user_config import InstallRecord, config_diff, read_config, user_state_file, write_config
from ..core.errors import IntentError
from ..git.repo import Repository
from . import AGENTS
from .rules import (
    RULES_BEGIN,
    RULES_END,
    Rules,
    annotate_target,
    rules_target,
    with_rules,
    without_rules,
)

SERVER = "git-intent"
Format = Literal["json", "toml", "text", "hooks"]
GUARD_MATCHER = "Edit|Write|MultiEdit"
GUARD_TIMEOUT = 5  # seconds Claude Code waits for the hook; it answers in well under one (bench/memory.py)


@dataclass(frozen=True)
class Target:
    """One file install edits: where, in which format, and the entry (or rules text) it adds."""

    path: Path
    format: Format
    section: str  # the JSON/TOML key holding MCP servers; "" for a rules file
    entry: Any


@dataclass(frozen=True)
class Change:
    """What install or uninstall did to one file: a sentence and the unified diff (empty when unchanged)."""

    path: Path
    sentence: str
    diff: str


def server_command(project: bool) -> list[str]:
    """The command an agent runs: `git intent mcp` for a project file (each teammate's own install), this
    installation's absolute path for a user file (agents start servers without the user's shell PATH)."""
    if project:
        return ["git", "intent", "mcp"]
    script = Path(sys.executable).with_name("git-intent")
    return [str(script), "mcp"] if script.is_file() else [sys.executable, "-m", "git_intent", "mcp"]


def config_target(agent: str, project_root: Path | None) -> Target:
    """The config file and entry for `agent`, user-level unless `project_root`. Raises IntentError for an
    agent git-intent does not know."""
    home = Path.home()
    command = server_command(project_root is not None)
    stdio = {"command": command[0], "args": command[1:]}
    if agent == "claude-code":
        base = Path(os.environ.get("CLAUDE_CONFIG_DIR") or home)
        path = project_root / ".mcp.json" if project_root else base / ".claude.json"
        return Target(path, "json", "mcpServers", {"type": "stdio", **stdio, "env": {}})
    if agent == "codex":
        base = Path(os.environ.get("CODEX_HOME") or home / ".codex")
        return Target(
            project_root / ".codex" / "config.toml" if project_root else base / "config.toml",
            "toml",
            "mcp_servers",
            stdio,
        )
    if agent == "gemini-cli":
        base = Path(os.environ.get("GEMINI_CLI_HOME") or home) / ".gemini"
        path = (project_root / ".gemini" if project_root else base) / "settings.json"
        return Target(path, "json", "mcpServers", stdio)
    if agent == "cursor":
        path = (project_root or home) / ".cursor" / "mcp.json"
        # Cursor may start a user-level server outside the workspace; it expands ${workspaceFolder}.
        args = stdio["args"] if project_root else [*stdio["args"], "--repo", "${workspaceFolder}"]
        return Target(path, "json", "mcpServers", {"command": stdio["command"], "args": args})
    if agent == "opencode":
        base = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "opencode"
        path = project_root / "opencode.json" if project_root else base / "opencode.json"
        return Target(path, "json", "mcp", {"type": "local", "command": command, "enabled": True})
    raise IntentError(
        f"git-intent does not know the agent {agent!r}.", hint=f"Known agents: {', '.join(AGENTS)}."
    )


def guard_target(project_root: Path | None) -> Target:
    """Claude Code's settings file and the `PreToolUse` hook entry that runs the edit guard before Edit,
    Write and MultiEdit (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`; project:
    `.claude/settings.json`, where teammates share `git intent memory --hook` through their own install)."""
    base = (
        project_root / ".claude"
        if project_root
        else Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    )
    command = shlex.join([*server_command(project_root is not None)[:-1], "memory", "--hook"])
    entry = {
        "matcher": GUARD_MATCHER,
        "hooks": [{"type": "command", "command": command, "timeout": GUARD_TIMEOUT}],
    }
    return Target(base / "settings.json", "hooks", "PreToolUse", entry)


def install_agent(
    agent: str,
    *,
    project: Repository | None = None,
    rules: bool = False,
    annotate: bool = False,
    guard: bool = False,
) -> list[Change]:
    """Register the MCP server in `agent`'s config (and, with `rules`, a short instruction on when to call
    `why` and `intent_for`; with `annotate`, the instruction to append an `intent-annotation` block to each
    turn; with `guard`, Claude Code's edit guard hook, or for another agent the instruction, which is all it
    can take); returns one Change per file looked at. Raises IntentError when a file cannot be parsed (it is
    left untouched) or written, or when `agent` has no instruction file for `annotate`."""
    targets = [config_target(agent, project.root if project else None)]
    if guard and agent == "claude-code":
        targets.append(guard_target(project.root if project else None))
    elif guard:
        rules = True
    if annotate:
        found = annotate_target(agent, project.root if project else None)
        if found is None:
            raise IntentError(
                f"git-intent cannot ask {agent} to annotate its turns: it reads no instruction file "
                "git-intent can write.",
                hint="Annotate with a model instead: git config intent.model …, then `git intent annotate`.",
            )
        targets.append(Target(found.path, "text", "", found))
    if importlib.util.find_spec("mcp") is None or importlib.util.find_spec("tomlkit") is None:
        raise IntentError(
            "The MCP server needs the mcp extra, which is not installed, so no agent could start it.",
            hint="pip install 'git-intent-provenance[mcp]', then run this again.",
        )
    if rules:
        extra = rules_target(agent, project.root if project else None)
        if extra is None:
            return [
                *_apply(agent, project, targets, adding=True),
                Change(
                    Path(),
                    f"{agent} keeps user rules in its settings, not in a file: use --project for a project "
                    f"rule, or rely on the server's own instructions.",
                    "",
                ),
            ]
        targets.append(Target(extra.path, "text", "", extra))
    return _apply(agent, project, targets, adding=True)


def uninstall_agent(agent: str, *, project: Repository | None = None) -> list[Change]:
    """Take git-intent out of `agent`'s files: the recorded bytes come back when a file is as install left
    it (a file install created is removed); otherwise only git-intent's entry and rules block go."""
    config_target(agent, None)  # unknown agents fail here
    record = InstallRecord(_record_path(agent, project))
    targets = [config_target(agent, project.root if project else None)]
    extra = rules_target(agent, project.root if project else None)
    if extra is not None:
        targets.append(Target(extra.path, "text", "", extra))
    annotating = annotate_target(agent, project.root if project else None)
    if annotating is not None:
        targets.append(Target(annotating.path, "text", "", annotating))
    if agent == "claude-code":
        targets.append(guard_target(project.root if project else None))
    changes: list[Change] = []
    for target in targets:
        current = read_config(target.path)
        restored, original = record.restore(str(target.path), target.path, current)
        if restored:
            what = (
                "restored as it was before install"
                if original is not None
                else "removed (install created it)"
            )
            changes.append(
                Change(target.path, f"{target.path}: {what}.", config_diff(target.path, current, original))
            )
        elif current is not None:
            edited = _edit(target, current, adding=False)
            if edited != current:
                write_config(target.path, edited)
                changes.append(
                    Change(
                        target.path,
                        f"{target.path}: removed the git-intent entry (the file changed since install, so "
                        f"the rest of it is kept).",
                        config_diff(target.path, current, edited),
                    )
                )
    _record_path(agent, project).unlink(missing_ok=True)
    return changes


def _apply(agent: str, project: Repository | None, targets: list[Target], *, adding: bool) -> list[Change]:
    record = InstallRecord(_record_path(agent, project))
    edits: list[tuple[Target, bytes | None, bytes | None]] = []
    pending: dict[Path, bytes | None] = {}  # two blocks in one file (AGENTS.md): the second edits the first's
    for target in targets:  # parse everything first: a file that cannot be read stops before any write
        current = pending[target.path] if target.path in pending else read_config(target.path)
        pending[target.path] = _edit(target, current, adding=adding)
        edits.append((target, current, pending[target.path]))
    changes: list[Change] = []
    for target, current, edited in edits:
        if edited == current:
            changes.append(Change(target.path, f"{target.path}: already has git-intent; unchanged.", ""))
            continue
        record.write(str(target.path), target.path, current, edited)
        changes.append(
            Change(
                target.path,
                f"{target.path}: {'created' if current is None else 'added git-intent'}.",
                config_diff(target.path, current, edited),
            )
        )
    return changes


def _edit(target: Target, current: bytes | None, *, adding: bool) -> bytes | None:
    """The file's new bytes with git-intent's entry added (or removed; None: delete the file); raises
    IntentError when the file is not the format the agent writes, so it is never damaged."""
    try:
        text = current.decode("utf-8") if current is not None else ""
    except UnicodeDecodeError:
        raise IntentError(f"{target.path} is not UTF-8 text; it was left untouched.") from None
    if target.format == "hooks":
        try:
            return _edit_hooks(text, target, adding).encode("utf-8")
        except (ValueError, TypeError, AttributeError) as exc:
            raise IntentError(
                f"{target.path} is not the JSON Claude Code expects ({exc}); it was left untouched.",
                hint=f"Add this under hooks.PreToolUse by hand: {json.dumps(target.entry)}",
            ) from None
    if target.format == "text":
        rules: Rules = target.entry
        edited = with_rules(text, rules) if adding else without_rules(text, rules)
        return None if edited is None else edited.encode("utf-8")
    try:
        if target.format == "toml":
            return _edit_toml(text, target, adding).encode("utf-8")
        return _edit_json(text, target, adding).encode("utf-8")
    except (ValueError, TypeError, AttributeError) as exc:
        raise IntentError(
            f"{target.path} is not the {target.format.upper()} git-intent expects ({exc}); it was left "
            f"untouched.",
            hint=f"Add this under `{target.section}` by hand: {json.dumps({SERVER: target.entry})}",
        ) from None


def _edit_json(text: str, target: Target, adding: bool) -> str:
    data = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise ValueError("the top level is not an object")
    servers = data.get(target.section)
    if adding:
        if servers is None:
            servers = data[target.section] = {}
        if not isinstance(servers, dict):
            raise ValueError(f"`{target.section}` is not an object")
        if servers.get(SERVER) == target.entry:
            return text
        servers[SERVER] = target.entry
    else:
        if not isinstance(servers, dict) or SERVER not in servers:
            return text
        del servers[SERVER]
    indent = _json_indent(text)
    out = json.dumps(data, indent=indent, ensure_ascii=False)
    return out + ("\n" if text.endswith("\n") or not text.strip() else "")


def _edit_hooks(text: str, target: Target, adding: bool) -> str:
    """Claude Code settings with the guard's `PreToolUse` entry added (once) or taken out; every other
    hook and setting kept in order."""
    data = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise ValueError("the top level is not an object")
    hooks = data.get("hooks")
    entries = hooks.get(target.section) if isinstance(hooks, dict) else None
    if adding:
        if hooks is None:
            hooks = data["hooks"] = {}
        if not isinstance(hooks, dict):
            raise ValueError("`hooks` is not an object")
        if entries is None:
            entries = hooks[target.section] = []
        if not isinstance(entries, list):
            raise ValueError(f"`hooks.{target.section}` is not a list")
        if target.entry in entries:
            return text
        entries[:] = [e for e in entries if not _is_guard(e)] + [target.entry]
    else:
        if (
            not isinstance(hooks, dict)
            or not isinstance(entries, list)
            or not any(_is_guard(e) for e in entries)
        ):
            return text
        entries[:] = [e for e in entries if not _is_guard(e)]
        if not entries:
            del hooks[target.section]
        if not hooks:
            del data["hooks"]
    out = json.dumps(data, indent=_json_indent(text), ensure_ascii=False)
    return out + ("\n" if text.endswith("\n") or not text.strip() else "")


def _is_guard(entry: Any) -> bool:
    """Whether a `PreToolUse` entry is git-intent's guard (its only command runs `memory --hook`)."""
    commands = (
        [h.get("command", "") for h in entry.get("hooks", []) if isinstance(h, dict)]
        if isinstance(entry, dict)
        else []
    )
    return len(commands) == 1 and str(commands[0]).endswith(" memory --hook") and "intent" in str(commands[0])


def _json_indent(text: str) -> int | str:
    """The indentation the file uses (a tab, or N spaces), 2 for a new or one-line file."""
    match = re.search(r"^[{\[][ \t]*\r?\n([ \t]+)\S", text)
    if not match:
        return 2
    unit = match.group(1)
    return unit if "\t" in unit else len(unit)


def _edit_toml(text: str, target: Target, adding: bool) -> str:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ValueError(str(exc)) from None
    servers = doc.get(target.section)
    if not adding:
        if servers is None or SERVER not in servers:
            return text
        del servers[SERVER]
        if not servers:
            del doc[target.section]
        return _same_ending(tomlkit.dumps(doc), text)
    if servers is not None and servers.get(SERVER) is not None and servers[SERVER].unwrap() == target.entry:
        return text
    table = tomlkit.table()
    for key, value in target.entry.items():
        table[key] = value
    table.add(tomlkit.nl())  # the blank line that separates it from a table after it
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc[target.section] = servers
    servers[SERVER] = table
    return _same_ending(tomlkit.dumps(doc), text)


def _same_ending(out: str, text: str) -> str:
    """`out` ending in a blank line only if `text` did (the table's separator is not wanted at the end)."""
    return (
        out.rstrip("\n") + "\n" if out.endswith("\n\n") and not text.endswith("\n\n") and out.strip() else out
    )


def _record_path(agent: str, project: Repository | None) -> Path:
    return (
        project.state_dir / "agents" / f"{agent}.json"
        if project is not None
        else (user_state_file("agents", f"{agent}.json"))
    )


__all__ = [
    "AGENTS",
    "RULES_BEGIN",
    "RULES_END",
    "Change",
    "config_target",
    "guard_target",
    "install_agent",
    "uninstall_agent",
]
