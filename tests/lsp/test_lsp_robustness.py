"""`git intent lsp` never takes the editor down: each awkward case answers None or one
sentence and the server keeps serving; it exits cleanly on shutdown/exit, at the end of stdin, and when the
process that started it dies."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git
from support import ODD_FILES, add_odd_files, unreadable_sentence
from support.lsp_client import Session, run_server, uri

from git_intent.lsp.answers import NOT_INSTALLED
from git_intent.lsp.markdown import sentence_markdown


def test_awkward_files_answer_none_or_one_sentence_and_the_server_keeps_serving(
    repo: Path, tmp_path: Path
) -> None:
    root = repo.resolve()
    (root / "app.py").write_text("def main():\n    return 0\n", encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)))
    git(root, "add", "app.py", "logo.png")
    git(root, "commit", "-q", "-m", "no hook saw this")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("not in any repository\n", encoding="utf-8")

    async def conversation(server: Session) -> None:
        assert await server.hover(uri(outside / "notes.txt"), 1) is None
        assert await server.lenses(uri(outside / "notes.txt")) == []
        assert await server.hover(uri(root / "app.py"), 1) == sentence_markdown(NOT_INSTALLED)
        assert await server.hover(uri(root / "gone.py"), 1) is None
        assert await server.hover("untitled:Untitled-1", 1) is None
        # The same server, once refs/notes/intent moves (here: a damaged note appears): answers are
        # recomputed.
        git(root, "notes", "--ref", "refs/notes/intent", "add", "-f", "-m", "garbage", sha)
        damaged = await server.hover(uri(root / "app.py"), 1)
        assert damaged is not None and damaged.startswith(
            "**Unreadable note**: the record of this line's commit cannot be read.\n\n```text\n"
        )
        assert f"\nThe note on {sha[:12]} in refs/notes/intent is not a git-intent record" in damaged
        assert (
            damaged.count("\n") == 9
        )  # the head, then blame's own text for the line and the note's sentence
        assert await server.hover(uri(root / "app.py"), 3) is None  # past the end
        assert await server.hover(uri(root / "logo.png"), 1) == sentence_markdown(
            "logo.png is a binary file; blame explains text lines only."
        )
        assert await server.lenses(uri(root / "logo.png")) == []
        # HEAD moves: a new commit of the file answers with that commit.
        (root / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
        git(root, "commit", "-q", "-am", "a person changed it")
        head = git(root, "rev-parse", "HEAD").strip()
        assert f"commit    {head[:12]}" in (await server.hover(uri(root / "app.py"), 2) or "")
        assert server.logged == []  # nothing failed unexpectedly

    sha = git(root, "rev-parse", "HEAD").strip()
    assert run_server(root, conversation) == 0


def test_odd_files_answer_one_sentence_at_once(repo: Path, tmp_path: Path) -> None:
    """A link to /dev/zero or out of the work tree, a FIFO (tracked, or not) and a file over the size read
    whole: the hover says why in one sentence, without reading (a FIFO would block the server's thread for
    good)."""
    add_odd_files(repo, tmp_path)
    root = repo.resolve()

    async def conversation(server: Session) -> None:
        for path in ODD_FILES:
            assert await server.hover(uri(root / path), 1) == sentence_markdown(
                unreadable_sentence(root, path)
            ), path
            assert await server.lenses(uri(root / path)) == []
        assert server.logged == []  # nothing failed unexpectedly

    assert run_server(root, conversation, timeout=60) == 0


def test_lsp_without_the_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from click.testing import CliRunner

    from git_intent.cli import cli
    from git_intent.core.errors import IntentError

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *rest: None if name == "pygls" else real(name, *rest)
    )
    result = CliRunner().invoke(cli, ["lsp"])
    assert isinstance(result.exception, IntentError)
    assert (str(result.exception), result.exception.hint) == (
        "The language server needs the lsp extra, which is not installed.",
        "pip install 'git-intent[lsp]'",
    )


def test_the_server_exits_when_stdin_closes(repo: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "git_intent", "lsp"],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin is not None
    server.stdin.close()
    assert server.wait(timeout=30) == 0


def test_the_server_exits_when_its_parent_dies(repo: Path) -> None:
    # sh starts the server in the background (its stdin still open: our pipe) and exits: the server is
    # re-parented and must notice within PARENT_POLL seconds.
    parent = subprocess.Popen(
        ["sh", "-c", f'"{sys.executable}" -m git_intent lsp & echo $!'],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    assert parent.wait(timeout=10) == 0
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.2)
    alive = _alive(pid)
    if alive:
        os.kill(pid, 9)
    assert not alive, "the server outlived its parent"


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its new parent to reap it has exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")
