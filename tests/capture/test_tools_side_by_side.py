"""git-intent installed before and after other tools that install git hooks: git-ai, Entire, husky 9 and the
pre-commit framework. In both orders a real `git commit` runs every tool's hooks (each appends to a log) and
git-intent records the commit; `git intent uninstall` leaves every other tool's hooks as they were and no
hook of ours behind.

pre-commit is the real package (a `repo: local` hook: offline). The others are faithful stand-ins of their
installers, ported line by line, with a `git-ai` / `entire` command that only logs:
- git-ai's installer (`setup_git_hooks`, src/git/refs.rs of git-ai-project/git-ai at a4e695b) writes
  `.git/hooks/pre-commit` and `post-commit` calling `git-ai`, or, when one exists, appends
  `\\ngit-ai <hook>\\n` to it. (Its 2026 hooks mode, core.hooksPath at `.git/ai/hooks`, is retired: git-ai
  now installs no git hook.)
- Entire's `entire enable` (cmd/entire/cli/strategy/hooks.go of entireio/cli, InstallGitHook) writes four
  hooks in `<git dir>/hooks`, keeps an earlier one as `<hook>.pre-entire` and chains it after its own.
- husky 9.1.7 (`husky` in a `prepare` script: index.js) sets core.hooksPath to `.husky/_`, writes there
  `h` (the package's `husky` file) and a two-line shim per hook that runs `.husky/<hook>`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support import SYNC, git, note_text, run_cli

from git_intent.capture.install import MARKER

LOG = "tools.log"

# --- git-ai (first installer) -----------------------------------------------------------------------------

GITAI_PRE = "#!/bin/sh\n# git-ai pre-commit hook\ngit-ai pre-commit\n"
GITAI_POST = "#!/bin/sh\n# git-ai post-commit hook\ngit-ai post-commit\n"


def install_gitai(repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    pre, post = hooks / "pre-commit", hooks / "post-commit"
    if not pre.exists() and not post.exists():
        pre.write_text(GITAI_PRE)
        post.write_text(GITAI_POST)
    else:  # the user answered `a`: "append these lines to the end of your hooks"
        for path, content, line in (
            (pre, GITAI_PRE, "git-ai pre-commit"),
            (post, GITAI_POST, "git-ai post-commit"),
        ):
            if path.exists():
                with path.open("a") as out:
                    out.write(f"\n{line}\n")
            else:
                path.write_text(content)
    pre.chmod(0o755)
    post.chmod(0o755)


# --- Entire -----------------------------------------------------------------------------------------------

ENTIRE_MARK = "Entire CLI hooks"
ENTIRE_HOOKS = {
    "prepare-commit-msg": (
        f'#!/bin/sh\n# {ENTIRE_MARK}\nentire hooks git prepare-commit-msg "$1" "$2" 2>/dev/null || true\n'
    ),
    "commit-msg": (
        f"#!/bin/sh\n# {ENTIRE_MARK}\n"
        "# Commit-msg hook: strip trailer if no user content (allows aborting empty commits)\n"
        'entire hooks git commit-msg "$1" || exit 1\n'
    ),
    "post-commit": (
        f"#!/bin/sh\n# {ENTIRE_MARK}\n"
        "# Post-commit hook: condense session data if commit has Entire-Checkpoint trailer\n"
        "entire hooks git post-commit 2>/dev/null || true\n"
    ),
    "pre-push": (
        f"#!/bin/sh\n# {ENTIRE_MARK}\n"
        "# Pre-push hook: push session logs alongside user's push\n"
        '# $1 is the remote name (e.g., "origin")\n'
        'entire hooks git pre-push "$1" || true\n'
    ),
}


def install_entire(repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    for name, content in ENTIRE_HOOKS.items():
        path, backup = hooks / name, hooks / f"{name}.pre-entire"
        backed_up = backup.exists()
        if path.exists() and ENTIRE_MARK not in path.read_text():
            if not backed_up:
                path.rename(backup)
            backed_up = True
        if backed_up:
            content += (
                "# Chain: run pre-existing hook\n"
                '_entire_hook_dir="$(dirname "$0")"\n'
                f'if [ -x "$_entire_hook_dir/{name}.pre-entire" ]; then\n'
                f'    "$_entire_hook_dir/{name}.pre-entire" "$@"\n'
                "fi\n"
            )
        path.write_text(content)
        path.chmod(0o755)


# --- husky 9.1.7 ------------------------------------------------------------------------------------------

HUSKY_H = """#!/usr/bin/env sh
[ "$HUSKY" = "2" ] && set -x
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n

