"""File names git quotes: a `"`, a tab or a backslash next to characters above U+00FF. git
writes such a name C-quoted with octal escapes of its UTF-8 bytes; no command may crash on it, and the
post-commit hook must still record the commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import claude_session, git, install, note_text, run_cli
from support import commit_synced as commit

from git_intent.git.repo import _unquote, parse_added_hunks

NAMES = ['a"€.py', "tab\there€.py", "back\\slash☃.py", "plain €.py"]


@pytest.mark.parametrize(
    ("quoted", "path"),
    [
        ('"a\\"\\342\\202\\254.py"', 'a"€.py'),  # core.quotePath=true: octal escapes of UTF-8 bytes
        ('"a\\"€.py"', 'a"€.py'),  # core.quotePath=false (PINNED): the character itself, the quote escaped
        ('"tab\\there.py"', "tab\there.py"),
        ('"nl\\nx\\\\y\\a\\b\\f\\r\\v.py"', "nl\nx\\y\a\b\f\r\v.py"),
        ('"\\303\\251t\\303\\251"', "été"),
        ("unquoted €.py", "unquoted €.py"),
    ],
)
def test_unquote_decodes_c_quoted_paths_as_utf8_octal_escapes(quoted: str, path: str) -> None:
    assert _unquote(quoted) == path


def test_diff_headers_with_quoted_names_give_their_paths() -> None:
    diff = (
        'diff --git "a/a\\"\\342\\202\\254.py" "b/a\\"\\342\\202\\254.py"\n+++ "b/a\\"€.py"\n@@ -0,0 +1 '
        "@@\n+x\n"
    )
    assert [(h.path, h.lines) for h in parse_added_hunks(diff)] == [('a"€.py', ("x",))]


@pytest.mark.slow
def test_blame_review_stats_and_the_hook_survive_quoted_file_names(repo: Path) -> None:
    root = repo.resolve()
    install(root)
    base = git(root, "rev-parse", "HEAD").strip()
    agent = claude_session(root)
    agent.prompt("Write the oddly named files")
    ids = [agent.write(f"Writing {name}.", root / name, f"value_{n} = {n}\n") for n, name in enumerate(NAMES)]
    agent.save()
    sha = commit(root, "odd names")
    assert note_text(root, sha) is not None  # the hook's record job did not fail
    for n, name in enumerate(NAMES):
        proc = run_cli("blame", f"{name}:1", "--json", cwd=root)
        assert proc.returncode == 0, (name, proc.stderr)
        line = json.loads(proc.stdout)["lines"][0]
        assert (line["status"], line["attribution"]["message_id"]) == ("agent", ids[n])
        assert run_cli("blame", name, cwd=root).returncode == 0
    for args in (
        ("review", f"{base}..{sha}"),
        ("review", f"{base}..{sha}", "--format", "markdown"),
        ("review", f"{base}..{sha}", "--json"),
        ("stats", f"{base}..{sha}", "--json"),
        ("stats",),
    ):
        proc = run_cli(*args, cwd=root)
        assert proc.returncode == 0, (args, proc.stderr)
    reviewed = json.loads(run_cli("review", f"{base}..{sha}", "--json", cwd=root).stdout)
    assert sorted(f["path"] for f in reviewed["files"]) == sorted(NAMES)
    counted = json.loads(run_cli("stats", f"{base}..{sha}", "--json", cwd=root).stdout)
    assert counted["by_status"]["agent"] == len(NAMES), counted
