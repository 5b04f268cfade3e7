"""Backfill, line-level recall and blame latency on a real team's history: entireio/cli and its authors' sessions.

The Entire CLI's authors recorded their agent sessions with Entire: each code commit carries a trailer
`Entire-Checkpoint: <id>`, and the branch `entire/checkpoints/v1` holds, per checkpoint and session, the agent's
native transcript byte for byte (git_intent/entire.py reads that layout). That gives ground truth that
git-intent never sees:

1. Setup. main's history alone is cloned into a work repository (no checkpoints branch, no other ref). The
   checkpoints are read from a separate repository (the snapshot's objects through git's alternates), and each
   Claude Code or Codex session's largest transcript (a session's transcript grows across checkpoints) is
   written where its agent keeps it for the work tree (`$CLAUDE_CONFIG_DIR/projects/<work tree slug>/<id>.jsonl`,
   `$CODEX_HOME/sessions/Y/M/D/rollout-<time>-<id>.jsonl`), mtime = its last record's time.
2. Backfill. `git intent backfill HEAD` (every commit of main, merges and both parents' sides: main's
   trailer commits all come in through merges, none is on the first-parent line) in a child process, twice:
   with discovery alone (the transcripts mention their authors' work trees, not this one: see the finding
   printed), then as a user with transcripts from elsewhere does, each passed with `--transcript`. Commits/s,
   CPU (with its git processes, from `wait4`), peak RSS, git processes started; and whether the child imported
   `git_intent.entire` (the trailer's reader; backfill must not).
3. Recall and precision. For each trailer commit C whose checkpoint has an extracted session: the verifiable
   agent lines are C's added lines (`git diff -U0 C^ C`, non-blank once stripped) that appear verbatim
   (stripped) in the edit payloads of the checkpoint's sessions (Claude Code Edit/MultiEdit `new_string`,
   Write `content`; Codex apply_patch `+` lines), read from the adapters' `Session.edits`. Each is blamed at C
   (`git blame C -- file`, then blame's `Explainer`, as `blame_lines` does for the work tree): the right
   session is a hit, another session wrong, anything else a miss; misses and wrong answers get a cause.
4. Blame latency on ~20 agent lines at HEAD (lines whose plain blame is still a verifiable line's commit):
   `git-intent blame FILE:LINE` against `git blame --porcelain -L n,n` (CPU with children, and wall; the median
   of the per-line ratios), one cProfile of the CLI blame, and one blame whose commit has no note (its note
   removed: the content fallback).

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
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from _common import isolate

MIRROR = Path("/work/.mirror/entireio+cli/repo")
CHECKPOINTS = "refs/heads/entire/checkpoints/v1"
GET_IT = ("git clone https://github.com/entireio/cli && git -C cli fetch origin "
          "entire/checkpoints/v1:entire/checkpoints/v1")
AGENTS = ("claude-code", "codex")
CLAUDE_TOOLS = frozenset({"Edit", "MultiEdit", "Write"})
SAMPLES = 3  # examples kept per cause
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
SLACK = timedelta(seconds=2)  # commit times have one-second resolution, edit timestamps milliseconds
# Runs `git-intent ARGS...` in this child process, counting the git processes it starts; prints its own
# figures as one JSON line on stderr after the command's output.
CHILD = """
import json, subprocess, sys
started = [0]
_init = subprocess.Popen.__init__
def counting(self, args, *rest, **options):
    if isinstance(args, (list, tuple)) and args and args[0] == "git":
        started[0] += 1
    _init(self, args, *rest, **options)
