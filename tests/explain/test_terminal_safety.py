"""Nothing read from a transcript or a note can drive the terminal: escape sequences
(an OSC 52 clipboard write), C1 controls and bidi overrides are escaped in every text output and in
hook.log, and written as \\u escapes in JSON, which keeps the value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import claude_session, commit_synced, git, install, run_cli

from git_intent.core.terminal import json_safe, terminal_safe

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # sets the clipboard to "rm -rf ~"
C1 = "\x9b2J"  # CSI as one C1 character: clears the screen on terminals that honour C1
BIDI = "\u202eexe.txt\u202c"  # right-to-left override
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u2066")


def clean(text: str) -> bool:
    return not any(c in text for c in RAW)


def test_terminal_safe_escapes_c0_c1_bidi_and_keeps_tab_and_newline() -> None:
    assert terminal_safe(f"a{OSC52}\tb\n{C1}{BIDI}\u2066x\u2069") == (
        "a\\x1b]52;c;cm0gLXJmIH4=\\x07\tb\n\\x9b2J\\u202eexe.txt\\u202c\\u2066x\\u2069"
    )
    assert terminal_safe("é ü 中文 🙂") == "é ü 中文 🙂"


def test_json_safe_keeps_the_value() -> None:
    value = {"id": f"s{OSC52}{C1}{BIDI}\x7f"}
    document = json_safe(json.dumps(value, ensure_ascii=False))
    assert clean(document) and "\x7f" not in document
    assert json.loads(document) == value


@pytest.fixture
def hostile(repo: Path) -> Path:
    """A repository whose one agent session has an OSC 52 sequence in its id and C1 and bidi characters in
    its messages, recorded through the installed hook."""
    install(repo)
    session = claude_session(repo)
    session.session_id = f"evil{OSC52}"
    session.prompt(f"please add the greeting {C1} {BIDI}")
    session.write(f"Adding it {BIDI}{C1}.", repo / "hello.py", "print('hello')\nprint('world')\n")
    session.save()
    commit_synced(repo, "hello")
    return repo


def test_every_text_output_and_the_hook_log_are_escaped(hostile: Path) -> None:
    repo = hostile
    session_id = f"evil{OSC52}"
    blame = json.loads(run_cli("blame", "hello.py:1", "--json", cwd=repo).stdout)
    assert blame["lines"][0]["attribution"]["session_id"] == session_id  # JSON keeps the value
    commands = [
        ("blame", "hello.py:1"),
        ("blame", "hello.py"),
        ("record", "HEAD"),
        ("status",),
        ("log",),
        ("sessions",),
        ("show", session_id),
        ("context", session_id),
        ("search", "greeting"),
        ("backfill",),
        ("why", "hello.py:1", "--offline"),
        ("review", "HEAD~1..HEAD"),
    ]
    for command in commands:
        proc = run_cli(*command, cwd=repo)
        assert proc.returncode == 0, (command, proc.stderr)
        assert clean(proc.stdout) and clean(proc.stderr), (command, proc.stdout, proc.stderr)
    assert "evil\\x1b]52;c;cm0gLXJmIH4=\\x07" in run_cli("blame", "hello.py:1", cwd=repo).stdout
    log = git(repo, "rev-parse", "--git-common-dir").strip()
    hook_log = (repo / log / "intent" / "hook.log").read_text(encoding="utf-8")
    assert "evil" in hook_log and clean(hook_log)


def test_json_outputs_escape_but_keep_values(hostile: Path) -> None:
    for command in (("blame", "hello.py:1"), ("show", f"evil{OSC52}"), ("search", "greeting"), ("sessions",)):
        proc = run_cli(*command, "--json", cwd=hostile)
        assert proc.returncode == 0, (command, proc.stderr)
        assert clean(proc.stdout), command
        json.loads(proc.stdout)
