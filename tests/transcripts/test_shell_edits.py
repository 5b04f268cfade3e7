"""Shell edits: writes whose content the command text shows (heredocs, echo/printf, tee, whole-line sed)."""

from __future__ import annotations

import json
import random
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, corpus, write_records

from git_intent.adapters import claude_code, codex, sniff
from git_intent.core.values import Edit
from git_intent.transcripts import shell

Lines = list[tuple[int | None, str]]


def edits(command: str, cwd: str | None = "/w") -> list[tuple[str, str, Lines]]:
    return [
        (e.path, e.kind, [(a.line, a.text) for a in e.added])
        for e in shell.shell_edits(command, cwd, tool="Bash", message_id="m1")
    ]


# --------------------------------------------------------------------------------------------------
# The forms agents use to write files from the shell, and what stays human
# --------------------------------------------------------------------------------------------------

FORMS: list[tuple[str, list[tuple[str, str, Lines]]]] = [
    # heredocs: quoted delimiter is literal; `>` creates (numbered), `>>` appends (no numbers)
    ("cat > a.py <<'EOF'\nx = $HOME\ny = 2\nEOF", [("/w/a.py", "create", [(1, "x = $HOME"), (2, "y = 2")])]),
    ("cat <<EOF > a.py\nplain\nEOF", [("/w/a.py", "create", [(1, "plain")])]),
    ("cat > a.py <<\\EOF\nx = $HOME\nEOF", [("/w/a.py", "create", [(1, "x = $HOME")])]),
    (
        "cat >> log.md <<EOF\nfirst\nsecond\nEOF",
        [("/w/log.md", "update", [(None, "first"), (None, "second")])],
    ),
    ("cat >f.txt<<EOF\nno blanks\nEOF", [("/w/f.txt", "create", [(1, "no blanks")])]),
    (
        "cat <<-EOF > b.py\n\tdef f():\n\t    return 1\n\tEOF",
        [("/w/b.py", "create", [(1, "def f():"), (2, "    return 1")])],
    ),
    # an unquoted heredoc expands: a line holding an expansion stays human, later lines lose their number
    (
        "cat > c.txt <<EOF\nkept\nuser $USER\n`date`\nprice \\$5\nEOF",
        [("/w/c.txt", "create", [(1, "kept"), (None, "price $5")])],
    ),
    (
        "cat > d.txt << 'END'\nbody with EOF inside\nEND\necho after > e.txt",
        [("/w/d.txt", "create", [(1, "body with EOF inside")]), ("/w/e.txt", "create", [(1, "after")])],
    ),
    # tee, alone or fed by a pipe; -a appends
    ("tee t.txt <<EOF >/dev/null\nl1\nl2\nEOF", [("/w/t.txt", "create", [(1, "l1"), (2, "l2")])]),
    ("tee -a t.txt > /dev/null <<'EOF'\nmore\nEOF", [("/w/t.txt", "update", [(None, "more")])]),
    ("cat <<EOF | tee t.txt\npiped\nEOF", [("/w/t.txt", "create", [(1, "piped")])]),
    (
        "printf 'a\\n' | tee -a u.txt v.txt",
        [("/w/u.txt", "update", [(None, "a")]), ("/w/v.txt", "update", [(None, "a")])],
    ),
    # printf: escapes, %s/%d reuse the format, %% is literal
    ("printf 'a\\nb\\n' > p.txt", [("/w/p.txt", "create", [(1, "a"), (2, "b")])]),
    ("printf '%s\\n' one \"two three\" > q.txt", [("/w/q.txt", "create", [(1, "one"), (2, "two three")])]),
    (
        "printf '%s=%d (100%%)\\n' x 1 y 2 >> q.txt",
        [("/w/q.txt", "update", [(None, "x=1 (100%)"), (None, "y=2 (100%)")])],
    ),
    ("printf 'no newline' > r.txt", [("/w/r.txt", "create", [(1, "no newline")])]),
    ("printf '%5s\\n' x > s.txt", []),  # a padded conversion: the line's exact text is not shown
    # echo: quoting, -n, -e; without -e a backslash is read differently by bash and zsh, so it stays human
    ("echo 'hi there' > e.txt; echo \"to $USER\" >> e.txt", [("/w/e.txt", "create", [(1, "hi there")])]),
    ("echo 'it'\\''s' > q1.txt", [("/w/q1.txt", "create", [(1, "it's")])]),
    ("echo $'tab\\there' > ansi.txt", [("/w/ansi.txt", "create", [(1, "tab\there")])]),
    ("echo -n x > n.txt", [("/w/n.txt", "create", [(1, "x")])]),
    ("echo -e 'a\\tb\\nc' > t.txt", [("/w/t.txt", "create", [(1, "a\tb"), (2, "c")])]),
    ("echo -e 'kept\\cdropped' > c.txt", [("/w/c.txt", "create", [(1, "kept")])]),
    ("echo 'a\\nb' > amb.txt", []),
    ("echo x 2>/dev/null >out.txt", [("/w/out.txt", "create", [(1, "x")])]),
    ("echo x &> both.txt", [("/w/both.txt", "create", [(1, "x")])]),
    ("X=1 cat > env.txt <<EOF\nv\nEOF", [("/w/env.txt", "create", [(1, "v")])]),
    ("if ! grep -q foo f; then echo foo >> f; fi", [("/w/f", "update", [(None, "foo")])]),
    # sed -i: only a whole-line result shows the line it writes
    ("sed -i 's/^.*$/replaced/' f.txt", [("/w/f.txt", "update", [(None, "replaced")])]),
    ("sed -i '3s/^.*$/line three/' f.txt", [("/w/f.txt", "update", [(3, "line three")])]),
    (
        "sed -i '' 's/^VERSION = .*$/VERSION = \"2\"/' setup.py",
        [("/w/setup.py", "update", [(None, 'VERSION = "2"')])],
    ),
    (
        "sed -i.bak -E 's|^(a)$|b\\nc|' x y",
        [("/w/x", "update", [(None, "b"), (None, "c")]), ("/w/y", "update", [(None, "b"), (None, "c")])],
    ),
    ("sed -i -e '5a\\\nafter five' g.txt", [("/w/g.txt", "update", [(6, "after five")])]),
    ("sed -i '1i #!/usr/bin/env python' h.py", [("/w/h.py", "update", [(1, "#!/usr/bin/env python")])]),
    ("sed -i '/marker/c replaced; kept' h.txt", [("/w/h.txt", "update", [(None, "replaced; kept")])]),
    ("sed -i -- 's/^.*$/q/' a b", [("/w/a", "update", [(None, "q")]), ("/w/b", "update", [(None, "q")])]),
    ("sed --in-place --expression='2c\\\nnew two' f", [("/w/f", "update", [(2, "new two")])]),
    ("sed -i 's/foo/bar/' f.txt", []),  # a partial-line replacement: the resulting line is unknown
    ("sed -i -n 's/^.*$/q/p' f", []),
    ("sed -i -f script.sed f", []),
    ("sed -i 's/^.*$/q/' $F", []),
    ("sed -i 's/^x$/y/; s/a/b/' f.txt", []),
    ("sed -i 's/^\\(.*\\)$/\\1;/' f.txt", []),
    ("sed -i 's/^.*$/&!/' f.txt", []),
    ("sed -i 'd' f.txt", []),
    ("sed -n 's/^.*$/x/p' f.txt > out.txt", []),
    ("sed 's/^.*$/x/' f.txt", []),
    # nothing the text does not show
    ("python - <<'EOF'\nopen('x.py', 'w').write('y')\nEOF", []),
    ("echo $(date) > d.txt", []),
    ("echo *.py > glob.txt", []),
    ("echo {a,b} > brace.txt", []),
    ("echo one > $OUT", []),
    ("cat a.txt > b.txt", []),
    ("echo x >&2", []),
    ("echo x > /dev/null", []),
    ("go test ./... 2>&1 | tail -30", []),
    ("echo a#b # comment > no.txt", []),
    ('echo "unterminated > z', []),
    ("git commit -m \"$(cat <<'EOF'\nFix: don't write > out.txt\nEOF\n)\"", []),
    ("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF", []),
    # cd: the chain and subshells move the directory writes resolve against
    ("cd sub && cat > b.txt <<EOF\nx\nEOF", [("/w/sub/b.txt", "create", [(1, "x")])]),
    (
        "(cd sub; echo x > in.txt) && echo y > out.txt",
        [("/w/sub/in.txt", "create", [(1, "x")]), ("/w/out.txt", "create", [(1, "y")])],
    ),
    (
        "cd /abs/dir && echo hi > rel.txt && cd .. && echo up > up.txt && echo a > /tmp/abs.txt",
        [
            ("/abs/dir/rel.txt", "create", [(1, "hi")]),
            ("/abs/up.txt", "create", [(1, "up")]),
            ("/tmp/abs.txt", "create", [(1, "a")]),
        ],
    ),
    ("cd ~ && echo x > home.txt && echo y > /abs.txt", [("/abs.txt", "create", [(1, "y")])]),
    ("cd $DIR; echo x > lost.txt", []),
]