subprocess.Popen.__init__ = counting
sys.argv = ["git-intent", *json.load(open(sys.argv[1]))]
from git_intent.cli import main
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code or 0
sys.stdout.flush()
imported = "git_intent.entire" in sys.modules
sys.stderr.write("\\n" + json.dumps({"git_processes": started[0], "entire_imported": imported}))
sys.exit(code)
"""


def git(cwd: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", "-c", "core.quotePath=false", *args], cwd=cwd, capture_output=True, text=True,
                          check=check, errors="replace").stdout


def locate(given: Path) -> Path:
    """The git directory of the snapshot at `given` (a bare repository or a clone) holding main and the
    checkpoints branch; exits with how to get it when it is not there."""
    proc = subprocess.run(["git", "-C", str(given), "rev-parse", "--absolute-git-dir"], capture_output=True, text=True)
    gitdir = Path(proc.stdout.strip()) if proc.returncode == 0 else None
    if gitdir is None or any(
            subprocess.run(["git", "--git-dir", str(gitdir), "rev-parse", "-q", "--verify", ref],
                           capture_output=True).returncode for ref in ("refs/heads/main", CHECKPOINTS)):
        sys.exit(f"error: {given} is not a clone of entireio/cli with its main and entire/checkpoints/v1 branches; "
                 f"get one with `{GET_IT}` and pass --repo cli.")
    return gitdir


@dataclass(frozen=True)
class Written:
    """One edit payload holding a line: the path as recorded, when, the message; `introduced`: the edit wrote
    the line (in its new text, not in the text it replaced: Edit `old_string`, the file a Write overwrote);
    `added`: among the edit's added lines as the adapter computes them (what git-intent matches)."""

    path: str
    when: datetime | None
    message_id: str
    introduced: bool
    added: bool


@dataclass
class Extracted:
    """One agent session as written for the work tree: where, its last record time, and its edit payloads
    (stripped line -> where it was written) for the lines some trailer commit added."""

    agent: str
    session_id: str
    path: Path
    cwd: str | None
    last: datetime | None
    size: int
    payload: dict[str, list[Written]] = field(default_factory=dict)


def setup(root: Path, gitdir: Path, limit: int | None) -> tuple[Path, Path, str]:
    """The work repository (main's history alone), the ground-truth repository (the checkpoints, through
    alternates), and the backfill range (HEAD, or the newest ~`limit` commits)."""
    work, truth = root / "work", root / "truth"
    # --no-local: objects are sent as for a remote clone, so the work repository holds only main's objects.
    subprocess.run(["git", "clone", "-q", "--no-local", "--single-branch", "--branch", "main", "--no-tags",
                    str(gitdir), str(work)], check=True)
    git(work, "remote", "remove", "origin")
    git(work, "config", "commit.gpgsign", "false")
    refs = git(work, "for-each-ref", "--format=%(refname)").split()
    assert refs == ["refs/heads/main"], refs
    subprocess.run(["git", "init", "-q", str(truth)], check=True)
    (truth / ".git" / "objects" / "info" / "alternates").write_text(f"{gitdir / 'objects'}\n")
    for ref in ("refs/heads/main", CHECKPOINTS):
        sha = subprocess.run(["git", "--git-dir", str(gitdir), "rev-parse", ref], capture_output=True, text=True,
                             check=True).stdout.strip()
        git(truth, "update-ref", ref, sha)
    revision_range = "HEAD"
    if limit:
        # The newest first-parent commit F for which F..HEAD holds at least `limit` commits.
        line = git(work, "rev-list", "--first-parent", "HEAD").split()
        low, high = 0, len(line) - 1
        while low < high:
            mid = (low + high) // 2
            if int(git(work, "rev-list", "--count", f"{line[mid]}..HEAD")) >= limit:
                high = mid
            else:
                low = mid + 1
        if low < len(line) - 1:
            revision_range = f"{line[low]}..HEAD"
    return work, truth, revision_range


def added_lines(work: Path, commit: str) -> dict[str, list[tuple[int, str]]]:
    """{path: [(line number in C, text)]} of `git diff -U0 C^ C` (the ground truth's own reading of it); for a
    merge, the lines new against every parent (the others came in with the merged commits)."""
    parents = git(work, "rev-list", "--parents", "-n1", commit).split()[1:] or [EMPTY_TREE]
    found = _diff_added(work, parents[0], commit)
    for other in parents[1:]:
        keep = {(path, n) for path, lines in _diff_added(work, other, commit).items() for n, _ in lines}
        found = {path: kept for path, lines in found.items()
                 if (kept := [(n, t) for n, t in lines if (path, n) in keep])}
    return found


