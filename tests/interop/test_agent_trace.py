"""Agent Trace (github cursor/agent-trace v0.1) both ways: `export --format agent-trace` writes one valid
trace record per commit, `import --from agent-trace` reads them back as a source, and another tool's
records (no session git-intent can read) credit their tool and model, below any transcript."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import git, run_cli
from jsonschema import Draft202012Validator
from support import SYNC, blame_json, claude_session, commit_all, install

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "schemas" / "agent-trace.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)
STEPS = "def step_one():\n    return 'first step'\n\n\ndef step_two():\n    return 'second step'\n"


def _agent_history(repo: Path) -> tuple[str, str]:
    """A person's commit, then a Claude Code session's, recorded through the hook; (agent commit, session
    id)."""
    install(repo)
    (repo / "notes.txt").write_text("a person's notes\n")
    commit_all(repo, "notes", env=SYNC)
    agent = claude_session(repo.resolve())
    agent.prompt("Write steps.py with two steps.")
    agent.write("Writing steps.py.", repo.resolve() / "steps.py", STEPS)
    agent.save()
    return commit_all(repo, "agent writes steps.py", env=SYNC), agent.session_id


def _export(repo: Path, *args: str) -> list[dict[str, Any]]:
    proc = run_cli("export", "--format", "agent-trace", *args, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_export_writes_one_valid_record_per_agent_commit(repo: Path) -> None:
    sha, session_id = _agent_history(repo)
    (record,) = _export(repo)
    VALIDATOR.validate(record)
    assert record["version"] == "0.1.0"
    assert uuid.UUID(record["id"]) and datetime.fromisoformat(record["timestamp"]).tzinfo is not None
    assert record["vcs"] == {"type": "git", "revision": sha}
    assert record["tool"]["name"] == "git-intent"
    assert record["files"] == [
        {
            "path": "steps.py",
            "conversations": [
                {
                    "contributor": {"type": "ai", "model_id": "anthropic/claude-opus-4-5-20251101"},
                    "ranges": [{"start_line": 1, "end_line": 6}],
                }
            ],
        }
    ]
    (conversation,) = record["metadata"]["git-intent"]["conversations"]
    assert (
        conversation["path"],
        conversation["conversation"],
        conversation["agent"],
        conversation["session_id"],
    ) == ("steps.py", 0, "claude-code", session_id)
    assert _export(repo) == [record]  # the same id on the next export
    out = repo / "trace.jsonl"
    assert run_cli("export", "--format", "agent-trace", "-o", str(out), cwd=repo).returncode == 0
    assert [json.loads(line) for line in out.read_text().splitlines()] == [record]


def test_import_reads_the_records_back(repo: Path, tmp_path: Path) -> None:
    sha, session_id = _agent_history(repo)
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _export(repo)))
    git(repo, "update-ref", "-d", "refs/notes/git-intent")
    assert blame_json(repo, "steps.py:2")["lines"][0]["status"] != "agent" or (
        blame_json(repo, "steps.py:2")["lines"][0]["attribution"]["method"] == "content"
    )
    proc = run_cli("import", "--from", "agent-trace", str(traces), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["source"], result["sessions"], result["commits"], result["skipped"]) == (
        "agent-trace",
        1,
        1,
        [],
    )
    line = blame_json(repo, "steps.py:2")["lines"][0]
    assert (line["attribution"]["method"], line["attribution"]["session_id"], line["commit"]) == (
        "note",
        session_id,
        sha,
    )


def test_import_skips_what_it_cannot_use_and_says_why(repo: Path, tmp_path: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    foreign = {
        "version": "0.1.0",
        "id": str(uuid.uuid4()),
        "timestamp": "2026-01-25T10:00:00Z",
        "vcs": {"type": "git", "revision": head},
        "tool": {"name": "cursor", "version": "2.4.0"},
        "files": [
            {
                "path": "README.md",
                "conversations": [
                    {
                        "url": "https://api.cursor.com/v1/conversations/12345",
                        "contributor": {"type": "ai", "model_id": "anthropic/claude-opus-4-5-20251101"},
                        "ranges": [{"start_line": 1, "end_line": 1}],
                    }
                ],
            }
        ],
    }
    VALIDATOR.validate(foreign)  # the spec's own example shape
    traces = tmp_path / "t.jsonl"
    missing = {**foreign, "vcs": {"type": "git", "revision": "0" * 40}}
    option = {**foreign, "vcs": {"type": "git", "revision": "--output=/tmp/x"}}
    traces.write_text(
        "\n".join(
            [
                json.dumps(foreign),
                "{torn",
                json.dumps({**foreign, "version": "1.0"}),
                json.dumps(missing),
                json.dumps(option),
            ]
        )
        + "\n"
    )
    proc = run_cli("import", "--from", "agent-trace", str(traces), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["skipped"] == [
        f"{traces}:2: not JSON",
        f"{traces}:3: not a trace record (version: String should match pattern '^[0-9]+\\.[0-9]+\\.[0-9]+$')",
        f"{traces}:4: 000000000000 is not in this repository",
        f"{traces}:5: --output=/tm is not in this repository",
    ]


@pytest.mark.parametrize("args", [["--from", "agent-trace"], ["--from", "aider", "x.jsonl"]])
def test_import_needs_records_for_agent_trace_only(repo: Path, args: list[str]) -> None:
    proc = run_cli("import", *args, cwd=repo)
    assert proc.returncode == 2
    assert (
        "RECORDS is the file or folder of `--from agent-trace` (which needs it) or the history folder of "
        "`--from specstory`, and only of them."
    ) in " ".join(proc.stderr.split())


def test_a_missing_trace_file_is_one_sentence(repo: Path) -> None:
    proc = run_cli("import", "--from", "agent-trace", "nowhere.jsonl", cwd=repo)
    assert proc.returncode == 1
    assert "The Agent Trace file or folder nowhere.jsonl does not exist." in proc.stderr


def test_the_schema_says_what_the_spec_says() -> None:
    """docs/schemas/agent-trace.json against the spec (schemas.ts, v0.1): required fields, the version as
    x.y.z (schemas.ts writes the pattern with a doubled backslash), enums, 1-based lines, optional fields
    absent."""
    assert SCHEMA["required"] == ["version", "id", "timestamp", "files"]
    assert SCHEMA["properties"]["version"]["pattern"] == r"^[0-9]+\.[0-9]+\.[0-9]+$"
    defs = SCHEMA["$defs"]
    assert defs["Contributor"]["properties"]["type"]["enum"] == ["human", "ai", "mixed", "unknown"]
    assert defs["Vcs"]["properties"]["type"]["enum"] == ["git", "jj", "hg", "svn"]
    assert defs["Range"]["properties"]["start_line"]["minimum"] == 1
    model_id = defs["Contributor"]["properties"]["model_id"]
    assert (model_id["type"], model_id["maxLength"], "default" in model_id) == ("string", 250, False)
    bad = {
        "version": "0.1.0",
        "id": str(uuid.uuid4()),
        "timestamp": "2026-01-25T10:00:00Z",
        "files": [
            {
                "path": "a",
                "conversations": [{"ranges": [{"start_line": 0, "end_line": 1}], "contributor": None}],
            }
        ],
    }
    assert len(list(VALIDATOR.iter_errors(bad))) == 2


def test_export_to_a_file_with_a_bad_range_leaves_the_file_as_it_was(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("kept\n", encoding="utf-8")
    proc = run_cli("export", "--format", "agent-trace", "-o", str(out), "nosuch..range", cwd=repo)
    assert proc.returncode == 1 and proc.stderr.startswith("error: ")
    assert out.read_text(encoding="utf-8") == "kept\n"


def _cursor_trace(revision: str, path: str, start: int, end: int, kind: str = "ai") -> dict[str, Any]:
    """A trace record as Cursor writes one (the spec's example shape): no session git-intent can read."""
    return {
        "version": "0.1.0",
        "id": str(uuid.uuid4()),
        "timestamp": "2026-01-25T10:00:00Z",
        "vcs": {"type": "git", "revision": revision},
        "tool": {"name": "Cursor", "version": "2.4.0"},
        "files": [
            {
                "path": path,
                "conversations": [
                    {
                        "url": "https://api.cursor.com/v1/conversations/12345",
                        "contributor": {"type": kind, "model_id": "anthropic/claude-opus-4-5-20251101"},
                        "ranges": [{"start_line": start, "end_line": end}],
                    }
                ],
            }
        ],
    }


def test_another_tools_trace_credits_its_tool_and_model_below_a_transcript(
    repo: Path, tmp_path: Path
) -> None:
    sha, session_id = _agent_history(repo)
    (repo / "by_cursor.py").write_text("def cursor_wrote_this():\n    return 'traced'\n")
    other = commit_all(repo, "cursor's work", env=SYNC)
    traces = tmp_path / "t.jsonl"
    records = [
        _cursor_trace(other, "by_cursor.py", 1, 2),
        _cursor_trace(sha, "steps.py", 1, 6),
        _cursor_trace(other, "by_cursor.py", 1, 1, kind="human"),
    ]
    for record in records:
        VALIDATOR.validate(record)
    traces.write_text("".join(json.dumps(r) + "\n" for r in records))
    proc = run_cli("import", "--from", "agent-trace", str(traces), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["commits"], result["sessions"]) == (2, 0)
    assert result["skipped"] == [
        f"{traces}:3: credits no line an agent wrote (no AI contributor, no session here)"
    ]
    line = blame_json(repo, "by_cursor.py:2")["lines"][0]
    assert line["line_class"] == "agent_without_evidence"
    assert line["attribution"] == {
        "agent": "cursor",
        "session_id": "",
        "message_id": "",
        "tool": "agent-trace",
        "method": "agent-trace",
        "confidence": 0.5,
        "derived_from": None,
        "model": "anthropic/claude-opus-4-5-20251101",
    }
    assert "Agent Trace" in line["reason"]
    # The transcript the hook recorded still wins on the lines it wrote, now and after a record again.
    for _ in range(2):
        mine = blame_json(repo, "steps.py:2")["lines"][0]["attribution"]
        assert (mine["method"], mine["session_id"]) == ("note", session_id)
        assert run_cli("record", sha, cwd=repo).returncode == 0
    again = run_cli("record", other, cwd=repo)
    assert again.returncode == 0 and "note unchanged" in again.stdout.lower()
    assert blame_json(repo, "by_cursor.py:1")["lines"][0]["attribution"]["method"] == "agent-trace"
    stats = json.loads(run_cli("stats", "--json", cwd=repo).stdout)
    assert stats["by_agent"]["cursor"] == 2
    text = run_cli("blame", "by_cursor.py:1", cwd=repo).stdout
    assert "cursor · anthropic/claude-opus-4-5-20251101 · Credited to cursor by an Agent Trace record" in text