@pytest.mark.parametrize(("command", "expected"), FORMS, ids=[f"form{i}" for i in range(len(FORMS))])
def test_shell_forms(command: str, expected: list[tuple[str, str, Lines]]) -> None:
    assert edits(command) == expected


def test_without_cwd_paths_stay_relative_to_the_session_cwd() -> None:
    assert edits("echo hi > rel.txt", None) == [("rel.txt", "create", [(1, "hi")])]
    assert edits("cd sub && echo hi > ./a/../rel.txt", None) == [("sub/rel.txt", "create", [(1, "hi")])]


def test_edit_carries_the_call_identity() -> None:
    when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    (edit,) = shell.shell_edits(
        "cat > a.py <<'EOF'\nx = 1\ny = 2\nEOF",
        "/w",
        tool="exec_command",
        message_id="r7",
        call_id="call_1",
        timestamp=when,
    )
    assert edit == Edit(
        path="/w/a.py",
        tool="exec_command",
        message_id="r7",
        call_id="call_1",
        timestamp=when,
        kind="create",
        old_text=None,
        new_text="x = 1\ny = 2",
        added=edit.added,
    )


def test_codex_command_forms() -> None:
    assert shell.codex_command('{"cmd":"echo x > f","workdir":"/w"}') == ("echo x > f", "/w")
    assert shell.codex_command({"command": ["bash", "-lc", "echo x > f"]}) == ("echo x > f", None)
    assert shell.codex_command({"command": ["/bin/zsh", "-c", "ls"], "workdir": ""}) == ("ls", None)
    assert shell.codex_command(
        {"type": "exec", "command": ["sed", "-i", "s/^.*$/z/", "f v"], "working_directory": "/d"}
    ) == ("sed -i 's/^.*$/z/' 'f v'", "/d")
    assert shell.codex_command("not json") is None
    assert shell.codex_command('{"cmd": 3}') is None
    assert shell.codex_command([1, 2]) is None


