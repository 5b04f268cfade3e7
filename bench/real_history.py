"""Backfill, line-level recall and blame latency on a real team's history: entireio/cli and its authors'
sessions.

The Entire CLI's authors recorded their agent sessions with Entire: each code commit carries a trailer
`Entire-Checkpoint: <id>`, and the branch `entire/checkpoints/v1` holds, per checkpoint and session, the
agent's native transcript byte for byte (git_intent/entire.py reads that layout). That gives ground truth that
git-intent never sees:

1. Setup. main's history alone is cloned into a work repository (no checkpoints branch, no other ref). The
   checkpoints are read from a separate repository (the snapshot's objects through git's alternates), and each
   Claude Code or Codex session's largest transcript (a session's transcript grows across checkpoints) is
   written where its agent keeps it for the work tree (`$CLAUDE_CONFIG_DIR/projects/<work tree
   slug>/<id>.jsonl`, `$CODEX_HOME/sessions/Y/M/D/rollout-<time>-<id>.jsonl`), mtime = its last record's time.
2. Backfill. `git intent backfill HEAD` (every commit of main, merges and both parents' sides: main's
   trailer commits all come in through merges, none is on the first-parent line) in a child process, twice:
   with discovery alone (the transcripts mention their authors' work trees, not this one: see the finding
   printed), then as a user with transcripts from elsewhere does, their folder passed with `--transcript`.
   Commits/s, CPU (with its git processes, from `wait4`), peak RSS, git processes started. Backfill reads each
   commit's trailers for the sessions it names (`peers.named`), but the work repository holds no checkpoints
   branch (setup asserts main is its only ref), so the ground truth cannot reach it.
3. Recall and precision. For each trailer commit C whose checkpoint has an extracted session: the verifiable
   agent lines are C's added lines (`git diff -U0 C^ C`, non-blank once stripped) that appear verbatim
   (stripped) in the edit payloads of the checkpoint's sessions (Claude Code Edit/MultiEdit `new_string`,
   Write `content`; Codex apply_patch `+` lines), read from the adapters' `Session.edits` (for a merge, the
   lines new against every parent); reachable ones were written by one of those edits, not as unchanged text,
   into this very file before C was committed (what a verbatim linker can reach). Each is blamed at C
   (`git blame C -- file`, then blame's `Explainer`, as `blame_lines` does for the work tree): the right
   session is a hit, another session wrong, anything else a miss; misses and wrong answers get a cause.
4. Blame latency on ~20 agent lines at HEAD (lines whose plain blame is still a reachable line's commit):
   `git-intent blame FILE:LINE` against `git blame --porcelain -L n,n` (CPU with children, and wall; the
   median of the per-line ratios), one cProfile of the CLI blame, and one blame whose commit has no note (its
   note removed: the content fallback).
5. Checkpoints folder: notes removed, the agents' folders emptied, and the whole checkpoints branch
   written out as one folder (every session's copy in every checkpoint, metadata and prompts beside them)
   given as `backfill --transcript DIR`; the same lines scored again; the files backfill skipped, by reason
   (none of them a `full.jsonl`); bench/_checkpoint_folder.py.

The ground truth (setup, extraction, scoring and the causes) lives in bench/_entire_truth.py.

Run: .venv/bin/python bench/real_history.py [--repo PATH] [--limit N] [--lines 20] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pstats
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _checkpoint_folder import checkpoint_folder_phase
from _common import COUNT_GIT, isolate
from _entire_truth import Extracted, added_lines, extract, git, locate, score, setup

MIRROR = Path("/work/.mirror/entireio+cli/repo")
# Runs `git-intent ARGS...` in this child process, counting the git processes it starts; prints its own
# figures as one JSON line on stderr after the command's output.
CHILD = (
    """
import json, subprocess, sys
"""
    + COUNT_GIT
    + """
