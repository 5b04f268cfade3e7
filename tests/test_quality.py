"""The code stays typed, lint-clean and formatted: mypy --strict over the package, ruff's checks and its
formatter (110 columns) over the whole tree, the layers of docs/design.md hold (import-linter's contracts
in .importlinter), and no comment or doc points where a reader of the repository cannot follow."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


TREE = ["git_intent", "tests", "bench", "docs", "scripts"]


@pytest.mark.parametrize(
    "tool",
    [
        ["mypy", "git_intent"],
        ["ruff", "check", *TREE],
        ["ruff", "format", "--check", *TREE],
        ["lint-imports"],
    ],
    ids=["mypy", "ruff-check", "ruff-format", "lint-imports"],
)
def test_static_checks(tool: list[str]) -> None:
    exe = shutil.which(tool[0], path=str(Path(sys.executable).parent))
    assert exe is not None, f"{tool[0]} is not installed (pip install -e '.[test]')"
    proc = subprocess.run([exe, *tool[1:]], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# Files that move a file (a queued job, a damaged index set aside, a user's hook kept beside ours) and write
# none.
MOVES_ONLY = {"git_intent/capture/queue.py", "git_intent/index/store.py", "git_intent/capture/install.py"}
WRITES_STATE = {"git_intent/core/state_files.py"}


def test_every_whole_file_write_goes_through_state_files() -> None:
    """A temporary file renamed over a state or config file is written in one place
    (`state_files.replace_file`), and a lock held in one (`state_files.locked`): a fix to either (a link, a
    mode, a stray temporary) is made once."""
    import ast

    found: list[str] = []
    for path in sorted((ROOT / "git_intent").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name in WRITES_STATE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
            call = f"{owner}.{node.func.attr}"
            if call in ("tempfile.mkstemp", "fcntl.flock") or (
                call in ("os.replace", "os.rename") and name not in MOVES_ONLY
            ):
                found.append(f"{name}:{node.lineno} {call}")
    assert found == [], "write state through state_files.replace_file / state_files.locked:\n" + "\n".join(
        found
    )


def test_every_work_tree_file_is_read_through_worktree() -> None:
    """A file of the work tree (`repo.root / path`) is read in one place,
    `git.worktree.read_worktree_file`, which refuses FIFOs, devices and links out of the tree and bounds
    the read: a direct read of a committed link to /dev/zero read 2.5 GB in 2 s."""
    import ast
    import re

    found: list[str] = []
    for path in sorted((ROOT / "git_intent").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name == "git_intent/git/worktree.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("read_bytes", "read_text", "open")
                and re.search(r"\broot\b", ast.unparse(node.func.value))
            ):
                found.append(f"{name}:{node.lineno} {ast.unparse(node.func)}")
    assert found == [], "read work tree files through git.worktree.read_worktree_file:\n" + "\n".join(found)


# Where the words a reader sees live: the package, tests, benches, docs, scripts and the README.
WORDS = [
    "git_intent",
    "tests",
    "bench",
    "docs",
    "scripts",
    ".ci",
    "README.md",
    "hooks",
    "ci",
    "action.yml",
    "pyproject.toml",
]
# Transcripts and rule files other people wrote (the demo session, gitleaks' rules) are data, not our words.
OTHERS_WORDS = ("git_intent/data/",)


def test_no_word_points_where_a_reader_cannot_follow() -> None:
    """Comments, docstrings, docs and help say what and why: no number of a tracker the repository does not
    carry, and no file outside the checkout (a design or style note kept beside it, a shared folder). The
    patterns are built from pieces so this file does not match itself."""
    import re

    word = "iss" + "ue"
    tracker = re.compile(rf"\b{word}s?[\s#-]*\d+", re.IGNORECASE)
    outside = re.compile(
        "|".join(re.escape(name) for name in ("DESIGN" + ".md", "STYLE" + ".md", ".." + "/shared"))
    )
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *WORDS],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    found: list[str] = []
    for name in sorted(set(listed.split("\0")) - {""}):
        path = ROOT / name
        if name.startswith(OTHERS_WORDS) or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # images and other binary files
        for match in (*tracker.finditer(text), *outside.finditer(text)):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{name}:{line} {match.group(0)!r}")
    assert found == [], "say what and why instead:\n" + "\n".join(found)
