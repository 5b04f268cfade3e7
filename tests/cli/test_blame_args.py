"""`git intent blame [REV] [-L START,END] [--] FILE` as git blame takes them, and git's pager on a terminal.

The history: the demo (a real Claude Code session's edit of chunking.go, recorded), then a person rewrites
line 85, commits tool.py with a `Co-Authored-By: Claude` trailer and no transcript, and deletes it again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import git, run_cli
from support import commit_file, run_in_terminal

from git_intent.core.errors import BadLocationError
from git_intent.demo import run_demo
from git_intent.explain.blame import parse_line_range

FILE = "cmd/entire/cli/agent/chunking.go"
SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"
PAGER = {"GIT_PAGER": "sed 's/^/PAGED /'"}


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("blame-args") / "demo"
    run_demo(folder)
    lines = (folder / FILE).read_text(encoding="utf-8").splitlines(keepends=True)
    lines[84] = "\t\t// a person's words now\n"
    (folder / FILE).write_text("".join(lines), encoding="utf-8")
    git(folder, "commit", "-q", "-am", "a person rewrites line 85")
    commit_file(
        folder,
        "tool.py",
        "def tool():\n    return 42\n",
        "add the tool\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n",
    )
    git(folder, "rm", "-q", "tool.py")
    git(folder, "commit", "-q", "-m", "drop the tool")
    return folder


def blame(history: Path, *args: str) -> dict[str, Any]:
    proc = run_cli("blame", "--json", *args, cwd=history)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def test_a_revision_answers_as_the_file_was_there(history: Path) -> None:
    now = blame(history, f"{FILE}:85")["lines"][0]
    assert (now["status"], now["content"]) == ("unrecorded", "\t\t// a person's words now")
    then = blame(history, "HEAD~3", "--", f"{FILE}:85")["lines"][0]
    assert then["status"] == "agent" and then["attribution"]["session_id"] == SESSION
    assert then["content"].startswith("\t\t// Check if a single line exceeds maxSize")
    assert blame(history, "HEAD~3", f"{FILE}:85") == blame(history, "HEAD~3", "--", f"{FILE}:85")
    # A file no longer in the work tree, answered at a commit that has it: its trailer's credit.
    gone = blame(history, "HEAD~1", "--", "tool.py")
    assert [(line["line"], line["attribution"]["method"]) for line in gone["lines"]] == [
        (1, "trailer"),
        (2, "trailer"),
    ]
    text = run_cli("blame", "HEAD~1", "--", "tool.py", cwd=history)
    sha = git(history, "rev-parse", "HEAD~1").strip()
    assert text.returncode == 0 and text.stdout.splitlines()[-1] == (
        f"claude-code (trailer)           lines 1-2  named by a trailer of commit {sha[:12]}; no "
        "transcript here, so no session or message to show"
    )


def test_at_head_a_clean_work_tree_answers_alike(history: Path) -> None:
    for location in (f"{FILE}:85", f"{FILE}:80-90", FILE):
        plain = run_cli("blame", location, cwd=history)
        pinned = run_cli("blame", "HEAD", "--", location, cwd=history)
        assert plain.returncode == pinned.returncode == 0
        assert plain.stdout == pinned.stdout


def test_line_ranges_as_git_blame_takes_them(history: Path) -> None:
    assert blame(history, "-L", "84,+3", FILE) == blame(history, f"{FILE}:84-86")
    assert blame(history, "-L", "86,-3", FILE) == blame(history, f"{FILE}:84-86")
    assert [line["line"] for line in blame(history, "-L", "1,2", "-L", "85,85", FILE)["lines"]] == [1, 2, 85]
    at = blame(history, "HEAD~3", "-L", "85,85", "--", FILE)["lines"]
    assert [(line["line"], line["status"]) for line in at] == [(85, "agent")]
    whole = run_cli("blame", "-L", "180", FILE, cwd=history)  # START alone: to the end, as git reads it
    assert whole.returncode == 0 and whole.stdout.startswith(f"{FILE}:180-188")


@pytest.mark.parametrize(
    ("spec", "count", "expected"),
    [
        ("5,10", 20, (5, 10)),
        ("5,+3", 20, (5, 7)),
        ("10,-3", 20, (8, 10)),
        ("5", 20, (5, 20)),
        ("5,", 20, (5, 20)),
        (",4", 20, (1, 4)),
        ("10,5", 20, (5, 10)),
        ("20,20", 20, (20, 20)),
        ("2,-5", 20, (1, 2)),
    ],
)
def test_parse_line_range(spec: str, count: int, expected: tuple[int, int]) -> None:
    assert parse_line_range(spec, count) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("/func/", "-L '/func/' is not a range of line numbers."),
        (":main", "-L ':main' is not a range of line numbers."),
        ("", "-L '' is not a range of line numbers."),
        ("5,+0", "-L '5,+0' counts no line."),
        ("0,3", "-L '0,3' starts before line 1; lines are numbered from 1."),
        ("1,30", "the file has 20 lines; line 30 is past its end."),
    ],
)
def test_parse_line_range_refuses(spec: str, message: str) -> None:
    with pytest.raises(BadLocationError) as raised:
        parse_line_range(spec, 20)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("args", "code", "stderr"),
    [
        (["a", "b", "c"], 2, "Error: Give at most a revision and a location: [REV] [--] LOCATION."),
        (["nosuchrev", "--", FILE], 1, "error: 'nosuchrev' does not name a commit in this repository."),
        (["HEAD", "--", "tool.py"], 1, "error: tool.py is not a file at commit {head}."),
        (["-L", "/ChunkJSONL/", FILE], 1, "error: -L '/ChunkJSONL/' is not a range of line numbers."),
        (["-L", "900", FILE], 1, f"error: {FILE} has 188 lines; line 900 is past its end."),
    ],
)
def test_bad_arguments_say_so_in_one_sentence(history: Path, args: list[str], code: int, stderr: str) -> None:
    proc = run_cli("blame", *args, cwd=history)
    head = git(history, "rev-parse", "HEAD").strip()[:12]
    assert proc.returncode == code and proc.stdout == ""
    assert stderr.format(head=head) in proc.stderr.splitlines()


def paged_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()]


def test_a_terminal_gets_gits_pager(history: Path) -> None:
    code, shown = run_in_terminal(["git", "intent", "blame", f"{FILE}:85"], history, PAGER)
    assert code == 0 and len(paged_lines(shown)) > 3
    assert all(
        line.startswith("PAGED ") and not line.startswith("PAGED PAGED") for line in paged_lines(shown)
    )
    assert "PAGED   status    unrecorded: " in shown
    # git already paging (`git -p`): one pager, not two. The resident process's route: paged all the same.
    for argv, env in (
        (["git", "-p", "intent", "blame", f"{FILE}:85"], PAGER),
        (["git", "intent", "blame", f"{FILE}:85"], {**PAGER, "GIT_INTENT_RESIDENT": "1"}),
    ):
        code, again = run_in_terminal(argv, history, env)
        assert code == 0 and again == shown, argv


@pytest.mark.parametrize(
    "argv",
    [
        ["git", "intent", "blame", "--no-pager", f"{FILE}:85"],
        ["git", "--no-pager", "intent", "blame", f"{FILE}:85"],
        ["git", "-c", "pager.blame=false", "intent", "blame", f"{FILE}:85"],
        ["git", "-c", "core.pager=cat", "intent", "blame", f"{FILE}:85"],
    ],
    ids=["--no-pager", "git --no-pager", "pager.blame=false", "core.pager=cat"],
)
def test_no_pager_when_asked(history: Path, argv: list[str]) -> None:
    env = {} if "core.pager=cat" in argv else PAGER
    code, shown = run_in_terminal(argv, history, env)
    assert code == 0 and "PAGED" not in shown
    assert shown.splitlines()[0] == f"{FILE}:85  in func ChunkJSONL"


def test_pager_blame_names_its_own_command_and_a_pipe_is_never_paged(history: Path) -> None:
    code, shown = run_in_terminal(
        ["git", "-c", "pager.blame=sed 's/^/CFG /'", "intent", "blame", f"{FILE}:85"], history, PAGER
    )
    assert code == 0 and all(line.startswith("CFG ") for line in paged_lines(shown))
    piped = run_cli("blame", f"{FILE}:85", cwd=history, env=PAGER)
    assert piped.returncode == 0 and "PAGED" not in piped.stdout


def test_a_reader_who_quits_the_pager_early_is_not_an_error(history: Path) -> None:
    code, shown = run_in_terminal(["git", "intent", "blame", FILE], history, {"GIT_PAGER": "head -1"})
    assert code == 0 and shown == f"{FILE} · 188 lines · 7 ranges · 181 person, 6 claude-code, 1 unrecorded\n"
