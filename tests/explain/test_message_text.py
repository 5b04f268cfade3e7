"""One time per message on every surface, and an edit read as a diff: `blame` quoted the edit at its tool
result's time (21:43) where `show` printed its message's (21:41), and `show` printed the edit as one line of
escaped JSON arguments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

from git_intent.core.values import AddedLine, Edit
from git_intent.demo import run_demo
from git_intent.explain.edit_diff import call_arguments, edit_diff

FILE = "cmd/entire/cli/agent/chunking.go"
SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"
EDIT = "b2f3c599-0740-40d5-9f43-d4f2332d829c"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("message-text") / "demo"
    run_demo(folder)
    return folder


def test_blame_and_show_give_one_message_one_time(demo: Path) -> None:
    proc = run_cli("blame", f"{FILE}:85", "--json", cwd=demo)
    assert proc.returncode == 0, proc.stderr
    evidence = json.loads(proc.stdout)["lines"][0]["evidence"]
    assert [e["kind"] for e in evidence][-2:] == ["edit", "follow-up"]
    for item in evidence:
        shown = run_cli("show", f"{item['session_id']}:{item['message_id']}", "--json", cwd=demo)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["timestamp"] == item["timestamp"], item["kind"]
    # The edit's tool result came back at 19:58; its message, and so its quote, is of 19:57.
    text = run_cli("blame", f"{FILE}:85", cwd=demo).stdout
    assert "  edit      2026-01-22 19:57 UTC [b2f3c599]" in text.splitlines()
    show = run_cli("show", f"{SESSION}:b2f3c599", cwd=demo).stdout
    assert show.splitlines()[1] == f"── {EDIT} · assistant · 2026-01-22 19:57 UTC"


def test_show_prints_an_edit_as_a_diff(demo: Path) -> None:
    show = run_cli("show", f"{SESSION}:b2f3c599", cwd=demo)
    assert show.returncode == 0, show.stderr
    lines = show.stdout.splitlines()
    path = "/Users/soph/Work/entire/devenv/cli/cmd/entire/cli/agent/chunking.go"
    assert lines[2:7] == [
        "[tool call Edit toolu_01MSPeZ22gzaSFhJkQpCqhNp]",
        f"--- {path}",
        f"+++ {path}",
        "@@ -78,9 +78,15 @@",
        " \tvar chunks [][]byte",
    ]
    assert "-\tfor _, line := range lines {" in lines and "+\tfor i, line := range lines {" in lines
    assert "+\t\tif len(lineWithNewline) > maxSize {" in lines
    assert "old_string" not in show.stdout and "replace_all" not in show.stdout
    # The whole session prints each edit the same way.
    session = run_cli("show", SESSION, cwd=demo).stdout
    assert "\n".join(lines[2:]) in session


def test_edit_diff_forms() -> None:
    snippet = Edit(
        path="src/a.py", tool="Edit", message_id="m", old_text="x = 1\ny = 2", new_text="x = 1\ny = 3"
    )
    assert edit_diff(snippet) == ["--- a/src/a.py", "+++ b/src/a.py", "@@ … @@", " x = 1", "-y = 2", "+y = 3"]
    whole = Edit(
        path="/w/a.py",
        tool="Edit",
        message_id="m",
        old_text="y = 2",
        new_text="y = 3",
        before="a\nb\ny = 2\n",
        after="a\nb\ny = 3\n",
    )
    assert edit_diff(whole, context=1) == [
        "--- /w/a.py",
        "+++ /w/a.py",
        "@@ -2,2 +2,2 @@",
        " b",
        "-y = 2",
        "+y = 3",
    ]
    created = Edit(path="new.py", tool="Write", message_id="m", kind="create", new_text="one\ntwo\n")
    assert edit_diff(created) == ["--- /dev/null", "+++ b/new.py", "@@ -0,0 +1,2 @@", "+one", "+two"]
    deleted = Edit(path="old.py", tool="apply_patch", message_id="m", kind="delete", old_text="gone")
    assert edit_diff(deleted) == ["--- a/old.py", "+++ /dev/null", "@@ -1 +0,0 @@", "-gone"]
    added_only = Edit(path="s.py", tool="Bash", message_id="m", added=(AddedLine(text="echo"),))
    assert edit_diff(added_only) == ["--- a/s.py", "+++ b/s.py", "@@ … @@", "+echo"]
    same = Edit(path="s.py", tool="Edit", message_id="m", old_text="a", new_text="a")
    assert edit_diff(same) == ["--- a/s.py", "+++ b/s.py", "(no change to the text)"]


def test_call_arguments_keep_what_the_diff_does_not_show() -> None:
    edit = Edit(path="a.py", tool="Edit", message_id="m", old_text="a", new_text="b")
    assert (
        call_arguments(
            '{"file_path": "a.py", "old_string": "a", "new_string": "b", "replace_all": false}', [edit]
        )
        is None
    )
    assert call_arguments('{"file_path": "a.py", "replace_all": true}', [edit]) == '{"replace_all": true}'
    shell = '{"command": "cat > a.py <<EOF\\nb\\nEOF"}'
    assert call_arguments(shell, [edit]) == shell
    assert call_arguments("*** Begin Patch", [edit]) is None  # a raw patch: its diff is all of it
    assert call_arguments('{"command": "ls"}', []) == '{"command": "ls"}'
