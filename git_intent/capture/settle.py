"""Recording what the hooks queued before it is shared: `git intent push` right after `git commit` must send
the new commit's note, not race the background worker for it.

`record_queued` drains this repository's queue itself, or, while the hooks' worker holds the lock, waits
for it (bounded), then says which queued commits were recorded and which were not, and why.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..core.errors import IntentError
from ..git.repo import Repository
from .queue import failed, parse_job, pending
from .worker import drain

WAIT_SECONDS = 30.0  # how long `push` waits for a running worker by default
POLL_SECONDS = 0.2


@dataclass(frozen=True)
class Unrecorded:
    """A queued commit that is not recorded yet: `commit` (40 hex, or the job's file name when it names
    none), `state` ("queued": still in the queue, "failed": set aside in `failed/`) and `reason`, a
    sentence fragment."""

    commit: str
    state: Literal["queued", "failed"]
    reason: str


@dataclass
class Settled:
    """What `record_queued` did: `recorded` queued commits now recorded (by this process or the worker it
    waited for), those still `unrecorded`, and the seconds it `waited` for another worker."""

    recorded: int = 0
    unrecorded: list[Unrecorded] = field(default_factory=list)
    waited: float = 0.0


def record_queued(
    repo: Repository, *, timeout: float = WAIT_SECONDS, say: Callable[[str], None] | None = None
) -> Settled:
    """Record every job queued for this repository (both queues) before its refs are shared: drain them
    here, or, while another worker holds the lock, wait up to `timeout` seconds for it (one progress line
    through `say` when waiting), then drain what it left. Never raises: what could not be recorded is in
    `unrecorded`, with the reason."""
    say = say or (lambda _text: None)
    state = repo.state_dir
    jobs = pending(state)
    if not jobs:
        return Settled()
    set_aside = set(failed(state))
    commits = {path: _commits(path) for path in jobs}
    started = time.monotonic()
    problems: list[str] = []
    why = ""
    told = False
    while True:
        try:
            done = drain(repo, wait=False, say=problems.append)
        except IntentError as exc:  # the state folder cannot be written: no worker can record
            why = str(exc).rstrip(".")
            break
        if done.notes_ref_damage:
            why = f"refs/notes/git-intent {done.notes_ref_damage}; `git intent doctor` repairs it"
            break
        left = [path for path in jobs if path.exists()]
        if not done.busy or not left:
            break
        waited = time.monotonic() - started
        if waited >= timeout:
            why = f"the worker was still recording after {timeout:g} s; `git intent push` again sends them"
            break
        if not told:
            say(
                f"Waiting up to {timeout:g} s for git-intent's worker to record {_count(commits, left)} "
                f"queued commit(s)…"
            )
            told = True
        time.sleep(POLL_SECONDS)
    result = Settled(waited=round(time.monotonic() - started, 3) if told else 0.0)
    newly_failed = {path.name: path for path in failed(state) if path not in set_aside}
    for path in jobs:
        names = commits[path] or [path.name]
        if path.name in newly_failed:
            reason = _error(newly_failed[path.name])
            result.unrecorded += [Unrecorded(name, "failed", reason) for name in names]
        elif path.exists():
            reason = why or _problem(problems, names) or "it is still queued"
            result.unrecorded += [Unrecorded(name, "queued", reason) for name in names]
        else:
            result.recorded += len(commits[path])
    return result


def _commits(path: Path) -> list[str]:
    """The commits a queued job records: a commit's, a rewrite's new commits; none for a `landed` job (it
    looks for commits a forge made) or a job not readable yet (the file's name then stands for it)."""
    try:
        job = parse_job(path)
    except (ValueError, OSError):
        job = None
    if job is None:
        sha = path.stem.rsplit("-", 1)[-1]
        return [sha] if len(sha) == 40 else []
    if job.hook == "post-rewrite":
        return list(dict.fromkeys(new for _, new in job.pairs))
    return [job.commit] if job.hook == "post-commit" and job.commit else []


def _count(commits: dict[Path, list[str]], paths: list[Path]) -> int:
    return sum(max(1, len(commits[path])) for path in paths)


def _error(path: Path) -> str:
    """The first line of a failed job's report (`<name>.error` beside it)."""
    try:
        text = path.with_name(path.name + ".error").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "its recording failed"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines and lines[0].startswith("Traceback") else (lines[0] if lines else "failed")


def _problem(problems: list[str], names: list[str]) -> str:
    """What the drain said about one of `names` (the worker's own line), or ""."""
    for line in reversed(problems):
        if any(name in line for name in names):
            return line.splitlines()[0]
    return ""
