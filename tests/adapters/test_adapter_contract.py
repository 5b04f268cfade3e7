"""The one contract every adapter passes on every corpus file of its agent: sniff (its own files and no
other agent's), read (sessions of its agent, unique ids without ':', edits pointing at real messages,
aware timestamps), round-trip (a session survives JSON), and discover (a file placed where the agent
keeps transcripts for a work tree is found)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import CORPUS

from git_intent.adapters import (
    ADAPTERS,
    amp,
    claude_code,
    cline,
    codex,
    continue_dev,
    copilot_cli,
    crush,
    cursor,
    droid,
    gemini_cli,
    goose,
    opencode,
    pi,
    qwen_code,
    roo_code,
)
from git_intent.core.values import Session, to_json, validate_json
from git_intent.transcripts import vscode_storage

T = CORPUS / "transcripts"
L = CORPUS / "linked"
FILES: dict[str, list[Path]] = {
    "claude-code": [
        *sorted((T / "claude-code").rglob("*.jsonl")),
        *(
            L / "entire-cli" / "checkpoints" / p / "full.jsonl"
            for p in ("8e/ce5fc12e98/0", "ac/3f02a3c337/0", "ac/3f02a3c337/2")
        ),
    ],
    "codex": [*sorted((T / "codex").glob("*.jsonl")), L / "git-sync/checkpoints/8f/eaf84a600f/0/full.jsonl"],
    "gemini-cli": [
        *sorted((T / "gemini").glob("*.json*")),
        L / "entire-cli/checkpoints/ab/2b9748b105/0/full.jsonl",
    ],
    "cursor": sorted((T / "cursor").glob("*.jsonl")),
    "aider": sorted(p for p in (T / "aider").glob("*.md") if p.name != "README.md"),
    "opencode": [
        T / "opencode/synthetic__opencode-sqlite/opencode.db",
        T / "opencode/synthetic__opencode-storage",
    ],
    "specstory": sorted(p for p in (T / "specstory").glob("*.md") if p.name != "README.md"),
    "qwen-code": sorted((T / "qwen-code").glob("*.jsonl")),
    "amp": sorted((T / "amp").glob("*.json")),
    "droid": sorted((T / "droid").glob("*.jsonl")),
    "pi": sorted((T / "pi").glob("*.jsonl")),
    "crush": [T / "crush/documented__greeter/.crush/crush.db"],
    "goose": [T / "goose/documented__schema-13/sessions.db"],
    "copilot-cli": sorted((T / "copilot-cli").glob("*.jsonl")),
    "copilot-chat": sorted((T / "copilot-chat").glob("*.json*")),
    "cline": [
        *sorted((T / "cline").rglob("api_conversation_history.json")),
        *sorted((T / "cline").rglob("*.messages.json")),
    ],
    "roo-code": sorted((T / "roo-code").rglob("api_conversation_history.json")),
    "continue": sorted((T / "continue").glob("*.json")),
}
CASES = [
    pytest.param(agent, path, id=f"{agent}:{path.name}") for agent, paths in FILES.items() for path in paths
]


def test_every_adapter_has_corpus_files() -> None:
    assert set(FILES) == set(ADAPTERS)
    assert all(p.exists() for paths in FILES.values() for p in paths)


@pytest.mark.parametrize(("agent", "path"), CASES)
def test_sniff_read_round_trip(agent: str, path: Path) -> None:
    adapter = ADAPTERS[agent]
    assert adapter.sniff(path)
    others = [name for name, other in ADAPTERS.items() if name != agent and other.sniff(path)]
    assert others == [], f"{path.name} is also sniffed by {others}"
    sessions = adapter.read(path)
    assert sessions
    for session in sessions:
        assert session.agent == agent
        ids = [m.message_id for m in session.messages]
        assert len(ids) == len(set(ids)) and all(":" not in i and i for i in ids)
        assert ":" not in session.session_id
        assert {e.message_id for e in session.edits} <= set(ids)
        assert all(m.timestamp is None or m.timestamp.tzinfo is not None for m in session.messages)
        # JSON leaves out the whole-file texts an edit may carry for replay (Edit.before/after).
        bare = [replace(e, before=None, after=None) for e in session.edits]
        assert validate_json(Session, json.dumps(to_json(session))) == replace(session, edits=bare)
    assert adapter.read(path) == sessions  # stable across reads


def _claude(root: Path, home: Path, source: Path) -> Path:
    return claude_code.config_dir() / "projects" / claude_code.encode_project(root) / source.name


def _codex(root: Path, home: Path, source: Path) -> Path:
    return (
        codex.codex_home() / "sessions/2026/01/02" / f"rollout-2026-01-02T00-00-00-{source.stem[:20]}.jsonl"
    )


def _gemini(root: Path, home: Path, source: Path) -> Path:
    return (
        gemini_cli.gemini_dir()
        / "tmp"
        / gemini_cli.project_hash(root)
        / "chats"
        / f"session-x{source.suffix}"
    )


def _cursor(root: Path, home: Path, source: Path) -> Path:
    return cursor.cursor_home() / "projects" / cursor.encode_project(root) / "agent-transcripts" / source.name


def _aider(root: Path, home: Path, source: Path) -> Path:
    return root / ".aider.chat.history.md"


def _opencode(root: Path, home: Path, source: Path) -> Path:
    return opencode.data_dir() / ("opencode.db" if source.suffix == ".db" else "storage")


def _qwen(root: Path, home: Path, source: Path) -> Path:
    return qwen_code.runtime_dir() / "projects" / qwen_code.encode_project(root) / "chats" / source.name


def _amp(root: Path, home: Path, source: Path) -> Path:
    return amp.threads_dir()[-1] / source.name.removeprefix("git-ai__")


def _droid(root: Path, home: Path, source: Path) -> Path:
    return droid.factory_dir() / "sessions" / droid.encode_project(root) / source.name


def _pi(root: Path, home: Path, source: Path) -> Path:
    return pi.agent_dir() / "sessions" / pi.encode_project(root) / source.name


def _crush(root: Path, home: Path, source: Path) -> Path:
    return root / crush.DATA_DIR / crush.STORE


def _goose(root: Path, home: Path, source: Path) -> Path:
    return goose.data_dir() / "sessions" / goose.STORE


def _copilot_cli(root: Path, home: Path, source: Path) -> Path:
    return copilot_cli.copilot_home() / "session-state" / source.stem / "events.jsonl"


def _copilot_chat(root: Path, home: Path, source: Path) -> Path:
    workspace = vscode_storage.user_dirs()[0] / "workspaceStorage" / "0a1b2c3d"
    if "event_stream" in source.name:
        return workspace / "GitHub.copilot-chat" / "transcripts" / source.name
    return workspace / "chatSessions" / source.name


def _cline(root: Path, home: Path, source: Path) -> Path:
    if source.name.endswith(".messages.json"):
        return cline.session_dir() / source.parent.name / source.name
    return cline.data_dirs()[0] / "tasks" / source.parent.name / source.name


def _roo(root: Path, home: Path, source: Path) -> Path:
    return (
        vscode_storage.user_dirs()[0]
        / "globalStorage"
        / roo_code.EXTENSION
        / "tasks"
        / source.parent.name
        / (source.name)
    )


def _continue(root: Path, home: Path, source: Path) -> Path:
    return continue_dev.continue_home() / "sessions" / source.name


PLACES: dict[str, Callable[[Path, Path, Path], Path]] = {
    "claude-code": _claude,
    "codex": _codex,
    "gemini-cli": _gemini,
    "cursor": _cursor,
    "aider": _aider,
    "opencode": _opencode,
    "qwen-code": _qwen,
    "amp": _amp,
    "droid": _droid,
    "pi": _pi,
    "crush": _crush,
    "goose": _goose,
    "copilot-cli": _copilot_cli,
    "copilot-chat": _copilot_chat,
    "cline": _cline,
    "roo-code": _roo,
    "continue": _continue,
}


# The synthetic OpenCode storage sample has no storage/session/ files, which discovery keys on; SpecStory's
# histories are read by `import --from specstory` alone (tests/adapters/test_adapter_specstory.py).
@pytest.mark.parametrize(
    ("agent", "path"),
    [
        c
        for c in CASES
        if "linked" not in str(c.values[1])
        and "opencode-storage" not in str(c.values[1])
        and c.values[0] != "specstory"
    ],
)
def test_discover_finds_a_transcript_where_the_agent_keeps_it(
    agent: str, path: Path, tmp_path: Path, isolated_env: Path
) -> None:
    root = tmp_path / "work tree"
    root.mkdir()
    target = PLACES[agent](root, isolated_env, path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        shutil.copytree(path, target)
    else:
        shutil.copyfile(path, target)
    found = [p.resolve() for p in ADAPTERS[agent].discover(root)]
    assert any(f == target.resolve() or target.resolve() in f.parents for f in found), found