sys.argv = ["git-intent", *json.load(open(sys.argv[1]))]
from git_intent.cli import main
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code or 0
sys.stdout.flush()
sys.stderr.write("\\n" + json.dumps({"git_processes": started[0]}))
sys.exit(code)
"""
)


def run_cli(args: list[str], cwd: Path, root: Path) -> dict[str, Any]:
    """`git-intent ARGS` in a child process: exit code, stdout, CPU s (with its git processes), peak RSS MB,
    wall s, git processes."""
    argv = root / "argv.json"
    argv.write_text(json.dumps(args))
    out, err = os.pipe(), os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(out[0])
        os.close(err[0])
        os.dup2(out[1], 1)
        os.dup2(err[1], 2)
        os.chdir(cwd)
        os.execv(sys.executable, [sys.executable, "-c", CHILD, str(argv)])
    os.close(out[1])
    os.close(err[1])
    with os.fdopen(err[0], "rb") as errors:
        with os.fdopen(out[0], "rb") as output:
            stdout = output.read()  # backfill's JSON is small; stderr (a progress bar at most) follows
        stderr = errors.read()
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    tail = stderr.decode(errors="replace").strip().splitlines()
    extra = json.loads(tail[-1]) if tail and tail[-1].startswith("{") else {}
    return {
        "code": os.waitstatus_to_exitcode(status),
        "stdout": stdout.decode(errors="replace"),
        "stderr": "\n".join(tail[:-1]),
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
        "wall": wall,
        **extra,
    }


def forget(work: Path) -> None:
    """Remove what a backfill wrote: notes, backup copies, derived state."""
    import shutil

    git(work, "update-ref", "-d", "refs/notes/intent", check=False)
    shutil.rmtree(work / ".opencode" / "intent", ignore_errors=True)
    shutil.rmtree(work / ".git" / "intent", ignore_errors=True)


def backfill_figures(label: str, run: dict[str, Any]) -> dict[str, Any]:
    if run["code"] != 0:
        sys.exit(f"backfill ({label}) failed with exit {run['code']}:\n{run['stderr'][-3000:]}")
    result = json.loads(run["stdout"])
    return {
        "label": label,
        "commits": result["commits"],
        "recorded": result["recorded"],
        "seconds": result["seconds"],
        "wall": run["wall"],
        "commits_per_s": result["recorded"] / run["wall"],
        "cpu": run["cpu"],
        "commits_per_cpu_s": result["recorded"] / run["cpu"],
        "rss_mb": run["rss_mb"],
        "git_processes": run.get("git_processes"),
        "lines_added": result["lines_added"],
        "lines_attributed": result["lines_attributed"],
        "sessions": len(result["sessions"]),
        "credited": sorted(result["sessions"]),
    }


def pick_lines(work: Path, reachable_at: dict[str, list[str]], count: int) -> list[tuple[str, int, str]]:
    """Up to `count` (path, line, commit) at HEAD, one per file (the files most scored commits touched first):
    lines whose plain blame is a scored commit and whose text is one of its reachable lines."""
    files: dict[str, set[str]] = defaultdict(set)
    for commit in reachable_at:
        for path in git(
            work, "diff-tree", "--no-commit-id", "--name-only", "-r", "--diff-filter=AM", f"{commit}^", commit
        ).split("\n"):
            if path and (work / path).is_file():
                files[path].add(commit)
    candidates: list[tuple[str, int, str]] = []
    for path in sorted(files, key=lambda p: (-len(files[p]), p))[: 4 * count]:
        out = subprocess.run(
            ["git", "blame", "--porcelain", "--", path],
            cwd=work,
            capture_output=True,
            text=True,
            errors="replace",
        ).stdout
        current, here = None, []
        for row in out.split("\n"):
            head = re.match(r"^([0-9a-f]{40}) \d+ (\d+)", row)
            if head:
                current = (head.group(1), int(head.group(2)))
            elif row.startswith("\t") and current:
                sha, number = current
                if sha in reachable_at and row[1:].strip() in reachable_at[sha] and len(row.strip()) > 12:
                    here.append((path, number, sha))
        if here:
            candidates.append(
                here[len(here) // 2]
            )  # one line per file, from its middle rather than its imports
        if len(candidates) >= count:
            break
    return candidates


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(CPU s including children, wall s, stdout) of one command."""
    cpu, wall = cpu_children(), time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, errors="replace", env=env)
    return cpu_children() - cpu, time.perf_counter() - wall, proc.stdout


