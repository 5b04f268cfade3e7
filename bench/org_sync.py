"""`git intent org sync` over a generated organisation: N bare repositories (200 by default), each with
`--commits` commits (50) that append a few lines to one file and a git-intent note on every commit, synced
into a SQLite store and into a private PostgreSQL server with 1 and 4 jobs.

Each repository is written by one `git fast-import` stream: the commits on refs/heads/main, then one commit on
refs/notes/git-intent holding a note per commit (fast-import's notemodify). The notes are git-intent's own
(`render_note` of a commit record, and on every commit a session record and a lines record crediting about
half its added lines to an agent session); every fourth repository shares its first session with the next
three, so spanning sessions exist. No shared evidence: the agent lines are `agent_without_evidence`.

Per store and jobs, in this process: the first sync of all N (wall seconds, repositories/s, commits/s), the
second sync with nothing changed, and a sync after one more noted commit in 10 repositories (only those
load; they are put back afterwards). Then memory: a first sync of 50, 100 and N repositories, each in a new
child process (SQLite, 4 jobs), its resident set before and after the sync and its peak (VmRSS and VmHWM of
/proc/self/status: the git processes it starts are not counted, each is one short fetch or read).

Run:  .venv/bin/python bench/org_sync.py [--repos 200] [--commits 50] [--no-postgres] [--json]
The PostgreSQL server is Debian's (tests/support/postgres.py, scripts/ensure-postgresql) in a temporary
directory with its default settings (fsync on), stopped at the end; without one, its rows are skipped with
the reason printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # tests/support/postgres.py starts the private server
sys.path.insert(0, str(ROOT / "bench"))

from _common import isolate  # noqa: E402

from git_intent.notes.records import (  # noqa: E402
    CommitRecord,
    LinesRecord,
    SessionRecord,
    range_digest,
    render_note,
)
from git_intent.org.store import open_store  # noqa: E402
from git_intent.org.sync import SyncReport, sync  # noqa: E402

NOTES_REF = "refs/notes/git-intent"
FILE = "app.py"
T0 = 1_735_689_600  # 2025-01-01 UTC
PERSON = "A Person <person@example.com>"
SESSIONS_PER_REPO = 5
SHARING = 4  # repositories 4k..4k+3 share their first session
CHANGED = 10  # repositories given one more commit for the incremental sync
RSS_SIZES = (50, 100)  # and --repos


def added(i: int) -> int:
    """Non-blank lines commit `i` adds: 3 to 6."""
    return 3 + i % 4


def credited(i: int) -> int:
    """Of those, the lines the note credits to an agent session (about half)."""
    return added(i) // 2 if i % 2 else (added(i) + 1) // 2


def new_lines(repo: int, i: int) -> list[str]:
    return [f"value_{repo}_{i}_{k} = compute({i}, {k})  # repository {repo}" for k in range(added(i))]


def session_id(repo: int, i: int, commits: int) -> str:
    slot = i * SESSIONS_PER_REPO // max(commits, 1)
    if slot == 0:
        return str(uuid.UUID(int=(1 << 64) + repo // SHARING))
    return str(uuid.UUID(int=(repo << 16) + slot))


def _git_object(kind: str, body: bytes) -> str:
    return hashlib.sha1(f"{kind} {len(body)}\0".encode() + body).hexdigest()


def _commit_sha(content: bytes, parent: str | None, when: int, message: str) -> str:
    """The id git gives the commit fast-import writes: one file `FILE` holding `content`."""
    blob = _git_object("blob", content)
    tree = _git_object("tree", f"100644 {FILE}\0".encode() + bytes.fromhex(blob))
    head = f"tree {tree}\n" + (f"parent {parent}\n" if parent else "")
    stamp = f"{PERSON} {when} +0000"
    return _git_object("commit", f"{head}author {stamp}\ncommitter {stamp}\n\n{message}".encode())


def _note(repo: int, i: int, sha: str, start: int, commits: int) -> str:
    lines = new_lines(repo, i)
    agent_lines = credited(i)
    session = session_id(repo, i, commits)
    return render_note(
        [
            CommitRecord(
                commit=sha,
                lines_added=len(lines),
                lines_attributed=agent_lines,
                recorded_by="git-intent bench",
            ),
            SessionRecord(agent="claude-code", session_id=session, lines_attributed=agent_lines),
            LinesRecord(
                agent="claude-code",
                session_id=session,
                message_id=str(uuid.UUID(int=(repo << 32) + i + 7)),
                tool="Edit",
                match="exact",
                confidence=1.0,
                path=FILE,
                start=start,
                end=start + agent_lines - 1,
                sha=range_digest(lines[:agent_lines]),
            ),
        ]
    )


def _data(text: str | bytes) -> bytes:
    raw = text.encode() if isinstance(text, str) else text
    return f"data {len(raw)}\n".encode() + raw + b"\n"


def _stream(
    repo: int, first: int, last: int, commits: int, parent: str | None, notes: str | None
) -> tuple[bytes, str | None]:
    """A fast-import stream adding commits `first..last-1` of repository `repo` on top of `parent` (and of
    the notes commit `notes`), and the id its last commit will have; the file holds every line of commits
    0..i."""
    content = "".join(line + "\n" for i in range(first) for line in new_lines(repo, i))
    out: list[bytes] = []
    noted: list[tuple[int, str]] = []
    for i in range(first, last):
        start = content.count("\n") + 1
        content += "".join(line + "\n" for line in new_lines(repo, i))
        when = T0 + repo * 60 + i * 3600
        message = f"Change {i} of repository {repo}\n"
        sha = _commit_sha(content.encode(), parent, when, message)
        out.append(f"commit refs/heads/main\nmark :{i + 1}\n".encode())
        out.append(f"author {PERSON} {when} +0000\ncommitter {PERSON} {when} +0000\n".encode())
        out.append(_data(message))
        if i == first and parent:
            out.append(f"from {parent}\n".encode())
        out.append(f"M 100644 inline {FILE}\n".encode() + _data(content))
        noted.append((i, _note(repo, i, sha, start, commits)))
        parent = sha
    when = T0 + repo * 60 + last * 3600
    out.append(f"commit {NOTES_REF}\ncommitter {PERSON} {when} +0000\n".encode() + _data("Notes added\n"))
    if notes:
        out.append(f"from {notes}\n".encode())
    for i, text in noted:
        out.append(f"N inline :{i + 1}\n".encode() + _data(text))
    return b"".join(out), parent


def _fast_import(path: Path, stream: bytes) -> None:
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=stream, check=True)


def heads(path: Path) -> tuple[str, str]:
    """(refs/heads/main, the notes ref) of a repository."""
    out = subprocess.run(
        ["git", "rev-parse", "refs/heads/main", NOTES_REF],
        cwd=path,
        capture_output=True,
        text=True,
        check=True,
    )
    main, notes = out.stdout.split()
    return main, notes


def make_repository(path: Path, repo: int, commits: int) -> None:
    """A bare repository at `path`, with `commits` noted commits; checks the ids foreseen in the notes."""
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    stream, expected = _stream(repo, 0, commits, commits, None, None)
    _fast_import(path, stream)
    if heads(path)[0] != expected:
        raise RuntimeError(f"{path}: git's commit ids differ from the ones the notes name")


def make_organisation(root: Path, repos: int, commits: int) -> list[Path]:
    """`repos` bare repositories under `root`, named repo-000.git and on."""
    root.mkdir(parents=True, exist_ok=True)
    paths = [root / f"repo-{n:03d}.git" for n in range(repos)]
    for n, path in enumerate(paths):
        make_repository(path, n, commits)
    return paths


def add_commit(path: Path, repo: int, commits: int) -> None:
    """One more noted commit (number `commits`) on repository `repo`."""
    main, notes = heads(path)
    _fast_import(path, _stream(repo, commits, commits + 1, commits + 1, main, notes)[0])


def reset(path: Path, saved: tuple[str, str]) -> None:
    for ref, sha in zip(("refs/heads/main", NOTES_REF), saved, strict=True):
        subprocess.run(["git", "update-ref", ref, sha], cwd=path, check=True)


def _timed_sync(sources: list[str], target: str, cache: Path, jobs: int) -> tuple[float, SyncReport]:
    with open_store(target) as store:
        started = time.perf_counter()
        report = sync(sources, store, cache_dir=cache, jobs=jobs)
        return time.perf_counter() - started, report


def _check(report: SyncReport, loaded: int, unchanged: int) -> None:
    if (report.loaded, report.unchanged, report.failed) != (loaded, unchanged, 0):
        problems = [r.problem for r in report.sources if r.problem][:3]
        raise RuntimeError(f"sync: {report.loaded} loaded, {report.unchanged} unchanged, failed: {problems}")


def measure(paths: list[str], target: str, cache: Path, jobs: int, commits: int) -> dict[str, float]:
    first, report = _timed_sync(paths, target, cache, jobs)
    _check(report, len(paths), 0)
    total_commits = sum(r.commits for r in report.sources)
    second, report = _timed_sync(paths, target, cache, jobs)
    _check(report, 0, len(paths))
    changed = [Path(p) for p in paths[:: max(len(paths) // CHANGED, 1)][:CHANGED]]
    saved = {p: heads(p) for p in changed}
    for p in changed:
        add_commit(p, int(p.name[5:8]), commits)
    try:
        third, report = _timed_sync(paths, target, cache, jobs)
        _check(report, len(changed), len(paths) - len(changed))
    finally:
        for p, tips in saved.items():
            reset(p, tips)
    return {
        "first_s": round(first, 2),
        "repos_per_s": round(len(paths) / first, 1),
        "commits_per_s": round(total_commits / first, 1),
        "unchanged_s": round(second, 2),
        "changed": len(changed),
        "changed_s": round(third, 2),
    }


def targets(work: Path, postgres: bool) -> Iterator[tuple[str, str]]:
    """(store, where its databases go): SQLite files in `work`, and a private PostgreSQL server's URL when
    one starts (else the reason is printed)."""
    yield "sqlite", str(work)
    if not postgres:
        return
    from support.postgres import ServerUnavailable, start_server

    try:
        server = start_server(settings=())
    except ServerUnavailable as exc:
        print(f"postgresql skipped: {exc}", flush=True)
        return
    try:
        yield "postgresql", server.url()
    finally:
        server.stop()


def child_rss(paths: list[str], work: Path, jobs: int) -> dict[str, float]:
    """A first sync of `paths` into a new SQLite store in a child process: its RSS before the sync (after
    its imports) and after it, and its peak RSS (MB); the sync's seconds."""
    listing = work / f"sources-{len(paths)}.json"
    listing.write_text(json.dumps(paths), encoding="utf-8")
    args = [sys.executable, __file__, "--child", str(listing), "--jobs-child", str(jobs)]
    proc = subprocess.run(args, stdout=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"child sync of {len(paths)} repositories failed")
    figures: dict[str, float] = json.loads(proc.stdout)
    return figures