def test_exit_code_forms() -> None:
    assert shell.exit_code("Chunk ID: 1\nProcess exited with code 2\nOutput:\nExit code: 0\n") == 2
    assert shell.exit_code("Exit code: 1\nWall time: 0.1 seconds\nOutput:\n") == 1
    assert shell.exit_code('{"output":"x","metadata":{"exit_code":0}}') == 0
    assert shell.exit_code("Process running with session ID 5\nOutput:\n") is None
    assert shell.exit_code("plain output") is None


def test_never_raises_on_random_or_deep_commands() -> None:
    alphabet = [
        *"ab >|&;<()'\"\\$`{}#*~\n\t=-2e",
        "<<EOF\n",
        "\nEOF\n",
        "cat ",
        "echo -e ",
        "sed -i ",
        "tee ",
        "printf ",
        "s/^.*$/x/",
        "$(",
        "<<-'X'\n",
        "cd d && ",
        "%s",
        "%5d",
        "\\c",
        "a\\\n",
        "$'",
    ]
    rng = random.Random(7)
    for _ in range(5000):
        command = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        shell.shell_edits(command, "/w", tool="Bash", message_id="m")
    assert edits("$(" * 5000 + "x" + ")" * 5000 + " > f") == []
    assert edits("echo " + "(" * 3000 + " > f") == []


def test_large_heredoc_is_read_in_linear_time() -> None:
    body = "x = 'a line with \"quotes\"' + str(1)\n" * 20000
    start = time.perf_counter()
    (edit,) = shell.shell_edits("cat > f <<EOF\n" + body + "EOF", "/w", tool="Bash", message_id="m")
    assert len(edit.added) == 20000
    assert time.perf_counter() - start < 5  # 0.4 s here; the char-by-char string join it replaced took 15 s


