"""The single background worker: drains the capture journal, one job at a time, one worker at a time.

Each job becomes `record_commit` calls for the commit SHAs the shim captured (never HEAD, which may have
moved on). A job leaves the queue only after its note is written and read back, so a crash anywhere
re-runs it, and `record_commit` is idempotent: a re-run yields the same single record.

`python -P -m git_intent.capture.worker [--wait]` is the entry the hooks start (hook → queue → worker → record
→ notes, never through the CLI); `git intent record --pending` calls `drain` too.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import GitError, IntentError, NoteError, NotesRefDamagedError
from ..core.faults import crash_point
from ..core.state_files import (
    LinkedFileError,
    append_text,
    lock_file,
    locked,
    private_dir,
    tighten,
    write_text,
)
from ..core.terminal import terminal_safe
from ..git.repo import Repository
from ..notes import NOTES_REF, notes_ref_damage
from ..sessions.backup import retry_backups
from ..sessions.drift import NotRead
from .carry import picked_source, reverted_commit, rewritten_sources
from .install import retire_config
from .landed import carry_landed
from .queue import Job, attempts_file, complete, fail, parse_job, pending
from .record import RecordResult, record_commit

# A job whose recording failed this many times (a commit since garbage-collected, say) is set aside.
MAX_ATTEMPTS = 3
# How many tenths of a second to wait for a job a shim is still writing (it takes milliseconds).
INCOMPLETE_WAITS = 50


@dataclass
class DrainResult:
    """What one `drain` did; `busy` when another worker held the lock and this one did nothing;
    `notes_ref_damage` when refs/notes/git-intent is damaged and the jobs were left queued for `git intent
    doctor`."""

    results: list[RecordResult] = field(default_factory=list)
    processed: int = 0
    failed: int = 0
    retry: int = 0
    busy: bool = False
    notes_ref_damage: str | None = None
    # Record types the window's transcripts held that were not read, per agent version; `record --pending`
    # fills it, the background worker does not (it would parse the transcripts again).
    not_read: list[NotRead] = field(default_factory=list)


def drain(repo: Repository, *, wait: bool = False, say: Callable[[str], None] | None = None) -> DrainResult:
    """Process every queued job under `<state>/worker.lock`.

    Without `wait`, returns at once (busy) when another worker holds the lock: that worker looks at the
    queue again before it exits. Transient failures (git errors, a full disk) leave the job queued, up
    to `MAX_ATTEMPTS`; anything else moves it to `failed/` with a report. Never raises for a job.
    """
    say = say or (lambda _text: None)
    state = repo.state_dir
    try:
        private_dir(state)  # 0700, and an earlier version's 0644 files tightened
        tighten(
            state / "queue"
        )  # best effort: a queue that is not a folder sends the hooks to the fallback queue
        lock_file(state / "worker.lock").close()  # a link or an unwritable folder is told here, once
    except LinkedFileError as exc:
        raise IntentError(str(exc)) from None
    except OSError as exc:
        raise IntentError(
            f"git-intent cannot write its state folder {state} ({exc.strerror or exc}).",
            hint=f"Make it writable (chmod -R u+w {state}), then run `git intent record --pending`; "
            "`git intent status` lists the jobs waiting.",
        ) from None
    result = DrainResult()
    tried: set[Path] = set()
    while True:
        with locked(state / "worker.lock", wait=wait) as held:
            if not held:
                result.busy = result.processed == 0
                return result
            pid_file = state / "worker.pid"
            # SIGTERM (a shutdown) must still run the `finally` below, or a stale pid file is left.
            previous = _on_term(_exit_on_term)
            try:
                write_text(pid_file, str(os.getpid()))  # for the shims and `status`
                if not tried:  # once per run: copies a full disk kept out of the backup
                    retry_backups(repo, say)
                    _retire(repo, say)
                if not _blocked(repo, state, result, say):
                    _drain_once(repo, state, result, tried, say)
            finally:
                if previous is not None:
                    _on_term(previous)
                pid_file.unlink(missing_ok=True)
        # A shim may have queued a job after the last look but before the unlock: look again.
        if result.notes_ref_damage or not [p for p in pending(state) if p not in tried]:
            return result


def _retire(repo: Repository, say: Callable[[str], None]) -> None:
    """An earlier install's notes.rewriteRef made git's own amend and rebase fail on a damaged ref: taken
    back at the first drain after an upgrade, so no `install` needs running again."""
    try:
        for change in retire_config(repo):
            say(change)
    except (GitError, OSError) as exc:
        say(f"could not take back an earlier install's git config: {exc}")


def _blocked(repo: Repository, state: Path, result: DrainResult, say: Callable[[str], None]) -> bool:
    """Whether refs/notes/git-intent is damaged: then every job would fail its three attempts and land in
    failed/, so they all stay queued, untouched, and one line says how to repair."""
    jobs = pending(state)
    damage = notes_ref_damage(repo) if jobs else None
    if damage:
        result.notes_ref_damage = damage
        say(
            f"{NOTES_REF} {damage}: {len(jobs)} job(s) stay queued; run `git intent doctor` to "
            "repair it and record them."
        )
    return damage is not None


def _drain_once(
    repo: Repository, state: Path, result: DrainResult, tried: set[Path], say: Callable[[str], None]
) -> None:
    waits = 0
    while True:
        fresh = [p for p in pending(state) if p not in tried]
        if not fresh:
            return
        incomplete = 0
        for path in fresh:
            try:
                job = parse_job(path)
            except (ValueError, OSError) as exc:
                tried.add(path)
                fail(state, path, f"{exc}\n")
                result.failed += 1
                say(f"failed {path.name}: {exc}")
                continue
            if job is None:
                incomplete += 1  # a shim is still writing it: wait for it rather than strand it
                continue
            tried.add(path)
            crash_point("after-journal")
            try:
                result.results += process(_worktree(repo, job), job)
            except NotesRefDamagedError as exc:  # damaged while draining: not this job's fault, keep it
                result.notes_ref_damage = notes_ref_damage(repo) or str(exc)
                say(f"record {_about(path)} stays queued: {exc} Run `git intent doctor`.")
                return
            except (GitError, NoteError, OSError) as exc:
                if _attempts(path) + 1 >= MAX_ATTEMPTS:
                    fail(state, path, f"gave up after {MAX_ATTEMPTS} attempts: {exc}\n")
                    result.failed += 1
                else:
                    _count_attempt(path)
                    result.retry += 1
                say(f"record {_about(path)} failed (queued again, attempt {_attempts(path)}): {exc}")
                return  # later jobs (a rebase carrying from this commit) must not run before it
            except Exception:
                fail(state, path, traceback.format_exc())
                result.failed += 1
                say(f"record {_about(path)} failed (moved to failed/):\n{traceback.format_exc()}")
                continue
            crash_point("after-ref-update")
            complete(path)
            attempts_file(path).unlink(missing_ok=True)
            result.processed += 1
        if incomplete:
            waits += 1
            if waits > INCOMPLETE_WAITS:
                return
            time.sleep(0.1)


def _worktree(repo: Repository, job: Job) -> Repository:
    """The work tree the job's hook ran in (agents' transcripts are found by work tree), when it still
    exists and shares this repository; else the worker's own."""
    if not job.worktree or Path(job.worktree).resolve() == repo.root:
        return repo
    try:
        other = Repository(Path(job.worktree))
    except IntentError:
        return repo
    return other if other.common_dir == repo.common_dir else repo


