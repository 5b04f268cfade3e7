"""The Copilot CLI, Copilot Chat, Cline, Roo Code and Continue adapters on their fixtures: session ids,
prompts, the exact lines of their edits, and a line each wrote blamed to its message through a real commit
with the installed hook (the transcript placed where the agent keeps it, its paths moved into the test's
repository)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from support import agent_commit, blame_json, blamed, corpus, make_repo, run_cli

from git_intent.adapters import cline, continue_dev, copilot_chat, copilot_cli, roo_code
from git_intent.transcripts import vscode_storage

T = "transcripts"
CLINE_TASK = f"{T}/cline/documented__3.89.2-task/tasks/1761043200000/api_conversation_history.json"
CLINE_SDK = f"{T}/cline/cline-sdk__1784094124598_rruoq/1784094124598_rruoq.messages.json"
ROO_TASK = (
    f"{T}/roo-code/documented__3.52.1-task/tasks/019a0f3c-5b7e-7d2a-9c41-8e2f6a1b3c4d/"
    "api_conversation_history.json"
)
CLI_LOG = f"{T}/copilot-cli/git-ai__copilot_cli_session_events.jsonl"
CHAT = f"{T}/copilot-chat/git-ai__copilot_session_simple.json"
CHAT_LOG = f"{T}/copilot-chat/git-ai__copilot_session_multiline.jsonl"
CONTINUE = f"{T}/continue/git-ai__continue-cli-session-simple.json"


def test_cline_task_reads_prompts_edits_with_final_line_numbers_and_skips_denied_calls() -> None:
    [session] = cline.read(corpus(CLINE_TASK))
    assert (session.session_id, session.cwd, session.agent_version) == (
        "1761043200000",
        "/home/dev/greeter",
        "3.89.2",
    )
    assert [m.text for m in session.messages if m.is_prompt] == [
        "Add a farewell function to greeter.py that says goodbye by name, with a test",
        "greet should strip spaces around the name too",
    ]
    assert [
        (e.path, e.tool, e.message_id, [(a.line, a.text) for a in e.added if a.text]) for e in session.edits
    ] == [
        (
            "/home/dev/greeter/greeter.py",
            "replace_in_file",
            "gen-1761043207-b2",
            [(5, "def farewell(name):"), (6, '    return f"Goodbye, {name}!"')],
        ),
        (
            "/home/dev/greeter/test_greeter.py",
            "write_to_file",
            "gen-1761043212-c3",
            [
                (1, "from greeter import farewell"),
                (4, "def test_farewell():"),
                (5, '    assert farewell("Ada") == "Goodbye, Ada!"'),
            ],
        ),
        (
            "/home/dev/greeter/greeter.py",
            "replace_in_file",
            "gen-1761043263-e5",
            [(2, '    return f"Hello, {name.strip()}!"')],
        ),
    ]  # the denied `execute_command` wrote nothing


def test_cline_sdk_session_numbers_editor_lines_from_its_result() -> None:
    [session] = cline.read(corpus(CLINE_SDK))
    assert (session.session_id, session.cwd, session.stats.records) == (
        "1784094124598_rruoq",
        "/Users/example/dev/cline",
        32,
    )
    assert sum(m.is_prompt for m in session.messages) == 5
    assert [(e.message_id, [(a.line, a.text.strip()) for a in e.added]) for e in session.edits][1:] == [
        ("msg_iGShD_aA", [(217, '<Filter className="size-3 stroke-2" />')]),
        (
            "msg_GVB4sRH4",
            [
                (
                    469,
                    'className="flex min-w-0 flex-1 items-center self-stretch rounded-md pl-0 pr-2 '
                    "text-left transition-colors hover:bg-sidebar-accent hover:text-sidebar-foreground "
                    'focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"',
                )
            ],
        ),
        ("msg_65_VcR3S", [(358, 'className="pl-0"')]),
    ]


def test_xml_era_calls_are_read_from_the_text(tmp_path: Path) -> None:
    task = tmp_path / "tasks" / "1700000000000" / cline.tasks.HISTORY
    task.parent.mkdir(parents=True)
    text = (
        "I'll write it.\n\n<write_to_file>\n<path>a.py</path>\n<content>\nx = "
        "1\n</content>\n</write_to_file>\n"
        "<replace_in_file>\n<path>b.py</path>\n<diff>\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n>>>>>>> "
        "REPLACE\n"
        "</diff>\n</replace_in_file>"
    )
    task.write_text(
        json.dumps(
            [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "<task>\nset x\n</task>\n<environment_details>\n"
                            "# Current Working Directory (/w/p) Files\n</environment_details>",
                        }
                    ],
                },
                {"role": "assistant", "content": [{"type": "text", "text": text}]},
            ]
        ),
        encoding="utf-8",
    )
    assert cline.sniff(task) and not roo_code.sniff(task)
    [session] = cline.read(task)
    assert session.messages[1].parts[0].text == "I'll write it."
    assert [(e.path, e.tool, [a.text for a in e.added]) for e in session.edits] == [
        ("/w/p/a.py", "write_to_file", ["x = 1"]),
        ("/w/p/b.py", "replace_in_file", ["y = 2"]),
    ]


def test_roo_task_reads_its_tools_and_skips_the_denied_edit() -> None:
    [session] = roo_code.read(corpus(ROO_TASK))
    assert (session.cwd, [m.text for m in session.messages if m.is_prompt]) == (
        "/home/dev/slugger",
        ["Make slugify drop punctuation, and add a test for it"],
    )
    assert [(e.tool, e.message_id, [a.text for a in e.added]) for e in session.edits] == [
        (
            "apply_diff",
            "msg_02Df9",
            [
                "  return text",
                "    .toLowerCase()",
                '    .replace(/[^a-z0-9\\s-]/g, "")',
                "    .trim()",
                '    .replace(/\\s+/g, "-");',
            ],
        ),
        (
            "write_to_file",
            "msg_03Wr1",
            [
                'import { slugify } from "../src/slug";',
                "",
                'test("drops punctuation", () => {',
                '  expect(slugify("Hi, there!")).toBe("hi-there");',
                "});",
            ],
        ),
    ]
    assert session.messages[1].parts[0].kind == "reasoning"


def test_copilot_chat_edit_groups_give_exact_lines_and_the_log_replays() -> None:
    [chat] = copilot_chat.read(corpus(CHAT))
    assert (chat.session_id, chat.agent_version, [m.text for m in chat.messages if m.is_prompt]) == (
        "331fed7f-cfd6-409c-8502-06a56322b636",
        "0.31.5",
        [
            "What can you help me with?",
            "Change Bonjour World to hello world",
            "Search for any other mentions of Bonjour",
        ],
    )
    [edit] = chat.edits
    assert (edit.message_id, edit.added[-1]) == (
        "response_409401ac-4621-4115-b392-593e2145b3c5",
        edit.added[-1],
    )
    assert (edit.added[-1].line, edit.added[-1].text) == (10, "console.log('hello world');")
    [log] = copilot_chat.read(corpus(CHAT_LOG))
    assert (log.agent_version, len(log.messages), log.stats.records) == ("0.37.1", 4, 12)
    assert [(a.line, a.text) for a in log.edits[0].added][5] == (
        6,
        "5,Why did 7sadfh32u23gdaWF cross the road?,To debug the chicken's code.",
    )


def test_copilot_cli_reads_creates_and_skips_failed_calls(tmp_path: Path) -> None:
    [session] = copilot_cli.read(corpus(CLI_LOG))
    assert (session.session_id, session.cwd, session.agent_version) == (
        "301561f1-558a-43e9-a144-82d3ca12ab62",
        "/Users/test/project",
        "1.0.45",
    )
    assert [(e.path, e.tool, [(a.line, a.text) for a in e.added]) for e in session.edits] == [
        ("/Users/test/project/hello.py", "create", [(1, "print('hello world')")])
    ]
    log = tmp_path / "events.jsonl"
    stamp = "2026-05-12T00:21:05.000Z"
    records = [
        {
            "type": "assistant.message",
            "id": "a",
            "timestamp": stamp,
            "data": {
                "content": "",
                "toolRequests": [
                    {
                        "toolCallId": "c1",
                        "name": "edit",
                        "arguments": {"path": "/p/x.py", "old_str": "a", "new_str": "b"},
                    },
                    {
                        "toolCallId": "c2",
                        "name": "str_replace_editor",
                        "arguments": {"command": "create", "path": "/p/y.py", "file_text": "y\n"},
                    },
                ],
            },
        },
        {
            "type": "tool.execution_complete",
            "id": "r1",
            "timestamp": stamp,
            "data": {"toolCallId": "c1", "success": False},
        },
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert [(e.path, e.tool) for e in copilot_cli.read(log)[0].edits] == [("/p/y.py", "str_replace_editor")]


def test_continue_reads_cli_multi_edits_without_times() -> None:
    [session] = continue_dev.read(corpus(CONTINUE))
    assert (session.session_id, session.cwd) == (
        "2dbfd673-096d-4773-b5f3-9023894a7355",
        "/Users/svarlamov/projects/testing-git",
    )
    assert [m.message_id for m in session.messages if m.is_prompt] == ["h0"]
    assert all(m.timestamp is None for m in session.messages)
    assert [(e.tool, e.message_id, [a.text for a in e.added]) for e in session.edits] == [
        ("MultiEdit", "h2", ["console.log('hello world');"])
    ]


def test_discovery_honours_each_agents_variables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "cp"))
    monkeypatch.setenv("CLINE_DATA_DIR", str(tmp_path / "cl"))
    monkeypatch.setenv("CLINE_SESSION_DATA_DIR", str(tmp_path / "cs"))
    monkeypatch.setenv("CONTINUE_GLOBAL_DIR", str(tmp_path / "co"))
    places = [
        tmp_path / "cp/session-state/s1/events.jsonl",
        tmp_path / "cp/session-state/s0.jsonl",
        tmp_path / "cl/tasks/1/api_conversation_history.json",
        tmp_path / "cs/s2/s2.messages.json",
        tmp_path / "co/sessions/s3.json",
        tmp_path / "co/sessions/sessions.json",
    ]
    for place in places:
        place.parent.mkdir(parents=True, exist_ok=True)
        place.write_text("{}", encoding="utf-8")
    assert sorted(copilot_cli.discover(tmp_path)) == sorted(places[:2])
    assert list(cline.discover(tmp_path)) == places[2:4]
    assert list(continue_dev.discover(tmp_path)) == [places[4]]


def test_copilot_chat_finds_only_the_workspaces_of_this_work_tree(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    storage = vscode_storage.user_dirs()[0] / "workspaceStorage"
    for name, folder in (("mine", root), ("other", tmp_path / "elsewhere")):
        (storage / name / "chatSessions").mkdir(parents=True)
        (storage / name / "workspace.json").write_text(
            json.dumps({"folder": folder.as_uri()}), encoding="utf-8"
        )
        (storage / name / "chatSessions" / f"{name}.json").write_text("{}", encoding="utf-8")
    logs = storage / "mine" / "GitHub.copilot-chat" / "transcripts"
    logs.mkdir(parents=True)
    for stem in ("mine", "log-only"):
        (logs / f"{stem}.jsonl").write_text("{}\n", encoding="utf-8")
    assert [p.relative_to(storage).as_posix() for p in copilot_chat.discover(root)] == [
        "mine/chatSessions/mine.json",
        "mine/GitHub.copilot-chat/transcripts/log-only.jsonl",
    ]


# --------------------------------------------------------------------------------------------------
# Lines each wrote, blamed through a real commit
# --------------------------------------------------------------------------------------------------

WHEN = (datetime(2020, 1, 1, tzinfo=timezone.utc), datetime(2030, 1, 1, tzinfo=timezone.utc))


def _placed(source: str, target: Path, old: str, new: str) -> str:
    text = corpus(source).read_text(encoding="utf-8").replace(old, new)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return text


@pytest.mark.slow
def test_a_line_cline_wrote_is_blamed_to_its_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _placed(
        CLINE_TASK,
        cline.data_dirs()[0] / "tasks" / "1761043200000" / cline.tasks.HISTORY,
        "/home/dev/greeter",
        str(repo),
    )
    before = 'def greet(name):\n    return f"Hello, {name}!"\n'
    after = before + '\n\ndef farewell(name):\n    return f"Goodbye, {name}!"\n'
    sha = agent_commit(
        repo,
        {"greeter.py": before},
        {"greeter.py": after},
        datetime(2025, 10, 21, 10, 40, tzinfo=timezone.utc),
        datetime(2025, 10, 21, 10, 40, 10, tzinfo=timezone.utc),
    )
    assert blamed(repo, "greeter.py", '    return f"Goodbye, {name}!"') == (
        sha,
        "agent",
        "cline",
        "1761043200000",
        "gen-1761043207-b2",
        "replace_in_file",
        "user",
        "m0",
    )


@pytest.mark.slow
def test_a_line_roo_code_wrote_is_blamed_to_its_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    task = "019a0f3c-5b7e-7d2a-9c41-8e2f6a1b3c4d"
    _placed(
        ROO_TASK,
        vscode_storage.user_dirs()[0]
        / "globalStorage"
        / roo_code.EXTENSION
        / "tasks"
        / task
        / roo_code.HISTORY,
        "/home/dev/slugger",
        str(repo),
    )
    test = corpus(ROO_TASK).read_text(encoding="utf-8")
    content = json.loads(test)[5]["content"][0]["input"]["content"]
    sha = agent_commit(
        repo,
        {"README.md": "slugger\n"},
        {"README.md": "slugger\n", "test/slug.test.ts": content},
        datetime(2026, 4, 14, 16, 0, tzinfo=timezone.utc),
        datetime(2026, 4, 14, 16, 0, 32, tzinfo=timezone.utc),
    )
    assert blamed(repo, "test/slug.test.ts", 'test("drops punctuation", () => {') == (
        sha,
        "agent",
        "roo-code",
        task,
        "msg_03Wr1",
        "write_to_file",
        "user",
        "m0",
    )


@pytest.mark.slow
def test_a_line_copilot_chat_wrote_is_blamed_to_its_reply(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    workspace = vscode_storage.user_dirs()[0] / "workspaceStorage" / "f00d"
    _placed(
        CHAT,
        workspace / "chatSessions" / "331fed7f-cfd6-409c-8502-06a56322b636.json",
        "/Users/svarlamov/projects/testing-git",
        str(repo),
    )
    (workspace / "workspace.json").write_text(json.dumps({"folder": repo.as_uri()}), encoding="utf-8")
    before = (
        "console.log('Bonjour');\n\n// Print numbers 1 through 10\nfor (let i = 1; i <= 10; i++) {\n"
        "\tconsole.log(i);\n}\n\nconsole.log('Bonjour World');\n"
    )
    sha = agent_commit(
        repo,
        {"index.ts": before},
        {"index.ts": before.replace("Bonjour World", "hello world")},
        datetime(2025, 10, 7, 13, 51, tzinfo=timezone.utc),
        datetime(2025, 10, 7, 15, 16, tzinfo=timezone.utc),
    )
    assert blamed(repo, "index.ts", "console.log('hello world');") == (
        sha,
        "agent",
        "copilot-chat",
        "331fed7f-cfd6-409c-8502-06a56322b636",
        "response_409401ac-4621-4115-b392-593e2145b3c5",
        "textEditGroup",
        "user",
        "request_e838f1ef-f292-49ab-92fc-3317408b67f1",
    )


@pytest.mark.slow
def test_a_line_copilot_cli_wrote_is_blamed_to_its_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _placed(
        CLI_LOG,
        copilot_cli.copilot_home()
        / "session-state"
        / "301561f1-558a-43e9-a144-82d3ca12ab62"
        / "events.jsonl",
        "/Users/test/project",
        str(repo),
    )
    sha = agent_commit(
        repo,
        {"README.md": "x\n"},
        {"README.md": "x\n", "hello.py": "print('hello world')\n"},
        datetime(2026, 5, 12, 0, 21, tzinfo=timezone.utc),
        datetime(2026, 5, 12, 0, 22, tzinfo=timezone.utc),
    )
    assert blamed(repo, "hello.py", "print('hello world')") == (
        sha,
        "agent",
        "copilot-cli",
        "301561f1-558a-43e9-a144-82d3ca12ab62",
        "b2c3d4e5-2222-3333-4444-555566667777",
        "create",
        "user",
        "a1b2c3d4-1111-2222-3333-444455556666",
    )


@pytest.mark.slow
def test_a_line_continue_wrote_is_blamed_to_its_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _placed(
        CONTINUE,
        continue_dev.continue_home() / "sessions" / "2dbfd673-096d-4773-b5f3-9023894a7355.json",
        "/Users/svarlamov/projects/testing-git",
        str(repo),
    )
    before = "console.log('hello world');\n" * 4
    sha = agent_commit(
        repo, {"index.ts": before}, {"index.ts": before + "console.log('hello world');\n"}, *WHEN
    )
    # Every line of the file reads the same: line 5 is the one the commit added.
    line = blame_json(repo, "index.ts:5")["lines"][0]
    assert (
        line["commit"],
        line["attribution"]["agent"],
        line["attribution"]["session_id"],
        line["attribution"]["message_id"],
    ) == (sha, "continue", "2dbfd673-096d-4773-b5f3-9023894a7355", "h2")


# --------------------------------------------------------------------------------------------------
# git intent agents
# --------------------------------------------------------------------------------------------------


def test_agents_lists_where_each_looks_and_what_it_found_here(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    state = copilot_cli.copilot_home() / "session-state"
    _placed(
        CLI_LOG,
        state / "301561f1-558a-43e9-a144-82d3ca12ab62" / "events.jsonl",
        "/Users/test/project",
        str(repo),
    )
    newer = _placed(CLI_LOG, state / "newer" / "events.jsonl", "/Users/test/project", str(repo))
    (state / "newer" / "events.jsonl").write_text(
        newer.replace('"1.0.45"', '"9.0.1"').replace("301561f1-558a-43e9-a144-82d3ca12ab62", "5e55104e"),
        "utf-8",
    )
    _placed(CLI_LOG, state / "elsewhere" / "events.jsonl", "/Users/test/project", "/somewhere/else")
    _placed(
        CONTINUE,
        continue_dev.continue_home() / "sessions" / "2dbfd673-096d-4773-b5f3-9023894a7355.json",
        "/Users/svarlamov/projects/testing-git",
        str(repo),
    )

    proc = run_cli("agents", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    found = {r["agent"]: r for r in json.loads(proc.stdout)}
    assert {"claude-code", "codex", "copilot-cli", "copilot-chat", "cline", "roo-code", "continue"} <= set(
        found
    )
    assert found["copilot-cli"] == {
        "agent": "copilot-cli",
        "plugin": False,
        "locations": [f"{state}/*/events.jsonl", f"{state}/*.jsonl"],
        "newest_tested": copilot_cli.NEWEST_TESTED,
        "transcripts": 2,
        "sessions": 2,
        "newest_seen": "9.0.1",
        "newer_than_tested": True,
    }  # the log of another work tree is not counted
    assert (
        found["continue"]["transcripts"],
        found["continue"]["sessions"],
        found["continue"]["newest_seen"],
    ) == (1, 1, None)
    assert (found["claude-code"]["transcripts"], found["claude-code"]["sessions"]) == (0, 0)
    assert found["aider"]["locations"] == [str(repo / ".aider.chat.history.md")]

    text = run_cli("agents", cwd=repo)
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[:3] == [
        f"copilot-cli: 2 transcript(s), 2 session(s) here, newest 9.0.1 (newer than the fixtures); "
        f"fixtures to {copilot_cli.NEWEST_TESTED}",
        f"  {state}/*/events.jsonl",
        f"  {state}/*.jsonl",
    ]
