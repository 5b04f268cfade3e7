"""Every `--json` output has a generated JSON Schema (draft 2020-12) in docs/schemas/, current with the
models, and what the commands really print validates against it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import click
from conftest import run_cli
from jsonschema import Draft202012Validator

from git_intent.cli import cli
from git_intent.core.values import AGENT_NAME
from git_intent.demo import run_demo
from git_intent.schemas import available, json_schema

ROOT = Path(__file__).resolve().parents[1]
SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"
# commands whose --json is another command's output
SAME_AS = {"demo": "blame", "carry": "record"}


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_schemas", ROOT / "docs" / "gen_schemas.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_schemas_are_current() -> None:
    expected = _generator().render()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "schemas").glob("*.json")}
    assert on_disk == expected, "docs/schemas is stale: run .venv/bin/python docs/gen_schemas.py"


def test_every_json_option_has_a_schema_and_every_schema_is_valid_2020_12() -> None:
    names = set(available())
    for name, command in cli.commands.items():  # type: ignore[attr-defined]
        if any(isinstance(p, click.Option) and "--json" in p.opts for p in command.params):
            assert SAME_AS.get(name, name) in names, f"`git intent {name} --json` has no schema"
    assert "record-pending" in names
    for name in names:
        schema = json_schema(name)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)


def test_the_blame_schema_keeps_the_design_contract() -> None:
    schema = json_schema("blame")
    assert schema["required"] == ["lines"] and set(schema["properties"]) == {"lines", "ranges"}
    defs = schema["$defs"]
    line = defs["LineAnswer"]["properties"]
    assert {"path", "line", "content", "commit", "attribution", "evidence"} <= set(line)
    assert line["line"]["type"] == "integer"
    assert {"type": "null"} in line["commit"]["anyOf"] and {"type": "null"} in line["attribution"]["anyOf"]
    attribution = defs["Attribution"]["properties"]
    assert {"agent", "session_id", "message_id", "tool", "method", "confidence"} <= set(attribution)
    # Open to plug-in adapters (docs/adapters.md): a shaped name, not a closed list.
    assert attribution["agent"] == {"type": "string", "pattern": AGENT_NAME, "title": "Agent"}
    evidence = defs["Evidence"]["properties"]
    assert {"session_id", "message_id", "role", "timestamp", "text"} <= set(evidence)


def test_real_outputs_validate_against_their_schemas(tmp_path: Path) -> None:
    repo = tmp_path / "demo"
    run_demo(repo)
    runs = {
        "blame": ["blame", "cmd/entire/cli/agent/chunking.go:80-90"],
        "show": ["show", SESSION],
        "log": ["log"],
        "sessions": ["sessions"],
        "index": ["index"],
        "search": ["search", "chunk size"],
        "context": ["context", SESSION],
        "fidelity": ["fidelity", SESSION, "t1", "summary"],
        "status": ["status"],
        "record": ["record", "HEAD"],
        "record-pending": ["record", "--pending"],
        "backfill": ["backfill"],
        "stats": ["stats"],
        "review": ["review", "HEAD~1..HEAD"],
        "audit": ["audit", "HEAD~1..HEAD"],
        "share": ["share"],
        "redact": ["redact", "--check", str(tmp_path / "leak.txt")],
    }
    (tmp_path / "leak.txt").write_text("password = 'hunter2hunter2hunter2'\nAKIAIOSFODNN7EXAMPLE\n")
    runs["blame"] = ["blame", "cmd/entire/cli/agent/chunking.go"]  # the whole file
    for name, args in runs.items():
        proc = run_cli(*args, "--json", cwd=repo)
        assert proc.returncode == 0, (name, proc.stderr)
        Draft202012Validator(json_schema(name)).validate(json.loads(proc.stdout))
    part = run_cli("blame", "cmd/entire/cli/agent/chunking.go:80-90", "--json", cwd=repo)
    Draft202012Validator(json_schema("blame")).validate(json.loads(part.stdout))
    message = run_cli("show", f"{SESSION}:00696767", "--json", cwd=repo)
    Draft202012Validator(json_schema("show")).validate(json.loads(message.stdout))
    doctor = run_cli("doctor", "--json", cwd=repo)  # exits 1 here: the demo installs no hooks
    Draft202012Validator(json_schema("doctor")).validate(json.loads(doctor.stdout))


def test_schema_command(tmp_path: Path) -> None:
    listed = run_cli("schema", cwd=tmp_path)
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()] == available()
    assert "stats           git intent stats [RANGE] --json" in listed.stdout
    one = run_cli("schema", "stats", cwd=tmp_path)
    assert one.stdout == (ROOT / "docs" / "schemas" / "stats.json").read_text(encoding="utf-8")
    bad = run_cli("schema", "nope", cwd=tmp_path)
    assert bad.returncode == 1 and bad.stderr.startswith(
        "error: There is no JSON output named 'nope'.\nhint: "
    )