def _diff_added(work: Path, base: str, commit: str) -> dict[str, list[tuple[int, str]]]:
    out = git(work, "diff", "-U0", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", base, commit)
    found: dict[str, list[tuple[int, str]]] = defaultdict(list)
    path, number = None, 0
    for line in out.split("\n"):
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@ "):
            match = re.match(r"@@ -\S+ \+(\d+)", line)
            number = int(match.group(1)) if match else 0
        elif line.startswith("+") and path is not None:
            found[path].append((number, line[1:]))
            number += 1
    return dict(found)


def extract(truth_repo: Any, work: Path, needed: set[str]) -> tuple[dict[str, Extracted], dict[str, Any], Counter[str]]:
    """Write every Claude Code and Codex session's largest transcript into the agents' folders for `work`;
    the sessions by id, the checkpoints by id, and the sessions left out by agent."""
    from git_intent.adapters.claude_code import encode_project
    from git_intent.entire import read_checkpoints

    checkpoints = {c.checkpoint_id: c for c in read_checkpoints(truth_repo, CHECKPOINTS)}
    largest: dict[str, Any] = {}
    left_out: Counter[str] = Counter()
    for checkpoint in checkpoints.values():
        for entire_session in checkpoint.sessions:
            if entire_session.agent not in AGENTS or not entire_session.transcript_size:
                missing = "" if entire_session.transcript_size else " (no transcript)"
                left_out[f"{entire_session.agent or 'unknown'}{missing}"] += 1
                continue
            key = entire_session.agent_session_id
            if key not in largest or entire_session.transcript_size > largest[key].transcript_size:
                largest[key] = entire_session
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / encode_project(work)
    staging = work.parent / "staging"
    extracted: dict[str, Extracted] = {}
    for key, entire_session in sorted(largest.items()):
        folder = claude if entire_session.agent == "claude-code" else staging
        for session in entire_session.read_sessions(folder):
            path = session.transcript
            stamps = [m.timestamp for m in session.messages if m.timestamp] + [
                e.timestamp for e in session.edits if e.timestamp]
            last = max(stamps) if stamps else entire_session.created_at
            if session.agent == "codex":
                start = min(stamps) if stamps else last or datetime.now(timezone.utc)
                target = (Path(os.environ["CODEX_HOME"]) / "sessions" / start.strftime("%Y/%m/%d")
                          / f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{session.session_id}.jsonl")
                target.parent.mkdir(parents=True, exist_ok=True)
                path = path.rename(target)
            if last is not None:
                os.utime(path, (last.timestamp(), last.timestamp()))
            item = Extracted(agent=session.agent, session_id=session.session_id, path=path, cwd=session.cwd,
                             last=last, size=entire_session.transcript_size)
            for edit in session.edits:
                if session.agent == "claude-code" and edit.tool in CLAUDE_TOOLS:
                    texts = edit.new_text.split("\n")
                elif session.agent == "codex" and edit.tool.endswith("apply_patch"):
                    texts = [a.text for a in edit.added]
                else:
                    continue
                added = {a.text.strip() for a in edit.added}
                old = {t.strip() for t in (edit.old_text or "").split("\n")} if edit.tool in CLAUDE_TOOLS else set()
                for text in {t.strip() for t in texts} & needed:
                    item.payload.setdefault(text, []).append(Written(edit.path, edit.timestamp, edit.message_id,
                                                                     text not in old, text in added))
            extracted[session.session_id] = item
            if key != session.session_id:
                extracted.setdefault(key, item)
    return extracted, checkpoints, left_out


def run_cli(args: list[str], cwd: Path, root: Path) -> dict[str, Any]:
    """`git-intent ARGS` in a child process: exit code, stdout, CPU s (with its git processes), peak RSS MB,
    wall s, git processes, whether it imported git_intent.entire."""
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
    return {"code": os.waitstatus_to_exitcode(status), "stdout": stdout.decode(errors="replace"),
            "stderr": "\n".join(tail[:-1]), "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
            "wall": wall, **extra}


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
    return {"label": label, "commits": result["commits"], "recorded": result["recorded"], "seconds": result["seconds"],
            "wall": run["wall"], "commits_per_s": result["recorded"] / run["wall"], "cpu": run["cpu"],
            "commits_per_cpu_s": result["recorded"] / run["cpu"], "rss_mb": run["rss_mb"],
            "git_processes": run.get("git_processes"), "entire_imported": run.get("entire_imported"),
            "lines_added": result["lines_added"], "lines_attributed": result["lines_attributed"],
            "sessions": len(result["sessions"]), "credited": sorted(result["sessions"])}


def score(work: Path, trailers: dict[str, list[str]], checkpoints: dict[str, Any], extracted: dict[str, Extracted],
          diffs: dict[str, dict[str, list[tuple[int, str]]]], credited: set[str]) -> dict[str, Any]:
    """Blame every verifiable agent line at its commit; hits, wrong answers and misses with their causes, over
    all verifiable lines and over the reachable ones (written by the checkpoint's sessions into this very file,
    as the path recorded in the transcript ends with it: what a verbatim linker can reach)."""
    from git_intent.blame import Explainer
    from git_intent.config import lookback
    from git_intent.paths import PathMapper
    from git_intent.repo import Repository

    repo = Repository(work)
    explainer = Explainer(repo)
    window = lookback(repo)
    counts: Counter[str] = Counter()
    causes: Counter[str] = Counter()
    samples: dict[str, list[dict[str, Any]]] = defaultdict(list)
    reachable_at: dict[str, set[str]] = defaultdict(set)  # commit -> stripped reachable lines
    commits_scored = 0
    writers = writers_of(extracted)
    at_head = PathMapper(work, repo.tree_files("HEAD"))
    for commit, ids in trailers.items():
        sessions = {s.agent_session_id for i in ids if i in checkpoints for s in checkpoints[i].sessions
                    if s.agent_session_id in extracted}
        if not sessions or commit not in diffs:
            continue
        own = {extracted[s].session_id for s in sessions} | sessions
        commits_scored += 1
        parents = git(work, "rev-list", "--parents", "-n1", commit).split()[1:]
        committed = datetime.fromtimestamp(int(git(work, "show", "-s", "--format=%ct", commit)), timezone.utc)
        after = datetime.fromtimestamp(int(git(work, "show", "-s", "--format=%ct", parents[0])),
                                       timezone.utc) if parents else None
        # Backfill maps recorded paths against HEAD's files; the commit's own files tell when that lost a line.
        mappers = (PathMapper(work, repo.tree_files(commit)), at_head)
        for path, lines in diffs[commit].items():
            wanted = [(n, t) for n, t in lines if t.strip() and writers.get(t.strip(), set()) & own]
            if not wanted:
                continue
            blamed = {b.final_line: b for b in repo.blame(path, rev=commit, ranges=[(n, n) for n, _ in wanted])}
            for number, text in wanted:
                norm = text.strip()
                mine = [(extracted[s], w) for s in own if s in extracted for w in extracted[s].payload.get(norm, [])]
                here = [(item, w) for item, w in mine if same_file(w.path, path)]
                wrote = [(item, w) for item, w in here if w.introduced]
                made = [(item, w) for item, w in wrote if w.when is None or w.when <= committed + SLACK]
                unreachable = ("written by the checkpoint's sessions only into other paths" if not here
                               else "only unchanged text of the sessions' edits of this file" if not wrote
                               else "the sessions wrote it into this file only after the commit" if not made
                               else None)
                scope = "unreachable" if unreachable else "reachable"
                if not unreachable:
                    reachable_at[commit].add(norm)
                line = blamed[number]
                answer = explainer(path, line)
                got = answer.attribution.session_id if answer.status == "agent" and answer.attribution else None
                outcome = "hit" if got in own else "wrong" if got else "miss"
                counts[outcome] += 1
                counts[f"{scope} {outcome}"] += 1
                if outcome == "hit":
                    continue
                cause = unreachable or _cause(outcome, line.commit, commit, norm, path, made, got, extracted,
                                              mappers, after, committed, window, credited, writers)
                key = f"{outcome} ({scope}): {cause}"
                causes[key] += 1
                if len(samples[key]) < SAMPLES:
                    samples[key].append({
                        "commit": commit[:12], "path": path, "line": number, "text": norm[:80],
                        "blamed_commit": (line.commit or "")[:12], "status": answer.status, "credited": got,
                        "sessions": sorted(sessions), "written_to": sorted({w.path for _, w in mine})[:3],
                        "reason": answer.reason})
    figures: dict[str, Any] = {"commits": commits_scored}
    for scope in ("", "reachable "):
        hit, wrong, miss = (counts[f"{scope}{o}"] for o in ("hit", "wrong", "miss"))
        name = scope.strip() or "verifiable"
        figures[name] = {"lines": hit + wrong + miss, "hits": hit, "wrong": wrong, "misses": miss,
                         "recall": hit / (hit + wrong + miss) if hit + wrong + miss else None,
                         "precision": hit / (hit + wrong) if hit + wrong else None}
    figures.update({"causes": dict(causes.most_common()), "samples": dict(samples),
                    "reachable_at": {c: sorted(v) for c, v in reachable_at.items()}})
    return figures


def same_file(recorded: str, path: str) -> bool:
    """Whether a path recorded on the author's machine names the work tree file `path` (its tail)."""
    recorded = recorded.replace("\\", "/")
    return recorded == path or recorded.endswith("/" + path)


def writers_of(extracted: dict[str, Extracted]) -> dict[str, set[str]]:
    """{stripped line: ids of the sessions whose edit payloads hold it}."""
    found: dict[str, set[str]] = defaultdict(set)
    for item in {id(e): e for e in extracted.values()}.values():
        for norm in item.payload:
            found[norm].add(item.session_id)
    return found


def _cause(outcome: str, blamed: str | None, commit: str, norm: str, path: str, made: list[tuple[Extracted, Written]],
           got: str | None, extracted: dict[str, Extracted], mappers: tuple[Any, Any], after: datetime | None,
           committed: datetime, window: timedelta, credited: set[str], writers: dict[str, set[str]]) -> str:
    """Why a reachable line (`made`: the checkpoint's edits that wrote it into this file before the commit)
    was not credited to its session: the first reason that holds."""
    from git_intent.attribute import is_trivial

    if blamed != commit:
        return "git blame gives another commit"
    trivial = " (trivial text)" if is_trivial(norm) else ""
    if outcome == "wrong":
        theirs = extracted.get(got or "")
        same = {w.message_id for w in theirs.payload.get(norm, [])} if theirs is not None else set()
        if same & {w.message_id for _, w in made}:
            return "the credited transcript holds the same edit record (a resumed or forked session)"
        if got in writers.get(norm, ()):
            return "another session wrote the same text" + trivial
        return "the credited session's edit payloads never hold this text (a shell edit?)"
    if trivial:
        return "trivial-line rule (no neighbouring line credited to the very edit that wrote it)"
    at_commit, at_head = mappers
    if not any(at_commit.to_repo(w.path, item.cwd) == path for item, w in made):
        return "recorded path not mapped onto the file"
    if not any(at_head.to_repo(w.path, item.cwd) == path for item, w in made):
        return "path mapped against HEAD's files only (the file is gone or moved at HEAD)"
    earliest = (after or committed) - window - SLACK
    if not any(w.when is None or earliest <= w.when for _, w in made):
        return "edit older than the look-back window"
    if not any(w.added for _, w in made):
        return "the adapter's added lines leave it out (only in new_string, not in its replay diff)"
    if not any(item.session_id in credited for item, _ in made):
        return "session credited nowhere by backfill"
    return "an edit of this file in the window added it, yet not credited"


def pick_lines(work: Path, reachable_at: dict[str, list[str]], count: int) -> list[tuple[str, int, str]]:
    """Up to `count` (path, line, commit) at HEAD whose plain blame is a scored commit and whose text is one of
    its verifiable lines, spread over files and commits."""
    files: dict[str, set[str]] = defaultdict(set)
    for commit in reachable_at:
        for path in git(work, "diff-tree", "--no-commit-id", "--name-only", "-r", "--diff-filter=AM",
                        f"{commit}^", commit).split("\n"):
            if path and (work / path).is_file():
                files[path].add(commit)
    candidates: list[tuple[str, int, str]] = []
    for path in sorted(files, key=lambda p: (-len(files[p]), p))[:4 * count]:
        out = subprocess.run(["git", "blame", "--porcelain", "--", path], cwd=work, capture_output=True,
                             text=True, errors="replace").stdout
        current = None
        for row in out.split("\n"):
            head = re.match(r"^([0-9a-f]{40}) \d+ (\d+)", row)
            if head:
                current = (head.group(1), int(head.group(2)))
            elif row.startswith("\t") and current:
                sha, number = current
                if sha in reachable_at and row[1:].strip() in reachable_at[sha] and len(row.strip()) > 12:
                    candidates.append((path, number, sha))
                    break  # one line per file
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
    """Per line, the median of `runs`: `git-intent blame FILE:LINE --json`, the same through the opt-in resident
    process (`GIT_INTENT_RESIDENT=1`, warm: the caller's CPU only), `blame_lines` in this process (the blame
    work without start-up), and `git blame --porcelain -L n,n`; CPU includes child processes."""
    from git_intent.blame import blame_lines
    from git_intent.repo import Repository

    resident = {**os.environ, "GIT_INTENT_RESIDENT": "1"}
    rows = []
    for path, number, commit in lines:
        location = f"{path}:{number}"
        timed([cli, "blame", location], work)  # warm the page cache and bytecode
        timed([cli, "blame", location], work, resident)  # starts the resident process, or finds it
        ours = [timed([cli, "blame", location, "--json"], work) for _ in range(runs)]
        warm = [timed([cli, "blame", location, "--json"], work, resident) for _ in range(runs)]
        inside = []
        for _ in range(runs):
            cpu, wall = time.process_time() + cpu_children(), time.perf_counter()
            blame_lines(Repository(work), location, cwd=work)
            inside.append((time.process_time() + cpu_children() - cpu, time.perf_counter() - wall))
        theirs = [timed(["git", "blame", "--porcelain", "-L", f"{number},{number}", "--", path], work)
                  for _ in range(runs)]
        answer = json.loads(ours[-1][2])["lines"][0]
        rows.append({"location": location, "commit": commit[:12], "status": answer["status"],
                     "session": (answer.get("attribution") or {}).get("session_id"),
                     "cpu": statistics.median(c for c, _, _ in ours), "wall": statistics.median(w for _, w, _ in ours),
                     "resident_cpu": statistics.median(c for c, _, _ in warm),
                     "resident_wall": statistics.median(w for _, w, _ in warm),
                     "library_cpu": statistics.median(c for c, _ in inside),
                     "library_wall": statistics.median(w for _, w in inside),
                     "git_cpu": statistics.median(c for c, _, _ in theirs),
                     "git_wall": statistics.median(w for _, w, _ in theirs)})
    figures: dict[str, Any] = {"lines": rows}
    if rows:
        for key in ("", "resident_", "library_"):
            figures[f"{key}cpu_ratio"] = statistics.median(r[f"{key}cpu"] / max(r["git_cpu"], 1e-4) for r in rows)
            figures[f"{key}wall_ratio"] = statistics.median(r[f"{key}wall"] / max(r["git_wall"], 1e-4) for r in rows)
            figures[f"{key}cpu_ms"] = statistics.median(r[f"{key}cpu"] for r in rows) * 1000
            figures[f"{key}wall_ms"] = statistics.median(r[f"{key}wall"] for r in rows) * 1000
        figures["git_cpu_ms"] = statistics.median(r["git_cpu"] for r in rows) * 1000
        figures["git_wall_ms"] = statistics.median(r["git_wall"] for r in rows) * 1000
    return figures


def profile(work: Path, location: str, root: Path) -> list[str]:
    """The top 10 cumulative entries of one CLI blame under cProfile (in a child process)."""
    stats_file = root / "blame.prof"
    subprocess.run([sys.executable, "-m", "cProfile", "-o", str(stats_file), "-m", "git_intent", "blame", location],
                   cwd=work, capture_output=True, check=True)
    out = io.StringIO()
    stats = pstats.Stats(str(stats_file), stream=out)
    stats.sort_stats("cumulative").print_stats(60)
    # The frames every run passes through (runpy, click's dispatch, the CLI's main) say nothing.
    wrappers = ("builtins.exec", "<string>", "runpy", "click/core.py", "__main__.py", "cli/__init__.py",
                "<frozen importlib", "builtins.__import__")
    rows = [r.strip() for r in out.getvalue().splitlines()
            if re.match(r"\s*\d", r) and not any(w in r for w in wrappers)]
    return rows[:10]


def fallback(work: Path, line: tuple[str, int, str], cli: str) -> dict[str, Any]:
    """Blame one agent line once with its commit's note removed: the content fallback."""
    path, number, commit = line
    git(work, "notes", "--ref", "refs/notes/intent", "remove", commit)
    cpu, wall, out = timed([cli, "blame", f"{path}:{number}", "--json"], work)
    answer = json.loads(out)["lines"][0]
    return {"location": f"{path}:{number}", "commit": commit[:12], "cpu": cpu, "wall": wall,
            "status": answer["status"], "method": (answer.get("attribution") or {}).get("method"),
            "session": (answer.get("attribution") or {}).get("session_id")}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repo", type=Path, default=MIRROR,
                        help=f"a clone of entireio/cli with its checkpoints branch (default {MIRROR})")
    parser.add_argument("--limit", type=int, default=None, help="only the newest ~N commits of main (a quick run)")
    parser.add_argument("--lines", type=int, default=20, help="agent lines at HEAD to time blame on (default 20)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per line (default 3; the median counts)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keep", type=Path, default=None,
                        help="build the sandbox in this new folder and leave it there (to look into answers)")
    args = parser.parse_args()
    gitdir = locate(args.repo)
    figures: dict[str, Any] = {"repo": str(args.repo), "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                               "under_load": os.getloadavg()}
    say = (lambda *a: None) if args.json else print
    with tempfile.TemporaryDirectory(prefix="git-intent-real-") as tmp:
        root = Path(tmp)
        if args.keep:
            args.keep.mkdir(parents=True)
            root = args.keep.resolve()
        isolate(root)
        runtime = root / "run"
        runtime.mkdir(mode=0o700)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)  # the resident process lives here, and is stopped below
        from git_intent.entire import checkpoint_trailers
        from git_intent.repo import Repository

        t0 = time.perf_counter()
        work, truth, revision_range = setup(root, gitdir, args.limit)
        commits = git(work, "rev-list", revision_range).split()
        in_range = set(commits)
        trailers = {c: ids for c, ids in checkpoint_trailers(Repository(truth), "refs/heads/main").items()
                    if c in in_range}
        diffs = {c: added_lines(work, c) for c in trailers}
        needed = {t.strip() for d in diffs.values() for lines in d.values() for _, t in lines if t.strip()}
        extracted, checkpoints, left_out = extract(Repository(truth), work, needed)
        unique = {id(e): e for e in extracted.values()}.values()
        figures["setup"] = {
            "range": revision_range, "commits": len(commits),
            "merges": len(git(work, "rev-list", "--merges", revision_range).split()),
            "trailer_commits": len(trailers), "checkpoints": len(checkpoints),
            "sessions": dict(Counter(e.agent for e in unique)), "transcript_mb": sum(e.size for e in unique) / 1e6,
            "left_out": dict(left_out), "seconds": time.perf_counter() - t0}
        s = figures["setup"]
        say(f"setup: {s['commits']} commits in {revision_range} ({s['merges']} merges), {s['trailer_commits']} with "
            f"an Entire-Checkpoint trailer; {s['checkpoints']} checkpoints; extracted {s['sessions']} sessions "
            f"({s['transcript_mb']:.0f} MB of transcripts; left out: {s['left_out']}) in {s['seconds']:.0f} s")

        found = backfill_figures("discovery alone", run_cli(["backfill", revision_range, "--json"], work, root))
        forget(work)
        transcripts = [str(e.path) for e in unique]
        given = backfill_figures("--transcript for each", run_cli(
            ["backfill", revision_range, "--json", *(a for p in transcripts for a in ("--transcript", p))], work, root))
        found.pop("credited")
        figures["backfill"] = [found, given]
        for b in figures["backfill"]:
            say(f"backfill ({b['label']}): {b['recorded']} commits in {b['wall']:.1f} s wall = "
                f"{b['commits_per_s']:.1f} commits/s; CPU {b['cpu']:.1f} s ({b['commits_per_cpu_s']:.1f} commits per "
                f"CPU s); peak RSS {b['rss_mb']:.0f} MB; {b['git_processes']} git processes; {b['sessions']} sessions "
                f"credited {b['lines_attributed']} of {b['lines_added']} lines; imported git_intent.entire: "
                f"{b['entire_imported']}")

        credited = {key.split(":", 1)[1] for key in given.pop("credited")}
        t1 = time.perf_counter()
        scored = score(work, trailers, checkpoints, extracted, diffs, credited)
        scored["seconds"] = time.perf_counter() - t1
        figures["recall"] = {k: v for k, v in scored.items() if k != "reachable_at"}
        for scope in ("verifiable", "reachable"):
            r = scored[scope]
            say(f"recall, {scope} agent lines of {scored['commits']} commits: {r['hits']} of {r['lines']} credited to "
                f"the right session = {r['recall'] or 0:.3f}; wrong {r['wrong']}, missed {r['misses']}; strict "
                f"precision {r['precision'] or 0:.3f}")
        say(f"causes of misses and wrong answers ({scored['seconds']:.0f} s to score):")
        for cause, n in scored["causes"].items():
            say(f"  {n:5d}  {cause}")
            for sample in scored["samples"][cause][:1]:
                say(f"         e.g. {sample['commit']} {sample['path']}:{sample['line']} {sample['text'][:50]!r} "
                    f"(blamed to {sample['blamed_commit']}, answered {sample['status']} {sample['credited'] or ''}, "
                    f"written to {sample['written_to'][:1]})")

        cli = str(Path(sys.executable).parent / "git-intent")
        lines = pick_lines(work, scored["reachable_at"], args.lines)
        figures["blame"] = latency(work, lines, args.runs, cli)
        b = figures["blame"]
        if lines:
            say(f"blame on {len(lines)} agent lines at HEAD ({args.runs} runs each, medians; ratios are the median of "
                f"the per-line ratios to `git blame --porcelain -L n,n`, {b['git_cpu_ms']:.0f} ms CPU, "
                f"{b['git_wall_ms']:.0f} ms wall); answers: {dict(Counter(r['status'] for r in b['lines']))}")
            for key, label in (("", "git-intent blame FILE:LINE --json"),
                               ("resident_", "the same, GIT_INTENT_RESIDENT=1 (warm; the caller's CPU)"),
                               ("library_", "blame_lines in process (no start-up)")):
                say(f"  {label:58s} {b[key + 'cpu_ms']:6.0f} ms CPU = {b[key + 'cpu_ratio']:5.1f}x  "
                    f"{b[key + 'wall_ms']:6.0f} ms wall = {b[key + 'wall_ratio']:5.1f}x")
            figures["profile"] = profile(work, b["lines"][0]["location"], root)
            say(f"cProfile of `git-intent blame {b['lines'][0]['location']}`, top 10 cumulative:")
            for row in figures["profile"]:
                say("  " + row)
            figures["fallback"] = fallback(work, lines[-1], cli)
            f = figures["fallback"]
            say(f"blame of {f['location']} with the note of {f['commit']} removed (content fallback): "
                f"{f['wall']:.2f} s wall, {f['cpu']:.2f} s CPU; answer {f['status']} by {f['method']} "
                f"({f['session']})")
        for pid_file in (runtime / "git-intent").glob("*.pid"):
            try:
                os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGTERM)
            except (OSError, ValueError):
                pass
    say(f"(2 cores shared with other workers: figures under load; load average at start {figures['under_load']})")
    if args.json:
        print(json.dumps(figures, indent=2, default=str))


if __name__ == "__main__":
    main()