def _child(listing: Path, jobs: int) -> None:
    paths = json.loads(listing.read_text(encoding="utf-8"))
    before = _status_mb("VmRSS")  # the interpreter and git_intent imported
    base = listing.with_suffix("")
    seconds, report = _timed_sync(paths, str(base) + ".db", base.with_name(base.name + "-cache"), jobs)
    _check(report, len(paths), 0)
    peak = _status_mb("VmHWM")
    print(
        json.dumps(
            {
                "before_mb": round(before, 1),
                "after_mb": round(_status_mb("VmRSS"), 1),
                "peak_mb": round(peak, 1),
                "s": round(seconds, 2),
            }
        )
    )


def _status_mb(field: str) -> float:
    """A size of /proc/self/status in MB: VmRSS (resident now) or VmHWM (the peak since exec). Not
    `ru_maxrss`: Linux carries the parent's peak over a fork and exec into it, and the parent has already
    synced every store by then."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def table(figures: dict[str, object]) -> str:
    rows = [
        "| store | jobs | first sync s | repos/s | commits/s | unchanged s | 10 changed s |",
        "|---|---|---|---|---|---|---|",
    ]
    for run in figures["syncs"]:  # type: ignore[attr-defined]
        rows.append(
            f"| {run['store']} | {run['jobs']} | {run['first_s']} | {run['repos_per_s']} | "
            f"{run['commits_per_s']} | {run['unchanged_s']} | {run['changed_s']} |"
        )
    rows += [
        "",
        "| repositories | RSS before sync MB | RSS after sync MB | peak RSS MB | sync s |",
        "|---|---|---|---|---|",
    ]
    for size, rss in figures["rss"].items():  # type: ignore[attr-defined]
        rows.append(f"| {size} | {rss['before_mb']} | {rss['after_mb']} | {rss['peak_mb']} | {rss['s']} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repos", type=int, default=200)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[1, 4], help="jobs values to time (default 1 4)"
    )
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--jobs-child", type=int, default=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.jobs_child)
        return
    work = Path(tempfile.mkdtemp(prefix="git-intent-org-sync-bench-"))
    try:
        isolate(work)
        started = time.perf_counter()
        paths = [str(p) for p in make_organisation(work / "org", args.repos, args.commits)]
        built = time.perf_counter() - started
        print(
            f"{args.repos} repositories x {args.commits} commits built in {built:.1f} s",
            flush=True,
            file=sys.stderr,
        )
        figures: dict[str, object] = {
            "repos": args.repos,
            "commits": args.commits,
            "build_s": round(built, 1),
            "syncs": [],
            "rss": {},
        }
        for store, base in targets(work, not args.no_postgres):
            for jobs in args.jobs:
                name = f"{store}-{jobs}"
                if store == "sqlite":
                    target = str(Path(base) / f"{name}.db")
                else:
                    target = _pg_database(base, name.replace("-", "_"))
                run = measure(paths, target, work / f"cache-{name}", jobs, args.commits)
                figures["syncs"].append({"store": store, "jobs": jobs, **run})  # type: ignore[attr-defined]
                print(f"{store}, {jobs} jobs: {run}", flush=True, file=sys.stderr)
        for size in (*[s for s in RSS_SIZES if s < args.repos], args.repos):
            figures["rss"][str(size)] = child_rss(paths[:size], work, 4)  # type: ignore[index]
            print(f"rss {size}: {figures['rss'][str(size)]}", flush=True, file=sys.stderr)  # type: ignore[index]
        figures["total_s"] = round(time.perf_counter() - started, 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(figures, indent=2) if args.json else table(figures))


def _pg_database(url: str, name: str) -> str:
    """A new database `name` on the server `url` reaches, and its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    return url.replace("/postgres?", f"/{name}?")


if __name__ == "__main__":
    main()