def latency(work: Path, lines: list[tuple[str, int, str]], runs: int, cli: str) -> dict[str, Any]:
    """Per line, the median of `runs`: `git-intent blame FILE:LINE` (text, what a person or a script
    reads), `git-intent blame FILE:LINE --json`, the same through the opt-in resident process
    (`GIT_INTENT_RESIDENT=1`, warm: the caller's CPU only), `blame_lines` in this process (the blame work
    without start-up), and `git blame --porcelain -L n,n`; CPU includes child processes."""
    from git_intent.explain.blame import blame_lines
    from git_intent.git.repo import Repository

    resident = {**os.environ, "GIT_INTENT_RESIDENT": "1"}
    rows = []
    for path, number, commit in lines:
        location = f"{path}:{number}"
        timed([cli, "blame", location], work)  # warm the page cache and bytecode
        timed([cli, "blame", location], work, resident)  # starts the resident process, or finds it
        text = [timed([cli, "blame", location], work) for _ in range(runs)]
        ours = [timed([cli, "blame", location, "--json"], work) for _ in range(runs)]
        warm = [timed([cli, "blame", location, "--json"], work, resident) for _ in range(runs)]
        inside = []
        for _ in range(runs):
            cpu, wall = time.process_time() + cpu_children(), time.perf_counter()
            blame_lines(Repository(work), location, cwd=work)
            inside.append((time.process_time() + cpu_children() - cpu, time.perf_counter() - wall))
        theirs = [
            timed(["git", "blame", "--porcelain", "-L", f"{number},{number}", "--", path], work)
            for _ in range(runs)
        ]
        answer = json.loads(ours[-1][2])["lines"][0]
        rows.append(
            {
                "location": location,
                "commit": commit[:12],
                "status": answer["status"],
                "session": (answer.get("attribution") or {}).get("session_id"),
                "text_cpu": statistics.median(c for c, _, _ in text),
                "text_wall": statistics.median(w for _, w, _ in text),
                "cpu": statistics.median(c for c, _, _ in ours),
                "wall": statistics.median(w for _, w, _ in ours),
                "resident_cpu": statistics.median(c for c, _, _ in warm),
                "resident_wall": statistics.median(w for _, w, _ in warm),
                "library_cpu": statistics.median(c for c, _ in inside),
                "library_wall": statistics.median(w for _, w in inside),
                "git_cpu": statistics.median(c for c, _, _ in theirs),
                "git_wall": statistics.median(w for _, w, _ in theirs),
            }
        )
    figures: dict[str, Any] = {"lines": rows}
    if rows:
        for key in ("text_", "", "resident_", "library_"):
            figures[f"{key}cpu_ratio"] = statistics.median(
                r[f"{key}cpu"] / max(r["git_cpu"], 1e-4) for r in rows
            )
            figures[f"{key}wall_ratio"] = statistics.median(
                r[f"{key}wall"] / max(r["git_wall"], 1e-4) for r in rows
            )
            figures[f"{key}cpu_ms"] = statistics.median(r[f"{key}cpu"] for r in rows) * 1000
            figures[f"{key}wall_ms"] = statistics.median(r[f"{key}wall"] for r in rows) * 1000
        figures["git_cpu_ms"] = statistics.median(r["git_cpu"] for r in rows) * 1000
        figures["git_wall_ms"] = statistics.median(r["git_wall"] for r in rows) * 1000
    return figures


def profile(work: Path, location: str, root: Path) -> list[str]:
    """The top 10 cumulative entries of one CLI blame under cProfile (in a child process)."""
    stats_file = root / "blame.prof"
    subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(stats_file), "-m", "git_intent", "blame", location],
        cwd=work,
        capture_output=True,
        check=True,
    )
    out = io.StringIO()
    stats = pstats.Stats(str(stats_file), stream=out)
    stats.sort_stats("cumulative").print_stats(60)
    # The frames every run passes through (runpy, click's dispatch, the CLI's main) say nothing.
    wrappers = (
        "builtins.exec",
        "<string>",
        "runpy",
        "click/core.py",
        "__main__.py",
        "cli/__init__.py",
        "<frozen importlib",
        "builtins.__import__",
    )
    rows = [
        r.strip()
        for r in out.getvalue().splitlines()
        if re.match(r"\s*\d", r) and not any(w in r for w in wrappers)
    ]
    return rows[:10]