def process(repo: Repository, job: Job) -> list[RecordResult]:
    """The `record_commit` calls a job stands for, classified by the reflog subject (docs/design.md)."""
    if job.hook == "post-rewrite":
        return _rewrite(repo, job)
    if job.hook == "landed":  # a pull or checkout brought commits a forge may have squashed or rebased
        return [landed.result for landed in carry_landed(repo)]
    commit, subject = job.commit, job.subject
    if commit is None or subject.startswith("rebase"):
        return []  # inside a rebase the post-rewrite job carries the records
    if subject.startswith("cherry-pick"):
        return [record_commit(repo, commit, sources=[job.cherry_pick] if job.cherry_pick else [], live=False)]
    if subject.startswith("commit (cherry-pick)"):
        # Concluded after a conflict: CHERRY_PICK_HEAD is gone; the source is found by author and patch.
        # Live sessions may explain what the carry leaves (the conflict resolution).
        return [record_commit(repo, commit, sources=picked_source(repo, commit), live=True)]
    sources = rewritten_sources(repo, commit, job.reflog[1:], subject)
    if subject.startswith("revert") or reverted_commit(repo, commit):
        return [record_commit(repo, commit, sources=sources, live=False)]
    if subject.startswith("commit") or not subject:
        return [record_commit(repo, commit, sources=sources, live=True)]
    return []