[ ! -f "$s" ] && exit 0

if [ -f "$HOME/.huskyrc" ]; then
\techo "husky - '~/.huskyrc' is DEPRECATED, please move your code to ~/.config/husky/init.sh"
fi
i="${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"
[ -f "$i" ] && . "$i"

[ "${HUSKY-}" = "0" ] && exit 0

export PATH="node_modules/.bin:$PATH"
sh -e "$s" "$@"
c=$?

[ $c != 0 ] && echo "husky - $n script failed (code $c)"
[ $c = 127 ] && echo "husky - command not found in PATH=$PATH"
exit $c
"""
HUSKY_NAMES = (
    "pre-commit pre-merge-commit prepare-commit-msg commit-msg post-commit applypatch-msg pre-applypatch "
    "post-applypatch pre-rebase post-rewrite post-checkout post-merge pre-push pre-auto-gc"
).split()
HUSKY_MSG = (
    'echo "husky - DEPRECATED\n\nPlease remove the following two lines from $0:\n\n#!/usr/bin/env sh\n'
    '. \\"\\$(dirname -- \\"\\$0\\")/_/husky.sh\\"\n\nThey WILL FAIL in v10.0.0\n"'
)
# The team's scripts, tracked (as `npx husky init` starts them, with a command that logs).
HUSKY_SCRIPTS = {
    "pre-commit": 'echo "husky pre-commit" >> "$TOOLS_LOG"\n',
    "post-commit": 'echo "husky post-commit" >> "$TOOLS_LOG"',  # no final newline
}


def husky_scripts(repo: Path) -> None:
    """The tracked `.husky/` scripts a clone has before `npm install` runs husky."""
    (repo / ".husky").mkdir()
    for name, text in HUSKY_SCRIPTS.items():
        (repo / ".husky" / name).write_text(text)
    git(repo, "add", ".husky")
    git(repo, "commit", "-q", "-m", "husky scripts")


def install_husky(repo: Path) -> None:
    folder = repo / ".husky" / "_"
    git(repo, "config", "core.hooksPath", ".husky/_")
    (folder / "husky.sh").unlink(missing_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".gitignore").write_text("*")
    (folder / "h").write_text(HUSKY_H)
    (folder / "h").chmod(0o644)
    for name in HUSKY_NAMES:
        (folder / name).write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"')
        (folder / name).chmod(0o755)
    (folder / "husky.sh").write_text(HUSKY_MSG)


# --- pre-commit (the real package) ------------------------------------------------------------------------

PRE_COMMIT_CONFIG = """default_install_hook_types: [pre-commit, post-commit]
repos:
-   repo: local
    hooks:
    -   id: log-pre-commit
        name: log pre-commit
        entry: sh -c 'echo "pre-commit pre-commit" >> "$TOOLS_LOG"'
        language: system
        stages: [pre-commit]
        always_run: true
        pass_filenames: false
    -   id: log-post-commit
        name: log post-commit
        entry: sh -c 'echo "pre-commit post-commit" >> "$TOOLS_LOG"'
        language: system
        stages: [post-commit]
        always_run: true
        pass_filenames: false