def fallback(work: Path, line: tuple[str, int, str], cli: str) -> dict[str, Any]:
    """Blame one agent line once with its commit's note removed: the content fallback."""
    path, number, commit = line
    git(work, "notes", "--ref", "refs/notes/intent", "remove", commit)
    argv = [cli, "blame", f"{path}:{number}", "--json"]
    cpu, wall, out = timed(argv, work)
    answer = json.loads(out)["lines"][0]
    warm_cpu, warm_wall, _ = timed(argv, work)  # the candidate transcripts' parses now in the session cache
    index_cpu, index_wall, _ = timed([cli, "index"], work)
    indexed_cpu, indexed_wall, indexed_out = timed(argv, work)
    indexed = json.loads(indexed_out)["lines"][0]
    return {
        "location": f"{path}:{number}",
        "commit": commit[:12],
        "cpu": cpu,
        "wall": wall,
        "status": answer["status"],
        "method": (answer.get("attribution") or {}).get("method"),
        "session": (answer.get("attribution") or {}).get("session_id"),
        "warm_cpu": warm_cpu,
        "warm_wall": warm_wall,
        "index_build_wall": index_wall,
        "index_build_cpu": index_cpu,
        "indexed_cpu": indexed_cpu,
        "indexed_wall": indexed_wall,
        "indexed_session": (indexed.get("attribution") or {}).get("session_id"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--repo",
        type=Path,
        default=MIRROR,
        help=f"a clone of entireio/cli with its checkpoints branch (default {MIRROR})",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="only the newest ~N commits of main (a quick run)"
    )
    parser.add_argument(
        "--lines", type=int, default=20, help="agent lines at HEAD to time blame on (default 20)"
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="timed runs per line (default 3; the median counts)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="build the sandbox in this new folder and leave it there (to look into answers)",
    )
    args = parser.parse_args()
    gitdir = locate(args.repo)
    figures: dict[str, Any] = {
        "repo": str(args.repo),
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "load_average": os.getloadavg(),
    }
    say: Callable[[str], None] = (lambda _: None) if args.json else print
    with tempfile.TemporaryDirectory(prefix="git-intent-real-") as tmp:
        root = Path(tmp)
        if args.keep:
            args.keep.mkdir(parents=True)
            root = args.keep.resolve()
        isolate(root)
        runtime = root / "run"
        runtime.mkdir(mode=0o700)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)  # the resident process lives here, and is stopped below
        try:
            truth = prepare(root, gitdir, args.limit, figures, say)
            credited = backfill_phase(root, truth, figures, say)
            reachable_at = recall_phase(truth, credited, figures, say)
            blame_phase(root, truth.work, reachable_at, args.lines, args.runs, figures, say)
            folder_phase(root, truth, figures, say)
        finally:
            for pid_file in (runtime / "git-intent").glob("*.pid"):
                try:
                    os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGTERM)
                except (OSError, ValueError):
                    pass
    say(
        "(2 cores shared with other workers: figures under load; load average at start "
        f"{figures['load_average']})"
    )
    if args.json:
        print(json.dumps(figures, indent=2, default=str))


@dataclass
class Truth:
    """The sandbox's work repository and range, and the ground truth read beside it."""

    work: Path
    revision_range: str
    trailers: dict[str, list[str]]
    checkpoints: dict[str, Any]
    extracted: dict[str, Extracted]
    diffs: dict[str, dict[str, list[tuple[int, str]]]]