# --------------------------------------------------------------------------------------------------
# Claude Code: Bash tool_use blocks whose tool_result is not an error
# --------------------------------------------------------------------------------------------------

SID = "11111111-2222-4333-8444-555555555555"
STAMP = "2026-01-02T03:04:05.000Z"


def cc(kind: str, uuid: str, content: Any, cwd: str = "/w") -> dict[str, Any]:
    role = "assistant" if kind == "assistant" else "user"
    return {
        "type": kind,
        "uuid": uuid,
        "sessionId": SID,
        "cwd": cwd,
        "timestamp": STAMP,
        "message": {"role": role, "content": content},
    }


def bash(call_id: str, command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}


def result(call_id: str, error: bool = False) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": "Exit code 1" if error else "",
        "is_error": error,
    }


def test_claude_bash_edits(tmp_path: Path) -> None:
    write = {
        "type": "tool_use",
        "id": "w1",
        "name": "Write",
        "input": {"file_path": "/w/z.txt", "content": "z\n"},
    }
    path = write_records(
        tmp_path / f"{SID}.jsonl",
        [
            cc("user", "u1", "write the notes"),
            cc("assistant", "a1", [bash("b1", "cat > notes.md <<'EOF'\n# Notes\nEOF")]),
            cc("user", "t1", [result("b1")]),
            cc("assistant", "a2", [bash("b2", "echo nope > failed.txt && false")]),
            cc("user", "t2", [result("b2", error=True)]),
            cc("assistant", "a3", [write]),
            cc("user", "t3", [{"type": "tool_result", "tool_use_id": "w1", "content": "ok"}]),
            cc("assistant", "a4", [bash("b4", "echo moved >> later.txt")], cwd="/w/sub"),
            cc("user", "t4", [result("b4")]),
            cc(
                "assistant", "a5", [bash("b5", "printf 'cut\\n' > cut.txt")]
            ),  # the run ended before its result
        ],
    )
    session = claude_code.read(path)[0]
    assert [
        (e.tool, e.path, e.kind, e.message_id, e.call_id, [(a.line, a.text) for a in e.added])
        for e in session.edits
    ] == [
        ("Bash", "/w/notes.md", "create", "a1", "b1", [(1, "# Notes")]),
        ("Write", "/w/z.txt", "create", "a3", "w1", [(1, "z")]),
        ("Bash", "/w/sub/later.txt", "update", "a4", "b4", [(None, "moved")]),
        ("Bash", "/w/cut.txt", "create", "a5", "b5", [(1, "cut")]),
    ]
    assert session.edits[0].timestamp == datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


# --------------------------------------------------------------------------------------------------
# Codex: exec_command / shell / local_shell_call calls whose output reports no non-zero exit
# --------------------------------------------------------------------------------------------------


