"""Installing and removing the post-commit hook and the git configuration git-intent relies on.

Install is all-or-nothing: every hook is looked at before anything is written, so what
install refuses leaves the repository as it was, and a step that fails (a locked `.git/config`, a full
disk) undoes the steps before it. What install added to the git configuration is recorded in
`<git common dir>/intent/install.json`, so uninstall removes exactly that and keeps values the user had set
before (a `notes.rewriteRef` of their own, even `refs/notes/git-intent` itself).

Install no longer sets `notes.rewriteRef`: with it, git's own `commit --amend` and `rebase` read
refs/notes/intent and died (rc 128) whenever the ref was damaged. The post-rewrite hook already hands the
worker git's old→new pairs, and the worker carries the credits, so git need not copy notes; install takes
back the value an earlier install set, and the merge strategy it set for that ref's old name. The notes an
earlier version left on refs/notes/intent are moved to refs/notes/git-intent (`adopt_legacy_notes`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ..core.errors import GitError, IntentError
from ..core.state_files import private_dir, replace_file, tighten_tree, write_text
from ..git.repo import Repository
from ..notes import (
    LEGACY_NOTES_REF,
    NOTES_REF,
    adopt_legacy_notes,
    empty_notes_commit,
    legacy_oid,
    notes_lock,
)
from ..sessions.backup import ensure_excluded
from . import SHIMS
from .hook import render_shim
from .hook_managers import (
    add_husky_calls,
    appended,
    aside_names,
    husky_dir,
    is_pre_commit_script,
    keep_appended,
    remove_husky_calls,
)

MARKER = "git-intent-hook-marker"
HOOKS = SHIMS[:2]  # post-commit, post-rewrite
# New commits arriving from a forge (a pull, a checkout after a fetch): their records are carried by patch
# identity from the recorded commits they squash or rebase (capture/landed.py).
LANDED_HOOKS = SHIMS[2:]  # post-merge, post-checkout
PUSH_HOOK = "pre-push"  # opt-in (`install --push-notes`): a plain `git push` also pushes the notes
# cat_sort_uniq merges JSON Lines notes safely (the key is notes.<the ref below refs/notes/>.mergeStrategy).
CONFIG = ((f"notes.{NOTES_REF.removeprefix('refs/notes/')}.mergeStrategy", "cat_sort_uniq"),)
# What earlier installs set and this one takes back, and why.
RETIRED = (
    (
        "notes.rewriteRef",
        LEGACY_NOTES_REF,
        # It made git itself read the notes ref in every amend and rebase: a damaged ref failed them (rc 128).
        f"with it, git's own amend and rebase fail while {LEGACY_NOTES_REF} is damaged; the post-rewrite "
        "hook carries the records instead",
    ),
    (
        f"notes.{LEGACY_NOTES_REF.removeprefix('refs/notes/')}.mergeStrategy",
        "cat_sort_uniq",
        f"git-intent's notes are on {NOTES_REF} now (whose merge strategy install sets)",
    ),
)
RETIRED_PAIRS = tuple((key, value) for key, value, _ in RETIRED)
RECORD = "install.json"  # {"config": {key: [values install added]}}


def hooks_dir(repo: Repository) -> Path:
    """Where git looks for hooks (`git rev-parse --git-path hooks`: honours core.hooksPath, worktrees)."""
    path = Path(repo.git("rev-parse", "--git-path", "hooks").strip())
    return path if path.is_absolute() else (repo.root / path).resolve()


def rewrite_ref_set(repo: Repository) -> bool:
    """Whether notes.rewriteRef names refs/notes/git-intent (then a damaged ref breaks git's amend and
    rebase); install never sets it, so only a value the user set makes this True."""
    return NOTES_REF in _values(repo, "notes.rewriteRef")


def render_hook(hook: str, python: str | None = None) -> str:
    """The shim for `hook`, calling the absolute path of this Python interpreter."""
    return render_shim(hook, python)


def is_ours(path: Path) -> bool:
    """Whether the hook at `path` was written by git-intent: a regular file carrying `MARKER` (a symlink
    never is, whatever it points to: install never writes through one)."""
    if path.is_symlink():
        return False
    try:
        return MARKER in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


@dataclass
class _HookPlan:
    """What install will do to one hook, decided before anything is written."""

    hook: str
    path: Path
    text: str
    move_aside: bool  # a hook that is not ours (a file, or a symlink, dangling or not) becomes `.legacy`
    previous: bytes | None  # our own hook as an earlier version wrote it (put back if install fails)
    link: str | None  # the target of a symlink moved aside
    beside: Path | None = None  # pre-commit's hook, which runs ours (at `path`, its `.legacy`) first

    @property
    def legacy(self) -> Path:
        return self.path.with_name(f"{self.hook}.legacy")

    @property
    def write(self) -> bool:
        return self.previous != self.text.encode("utf-8")


def install(repo: Repository, *, shared_hooks_path: bool = False, push_notes: bool = False) -> list[str]:
    """Install the hooks, configuration and backup exclusion; returns one sentence per change made.
    With `push_notes`, also the pre-push hook that pushes git-intent's refs with every `git push`.

    An existing hook that is not ours is kept as `<hook>.legacy` and chained; a symlink is moved aside
    itself (never written through), and chained when its target exists and is executable. A
    core.hooksPath in the work tree or outside the repository is refused unless `shared_hooks_path`.
    Raises IntentError, with nothing changed, for a bare repository, when both a foreign hook and a
    `.legacy` file exist, for a hook that is a folder, and when a step fails (its predecessors undone).
    """
    if repo.git("rev-parse", "--is-bare-repository").strip() == "true":
        raise IntentError("git-intent needs a work tree; this repository is bare.")
    folder = hooks_dir(repo)
    husky = husky_dir(repo, folder)
    # husky's own folder (`.husky/_`) takes no hook of ours: its scripts `.husky/<hook>` call git-intent.
    in_husky = husky is not None and folder.resolve().parent == husky
    if not shared_hooks_path and not in_husky:
        _check_hooks_folder(repo, folder)
    hooks = (*HOOKS, *LANDED_HOOKS, PUSH_HOOK) if push_notes else (*HOOKS, *LANDED_HOOKS)
    plans = [] if in_husky else [_plan_hook(folder, hook) for hook in hooks]
    record = _load_record(repo)
    if record is None:
        # An earlier version installed without a record: the values there are its own, as its uninstall
        # assumed.
        upgrade = any(p.previous is not None for p in plans)
        record = {
            key: [value] if upgrade and value in _values(repo, key) else []
            for key, value in (*CONFIG, *RETIRED_PAIRS)
        }
    undo: list[Callable[[], None]] = []
    changes: list[str] = []
    step = f"creating {folder}"
    try:
        if not folder.is_dir() and not in_husky:
            folder.mkdir(parents=True)
            undo.append(folder.rmdir)
        for plan in plans:
            step = f"installing the {plan.hook} hook"
            changes += _apply_hook(plan, undo)
        if husky is not None:
            step = f"adding git-intent to husky's scripts in {husky}"
            changes += add_husky_calls(husky, hooks, undo)
        for key, value in CONFIG:
            step = f"setting git config {key}"
            if value not in _values(repo, key):
                repo.git("config", "--add", key, value)
                undo.append(partial(_unset, repo, key, value))
                record[key] = [*record.get(key, []), value]
                changes.append(f"Set git config {key} = {value}.")
        for key, value, why in RETIRED:
            step = f"unsetting git config {key}"
            changes += _retire(repo, record, key, value, why, undo)
        step = f"creating {NOTES_REF}"
        changes += _create_notes_ref(repo, undo)
        step = "adding the backup to .git/info/exclude"
        exclude = repo.common_dir / "info" / "exclude"
        before = exclude.read_bytes() if exclude.is_file() else None
        if ensure_excluded(repo):
            undo.append(lambda: _put_back(exclude, before))
            changes.append("Added /.opencode/intent/ (the local backup) to .git/info/exclude.")
        step = f"writing {repo.state_dir / RECORD}"
        _save_record(repo, record, undo)
        tighten_tree(repo.state_dir)  # an earlier version's files (index.db, hook.log) were 0644
    except (OSError, IntentError) as exc:
        raise _rolled_back(step, exc, undo) from None
    return changes


def retire_config(repo: Repository) -> list[str]:
    """Take back what an earlier install set and this version no longer wants (`RETIRED`), as install.json
    records it, so an upgrade fixes itself at the next commit without a new `install`; one sentence per
    change. Raises GitError when git config cannot be written (the worker retries at its next run)."""
    try:
        record = _load_record(repo)
    except IntentError:
        return []
    if not record or not any(value in record.get(key, []) for key, value in RETIRED_PAIRS):
        return []
    undo: list[Callable[[], None]] = []
    changes = [
        change for key, value, why in RETIRED for change in _retire(repo, record, key, value, why, undo)
    ]
    _save_record(repo, record, undo)
    return changes


def _retire(
    repo: Repository,
    record: dict[str, list[str]],
    key: str,
    value: str,
    why: str,
    undo: list[Callable[[], None]],
) -> list[str]:
    """Unset `key = value` when an earlier install set it (its record says so); a value of the user's
    stays."""
    if value not in record.get(key, []):
        return []
    record[key] = [v for v in record[key] if v != value]
    if value not in _values(repo, key):
        return []
    _unset(repo, key, value)

    def restore() -> None:
        repo.git("config", "--add", key, value)

    undo.append(restore)
    return [f"Unset git config {key} = {value}, which an earlier install set: {why}."]


def _plan_hook(folder: Path, hook: str) -> _HookPlan:
    """Look at `folder/hook` without changing anything; raises IntentError for what install refuses."""
    path = folder / hook
    text = render_hook(hook)
    link = os.readlink(path) if path.is_symlink() else None
    if link is None and path.is_dir():
        raise IntentError(
            f"git-intent was not installed, and nothing was changed: {path} is a folder, not a hook.",
            hint=f"Move {path} away, then run install again.",
        )
    if link is None and not path.exists():
        return _HookPlan(hook, path, text, move_aside=False, previous=None, link=None)
    if is_ours(path):
        return _HookPlan(hook, path, text, move_aside=False, previous=path.read_bytes(), link=None)
    legacy = folder / f"{hook}.legacy"
    if is_pre_commit_script(path):
        # pre-commit runs `<hook>.legacy` first (its script moved there would run itself): ours goes there.
        if not os.path.lexists(legacy):
            return _HookPlan(hook, legacy, text, move_aside=False, previous=None, link=None, beside=path)
        if is_ours(legacy):
            previous = legacy.read_bytes()
            return _HookPlan(hook, legacy, text, move_aside=False, previous=previous, link=None, beside=path)
    if os.path.lexists(legacy):
        raise IntentError(
            f"git-intent was not installed, and nothing was changed: both {path} and {legacy} "
            "exist, and git-intent will not overwrite either.",
            hint=f"Merge them by hand or remove {legacy}, then run install again.",
        )
    return _HookPlan(hook, path, text, move_aside=True, previous=None, link=link)


def _apply_hook(plan: _HookPlan, undo: list[Callable[[], None]]) -> list[str]:
    changes = []
    if plan.move_aside:
        os.rename(plan.path, plan.legacy)  # a symlink is moved itself: its target is never touched
        undo.append(lambda: os.rename(plan.legacy, plan.path))
        if plan.link is not None:
            changes.append(
                f"Kept your existing {plan.hook} hook (a symlink to {plan.link}) as {plan.legacy.name}; "
                "it runs first whenever its target exists and is executable."
            )
        else:
            changes.append(f"Kept your existing {plan.hook} hook as {plan.legacy.name}; it still runs first.")
    if plan.write:
        _write_hook(plan.path, plan.text.encode("utf-8"))
        previous = plan.previous
        undo.append(lambda: plan.path.unlink() if previous is None else _write_hook(plan.path, previous))
        if plan.beside is not None:
            changes.append(
                f"Installed the {plan.hook} hook at {plan.path}; pre-commit's {plan.hook} hook runs it first."
            )
        else:
            changes.append(f"Installed the {plan.hook} hook at {plan.path}.")
    return changes


def _write_hook(path: Path, data: bytes) -> None:
    """Replace `path` (a file, or a symlink itself) with an executable file holding `data`."""
    replace_file(path, data, 0o755)


def _create_notes_ref(repo: Repository, undo: list[Callable[[], None]]) -> list[str]:
    moved = 0
    if legacy_oid(repo):
        with notes_lock(repo):
            # Not undone with the rest: reads take the old ref's notes as they take the new one's.
            moved = adopt_legacy_notes(repo)
    if moved:
        return [f"Moved {moved} note(s) from {LEGACY_NOTES_REF} to {NOTES_REF}."]
    if repo.succeeds("rev-parse", "-q", "--verify", NOTES_REF):
        return []
    # Readers (`git notes --ref`, fetch's merge) find a notes commit from the start.
    try:
        empty = empty_notes_commit(repo, "git-intent notes")
    except GitError:
        return []
    if not repo.succeeds("update-ref", NOTES_REF, empty, "0" * 40):
        return []

    def delete() -> None:
        repo.git("update-ref", "-d", NOTES_REF, empty)

    undo.append(delete)
    return [f"Created {NOTES_REF}."]


def _rolled_back(step: str, exc: BaseException, undo: list[Callable[[], None]]) -> IntentError:
    """Undo `undo` in reverse; the error saying what failed and what is left."""
    left = []
    for action in reversed(undo):
        try:
            action()
        except (OSError, IntentError) as problem:
            left.append(str(problem).rstrip("."))
    reason = (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)).rstrip(".")
    if left:
        return IntentError(
            f"git-intent was not installed: {step} failed ({reason}), and undoing the steps before it "
            f"failed too ({'; '.join(left)}).",
            hint="Run `git intent uninstall` to remove what is left, then install again.",
        )
    return IntentError(
        f"git-intent was not installed: {step} failed ({reason}); everything install had "
        "changed before that was undone.",
        hint="Fix the cause, then run install again.",
    )


def _check_hooks_folder(repo: Repository, folder: Path) -> None:
    """Refuse a hooks folder git-intent must not write: one in the work tree (husky's `.husky`, tracked
    and shared with the team) or one outside this repository (a global core.hooksPath)."""
    resolved = folder.resolve()
    if resolved.is_relative_to(repo.root) and not resolved.is_relative_to(repo.common_dir):
        raise IntentError(
            f"core.hooksPath points into the work tree ({folder}), a folder another tool such as husky "
            "shares with your team; git-intent will not write this machine's hook there.",
            hint="Add `git-intent-hook post-commit` to that tool's post-commit hook (and `git-intent-hook "
            'post-rewrite "$@"` to its post-rewrite hook), or pass --shared-hooks-path to install there.',
        )
    if not resolved.is_relative_to(repo.common_dir) and not resolved.is_relative_to(repo.git_dir):
        raise IntentError(
            f"core.hooksPath points outside this repository ({folder}); installing there would affect "
            "every repository that uses it.",
            hint="Add `git-intent-hook post-commit` to your shared post-commit hook, or pass "
            "--shared-hooks-path to install there for every repository using it.",
        )


def uninstall(repo: Repository) -> list[str]:
    """Remove our hooks (restoring `<hook>.legacy`, a symlink as the link it was) and the configuration
    install added (recorded in `install.json`; without a record, from an earlier version, our values).
    Notes and backup stay."""
    changes: list[str] = []
    folder = hooks_dir(repo)
    hooks = (*HOOKS, *LANDED_HOOKS, PUSH_HOOK)
    # A tool that took core.hooksPath after install (husky) leaves our hooks in the folder git used before.
    for where in dict.fromkeys((folder, repo.common_dir / "hooks")):
        for hook in hooks:
            changes += _remove_hook(where, hook)
    husky = husky_dir(repo, folder)
    if husky is not None:
        changes += remove_husky_calls(husky, hooks)
    record = _load_record(repo)
    for key, value in (*CONFIG, *RETIRED_PAIRS):
        added = record.get(key, []) if record is not None else [value]
        if value in added and value in _values(repo, key):
            _unset(repo, key, value)
            changes.append(f"Unset git config {key} = {value}.")
    (repo.state_dir / RECORD).unlink(missing_ok=True)
    return changes


def installed_at(folder: Path, hook: str) -> Path | None:
    """Where our `hook` is in `folder`: at its name, or where another tool moved it aside and chains it
    (pre-commit's `<hook>.legacy`, Entire's `<hook>.pre-entire`); None when it is nowhere."""
    for path in (folder / hook, *aside_names(folder, hook)):
        if is_ours(path):
            return path
    return None


def _remove_hook(folder: Path, hook: str) -> list[str]:
    """Remove our `hook` from `folder` and put back the hook we had kept aside as `<hook>.legacy`: at the
    hook's name, or, when another tool had moved ours aside, in the slot that tool chains. Lines another
    tool appended to ours stay."""
    path = installed_at(folder, hook)
    if path is None:
        return []
    legacy = folder / f"{hook}.legacy"
    tail = appended(path.read_text(encoding="utf-8", errors="surrogateescape"))
    path.unlink()
    moved = "" if path.name == hook else f" (kept as {path.name} by another tool)"
    changes = [f"Removed the {hook} hook{moved}."]
    if path != legacy and os.path.lexists(legacy):
        os.rename(legacy, path)
        changes.append(f"Restored your earlier {hook} hook{' as ' + path.name if moved else ''}.")
    if tail:
        keep_appended(path, tail)
        changes.append(f"Kept the lines another tool added to the {hook} hook.")
    return changes


def _values(repo: Repository, key: str) -> list[str]:
    return repo.git("config", "--get-all", key, check=False).splitlines()


def _unset(repo: Repository, key: str, value: str) -> None:
    repo.git("config", "--unset", key, f"^{value}$")


def _load_record(repo: Repository) -> dict[str, list[str]] | None:
    """The configuration values install added (`install.json`), or None when there is no record."""
    try:
        data = json.loads((repo.state_dir / RECORD).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        raise IntentError(
            f"The install record {repo.state_dir / RECORD} cannot be read.",
            hint="Delete it; uninstall then removes git-intent's own values.",
        ) from None
    config = data.get("config") if isinstance(data, dict) else None
    if not isinstance(config, dict):
        return None
    return {str(k): [str(v) for v in vs] for k, vs in config.items() if isinstance(vs, list)}


def _save_record(repo: Repository, record: dict[str, list[str]], undo: list[Callable[[], None]]) -> None:
    path = private_dir(repo.state_dir) / RECORD
    before = path.read_bytes() if path.is_file() else None
    write_text(path, json.dumps({"config": record}, indent=1, sort_keys=True) + "\n")
    undo.append(lambda: _put_back(path, before))


def _put_back(path: Path, data: bytes | None) -> None:
    """`path` as it was: `data`, or no file when it had none."""
    if data is None:
        path.unlink(missing_ok=True)
    else:
        path.write_bytes(data)