def prepare(
    root: Path, gitdir: Path, limit: int | None, figures: dict[str, Any], say: Callable[[str], None]
) -> Truth:
    from git_intent.git.repo import Repository
    from git_intent.peers.entire import checkpoint_trailers

    t0 = time.perf_counter()
    work, truth_repo, revision_range = setup(root, gitdir, limit)
    commits = git(work, "rev-list", revision_range).split()
    in_range = set(commits)
    trailers = {
        c: ids
        for c, ids in checkpoint_trailers(Repository(truth_repo), "refs/heads/main").items()
        if c in in_range
    }
    diffs = {c: added_lines(work, c) for c in trailers}
    needed = {t.strip() for d in diffs.values() for lines in d.values() for _, t in lines if t.strip()}
    extracted, checkpoints, left_out = extract(Repository(truth_repo), work, needed)
    unique = {id(e): e for e in extracted.values()}.values()
    s = figures["setup"] = {
        "range": revision_range,
        "commits": len(commits),
        "merges": len(git(work, "rev-list", "--merges", revision_range).split()),
        "trailer_commits": len(trailers),
        "checkpoints": len(checkpoints),
        "sessions": dict(Counter(e.agent for e in unique)),
        "transcript_mb": sum(e.size for e in unique) / 1e6,
        "left_out": dict(left_out),
        "seconds": time.perf_counter() - t0,
    }
    say(
        f"setup: {s['commits']} commits in {revision_range} ({s['merges']} merges), {s['trailer_commits']} "
        f"with an Entire-Checkpoint trailer; {s['checkpoints']} checkpoints; extracted {s['sessions']} "
        f"sessions ({s['transcript_mb']:.0f} MB of transcripts; left out: {s['left_out']}) in "
        f"{s['seconds']:.0f} s"
    )
    return Truth(work, revision_range, trailers, checkpoints, extracted, diffs)


def backfill_phase(root: Path, truth: Truth, figures: dict[str, Any], say: Callable[[str], None]) -> set[str]:
    """Backfill by discovery alone, then again with every transcript passed; the session ids credited."""
    work, revision_range = truth.work, truth.revision_range
    found = backfill_figures("discovery alone", run_cli(["backfill", revision_range, "--json"], work, root))
    forget(work)
    # The folders holding the extracted transcripts (one: the work tree's Claude Code project folder), each
    # passed once as `--transcript DIR` as a user with transcripts from another machine would.
    folders = sorted({str(e.path.parent) for e in {id(e): e for e in truth.extracted.values()}.values()})
    given = backfill_figures(
        "--transcript DIR",
        run_cli(
            ["backfill", revision_range, "--json", *(a for p in folders for a in ("--transcript", p))],
            work,
            root,
        ),
    )
    found.pop("credited")
    credited = {key.split(":", 1)[1] for key in given.pop("credited")}
    figures["backfill"] = [found, given]
    for b in figures["backfill"]:
        say(
            f"backfill ({b['label']}): {b['recorded']} commits in {b['wall']:.1f} s wall = "
            f"{b['commits_per_s']:.1f} commits/s; CPU {b['cpu']:.1f} s ({b['commits_per_cpu_s']:.1f} "
            f"commits per CPU s); peak RSS {b['rss_mb']:.0f} MB; {b['git_processes']} git processes; "
            f"{b['sessions']} sessions credited {b['lines_attributed']} of {b['lines_added']} lines"
        )
    return credited


def recall_phase(
    truth: Truth, credited: set[str], figures: dict[str, Any], say: Callable[[str], None]
) -> dict[str, list[str]]:
    """Score every verifiable line; the reachable lines per commit (blame_phase picks among them)."""
    t1 = time.perf_counter()
    scored = score(truth.work, truth.trailers, truth.checkpoints, truth.extracted, truth.diffs, credited)
    scored["seconds"] = time.perf_counter() - t1
    reachable_at: dict[str, list[str]] = scored.pop("reachable_at")
    figures["recall"] = scored
    for scope in ("verifiable", "reachable"):
        r = scored[scope]
        say(
            f"recall, {scope} agent lines of {scored['commits']} commits: {r['hits']} of {r['lines']} "
            f"credited to the right session = {r['recall'] or 0:.3f}; wrong {r['wrong']}, missed "
            f"{r['misses']}; strict precision {r['precision'] or 0:.3f}"
        )
    say(f"causes of misses and wrong answers ({scored['seconds']:.0f} s to score):")
    for cause, n in scored["causes"].items():
        say(f"  {n:5d}  {cause}")
        for sample in scored["samples"][cause][:1]:
            say(
                f"         e.g. {sample['commit']} {sample['path']}:{sample['line']} "
                f"{sample['text'][:50]!r} (blamed to {sample['blamed_commit']}, answered "
                f"{sample['status']} {sample['credited'] or ''}, written to {sample['written_to'][:1]})"
            )
    return reachable_at