"""


def pre_commit_config(repo: Path) -> None:
    (repo / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG)
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-q", "-m", "pre-commit config")


def install_pre_commit(repo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- the cases --------------------------------------------------------------------------------------------


class Tool:
    def __init__(
        self,
        name: str,
        install: Callable[[Path], None],
        logs: list[str],
        prepare: Callable[[Path], None] | None = None,
    ) -> None:
        self.name, self.install, self.logs, self.prepare = name, install, logs, prepare


TOOLS = {
    "git-ai": Tool("git-ai", install_gitai, ["git-ai pre-commit", "git-ai post-commit"]),
    "entire": Tool(
        "entire",
        install_entire,
        [
            "entire hooks git prepare-commit-msg",
            "entire hooks git commit-msg",
            "entire hooks git post-commit",
        ],
    ),
    "husky": Tool("husky", install_husky, ["husky pre-commit", "husky post-commit"], husky_scripts),
    "pre-commit": Tool(
        "pre-commit",
        install_pre_commit,
        ["pre-commit pre-commit", "pre-commit post-commit"],
        pre_commit_config,
    ),
}


def standins(folder: Path) -> Path:
    """`git-ai` and `entire` commands that log how they were called (the first three words)."""
    folder.mkdir()
    for name in ("git-ai", "entire"):
        command = folder / name
        command.write_text(f'#!/bin/sh\necho "{name} $(echo "$1 $2 $3" | sed "s/ *$//")" >> "$TOOLS_LOG"\n')
        command.chmod(0o755)
    return folder


def hook_files(repo: Path) -> dict[str, tuple[int, bytes]]:
    """Every hook file a tool may have written (`.git/hooks`, `.husky`, core.hooksPath): mode and bytes."""
    found: dict[str, tuple[int, bytes]] = {}
    for top in (repo / ".git" / "hooks", repo / ".husky"):
        for path in sorted(top.rglob("*")) if top.is_dir() else []:
            if path.is_file() and not path.name.endswith(".sample"):
                found[str(path.relative_to(repo))] = (path.stat().st_mode & 0o777, path.read_bytes())
    hooks_path = git(repo, "config", "--get", "core.hooksPath", check=False).strip()
    found["core.hooksPath"] = (0, hooks_path.encode())
    return found


def ours_left(files: dict[str, tuple[int, bytes]]) -> list[str]:
    return [name for name, (_, data) in files.items() if MARKER.encode() in data or b"git-intent" in data]


def new_repo(root: Path, name: str, tool: Tool) -> Path:
    repo = root / name
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "commit.gpgsign", "false")
    (repo / "README").write_text("base\n")
    git(repo, "add", "README")
    git(repo, "commit", "-q", "-m", "base")
    if tool.prepare is not None:
        tool.prepare(repo)
    return repo


def commit(repo: Path, name: str) -> str:
    (repo / name).write_text(f"{name}\n")
    git(repo, "add", name)
    env = {**os.environ, **SYNC, "TOOLS_LOG": str(repo.parent / LOG)}
    proc = subprocess.run(
        ["git", "commit", "-q", "-m", name], cwd=repo, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    # pre-commit's script kept as `<hook>.legacy` would run itself: "bug: pre-commit's script is installed in
    # migration mode"
    assert "bug:" not in proc.stdout + proc.stderr
    return git(repo, "rev-parse", "HEAD").strip()


def read_log(repo: Path) -> list[str]:
    path = repo.parent / LOG
    lines = path.read_text().splitlines() if path.exists() else []
    path.unlink(missing_ok=True)
    return lines


def intent(repo: Path, *args: str) -> str:
    proc = run_cli(*args, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("order", ["git-intent first", "tool first"])
@pytest.mark.parametrize("name", list(TOOLS))
def test_every_tools_hooks_run_and_uninstall_gives_them_back(
    name: str, order: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = TOOLS[name]
    monkeypatch.setenv("PATH", f"{standins(tmp_path / 'bin')}{os.pathsep}{os.environ['PATH']}")
    # What the tool alone writes, in a twin repository without git-intent.
    (tmp_path / "alone").mkdir()
    alone = new_repo(tmp_path / "alone", "repo", tool)
    tool.install(alone)
    assert commit(alone, "a.txt") and read_log(alone) == tool.logs

    repo = new_repo(tmp_path, "repo", tool)
    if order == "tool first":
        tool.install(repo)
        before = hook_files(repo)
        intent(repo, "install")
    else:
        intent(repo, "install")
        tool.install(repo)
        before = hook_files(repo)
    sha = commit(repo, "b.txt")
    assert read_log(repo) == tool.logs
    assert note_text(repo, sha) is not None, f"{name}, {order}: the commit was not recorded"

    intent(repo, "uninstall")
    after = hook_files(repo)
    assert ours_left(after) == []
    if order == "tool first":
        assert after == before  # byte for byte, modes and core.hooksPath too
    elif name == "git-ai":
        # git-ai appended its line to our hook: the line stays, as a hook of its own.
        expected = {k: v for k, v in before.items() if MARKER.encode() not in v[1]}
        expected[".git/hooks/post-commit"] = (0o755, b"#!/bin/sh\n\ngit-ai post-commit\n")
        assert after == expected
    elif name == "husky":
        assert after == hook_files(alone)  # the team's scripts as they were, husky's folder untouched
    else:  # Entire and pre-commit kept our hook aside and chain it: it is gone, theirs unchanged
        assert after == {k: v for k, v in before.items() if MARKER.encode() not in v[1]}
    sha = commit(repo, "c.txt")
    assert read_log(repo) == tool.logs
    assert note_text(repo, sha) is None