def _rewrite(repo: Repository, job: Job) -> list[RecordResult]:
    """amend: the new commit is the person's own work now (live sessions count); rebase: replayed older
    work, so only the old commits' records carry (a squash unions every old commit's records)."""
    if job.kind == "amend" and job.subject.startswith("rebase"):
        return []  # the sequencer amending a replayed commit; the rebase's own post-rewrite maps it all
    targets: dict[str, list[str]] = {}
    for old, new in job.pairs:
        targets.setdefault(new, []).append(old)
    live = job.kind == "amend"
    return [record_commit(repo, new, sources=olds, live=live) for new, olds in targets.items()]


def main(argv: list[str]) -> int:
    """The hooks' background worker: drain the queue (`--wait`: wait for a running worker, as the hooks do
    with GIT_INTENT_HOOK_SYNC=1), each result on stdout and each problem on stderr (both go to hook.log).
    Never fails a commit: always returns 0."""
    try:
        # Both streams go to hook.log, which people read with cat and tail: escaped like the CLI's output.
        repo = Repository()
        done = drain(
            repo,
            wait="--wait" in argv,
            say=lambda text: print(terminal_safe(text), file=sys.stderr, flush=True),
        )
        sys.stdout.write(terminal_safe("".join(r.text() for r in done.results)))
        sys.stdout.flush()
        start_annotation(repo, [key for r in done.results for key in r.sessions])
    except Exception:
        print(terminal_safe(f"record failed:\n{traceback.format_exc()}"), file=sys.stderr)
    return 0


def start_annotation(repo: Repository, keys: list[str]) -> bool:
    """With intent.annotate on and a model configured, start `git intent annotate --background` for the
    sessions `keys` (`agent:session_id`) credited, detached, its output to the hook log: after recording and
    never in the hook's path (litellm alone takes ~2.7 s to import). Returns whether it was started."""
    from ..config import annotate_settings, setting

    keys = list(dict.fromkeys(keys))
    try:
        if not keys or not annotate_settings(repo).background or not setting(repo, "model"):
            return False
        log = append_text(private_dir(repo.state_dir) / "hook.log")
    except (IntentError, OSError) as exc:
        print(terminal_safe(f"annotate not started: {exc}"), file=sys.stderr, flush=True)
        return False
    import subprocess

    with log:
        subprocess.Popen(
            [sys.executable, "-P", "-m", "git_intent", "annotate", "--background", *keys],
            cwd=repo.root,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )
    return True


def _on_term(handler: Any) -> Any:
    """Install a SIGTERM handler where that is possible (the main thread); returns the previous one."""
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:
        return None


def _exit_on_term(_signum: int, _frame: object) -> None:
    raise SystemExit(143)


def _about(path: Path) -> str:
    """The commit a job file names (post-commit jobs are `<pid>-<sha>.job`), else the file name."""
    sha = path.stem.rsplit("-", 1)[-1]
    return sha if len(sha) == 40 else path.name


def _attempts(path: Path) -> int:
    try:
        return int(attempts_file(path).read_text(encoding="utf-8").strip() or 0)
    except (OSError, ValueError):
        return 0


def _count_attempt(path: Path) -> None:
    write_text(attempts_file(path), str(_attempts(path) + 1))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