def folder_phase(root: Path, truth: Truth, figures: dict[str, Any], say: Callable[[str], None]) -> None:
    """The agents' folders empty and the checkpoints branch written out as one folder given to
    `backfill --transcript DIR`, scored on the same lines as the agent-folder run above."""
    forget(truth.work)

    def run(args: list[str]) -> dict[str, Any]:
        ran = run_cli(args, truth.work, root)
        return {**backfill_figures("checkpoints folder", ran), "result": json.loads(ran["stdout"])}

    def scored(credited: set[str]) -> dict[str, Any]:
        found = score(truth.work, truth.trailers, truth.checkpoints, truth.extracted, truth.diffs, credited)
        found.pop("reachable_at")
        return found

    f = figures["checkpoint_folder"] = checkpoint_folder_phase(
        root, root / "truth", truth.work, truth.revision_range, run, scored, say
    )
    for scope in ("verifiable", "reachable"):
        a, b = figures["recall"][scope], f["recall"][scope]
        say(
            f"recall, {scope} agent lines: agents' folders (--transcript of the extracted copies) "
            f"{a['recall'] or 0:.3f} ({a['hits']} of {a['lines']}); checkpoints folder, agents' folders "
            f"empty {b['recall'] or 0:.3f} ({b['hits']} of {b['lines']}); difference "
            f"{(a['recall'] or 0) - (b['recall'] or 0):+.3f}"
        )


def blame_phase(
    root: Path,
    work: Path,
    reachable_at: dict[str, list[str]],
    count: int,
    runs: int,
    figures: dict[str, Any],
    say: Callable[[str], None],
) -> None:
    cli = str(Path(sys.executable).parent / "git-intent")
    lines = pick_lines(work, reachable_at, count)
    if not lines:
        say("blame: no agent line of a scored commit is left at HEAD")
        return
    b = figures["blame"] = latency(work, lines, runs, cli)
    say(
        f"blame on {len(lines)} agent lines at HEAD ({runs} runs each, medians; ratios are the median of "
        f"the per-line ratios to `git blame --porcelain -L n,n`, {b['git_cpu_ms']:.0f} ms CPU, "
        f"{b['git_wall_ms']:.0f} ms wall); answers: {dict(Counter(r['status'] for r in b['lines']))}"
    )
    for key, label in (
        ("text_", "git-intent blame FILE:LINE"),
        ("", "git-intent blame FILE:LINE --json"),
        ("resident_", "the same, GIT_INTENT_RESIDENT=1 (warm; the caller's CPU)"),
        ("library_", "blame_lines in process (no start-up)"),
    ):
        say(
            f"  {label:58s} {b[key + 'cpu_ms']:6.0f} ms CPU = {b[key + 'cpu_ratio']:5.1f}x  "
            f"{b[key + 'wall_ms']:6.0f} ms wall = {b[key + 'wall_ratio']:5.1f}x"
        )
    figures["profile"] = profile(work, b["lines"][0]["location"], root)
    say(f"cProfile of `git-intent blame {b['lines'][0]['location']}`, top 10 cumulative:")
    for row in figures["profile"]:
        say("  " + row)
    f = figures["fallback"] = fallback(work, lines[-1], cli)
    say(
        f"blame of {f['location']} with the note of {f['commit']} removed (content fallback): "
        f"{f['wall']:.2f} s wall, {f['cpu']:.2f} s CPU; answer {f['status']} by {f['method']} "
        f"({f['session']}); again (session cache warm) {f['warm_wall']:.2f} s wall; with the session index "
        f"(`git intent index`: {f['index_build_wall']:.1f} s) {f['indexed_wall']:.2f} s wall, "
        f"{f['indexed_cpu']:.2f} s CPU ({f['indexed_session']})"
    )


if __name__ == "__main__":
    main()