def cx(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": STAMP, "type": kind, "payload": payload}


def function_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return cx(
        "response_item",
        {"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": call_id},
    )


def call_output(call_id: str, text: str) -> dict[str, Any]:
    return cx("response_item", {"type": "function_call_output", "call_id": call_id, "output": text})


def test_codex_shell_edits(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Add File: p.txt\n+patched\n*** End Patch"
    path = write_records(
        tmp_path / "rollout-1.jsonl",
        [
            cx("session_meta", {"id": "sess-1", "cwd": "/w"}),
            function_call(
                "c1", "exec_command", {"cmd": "cat > a.txt <<'EOF'\nfrom exec\nEOF", "workdir": "/w/sub"}
            ),
            call_output("c1", "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\n"),
            function_call("c2", "exec_command", {"cmd": "echo bad > bad.txt; exit 3"}),
            call_output("c2", "Process exited with code 3\nOutput:\n"),
            cx(
                "response_item",
                {"type": "custom_tool_call", "name": "apply_patch", "call_id": "p1", "input": patch},
            ),
            function_call("c3", "shell", {"command": ["bash", "-lc", "printf 'x\\n' >> b.txt"]}),
            call_output("c3", '{"output":"","metadata":{"exit_code":0}}'),
            function_call("c4", "shell", {"command": ["bash", "-lc", "echo no > no.txt"]}),
            call_output("c4", '{"output":"","metadata":{"exit_code":1}}'),
            function_call("c5", "exec_command", {"cmd": "echo late > late.txt && sleep 60"}),
            call_output("c5", "Process running with session ID 9\nOutput:\n"),
            cx("event_msg", {"type": "exec_command_end", "call_id": "c5", "exit_code": 130}),
            cx(
                "response_item",
                {
                    "type": "local_shell_call",
                    "call_id": "c6",
                    "status": "completed",
                    "action": {
                        "type": "exec",
                        "command": ["bash", "-lc", "echo local > l.txt"],
                        "working_directory": "/w",
                    },
                },
            ),
            function_call("c7", "shell", {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{patch}\nEOF"]}),
            function_call("c8", "exec_command", {"cmd": "echo running > run.txt"}),
            call_output("c8", "Process running with session ID 10\nOutput:\n"),
        ],
    )
    session = codex.read(path)[0]
    assert [
        (e.tool, e.path, e.kind, e.message_id, e.call_id, [(a.line, a.text) for a in e.added])
        for e in session.edits
    ] == [
        ("exec_command", "/w/sub/a.txt", "create", "r2", "c1", [(1, "from exec")]),
        ("apply_patch", "p.txt", "create", "r6", "p1", [(1, "patched")]),
        ("shell", "b.txt", "update", "r7", "c3", [(None, "x")]),
        ("local_shell_call", "/w/l.txt", "create", "r14", "c6", [(1, "local")]),
        ("shell:apply_patch", "p.txt", "create", "r15", "c7", [(1, "patched")]),
        ("exec_command", "run.txt", "create", "r16", "c8", [(1, "running")]),
    ]


# --------------------------------------------------------------------------------------------------
# The corpus: every shell call is read, none of them writes a file through the shell
# --------------------------------------------------------------------------------------------------

CC = "transcripts/claude-code"
CX = "transcripts/codex"
SUB = "synthetic_subagent_layout/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"
# file -> (shell calls, shell edits); calls counted independently (json only): Claude `Bash` tool_use
# blocks, Codex response items named exec_command/shell/shell_command/local_shell_call/container.exec.
# Their commands read files (sed -n, nl, rg, git, go test … 2>&1 | tail): no write shows its content.
SHELL_CORPUS: dict[str, tuple[int, int]] = {
    f"{CC}/entire-cli__37995ebed6e4-2__torn-line__two-cwds.jsonl": (7, 0),
    f"{CC}/entire-cli__8cfa910f8ef9-5__two-sessionids.jsonl": (5, 0),
    f"{CC}/entire-cli__a6e4c2a0fbd1__compaction.jsonl": (4, 0),
    f"{CC}/entire-cli__c9883595c929__queue-operation.jsonl": (0, 0),
    f"{CC}/git-ai__example-claude-code.jsonl": (0, 0),
    f"{CC}/{SUB}.jsonl": (0, 0),
    f"{CC}/{SUB}/subagents/agent-a0ad4f44468bdf20d.jsonl": (0, 0),
    f"{CX}/git-sync__3456387d7a8a-14__subagent-child.jsonl": (4, 0),
    f"{CX}/git-sync__4cea5c699ef8-2__compacted.jsonl": (145, 0),
    f"{CX}/git-sync__8feaf84a600f__apply-patch.jsonl": (14, 0),
    f"{CX}/git-sync__a42e22b7f6bc__torn-line-excerpt.jsonl": (0, 0),
    f"{CX}/sanitized__schema-coverage-0.146.jsonl": (2, 0),
    f"{CC}/git-sync__ae52adb63cec__2.1.143-excerpt.jsonl": (0, 0),  # newest-format excerpts: edits, no shell
    f"{CC}/git-sync__74fd06e0aef8__2.1.143-later-copy-excerpt.jsonl": (0, 0),
    f"{CC}/git-sync__32bf11bd8793-1__rebased-excerpt.jsonl": (0, 0),  # rebased excerpt: 3 Edits, no shell
    f"{CC}/entire-cli__d51bd3632c2d__numbered-list-excerpt.jsonl": (0, 0),  # the quote excerpts: no shell
    f"{CC}/entire-cli__ada8171575ce__yes-fix-it-excerpt.jsonl": (0, 0),
    f"{CC}/entire-cli__db3f4ae57df0__typed-while-working-excerpt.jsonl": (0, 0),
    f"{CC}/git-sync__f27edbb5033d__goal-command-excerpt.jsonl": (0, 0),
    f"{CC}/entire-cli__d65f53d0e8e2__yep-do-it-excerpt.jsonl": (0, 0),
    f"{CX}/git-sync__6857343fdac4__0.130-excerpt.jsonl": (0, 0),
    f"{CC}/entire-cli__7e72a8d8fdb8__moved-file-excerpt.jsonl": (
        1,
        1,
    ),  # the mv is a move
    "linked/entire-cli/checkpoints/8e/ce5fc12e98/0/full.jsonl": (2, 0),
    "linked/entire-cli/checkpoints/ac/3f02a3c337/0/full.jsonl": (2, 0),
    "linked/entire-cli/checkpoints/ac/3f02a3c337/2/full.jsonl": (2, 0),
    "linked/git-sync/checkpoints/8f/eaf84a600f/0/full.jsonl": (14, 0),
}
SHELL_TOOLS = {shell.CLAUDE_TOOL} | shell.CODEX_TOOLS


@pytest.mark.parametrize("rel", sorted(SHELL_CORPUS))
def test_corpus_shell_calls_and_edits(rel: str) -> None:
    path = corpus(rel)
    adapter = sniff(path)
    assert adapter is not None
    (session,) = adapter.read(path)
    calls = sum(p.kind == "tool_call" and p.tool in SHELL_TOOLS for m in session.messages for p in m.parts)
    assert (calls, sum(e.tool in SHELL_TOOLS for e in session.edits)) == SHELL_CORPUS[rel]


def test_shell_corpus_table_covers_every_agent_transcript() -> None:
    root = corpus("transcripts")
    found = {
        str(p.relative_to(CORPUS)) for sub in ("claude-code", "codex") for p in (root / sub).rglob("*.jsonl")
    }
    found |= {str(p.relative_to(CORPUS)) for p in (CORPUS / "linked").glob("*/checkpoints/*/*/*/full.jsonl")}
    assert found - set(SHELL_CORPUS) == {"linked/entire-cli/checkpoints/ab/2b9748b105/0/full.jsonl"}


def test_gemini_legacy_append_shows_the_lines_it_wrote() -> None:
    # Gemini CLI 0.23 ran `echo -e "…" >> docs/color.md` through run_shell_command (`bash -c`); the
    # agent's own read_file afterwards shows the file, whose lines 19-35 are exactly that text.
    data = json.loads(
        corpus("linked/entire-cli/checkpoints/ab/2b9748b105/0/full.jsonl").read_text(encoding="utf-8")
    )
    calls = [c for m in data["messages"] for c in m.get("toolCalls") or []]
    commands = [c["args"]["command"] for c in calls if c["name"] == "run_shell_command"]
    found = [
        e
        for command in commands
        for e in shell.shell_edits(command, None, tool="run_shell_command", message_id="m")
    ]
    (edit,) = found
    assert (edit.path, edit.kind) == ("docs/color.md", "update")
    final = [c for c in calls if c["name"] == "read_file"][-1]
    text = final["result"][0]["functionResponse"]["response"]["output"]
    assert [a.text for a in edit.added] == text.splitlines()[18:35]
    assert len(edit.added) == 17 and sum(bool(a.text) for a in edit.added) == 13


# --------------------------------------------------------------------------------------------------
# Moves and copies: mv, cp and git mv take a file (and the credit of its earlier edits) elsewhere
# --------------------------------------------------------------------------------------------------


def transfers(command: str, cwd: str | None = "/w") -> list[tuple[str, str | None, str]]:
    return [
        (e.kind, e.source, e.path)
        for e in shell.shell_edits(command, cwd, tool="Bash", message_id="m1")
        if e.kind in ("move", "copy")
    ]


TRANSFERS: list[tuple[str, list[tuple[str, str | None, str]]]] = [
    # the real command (entireio/cli session f4237e82): absolute paths, one file
    (
        "mv /w/docs/checkpoint-scenarios.md /w/docs/architecture/checkpoint-scenarios.md",
        [("move", "/w/docs/checkpoint-scenarios.md", "/w/docs/architecture/checkpoint-scenarios.md")],
    ),
    # relative to the cwd and to a `cd` before; a destination that may be a folder is kept as written
    ("cd src && mv util.py helpers", [("move", "/w/src/util.py", "/w/src/helpers")]),
    ("mv a.md docs/", [("move", "/w/a.md", "/w/docs")]),
    # several sources, -t and --target-directory: a folder for certain (a trailing '/')
    ("mv a.py b.py lib", [("move", "/w/a.py", "/w/lib/"), ("move", "/w/b.py", "/w/lib/")]),
    ("mv -t lib a.py", [("move", "/w/a.py", "/w/lib/")]),
    ("mv -vt lib a.py", [("move", "/w/a.py", "/w/lib/")]),
    ("mv --target-directory=lib a.py", [("move", "/w/a.py", "/w/lib/")]),
    ("mv -T a b", [("move", "/w/a", "/w/b")]),
    ("mv -f -S .bak a b", [("move", "/w/a", "/w/b")]),
    ("mv -- -odd b", [("move", "/w/-odd", "/w/b")]),
    # cp copies; -r a folder
    ("cp -r src/pkg src/pkg2", [("copy", "/w/src/pkg", "/w/src/pkg2")]),
    ("cp a.py b.py && mv b.py c.py", [("copy", "/w/a.py", "/w/b.py"), ("move", "/w/b.py", "/w/c.py")]),
    # git mv, with git's own options and -C; a dry run moves nothing
    ("git mv -f old.py new.py", [("move", "/w/old.py", "/w/new.py")]),
    ("git -C sub mv a b", [("move", "/w/sub/a", "/w/sub/b")]),
    ("git --no-pager mv a b c", [("move", "/w/a", "/w/c/"), ("move", "/w/b", "/w/c/")]),
    ("git mv -n a b", []),
    ("git status && git add -A", []),
    # what the shell decides stays out: globs, variables, a destination after `cd` to an unknown folder
    ("mv *.md docs/", []),
    ('mv "$SRC" b', []),
    ('cd "$DIR" && mv a b', []),
    ("mv a", []),
]


@pytest.mark.parametrize(("command", "expected"), TRANSFERS, ids=[c for c, _ in TRANSFERS])
def test_moves_and_copies_are_read_from_the_command(
    command: str, expected: list[tuple[str, str | None, str]]
) -> None:
    assert transfers(command) == expected


def test_a_write_then_a_move_in_one_command_keeps_their_order() -> None:
    found = shell.shell_edits(
        "cat > a.txt <<'EOF'\nhello\nEOF\nmv a.txt b.txt", "/w", tool="Bash", message_id="m1"
    )
    assert [(e.kind, e.path, e.source, [a.text for a in e.added]) for e in found] == [
        ("create", "/w/a.txt", None, ["hello"]),
        ("move", "/w/b.txt", "/w/a.txt", []),
    ]


def test_the_real_mv_of_the_moved_file_excerpt_is_a_move_edit() -> None:
    """Claude Code's Bash call, read through the adapter: the move sits between the Write and the Edits."""
    session = claude_code.read(
        corpus("transcripts", "claude-code", "entire-cli__7e72a8d8fdb8__moved-file-excerpt.jsonl")
    )[0]
    cwd = "/Users/soph/Work/entire/devenv/cli"
    assert [(e.tool, e.kind, e.path.removeprefix(cwd + "/"), e.source) for e in session.edits] == [
        ("Write", "create", "docs/checkpoint-scenarios.md", None),
        ("Bash", "move", "docs/architecture/checkpoint-scenarios.md", f"{cwd}/docs/checkpoint-scenarios.md"),
        ("Edit", "update", "docs/architecture/checkpoint-scenarios.md", None),
        ("Edit", "update", "docs/architecture/checkpoint-scenarios.md", None),
        ("Edit", "update", "docs/architecture/checkpoint-scenarios.md", None),
    ]
    move = session.edits[1]
    assert (move.message_id, move.call_id, move.added) == (
        "5e043eab-5d00-40e4-8dce-af905c8d2632",
        "toolu_01RTqkTfH8vcxGt9s32bfeRv",
        (),
    )
