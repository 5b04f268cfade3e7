"""The capture journal: jobs the hook shims append to `<git common dir>/intent/queue/`, and failed ones.

A job is a small text file written by a shell shim (hooks/post-commit, hooks/post-rewrite):

    hook post-commit              hook post-rewrite
    worktree <path>               worktree <path>
    cherry-pick [<sha>]           kind amend|rebase
    hint NAME=VALUE ...           reflog
    reflog                        <sha> <reflog subject of HEAD>
    <sha> <reflog subject>        pairs
    ... (up to three, newest first)   <old sha> <new sha> [extra]
    end                           end

and the post-merge and post-checkout shims write `hook landed`, `worktree <path>`, `end`: new commits
arrived, so the worker looks for those a forge squashed or rebased from recorded ones.

A file without its final `end` line is still being written (or was cut short by a full disk).

When `<git common dir>/intent/queue/` cannot be written (a read-only `.git/intent`), the shims
write the job to this user's fallback queue instead, `fallback_queue_dir`:
`${XDG_STATE_HOME:-~/.local/state}/git-intent/repos/<absolute git common dir>/queue/` (the path spelled
out rather than hashed, so a person can find it and the shell computes it without a hash tool). `pending`
lists both queues, so the worker drains the fallback queue like the main one.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..core.state_files import append_text, locked, private_dir, tighten, write_text
from ..core.terminal import terminal_safe

_HEX = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?(?: |$)")
# A job without its `end` line this old was cut short (a full disk, a crash) and will never complete.
TORN_AFTER_SECONDS = 60.0


@dataclass
class Job:
    """One queued job: what the shim saw when the commit or rewrite happened."""

    path: Path
    hook: str
    worktree: str | None = None  # the work tree the hook ran in
    reflog: list[str] = field(default_factory=list)  # "<sha> <subject>", newest first
    cherry_pick: str | None = None
    hints: dict[str, str] = field(default_factory=dict)
    kind: str | None = None  # post-rewrite: "amend" | "rebase"
    pairs: list[tuple[str, str]] = field(default_factory=list)

    @property
    def commit(self) -> str | None:
        """The commit a post-commit job is about (40 hex), or None."""
        sha = self.reflog[0].split(" ", 1)[0] if self.reflog else ""
        return sha if len(sha) == 40 else None

    @property
    def subject(self) -> str:
        """The reflog subject of the commit ("commit", "commit (amend)", "cherry-pick", ...), or ""."""
        parts = self.reflog[0].split(" ", 1) if self.reflog else []
        return parts[1] if len(parts) == 2 else ""


def worker_busy(state: Path) -> bool:
    """Whether a worker holds `<state>/worker.lock` right now."""
    try:
        with locked(state / "worker.lock", wait=False) as held:
            return not held
    except OSError:
        return False


def queue_dir(state: Path) -> Path:
    return state / "queue"


def failed_dir(state: Path) -> Path:
    return state / "failed"


def fallback_queue_dir(state: Path) -> Path | None:
    """The fallback queue of the repository whose state folder is `state` (`<common dir>/intent`), or None
    when neither XDG_STATE_HOME nor HOME is set (the shims then print one line instead of queueing)."""
    base = os.environ.get("XDG_STATE_HOME") or (
        os.path.join(os.environ["HOME"], ".local", "state") if os.environ.get("HOME") else ""
    )
    if not base:
        return None
    common = state.parent.resolve()  # as the shims' `pwd -P`
    return Path(base) / "git-intent" / "repos" / common.relative_to(common.anchor) / "queue"


def pending(state: Path) -> list[Path]:
    """Queued job files of the queue and the fallback queue, oldest first (by modification time, then
    name)."""
    folders = [queue_dir(state)]
    extra = fallback_queue_dir(state)
    if extra is not None:
        folders.append(extra)
    files: list[Path] = []
    for folder in folders:
        try:
            files += [p for p in folder.iterdir() if p.suffix == ".job"]
        except OSError:
            continue
    return sorted(files, key=lambda p: (_mtime(p), p.name))


def state_problem(state: Path) -> str | None:
    """Why the hooks cannot queue in `<state>/queue` (a sentence fragment), or None when they can."""
    queue = queue_dir(state)
    for folder in (queue, state):
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                return f"{folder} is not a folder"
            if not os.access(folder, os.W_OK | os.X_OK):
                return f"{folder} is not writable"
            return None
    return None if os.access(state.parent, os.W_OK | os.X_OK) else f"{state.parent} is not writable"


def attempts_file(job: Path) -> Path:
    """Where the worker counts a job's failed attempts (beside the job: `<name>.attempts`)."""
    return job.with_suffix(".attempts")


def requeue_failed(state: Path) -> int:
    """Move every failed job back to the queue (its report and attempt count dropped), so the next drain
    tries it afresh; returns how many. Raises OSError when the queue cannot be written."""
    moved = 0
    for path in failed(state):
        target = private_dir(state, "queue") / path.name
        attempts_file(target).unlink(missing_ok=True)  # left by the attempts that failed
        os.replace(path, target)
        path.with_name(path.name + ".error").unlink(missing_ok=True)
        moved += 1
    return moved


def failed(state: Path) -> list[Path]:
    """Job files that failed, oldest first; each has a `<name>.error` beside it."""
    folder = failed_dir(state)
    try:
        return sorted((p for p in folder.iterdir() if p.suffix == ".job"), key=lambda p: (_mtime(p), p.name))
    except OSError:
        return []


def parse_job(path: Path) -> Job | None:
    """The job in `path`, or None while it is incomplete. Raises ValueError for a torn or unknown job."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    if not lines or lines[-1] != "end":
        if time.time() - _mtime(path) > TORN_AFTER_SECONDS:
            raise ValueError(f"the job {path.name} was cut short (no `end` line)")
        return None
    head = lines[0].split(" ", 1)
    if len(head) != 2 or head[0] != "hook" or head[1] not in ("post-commit", "post-rewrite", "landed"):
        raise ValueError(f"the job {path.name} is not a git-intent job")
    job = Job(path=path, hook=head[1])
    section = ""
    for line in lines[1:-1]:
        if line in ("reflog", "pairs"):
            section = line
        elif section == "reflog":
            # Only "<sha> <subject>" lines: log.showSignature or a hook's noise must not pass for a commit.
            if _HEX.match(line.strip()):
                job.reflog.append(line.strip())
        elif section == "pairs":
            fields = line.split()
            if len(fields) >= 2:
                job.pairs.append((fields[0], fields[1]))
        elif line.startswith("worktree "):
            job.worktree = line[len("worktree ") :]
        elif line.startswith("cherry-pick"):
            job.cherry_pick = line[len("cherry-pick") :].strip() or None
        elif line.startswith("hint "):
            name, _, value = line[5:].partition("=")
            job.hints[name] = value
        elif line.startswith("kind "):
            job.kind = line[5:].strip()
    return job


def complete(path: Path) -> None:
    """Remove a processed job."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def fail(state: Path, path: Path, error: str) -> None:
    """Move a job to `failed/` with its error beside it, so it is never lost and never retried blindly."""
    folder = private_dir(state, failed_dir(state).name)
    write_text(folder / f"{path.name}.error", error)
    os.replace(path, folder / path.name)
    tighten(folder / path.name)  # a job an earlier shim wrote 0644


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def log(state_dir: Path, message: str) -> None:
    """Append one UTC-timestamped line to `<state dir>/hook.log`; never raises."""
    try:
        with append_text(private_dir(state_dir) / "hook.log") as handle:
            handle.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {terminal_safe(message)}\n")
    except OSError:
        pass
