"""`git intent install` and `uninstall` through the CLI, in real repositories.

- A hook that is a symlink (dangling or not) is never written through: the link itself is moved aside as
  `<hook>.legacy` (chained when its target exists and is executable) and uninstall puts it back.
- Install is all-or-nothing: whatever it refuses is found before anything is written, and a step that
  fails undoes the steps before it.
- Uninstall restores the git configuration the repository had before install, values the user had set
  themselves included.
"""

from __future__ import annotations

import os
from pathlib import Path

from support import SYNC, commit_file, git, note_text, run_cli

from git_intent.capture.install import MARKER

REWRITE = "refs/notes/intent"


def hooks_of(repo: Path) -> Path:
    return repo / ".git" / "hooks"


def listing(folder: Path) -> dict[str, str]:
    """Each entry of `folder`: a symlink's target as `-> TARGET`, a file's text."""
    return {
        p.name: f"-> {os.readlink(p)}" if p.is_symlink() else p.read_text(encoding="utf-8")
        for p in sorted(folder.iterdir())
    }


def local_config(repo: Path) -> list[str]:
    return git(repo, "config", "--local", "--list").splitlines()


def notes_ref(repo: Path) -> str:
    return git(repo, "rev-parse", "-q", "--verify", REWRITE, check=False).strip()


def test_a_dangling_symlink_hook_is_moved_aside_and_never_written_through(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "somewhere" / "missing"
    hook = hooks_of(repo) / "post-commit"
    hook.symlink_to(target)
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert not target.parent.exists()  # nothing written outside the repository
    legacy = hooks_of(repo) / "post-commit.legacy"
    assert legacy.is_symlink() and os.readlink(legacy) == str(target)
    assert not hook.is_symlink() and MARKER in hook.read_text(encoding="utf-8")
    assert (
        f"Kept your existing post-commit hook (a symlink to {target}) as post-commit.legacy; it runs first "
        "whenever its target exists and is executable."
    ) in proc.stdout.splitlines()
    sha = commit_file(repo, "a.txt", "a line\n", env=SYNC)  # the missing target is not run: no error
    assert note_text(repo, sha) is not None
    assert run_cli("uninstall", cwd=repo).returncode == 0
    assert hook.is_symlink() and os.readlink(hook) == str(target)
    assert not os.path.lexists(legacy)
    assert not target.parent.exists()


def test_a_symlink_to_a_hook_elsewhere_is_chained_and_its_target_left_alone(
    repo: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "dotfiles" / "post-commit"
    shared.parent.mkdir()
    text = '#!/bin/sh\necho "shared hook ran" >> "$(git rev-parse --git-dir)/shared-hook-ran"\n'
    shared.write_text(text, encoding="utf-8")
    shared.chmod(0o755)
    hook = hooks_of(repo) / "post-commit"
    hook.symlink_to(shared)
    assert run_cli("install", cwd=repo).returncode == 0
    assert shared.read_text(encoding="utf-8") == text
    assert os.readlink(hooks_of(repo) / "post-commit.legacy") == str(shared)
    sha = commit_file(repo, "b.txt", "b line\n", env=SYNC)
    assert (repo / ".git" / "shared-hook-ran").read_text() == "shared hook ran\n"
    assert note_text(repo, sha) is not None
    # Installing again changes nothing: our hook is a file now; the symlink stays the legacy.
    again = run_cli("install", cwd=repo)
    assert again.stdout == "git-intent is already installed here; nothing changed.\n"
    assert run_cli("uninstall", cwd=repo).returncode == 0
    assert os.readlink(hook) == str(shared) and shared.read_text(encoding="utf-8") == text


def test_a_refused_post_rewrite_installs_nothing_at_all(repo: Path) -> None:
    hooks = hooks_of(repo)
    (hooks / "post-rewrite").write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    (hooks / "post-rewrite.legacy").write_text("#!/bin/sh\necho older\n", encoding="utf-8")
    before, config = listing(hooks), local_config(repo)
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr == (
        f"error: git-intent was not installed, and nothing was changed: both {hooks / 'post-rewrite'} and "
        f"{hooks / 'post-rewrite.legacy'} exist, and git-intent will not overwrite either.\n"
        f"hint: Merge them by hand or remove {hooks / 'post-rewrite.legacy'}, then run install again.\n"
    )
    assert listing(hooks) == before  # no post-commit hook either
    assert local_config(repo) == config  # no notes.rewriteRef
    assert notes_ref(repo) == ""
    assert not (repo / ".git" / "intent" / "install.json").exists()


def test_a_step_that_fails_undoes_the_steps_before_it(repo: Path) -> None:
    hooks = hooks_of(repo)
    (hooks / "post-commit").write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    before, config = listing(hooks), local_config(repo)
    lock = repo / ".git" / "config.lock"  # another git holds the config: setting the merge strategy fails
    lock.write_text("", encoding="utf-8")
    proc = run_cli("install", cwd=repo)
    lock.unlink()
    assert proc.returncode == 1
    assert proc.stdout == ""
    first = proc.stderr.splitlines()[0]
    assert first.startswith(
        "error: git-intent was not installed: setting git config notes.intent.mergeStrategy failed ("
    )
    assert first.endswith("); everything install had changed before that was undone.")
    assert listing(hooks) == before
    assert local_config(repo) == config
    assert notes_ref(repo) == ""
    done = run_cli("install", cwd=repo)  # once the lock is gone, install works
    assert done.returncode == 0, done.stderr


def test_uninstall_restores_the_notes_settings_the_user_had(repo: Path) -> None:
    git(repo, "config", "notes.rewriteRef", "refs/notes/commits")
    git(repo, "config", "--add", "notes.rewriteRef", REWRITE)  # set by the user before git-intent
    git(repo, "config", "notes.intent.mergeStrategy", "union")
    config = local_config(repo)
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert git(repo, "config", "--get-all", "notes.rewriteRef").splitlines() == [
        "refs/notes/commits",
        REWRITE,
    ]
    # git reads the last value of a single-valued key: cat_sort_uniq while installed
    assert git(repo, "config", "--get", "notes.intent.mergeStrategy").strip() == "cat_sort_uniq"
    assert run_cli("install", cwd=repo).returncode == 0  # a second install must not forget what was there
    proc = run_cli("uninstall", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "Unset git config notes.intent.mergeStrategy = cat_sort_uniq." in proc.stdout.splitlines()
    assert "notes.rewriteRef" not in proc.stdout
    assert local_config(repo) == config
    assert not (repo / ".git" / "intent" / "install.json").exists()


def test_install_then_uninstall_leaves_the_config_as_it_was(repo: Path) -> None:
    config = local_config(repo)
    assert run_cli("install", "--push-notes", cwd=repo).returncode == 0
    assert git(repo, "config", "--get-all", "notes.rewriteRef", check=False) == ""  # never set
    proc = run_cli("uninstall", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:5] == [
        "Removed the post-commit hook.",
        "Removed the post-rewrite hook.",
        "Removed the post-merge hook.",
        "Removed the post-checkout hook.",
        "Removed the pre-push hook.",
    ]
    assert local_config(repo) == config
    assert sorted(p.name for p in hooks_of(repo).iterdir() if not p.name.endswith(".sample")) == []
