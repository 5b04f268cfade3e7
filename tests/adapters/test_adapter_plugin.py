"""Agents are open for extension: an adapter installed by another distribution, registered under the
`git_intent.adapters` entry-point group, is found, its sessions validate, and `blame` explains a line it
wrote, end to end through the installed hook (docs/adapters.md)."""

from __future__ import annotations

import importlib.metadata
import json
import os
import textwrap
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from conftest import git, run_cli, wait_for_note
from pydantic import ValidationError

from git_intent import adapters
from git_intent.core.errors import TranscriptError
from git_intent.core.values import Session, validate
from git_intent.notes import parse_record

# A complete third-party adapter, as docs/adapters.md describes: a module with NAME, discover, sniff and
# read (no MULTI_SESSION, no read_project: the registry fills in their defaults). Its format is JSON Lines:
# a header {"notes_agent": 1, "session": ID, "cwd": DIR}, then {"id", "role", "text"} messages, and
# {"id", "write": PATH, "content": TEXT} records for the files it wrote.
PLUGIN = '''
"""A toy agent's transcripts: `$NOTES_AGENT_HOME/*.notes.jsonl`."""

import json
import os
from pathlib import Path

from git_intent.core.values import AddedLine, Edit, Message, ParseStats, Part, Session

NAME = "notes-agent"


def discover(root, since=None):
    home = Path(os.environ["NOTES_AGENT_HOME"])
    yield from sorted(home.glob("*.notes.jsonl"))


def sniff(path):
    if not path.name.endswith(".notes.jsonl"):
        return False
    with path.open(encoding="utf-8") as handle:
        return '"notes_agent"' in handle.readline()


def read(path):
    stats = ParseStats()
    lines = path.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    messages, edits = [], []
    for line in lines[1:]:
        record = json.loads(line)
        stats.records += 1
        if "write" in record:
            text = record["content"]
            messages.append(Message(message_id=record["id"], role="assistant", parts=(
                Part(kind="tool_call", tool="write_note", call_id=record["id"], text=line),)))
            edits.append(Edit(path=record["write"], tool="write_note", message_id=record["id"], kind="create",
                              new_text=text, added=tuple(AddedLine(text=t, line=i + 1)
                                                         for i, t in enumerate(text.splitlines()))))
        else:
            messages.append(Message(message_id=record["id"], role=record["role"],
                                    is_prompt=record["role"] == "user",
                                    parts=(Part(kind="text", text=record["text"]),)))
    return [Session(agent=NAME, session_id=head["session"], transcript=path, cwd=head["cwd"],
                    cwds=[head["cwd"]],
                    messages=messages, edits=edits, stats=stats)]
'''

SESSION = "notes-7f3a"
CONTENT = "def greet(name):\n    return f'hello {name}, from the notes agent'\n"


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The plug-in installed the way pip installs one: a module and a dist-info with entry_points.txt on
    the path (PYTHONPATH, so the CLI, the hook and its worker all see it). Yields the agent's home."""
    site = tmp_path / "site"
    (site / "notes_agent_dist-1.0.dist-info").mkdir(parents=True)
    (site / "notes_agent_dist-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: notes-agent-dist\nVersion: 1.0\n", encoding="utf-8"
    )
    (site / "notes_agent_dist-1.0.dist-info" / "entry_points.txt").write_text(
        "[git_intent.adapters]\nnotes-agent = notes_agent_adapter\n", encoding="utf-8"
    )
    (site / "notes_agent_adapter.py").write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    home = tmp_path / "notes-home"
    home.mkdir()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("NOTES_AGENT_HOME", str(home))
    yield home


@pytest.mark.slow
def test_a_plugin_adapter_is_registered_and_blamed_end_to_end(repo: Path, plugin: Path) -> None:
    assert run_cli("install", cwd=repo).returncode == 0
    records = [
        {"notes_agent": 1, "session": SESSION, "cwd": str(repo)},
        {"id": "m1", "role": "user", "text": "add a greet function to greet.py"},
        {"id": "m2", "role": "assistant", "text": "Adding greet() now."},
        {"id": "m3", "write": str(repo / "greet.py"), "content": CONTENT},
    ]
    (plugin / f"{SESSION}.notes.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    (repo / "greet.py").write_text(CONTENT, encoding="utf-8")
    git(repo, "add", "greet.py")
    git(repo, "commit", "-q", "-m", "greet")
    note = wait_for_note(repo)
    assert '"agent":"notes-agent"' in note.replace(" ", "") and SESSION in note
    answer = json.loads(run_cli("blame", "greet.py:2", "--json", cwd=repo).stdout)
    (line,) = answer["lines"]
    assert line["content"] == "    return f'hello {name}, from the notes agent'"
    assert {k: line["attribution"][k] for k in ("agent", "session_id", "message_id", "tool")} == {
        "agent": "notes-agent",
        "session_id": SESSION,
        "message_id": "m3",
        "tool": "write_note",
    }
    assert [e["message_id"] for e in line["evidence"]][:1] == ["m1"]  # the request that asked for it
    shown = run_cli("show", f"{SESSION}:m1", cwd=repo)
    assert shown.returncode == 0 and "add a greet function" in shown.stdout
    listed = json.loads(run_cli("sessions", "--agent", "notes-agent", "--json", cwd=repo).stdout)
    assert [s["session_id"] for s in listed] == [SESSION]


def registered(monkeypatch: pytest.MonkeyPatch, *points: EntryPoint) -> dict[str, adapters.Adapter]:
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group: [p for p in points if p.group == group]
    )
    adapters.all_adapters.cache_clear()
    try:
        return adapters.all_adapters()
    finally:
        adapters.all_adapters.cache_clear()


