"""`git intent status`: the capture journal's queued and failed work, the worker, the last errors, and
what stops capture (a damaged notes ref, an unwritable state folder and the fallback queue)."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel

from ..git.repo import Repository
from ..notes import NOTES_REF, notes_ref_damage
from ..sessions.backup import pending_backups
from .install import rewrite_ref_set
from .queue import failed, fallback_queue_dir, parse_job, pending, state_problem, worker_busy

LOG_TAIL = 400  # lines of hook.log searched for errors


class QueuedJob(BaseModel):
    """A queued or failed job: its file, what it is about, its age in seconds, and its error if failed."""

    name: str
    hook: str | None
    commit: str | None
    subject: str | None
    age_seconds: float
    error: str | None = None
    fallback: bool = False  # queued in the fallback queue: the state folder's queue was not writable


class CaptureStatus(BaseModel):
    """Where capture stands for this repository."""

    worker_running: bool
    pending: list[QueuedJob]
    failed: list[QueuedJob]
    last_errors: list[str]
    pending_backups: (
        int  # session copies a failure (a full disk) kept out of the backup; the next run retries
    )
    state_dir: str
    notes_ref_damage: str | None = None  # what is wrong with refs/notes/git-intent ("points at a blob (…)")
    rewrite_ref_breaks_git: bool = False  # damaged while notes.rewriteRef names it: amend and rebase fail
    state_problem: str | None = None  # why the hooks cannot queue in <state>/queue
    fallback_queue: str | None = None  # where they queue instead


def capture_status(repo: Repository) -> CaptureStatus:
    """Read the queue, the failed jobs and the end of `hook.log`; never raises for their content."""
    state = repo.state_dir
    errors: list[str] = []
    try:
        tail = (state / "hook.log").read_text(encoding="utf-8", errors="replace").splitlines()[-LOG_TAIL:]
        errors = [line for line in tail if "error" in line.lower() or "failed" in line.lower()][-5:]
    except OSError:
        pass
    damage = notes_ref_damage(repo)
    fallback = fallback_queue_dir(state)
    return CaptureStatus(
        worker_running=_worker_running(state),
        pending=[_describe(p, fallback=p.parent == fallback) for p in pending(state)],
        failed=[_describe(p, error=True) for p in failed(state)],
        last_errors=errors,
        pending_backups=len(pending_backups(repo)),
        state_dir=str(state),
        notes_ref_damage=damage,
        rewrite_ref_breaks_git=damage is not None and rewrite_ref_set(repo),
        state_problem=state_problem(state),
        fallback_queue=str(fallback) if fallback else None,
    )


def _worker_running(state: Path) -> bool:
    """A live pid in `worker.pid` whose lock is held (a pid alone may have been reused after a crash)."""
    try:
        pid = int((state / "worker.pid").read_text(encoding="utf-8").strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return worker_busy(state)


def _describe(path: Path, error: bool = False, fallback: bool = False) -> QueuedJob:
    try:
        job = parse_job(path)
    except (ValueError, OSError):
        job = None
    message = None
    if error:
        try:
            message = (
                path.with_name(path.name + ".error").read_text(encoding="utf-8").strip().splitlines()[-1]
            )
        except (OSError, IndexError):
            message = "no report"
    try:
        age = time.time() - path.stat().st_mtime
    except OSError:
        age = 0.0
    return QueuedJob(
        name=path.name,
        hook=job.hook if job else None,
        commit=job.commit if job else None,
        subject=(job.subject or job.kind) if job else None,
        age_seconds=round(age, 1),
        error=message,
        fallback=fallback,
    )


def status_text(report: CaptureStatus) -> str:
    """The status for people: one line per job, then the last errors."""
    out = []
    if report.notes_ref_damage:  # first, and on one line: nothing is recorded until it is repaired
        out.append(
            f"notes     {NOTES_REF} {report.notes_ref_damage}"
            + (
                "; `git commit --amend` and rebase fail until it is repaired"
                if report.rewrite_ref_breaks_git
                else ""
            )
            + ". Run `git intent doctor` to repair it."
        )
    fallback = [job for job in report.pending if job.fallback]
    if report.state_problem:
        out.append(
            f"state     {report.state_problem}: commits are queued in the fallback queue "
            f"{report.fallback_queue or '(none: HOME is unset)'}; make it writable, then run "
            "`git intent record --pending`."
        )
    elif fallback:
        out.append(
            f"fallback  {len(fallback)} job(s) in {report.fallback_queue}, queued while the state folder "
            "was not writable; `git intent record --pending` records them."
        )
    out += [
        f"worker    {'running' if report.worker_running else 'idle'}",
        f"queued    {len(report.pending)} job(s)",
        f"failed    {len(report.failed)} job(s)",
    ]
    for job in report.pending:
        out.append(
            f"  queued  {job.name}  {(job.commit or '')[:12]}  {job.subject or ''}  "
            f"{job.age_seconds:.0f}s ago" + ("  (fallback queue)" if job.fallback else "")
        )
    for job in report.failed:
        out.append(f"  failed  {job.name}  {(job.commit or '')[:12]}  {job.error}")
    if report.pending and not report.notes_ref_damage and not report.state_problem:
        out.append("Run `git intent record --pending` to process the queue now.")
    if report.pending_backups:
        out.append(
            f"backups   {report.pending_backups} session copy(ies) still to make in the backup (a copy "
            "failed, say on a full disk); the next commit retries, `git intent record --pending` now."
        )
    if report.failed and not report.notes_ref_damage:
        out.append("Run `git intent doctor` to queue the failed jobs again and record them.")
    if report.last_errors:
        out.append("last errors in hook.log:")
        out += [f"  {line}" for line in report.last_errors]
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    out.append(f"state     {report.state_dir} (as of {stamp})")
    return "\n".join(out) + "\n"
