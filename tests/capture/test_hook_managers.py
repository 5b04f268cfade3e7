"""Other hook managers: husky's core.hooksPath in the work tree, the explicit --shared-hooks-path, and the
pre-commit manifest. Each calls `git-intent-hook <name>`, the same fast path the installed hook runs."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from conftest import git, run_cli, wait_for_note

ROOT = Path(__file__).resolve().parents[2]


def test_husky_hook_calling_git_intent_records_commits(repo: Path) -> None:
    husky = repo / ".husky"
    husky.mkdir()
    hook = husky / "post-commit"
    hook.write_text("#!/bin/sh\ngit-intent-hook post-commit\n", encoding="utf-8")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    git(repo, "config", "core.hooksPath", ".husky")
    refused = run_cli("install", cwd=repo)
    assert refused.returncode == 1 and "git-intent-hook post-commit" in refused.stderr
    (repo / "a.txt").write_text("a line\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "a", env={"GIT_INTENT_HOOK_SYNC": "1"})
    assert '"kind":"commit"' in wait_for_note(repo)


def test_shared_hooks_path_needs_the_explicit_option(repo: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared-hooks"
    git(repo, "config", "core.hooksPath", str(shared))
    assert run_cli("install", cwd=repo).returncode == 1
    done = run_cli("install", "--shared-hooks-path", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert (shared / "post-commit").is_file() and (shared / "post-rewrite").is_file()
    (repo / "b.txt").write_text("b line\n")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-q", "-m", "b", env={"GIT_INTENT_HOOK_SYNC": "1"})
    assert '"kind":"commit"' in wait_for_note(repo)


def test_post_rewrite_through_git_intent_hook_reads_pairs_from_stdin(repo: Path) -> None:
    (repo / "c.txt").write_text("c line\n")
    git(repo, "add", "c.txt")
    git(repo, "commit", "-q", "-m", "c")
    old = git(repo, "rev-parse", "HEAD").strip()
    assert run_cli("record", cwd=repo).returncode == 0
    git(repo, "commit", "-q", "--amend", "-m", "c, reworded")
    new = git(repo, "rev-parse", "HEAD").strip()
    import subprocess

    proc = subprocess.run(
        ["git-intent-hook", "post-rewrite", "amend"],
        cwd=repo,
        input=f"{old} {new}\n",
        text=True,
        capture_output=True,
        env={**os.environ, "GIT_INTENT_HOOK_SYNC": "1"},
    )
    assert proc.returncode == 0 and proc.stderr == ""
    note = wait_for_note(repo, new)
    assert f'"commit":"{new}"' in note


def test_pre_commit_manifest_declares_every_stage() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    for hook in ("post-commit", "post-rewrite", "post-merge", "post-checkout"):
        assert f"entry: git-intent-hook {hook}" in text and f"stages: [{hook}]" in text


def test_post_merge_through_git_intent_hook_carries_a_cherry_picked_copy(repo: Path) -> None:
    """`git-intent-hook post-merge` (husky, pre-commit) queues a "landed" job; the worker carries
    a recorded commit's note onto an unrecorded copy of it on a branch (same patch id). A file checkout
    (post-checkout flag 0) queues nothing."""
    import json
    import subprocess

    from support import note_records

    git(repo, "checkout", "-q", "-b", "side")
    (repo / "d.txt").write_text("d line\n")
    git(repo, "add", "d.txt")
    git(repo, "commit", "-q", "-m", "d")
    assert run_cli("record", cwd=repo).returncode == 0
    git(repo, "checkout", "-q", "main")
    # Another parent: a cherry-pick onto the same parent within the same second is the very same commit.
    (repo / "e.txt").write_text("e line\n")
    git(repo, "add", "e.txt")
    git(repo, "commit", "-q", "-m", "e")
    git(repo, "cherry-pick", "side")
    copy = git(repo, "rev-parse", "HEAD").strip()
    state = repo / ".git" / "intent" / "queue"
    files = subprocess.run(
        ["git-intent-hook", "post-checkout", copy, copy, "0"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_INTENT_HOOK_SYNC": "1"},
    )
    assert files.returncode == 0 and not list(state.glob("*.job"))
    proc = subprocess.run(
        ["git-intent-hook", "post-merge", "0"],
        cwd=repo,
        text=True,
        capture_output=True,
        env={**os.environ, "GIT_INTENT_HOOK_SYNC": "1"},
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert not list(state.glob("*.job"))
    landed = json.loads((repo / ".git" / "intent" / "landed.json").read_text(encoding="utf-8"))
    assert copy in landed["seen"]
    # the recorded commit credits no agent line, so the copy gets no note (nothing to carry)
    assert [r["kind"] for r in note_records(repo, "side")] == ["commit"]
    assert git(repo, "notes", "--ref", "refs/notes/intent", "list", copy, check=False) == ""


def test_install_in_a_bare_repository_is_refused(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    proc = run_cli("install", cwd=bare)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {bare} is a bare repository; git-intent needs a work tree.")


def test_legacy_post_rewrite_hook_gets_the_same_argv_stdin_and_exit_code(repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    legacy = hooks / "post-rewrite"
    legacy.write_text(
        '#!/bin/sh\necho "$@" > "$(git rev-parse --git-dir)/legacy-args"\n'
        'cat > "$(git rev-parse --git-dir)/legacy-stdin"\nexit 7\n',
        encoding="utf-8",
    )
    legacy.chmod(0o755)
    original = legacy.read_bytes()
    assert run_cli("install", cwd=repo).returncode == 0
    assert (hooks / "post-rewrite.legacy").read_bytes() == original
    old = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "commit", "-q", "--amend", "-m", "initial, reworded", env={"GIT_INTENT_HOOK_SYNC": "1"})
    new = git(repo, "rev-parse", "HEAD").strip()
    assert (repo / ".git" / "legacy-args").read_text() == "amend\n"
    assert (repo / ".git" / "legacy-stdin").read_text() == f"{old} {new}\n"
    import subprocess

    shim = subprocess.run(
        ["sh", str(hooks / "post-rewrite"), "amend"],
        cwd=repo,
        input=f"{old} {new}\n",
        text=True,
        capture_output=True,
        env={**os.environ, "GIT_INTENT": "0"},
    )
    assert shim.returncode == 7  # the earlier hook's exit status is kept
    assert run_cli("uninstall", cwd=repo).returncode == 0
    assert legacy.read_bytes() == original
