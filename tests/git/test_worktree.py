"""Reading a work tree file (git/worktree.py), and every route that reads one going through it: blame and
why, the web view's file and review pages, review, and the symbols around a line answer a link to
/dev/zero, a FIFO, a link out of the work tree and a file over the limit at once, in one sentence, and
never hang (each call has a deadline, so a regression fails instead of waiting forever). The language
server's answers are in tests/lsp/test_lsp_robustness.py."""

from __future__ import annotations

import http.client
import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TypeVar
from urllib.parse import urlsplit

import pytest
from conftest import git
from support import ODD_FILES, add_odd_files, unreadable_sentence
from support.review_repo import serving

from git_intent.core.errors import UnreadableFileError
from git_intent.git.worktree import MAX_FILE_BYTES, read_worktree_file

T = TypeVar("T")
DEADLINE = 60  # seconds: each answer below comes in well under one


def within(seconds: float, call: Callable[[], T]) -> T:
    """`call()` on a daemon thread, failing the test when it has not returned after `seconds` (a read that
    blocks on a FIFO would otherwise hang the test run)."""
    result: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(call())
        except BaseException as exc:  # noqa: BLE001  (handed to the test's thread)
            failure.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still reading after {seconds} s"
    if failure:
        raise failure[0]
    return result[0]


def refused(root: Path, path: str, limit: int = MAX_FILE_BYTES) -> str:
    with pytest.raises(UnreadableFileError) as caught:
        within(5, lambda: read_worktree_file(root, path, limit))
    return str(caught.value)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "src" / "app.py").write_text("def main():\n    return 0\n")
    (tmp_path / "secret.txt").write_text("not in the work tree\n")
    os.symlink("/dev/zero", root / "zero")
    os.symlink(tmp_path / "secret.txt", root / "away.txt")
    os.symlink("src/app.py", root / "inside.py")
    os.symlink(".git/config", root / "config")
    os.symlink("loop", root / "loop")
    os.mkfifo(root / "pipe")
    return root


def test_only_regular_files_inside_the_work_tree_are_read(tree: Path, tmp_path: Path) -> None:
    assert read_worktree_file(tree, "src/app.py") == b"def main():\n    return 0\n"
    assert read_worktree_file(tree, "inside.py") == b"def main():\n    return 0\n"  # a link that stays inside
    assert read_worktree_file(tree, tree / "src" / "app.py") == b"def main():\n    return 0\n"
    assert read_worktree_file(tree, "gone.py") is None and read_worktree_file(tree, "src") is None
    assert read_worktree_file(tree, "src/app.py/x") is None
    assert (
        refused(tree, "zero")
        == "zero leads outside the work tree (to /dev/zero); only files inside it are read."
    )
    assert refused(tree, "away.txt") == (
        f"away.txt leads outside the work tree (to {tmp_path / 'secret.txt'}); only files inside it are read."
    )
    assert refused(tree, "../secret.txt").startswith("../secret.txt leads outside the work tree")
    assert refused(tree, "config") == "config leads into .git, which is not part of the work tree."
    assert refused(tree, "pipe") == "pipe is not a regular file (a FIFO); only regular files are read."
    assert refused(tree, "loop") == "loop cannot be read (a loop of symbolic links)."


def test_a_fifo_swapped_in_after_the_check_is_refused_without_waiting_for_a_writer(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stat

    real = os.stat
    regular = real(tree / "src" / "app.py")
    monkeypatch.setattr(
        os, "stat", lambda path, *a, **k: regular if Path(path).name == "pipe" else real(path, *a, **k)
    )
    assert stat.S_ISREG(os.stat(tree / "pipe").st_mode)  # the check before opening sees a regular file
    assert refused(tree, "pipe") == "pipe is not a regular file (a FIFO); only regular files are read."


def test_at_most_the_limit_is_read(tree: Path) -> None:
    (tree / "ten.txt").write_bytes(b"0123456789")
    assert read_worktree_file(tree, "ten.txt", limit=10) == b"0123456789"
    assert (
        refused(tree, "ten.txt", limit=9)
        == "ten.txt is larger than 9 bytes, the most git intent reads of a work "
        "tree file."
    )
    with open(tree / "huge.txt", "wb") as sparse:  # no disk used; refused from its size, before any read
        sparse.truncate(MAX_FILE_BYTES + 1)
    began = time.perf_counter()
    assert (
        refused(tree, "huge.txt")
        == "huge.txt is larger than 16 MiB, the most git intent reads of a work tree file."
    )
    assert time.perf_counter() - began < 1
    with open(tree / "exact.txt", "wb") as sparse:
        sparse.truncate(MAX_FILE_BYTES)
    assert len(read_worktree_file(tree, "exact.txt") or b"") == MAX_FILE_BYTES


# ---- every route
# --------------------------------------------------------------------------------------------


@pytest.fixture
def odd(repo: Path, tmp_path: Path) -> Path:
    add_odd_files(repo, tmp_path)
    return repo


SENTENCES = {
    "zero": "zero lies outside the repository at {root}.",
    "away.txt": "away.txt lies outside the repository at {root}.",
    "swapped.py": "swapped.py is not a regular file (a FIFO); only regular files are read.",
    "pipe": "pipe is not a regular file (a FIFO); only regular files are read.",
    "big.txt": "big.txt is larger than 16 MiB, the most git intent reads of a work tree file.",
}


def answered(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "intent", *args], cwd=root, capture_output=True, text=True, timeout=DEADLINE
    )