def test_a_registered_adapter_gets_the_optional_members(
    monkeypatch: pytest.MonkeyPatch, plugin: Path, tmp_path: Path
) -> None:
    point = EntryPoint("notes-agent", "notes_agent_adapter", adapters.ENTRY_POINT_GROUP)
    monkeypatch.syspath_prepend(os.environ["PYTHONPATH"].split(os.pathsep)[0])
    found = registered(monkeypatch, point)
    assert list(found)[-1] == "notes-agent" and len(found) == len(adapters.ADAPTERS) + 1
    adapter = found["notes-agent"]
    assert (adapter.NAME, adapter.MULTI_SESSION) == ("notes-agent", False)
    path = plugin / "s.notes.jsonl"
    path.write_text(json.dumps({"notes_agent": 1, "session": "s", "cwd": "/w"}) + "\n", encoding="utf-8")
    assert adapter.sniff(path) and [s.session_id for s in adapter.read_project(path, project_id="x")] == ["s"]


def test_broken_or_misnamed_plugins_are_left_out(monkeypatch: pytest.MonkeyPatch, plugin: Path) -> None:
    monkeypatch.syspath_prepend(os.environ["PYTHONPATH"].split(os.pathsep)[0])
    found = registered(
        monkeypatch,
        EntryPoint("gone", "no_such_module_anywhere", adapters.ENTRY_POINT_GROUP),
        EntryPoint("other-name", "notes_agent_adapter", adapters.ENTRY_POINT_GROUP),
        EntryPoint("codex", "notes_agent_adapter", adapters.ENTRY_POINT_GROUP),
        EntryPoint("half", "json", adapters.ENTRY_POINT_GROUP),
    )  # no NAME, no read
    assert list(found) == list(adapters.ADAPTERS)
    assert found["codex"] is adapters.ADAPTERS["codex"]  # a plug-in cannot take a built-in's name


def test_an_adapter_reads_only_sessions_of_its_own_name(tmp_path: Path) -> None:
    class Impostor:
        NAME = "impostor"

        def discover(self, root: Path, since: object = None) -> list[Path]:
            return []

        def sniff(self, path: Path) -> bool:
            return True

        def read(self, path: Path) -> list[Session]:
            return [Session(agent="codex", session_id="s", transcript=path)]

    with pytest.raises(TranscriptError, match="^The adapter impostor read .* as a session of codex; "):
        adapters.Registered(Impostor(), plugin=True).read(tmp_path / "x.jsonl")


def test_a_plugins_sessions_are_validated_and_its_lists_made_tuples(tmp_path: Path) -> None:
    """The models are dataclasses: nothing checks them when built, so the registry validates what a
    plug-in returns with pydantic."""
    from git_intent.core.values import Message, Part

    class Loose:
        NAME = "loose"
        role = "user"

        def discover(self, root: Path, since: object = None) -> list[Path]:
            return []

        def sniff(self, path: Path) -> bool:
            return True

        def read(self, path: Path) -> list[Session]:
            parts = [Part(kind="text", text="hi")]
            return [
                Session(
                    agent="loose",
                    session_id="s",
                    transcript=path,
                    messages=[Message(message_id="m", role=self.role, parts=parts)],
                )
            ]  # type: ignore[arg-type]

    loose = Loose()
    (session,) = adapters.Registered(loose, plugin=True).read(tmp_path / "x.jsonl")
    assert session.messages[0].parts == (Part(kind="text", text="hi"),)
    loose.role = "robot"
    with pytest.raises(TranscriptError, match="^The adapter loose read .* into a malformed session: "):
        adapters.Registered(loose, plugin=True).read(tmp_path / "x.jsonl")


def test_agent_names_are_open_but_shaped() -> None:
    """A note may name an agent this machine has no adapter for (a teammate's plug-in): it validates, where
    it is read from outside (pydantic, through `models.validate`; and a note's records)."""
    assert (
        validate(Session, {"agent": "notes-agent", "session_id": "s", "transcript": "x"}).agent
        == "notes-agent"
    )
    for bad in ("Not A Name!", "", "../../etc", "a" * 65):
        with pytest.raises(ValidationError):
            validate(Session, {"agent": bad, "session_id": "s", "transcript": "x"})
        record = {
            "schema": "git-intent/1",
            "kind": "session",
            "agent": bad,
            "session_id": "s",
            "lines_attributed": 1,
        }
        assert parse_record(record) is None
    assert parse_record({**record, "agent": "notes-agent"}) is not None
