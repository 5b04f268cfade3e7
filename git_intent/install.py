"""Installing and removing the post-commit hook and the git configuration git-intent relies on."""

from __future__ import annotations

from pathlib import Path

from .backup import ensure_excluded
from .errors import IntentError
from .hook import render_shim
from .notes import NOTES_REF
from .repo import Repository

MARKER = "git-intent-hook-marker"
HOOKS = ("post-commit", "post-rewrite")
PUSH_HOOK = "pre-push"  # opt-in (`install --push-notes`): a plain `git push` also pushes the notes
# rewriteRef makes git copy notes on amend and rebase; cat_sort_uniq merges JSON Lines notes safely.
CONFIG = (("notes.rewriteRef", NOTES_REF), ("notes.intent.mergeStrategy", "cat_sort_uniq"))


def hooks_dir(repo: Repository) -> Path:
    """Where git looks for hooks (`git rev-parse --git-path hooks`: honours core.hooksPath, worktrees)."""
    path = Path(repo.git("rev-parse", "--git-path", "hooks").strip())
    return path if path.is_absolute() else (repo.root / path).resolve()


def rewrite_ref_set(repo: Repository) -> bool:
    """Whether notes.rewriteRef names refs/notes/intent (then a damaged ref breaks git's amend and rebase)."""
    return NOTES_REF in repo.git("config", "--get-all", "notes.rewriteRef", check=False).split()


def render_hook(hook: str, python: str | None = None) -> str:
    """The shim for `hook`, calling the absolute path of this Python interpreter."""
    return render_shim(hook, python)


def is_ours(path: Path) -> bool:
    """Whether the hook file at `path` was written by git-intent (it carries `MARKER`)."""
    try:
        return MARKER in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def install(repo: Repository, *, shared_hooks_path: bool = False, push_notes: bool = False) -> list[str]:
    """Install the hooks, configuration and backup exclusion; returns one sentence per change made.
    With `push_notes`, also the pre-push hook that pushes git-intent's refs with every `git push`.

    An existing hook that is not ours is kept as `<hook>.legacy` and chained. A core.hooksPath in the
    work tree or outside the repository is refused unless `shared_hooks_path`. Raises IntentError for a
    bare repository or when both a foreign hook and a different `.legacy` file exist.
    """
    if repo.git("rev-parse", "--is-bare-repository").strip() == "true":
        raise IntentError("git-intent needs a work tree; this repository is bare.")
    changes: list[str] = []
    folder = hooks_dir(repo)
    if not shared_hooks_path:
        _check_hooks_folder(repo, folder)
    folder.mkdir(parents=True, exist_ok=True)
    for hook in (*HOOKS, PUSH_HOOK) if push_notes else HOOKS:
        path, legacy = folder / hook, folder / f"{hook}.legacy"
        text = render_hook(hook)
        if path.exists() and not is_ours(path):
            if legacy.exists():
                raise IntentError(f"Both {path} and {legacy} exist; git-intent will not overwrite either.",
                                  hint=f"Merge them by hand or remove {legacy}, then run install again.")
            path.rename(legacy)
            changes.append(f"Kept your existing {hook} hook as {legacy.name}; it still runs first.")
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            path.chmod(0o755)
            changes.append(f"Installed the {hook} hook at {path}.")
    for key, value in CONFIG:
        current = repo.git("config", "--get-all", key, check=False).split()
        if value not in current:
            repo.git("config", "--add", key, value)
            changes.append(f"Set git config {key} = {value}.")
    if not repo.succeeds("rev-parse", "-q", "--verify", NOTES_REF):
        # With notes.rewriteRef set, git warns on every amend and rebase until the ref exists.
        empty = repo.git("commit-tree", repo.git("mktree", input_text="").strip(), "-m", "git-intent notes",
                         check=False).strip()
        if empty and repo.succeeds("update-ref", NOTES_REF, empty, "0" * 40):
            changes.append(f"Created {NOTES_REF}.")
    if ensure_excluded(repo):
        changes.append("Added /.opencode/intent/ (the local backup) to .git/info/exclude.")
    return changes


def _check_hooks_folder(repo: Repository, folder: Path) -> None:
    """Refuse a hooks folder git-intent must not write: one in the work tree (husky's `.husky`, tracked
    and shared with the team) or one outside this repository (a global core.hooksPath)."""
    resolved = folder.resolve()
    if resolved.is_relative_to(repo.root) and not resolved.is_relative_to(repo.common_dir):
        raise IntentError(
            f"core.hooksPath points into the work tree ({folder}), a folder another tool such as husky "
            "shares with your team; git-intent will not write this machine's hook there.",
            hint="Add `git-intent-hook post-commit` to that tool's post-commit hook (and `git-intent-hook "
                 "post-rewrite \"$@\"` to its post-rewrite hook), or pass --shared-hooks-path to install there.")
    if not resolved.is_relative_to(repo.common_dir) and not resolved.is_relative_to(repo.git_dir):
        raise IntentError(
            f"core.hooksPath points outside this repository ({folder}); installing there would affect "
            "every repository that uses it.",
            hint="Add `git-intent-hook post-commit` to your shared post-commit hook, or pass --shared-hooks-path "
                 "to install there for every repository using it.")


def uninstall(repo: Repository) -> list[str]:
    """Remove our hooks (restoring `<hook>.legacy`) and our configuration. Notes and backup stay."""
    changes: list[str] = []
    folder = hooks_dir(repo)
    for hook in (*HOOKS, PUSH_HOOK):
        path, legacy = folder / hook, folder / f"{hook}.legacy"
        if path.exists() and is_ours(path):
            path.unlink()
            changes.append(f"Removed the {hook} hook.")
            if legacy.exists():
                legacy.rename(path)
                changes.append(f"Restored your earlier {hook} hook.")
    for key, value in CONFIG:
        if value in repo.git("config", "--get-all", key, check=False).split():
            repo.git("config", "--unset", key, f"^{value}$")
            changes.append(f"Unset git config {key} = {value}.")
    return changes
