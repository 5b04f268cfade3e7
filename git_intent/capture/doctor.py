"""`git intent doctor`: check what capture relies on, and repair what is safe to repair.

Repairs: a damaged refs/notes/git-intent is set aside and rebuilt (its reflog, then the commits the local
journal links, re-recorded through `record_commit`); failed jobs go back to the queue and the queue is
drained; a stale `worker.pid` is removed. Reported only, with the command that fixes them: hooks missing or
pointing at a Python that is gone, an unwritable state folder (jobs then wait in the fallback queue).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from pydantic import BaseModel

from ..config import lookback
from ..core.errors import IntentError
from ..git.repo import Repository
from ..notes import NOTES_REF, note_blobs, notes_ref_damage, set_aside
from ..notes.evidence_ref import bad_objects
from ..sessions.backup import journal_commits
from ..sessions.drift import drift_on_disk
from .install import HOOKS, LANDED_HOOKS, hooks_dir, installed_at, rewrite_ref_set
from .queue import failed, fallback_queue_dir, pending, queue_dir, requeue_failed, state_problem, worker_busy
from .record import record_commit
from .worker import drain


class Check(BaseModel):
    """One thing doctor looked at: `ok` once it is fine (after any repair), one sentence saying what it
    found and did, and the command that fixes what doctor leaves to the user."""

    name: str  # "notes-ref" | "queue" | "state" | "worker-pid" | "hooks" | "evidence" | "transcripts"
    ok: bool
    detail: str
    repaired: bool = False
    hint: str | None = None


class DoctorReport(BaseModel):
    """What `git intent doctor` found and repaired; `ok` when every check is fine now."""

    ok: bool
    checks: list[Check]
    notes_ref_kept: str | None = None  # where the damaged ref's value is kept
    notes_restored_from: str | None = None  # the reflog's notes commit the rebuilt ref started from
    rerecorded: int = 0  # journaled commits recorded again into the rebuilt ref
    requeued: int = 0  # failed jobs moved back to the queue
    recorded: int = 0  # queued jobs the drain processed
    still_queued: int = 0
    still_failed: int = 0


def run_doctor(repo: Repository, *, repair: bool = True) -> DoctorReport:
    """Run every check, repairing unless `repair` is False; never raises for what it finds."""
    report = DoctorReport(ok=True, checks=[])
    report.checks.append(_state(repo))
    report.checks.append(_notes_ref(repo, report, repair))
    report.checks.append(_worker_pid(repo, repair))
    report.checks.append(_queue(repo, report, repair))
    report.checks.append(_hooks(repo))
    report.checks.append(_evidence(repo))
    report.checks.append(_transcripts(repo))
    report.ok = all(c.ok for c in report.checks)
    return report


def _evidence(repo: Repository) -> Check:
    """Shared session blobs no command can read (other people wrote them); every reader skips them."""
    bad = bad_objects(repo)
    if not bad:
        return Check(name="evidence", ok=True, detail="Every shared session blob is readable.")
    listed = "; ".join(f"{where} ({oid[:12]}) {problem}" for where, oid, problem in bad)
    return Check(
        name="evidence",
        ok=False,
        detail=f"{len(bad)} shared session blob(s) cannot be read and are ignored: {listed}.",
        hint="Ask whoever shared them to share them again; `git intent share "
        "--forget SESSION` removes one from refs/intent/evidence.",
    )


def _notes_ref(repo: Repository, report: DoctorReport, repair: bool) -> Check:
    damage = notes_ref_damage(repo)
    if damage is None:
        return Check(name="notes-ref", ok=True, detail=f"{NOTES_REF} is readable.")
    breaks = (
        (
            ' While notes.rewriteRef names it, `git commit --amend` and rebase fail with "Failed to read '
            'notes tree".'
        )
        if rewrite_ref_set(repo)
        else ""
    )
    if not repair:
        return Check(
            name="notes-ref",
            ok=False,
            detail=f"{NOTES_REF} {damage}.{breaks}",
            hint="Run `git intent doctor` to set it aside and rebuild it.",
        )
    try:
        aside = set_aside(repo)
    except IntentError as exc:
        return Check(
            name="notes-ref",
            ok=False,
            detail=f"{NOTES_REF} {damage}; setting it aside failed: {exc}",
            hint=f"Move it aside by hand: git update-ref -d {NOTES_REF}, then `git intent doctor`.",
        )
    if aside is None:  # repaired meanwhile by another doctor
        return Check(name="notes-ref", ok=True, detail=f"{NOTES_REF} is readable.")
    report.notes_ref_kept, report.notes_restored_from = aside.kept, aside.restored_from
    report.rerecorded, problems = _rerecord(repo)
    source = f"its reflog ({aside.restored_from[:12]})" if aside.restored_from else "an empty notes commit"
    detail = (
        f"{NOTES_REF} {damage}: kept as {aside.kept}; rebuilt from {source} and {report.rerecorded} "
        f"commit(s) of the local journal recorded again."
    )
    if problems:
        detail += f" {len(problems)} could not be: {problems[0]}"
    return Check(name="notes-ref", ok=True, detail=detail, repaired=True)


def _rerecord(repo: Repository) -> tuple[int, list[str]]:
    """Record again, through the normal path, each journaled commit that still exists and has no note."""
    noted = note_blobs(repo)
    done, problems = 0, []
    for commit in journal_commits(repo):
        if commit in noted or not repo.succeeds("cat-file", "-e", f"{commit}^{{commit}}"):
            continue
        try:
            record_commit(repo, commit)
            done += 1
        except IntentError as exc:
            problems.append(f"{commit[:12]}: {exc}")
    return done, problems


def _queue(repo: Repository, report: DoctorReport, repair: bool) -> Check:
    state = repo.state_dir
    if repair:
        try:
            report.requeued = requeue_failed(state)
            if pending(state):
                done = drain(repo, wait=True)
                report.recorded = done.processed
        except (IntentError, OSError) as exc:
            return Check(
                name="queue",
                ok=False,
                detail=f"The queue could not be drained: {exc}",
                hint=getattr(exc, "hint", None),
            )
    report.still_queued, report.still_failed = len(pending(state)), len(failed(state))
    detail = (
        f"{report.requeued} failed job(s) queued again, {report.recorded} job(s) recorded; " if repair else ""
    ) + f"{report.still_queued} queued, {report.still_failed} failed."
    hint = None
    if report.still_failed:
        hint = (
            "`git intent status` shows each failed job's error; `git intent record SHA` records a commit "
            "by hand."
        )
    elif report.still_queued:
        hint = "Run `git intent record --pending` to process the queue."
    return Check(
        name="queue",
        ok=not (report.still_queued or report.still_failed),
        detail=detail,
        repaired=bool(report.requeued or report.recorded),
        hint=hint,
    )


def _state(repo: Repository) -> Check:
    """The state folder and its queue must be writable, or the hooks queue to the fallback queue."""
    state, queue = repo.state_dir, queue_dir(repo.state_dir)
    fallback = fallback_queue_dir(state)
    waiting = [p for p in pending(state) if fallback is not None and p.parent == fallback]
    problem = state_problem(state)
    if problem is None:
        detail = f"{state} is writable."
        if waiting:
            detail += f" {len(waiting)} job(s) in the fallback queue {fallback} are drained with the queue."
        return Check(name="state", ok=True, detail=detail)
    return Check(
        name="state",
        ok=False,
        detail=f"{problem}: the hooks queue commits in {fallback or 'no fallback queue (HOME is unset)'} "
        f"instead ({len(waiting)} waiting).",
        hint=f"Make {queue} a writable folder (chmod -R u+w {state}), then run `git intent doctor` again.",
    )


def _worker_pid(repo: Repository, repair: bool) -> Check:
    pid_file = repo.state_dir / "worker.pid"
    if not pid_file.exists() or worker_busy(repo.state_dir):
        return Check(name="worker-pid", ok=True, detail="No stale worker.pid.")
    if repair:
        pid_file.unlink(missing_ok=True)
        return Check(
            name="worker-pid",
            ok=True,
            repaired=True,
            detail="Removed a stale worker.pid (no worker held worker.lock).",
        )
    return Check(
        name="worker-pid",
        ok=False,
        detail=f"{pid_file} names no running worker.",
        hint="Run `git intent doctor` to remove it.",
    )


def _hooks(repo: Repository) -> Check:
    folder = hooks_dir(repo)
    problems = []
    for hook in (*HOOKS, *LANDED_HOOKS):  # the forge-merge hooks too: an older install lacks them
        path = installed_at(folder, hook)  # or kept aside and chained by another tool (pre-commit, Entire)
        if path is None:
            problems.append(f"{hook} is not git-intent's")
            continue
        python = _shim_python(path)
        if python is None or not os.access(python, os.X_OK):
            problems.append(f"{hook} calls a Python that is gone ({python})")
    if not problems:
        return Check(
            name="hooks",
            ok=True,
            detail=f"The {', '.join((*HOOKS, *LANDED_HOOKS))} hooks in {folder} are git-intent's.",
        )
    return Check(
        name="hooks",
        ok=False,
        detail=f"In {folder}: {'; '.join(problems)} (fine when a hook manager runs `git-intent-hook`).",
        hint="Run `git intent install` to write them with this Python.",
    )


def _shim_python(path: Path) -> str | None:
    """The Python a shim calls (its `INTENT_PYTHON=` line, shell-quoted)."""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("INTENT_PYTHON="):
            words = shlex.split(line[len("INTENT_PYTHON=") :])
            return words[0] if words else None
    return None


def _transcripts(repo: Repository) -> Check:
    """Record types the last `intent.lookbackDays` of transcripts held that git-intent did not read, per agent
    and version, and agent versions newer than the fixtures cover: a note, so the check stays ok."""
    window = lookback(repo)
    try:
        drift = drift_on_disk(repo, window)
    except Exception as exc:  # a diagnostic must not fail on one odd transcript
        return Check(
            name="transcripts", ok=True, detail=f"The transcripts on disk could not all be read ({exc})."
        )
    if not drift:
        return Check(
            name="transcripts",
            ok=True,
            detail=f"The transcripts of the last {window.days} days hold no "
            "record type git-intent does not read.",
        )
    newer = sorted({f"{d.agent} {d.version}" for d in drift if d.newer})
    return Check(
        name="transcripts",
        ok=True,
        detail="; ".join(d.text() for d in drift)
        + (
            f". Newer than git-intent's fixtures: {', '.join(newer)}; what it reads of them may be partial."
            if newer
            else "."
        ),
    )


def doctor_text(report: DoctorReport) -> str:
    """One line per check (`ok`, `fixed` or `PROBLEM`), each hint indented below its check."""
    out = []
    for check in report.checks:
        mark = "fixed" if check.repaired and check.ok else ("ok" if check.ok else "PROBLEM")
        out.append(f"{mark:<8} {check.name:<11} {check.detail}")
        if check.hint and not check.ok:
            out.append(f"{'':<20} {check.hint}")
    return "\n".join(out) + "\n"