def test_blame_and_why_answer_each_odd_file_in_one_sentence(odd: Path) -> None:
    for path, sentence in SENTENCES.items():
        for command in (["blame", f"{path}:1"], ["blame", path], ["why", f"{path}:1"]):
            proc = answered(odd, *command)
            assert (proc.returncode, proc.stderr) == (1, f"error: {sentence.format(root=odd)}\n"), command
    assert answered(odd, "blame", "app.py:1").returncode == 0


def test_review_answers_a_range_adding_odd_files(odd: Path) -> None:
    proc = answered(odd, "review", "HEAD", "--json")
    assert proc.returncode == 0, proc.stderr
    assert '"path": "zero"' in proc.stdout and '"path": "away.txt"' in proc.stdout


def test_the_web_view_answers_each_odd_file_in_one_sentence(odd: Path) -> None:
    from html import escape

    with serving(SimpleNamespace(path=odd, env=dict(os.environ))) as site:
        where = urlsplit(site.base)

        def page(path: str) -> tuple[int, str]:
            connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=DEADLINE)
            try:
                connection.request("GET", path, headers={"Cookie": site.cookie})
                response = connection.getresponse()
                return response.status, response.read().decode()
            finally:
                connection.close()

        for path in ("zero", "away.txt", "swapped.py", "big.txt"):
            status, html = page(f"/file/{path}")
            sentence = unreadable_sentence(odd, path)
            assert status == 404 and f'<p class="error">{escape(sentence, quote=False)}</p>' in html, path
            assert "kept-outside" not in html
        assert page("/file/app.py")[0] == 200
        assert page("/review?range=HEAD")[0] == 200


def test_the_symbols_around_a_line_are_read_from_regular_files_only(odd: Path) -> None:
    from git_intent.explain.blame import Explainer
    from git_intent.git.repo import Repository

    explain = Explainer(Repository(odd))
    for path in ODD_FILES:
        assert within(5, lambda: explain.symbol(path, 1)) is None, path  # noqa: B023  (called at once)
    found = explain.symbol("app.py", 2)
    assert found is not None and found.label == "def main"


def test_an_aider_history_linked_out_of_the_work_tree_is_no_chat(repo: Path, tmp_path: Path) -> None:
    """A clone's `.aider.chat.history.md` that is a link to another of this user's files is not read as a chat
    (it would be listed, indexed and shared)."""
    from git_intent.adapters import aider

    elsewhere = tmp_path / "history.md"
    elsewhere.write_text("# aider chat started at 2024-05-01 10:00:00\n\n#### PGPASSWORD=kept-outside\n")
    os.symlink(elsewhere, repo / aider.HISTORY)
    git(repo, "add", aider.HISTORY)
    git(repo, "commit", "-q", "-m", "a link")
    assert aider.history(repo) is None and list(aider.discover(repo)) == []
    proc = answered(repo, "sessions", "--json")
    assert proc.returncode == 0 and "aider" not in proc.stdout and "kept-outside" not in proc.stdout
    proc = answered(repo, "import", "--from", "aider")
    assert (proc.returncode, proc.stderr) == (
        1,
        f"error: There is no Aider chat history at {repo / aider.HISTORY} (it must be a regular file "
        f"inside the work tree).\n",
    )
    (repo / aider.HISTORY).unlink()
    (repo / aider.HISTORY).write_text(elsewhere.read_text())
    assert aider.history(repo) == repo / aider.HISTORY  # the same text as a file of the work tree is read
