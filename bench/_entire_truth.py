"""The ground truth of bench/real_history.py: entireio/cli's history and its authors' Entire checkpoints.

Kept apart from git-intent's view: main's history is cloned alone into the work repository; the checkpoints
are read from a second repository beside it (the snapshot's objects through git's alternates) with
git_intent.peers.entire's readers, and each Claude Code or Codex session's largest transcript is written into
the agents' folders for the work tree. A verifiable agent line of a trailer commit C is a non-blank line C
added (`git diff -U0 C^ C`; for a merge, new against every parent) that appears verbatim, stripped, in the
edit payloads of C's checkpoint's sessions (Claude Code Edit/MultiEdit `new_string`, Write `content`; Codex
apply_patch `+` lines); it is reachable when one of those edits wrote it (not as unchanged text) into this
very file before C was committed. `score` blames each at C as `blame_lines` would and names the cause of every
miss and wrong answer.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

CHECKPOINTS = "refs/heads/entire/checkpoints/v1"
GET_IT = (
    "git clone https://github.com/entireio/cli && git -C cli fetch origin "
    "entire/checkpoints/v1:entire/checkpoints/v1"
)
AGENTS = ("claude-code", "codex")
CLAUDE_TOOLS = frozenset({"Edit", "MultiEdit", "Write"})
SAMPLES = 3  # examples kept per cause
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
SLACK = timedelta(seconds=2)  # commit times have one-second resolution, edit timestamps milliseconds


def git(cwd: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(
        ["git", "-c", "core.quotePath=false", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=check,
        errors="replace",
    ).stdout


def locate(given: Path) -> Path:
    """The git directory of the snapshot at `given` (a bare repository or a clone) holding main and the
    checkpoints branch; exits with how to get it when it is not there."""
    proc = subprocess.run(
        ["git", "-C", str(given), "rev-parse", "--absolute-git-dir"], capture_output=True, text=True
    )
    gitdir = Path(proc.stdout.strip()) if proc.returncode == 0 else None
    if gitdir is None or any(
        subprocess.run(
            ["git", "--git-dir", str(gitdir), "rev-parse", "-q", "--verify", ref], capture_output=True
        ).returncode
        for ref in ("refs/heads/main", CHECKPOINTS)
    ):
        sys.exit(
            f"error: {given} is not a clone of entireio/cli with its main and entire/checkpoints/v1 "
            f"branches; get one with `{GET_IT}` and pass --repo cli."
        )
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
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--no-local",
            "--single-branch",
            "--branch",
            "main",
            "--no-tags",
            str(gitdir),
            str(work),
        ],
        check=True,
    )
    git(work, "remote", "remove", "origin")
    git(work, "config", "commit.gpgsign", "false")
    refs = git(work, "for-each-ref", "--format=%(refname)").split()
    assert refs == ["refs/heads/main"], refs
    subprocess.run(["git", "init", "-q", str(truth)], check=True)
    (truth / ".git" / "objects" / "info" / "alternates").write_text(f"{gitdir / 'objects'}\n")
    for ref in ("refs/heads/main", CHECKPOINTS):
        sha = subprocess.run(
            ["git", "--git-dir", str(gitdir), "rev-parse", ref], capture_output=True, text=True, check=True
        ).stdout.strip()
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
        found = {
            path: kept
            for path, lines in found.items()
            if (kept := [(n, t) for n, t in lines if (path, n) in keep])
        }
    return found


def _diff_added(work: Path, base: str, commit: str) -> dict[str, list[tuple[int, str]]]:
    out = git(
        work, "diff", "-U0", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", base, commit
    )
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


def extract(
    truth_repo: Any, work: Path, needed: set[str]
) -> tuple[dict[str, Extracted], dict[str, Any], Counter[str]]:
    """Write every Claude Code and Codex session's largest transcript into the agents' folders for `work`;
    the sessions by id, the checkpoints by id, and the sessions left out by agent."""
    from git_intent.adapters.claude_code import encode_project
    from git_intent.peers.entire import read_checkpoints

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
                e.timestamp for e in session.edits if e.timestamp
            ]
            last = max(stamps) if stamps else entire_session.created_at
            if session.agent == "codex":
                start = min(stamps) if stamps else last or datetime.now(timezone.utc)
                target = (
                    Path(os.environ["CODEX_HOME"])
                    / "sessions"
                    / start.strftime("%Y/%m/%d")
                    / f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{session.session_id}.jsonl"
                )
                target.parent.mkdir(parents=True, exist_ok=True)
                path = path.rename(target)
            if last is not None:
                os.utime(path, (last.timestamp(), last.timestamp()))
            item = Extracted(
                agent=session.agent,
                session_id=session.session_id,
                path=path,
                cwd=session.cwd,
                last=last,
                size=entire_session.transcript_size,
            )
            for edit in session.edits:
                if session.agent == "claude-code" and edit.tool in CLAUDE_TOOLS:
                    texts = edit.new_text.split("\n")
                elif session.agent == "codex" and edit.tool.endswith("apply_patch"):
                    texts = [a.text for a in edit.added]
                else:
                    continue
                added = {a.text.strip() for a in edit.added}
                old = (
                    {t.strip() for t in (edit.old_text or "").split("\n")}
                    if edit.tool in CLAUDE_TOOLS
                    else set()
                )
                for text in {t.strip() for t in texts} & needed:
                    item.payload.setdefault(text, []).append(
                        Written(edit.path, edit.timestamp, edit.message_id, text not in old, text in added)
                    )
            extracted[session.session_id] = item
            if key != session.session_id:
                extracted.setdefault(key, item)
    return extracted, checkpoints, left_out


def score(
    work: Path,
    trailers: dict[str, list[str]],
    checkpoints: dict[str, Any],
    extracted: dict[str, Extracted],
    diffs: dict[str, dict[str, list[tuple[int, str]]]],
    credited: set[str],
) -> dict[str, Any]:
    """Blame every verifiable agent line at its commit; hits, wrong answers and misses with their causes,
    over all verifiable lines and over the reachable ones (written by the checkpoint's sessions into this
    very file, as the path recorded in the transcript ends with it: what a verbatim linker can reach)."""
    from git_intent.config import lookback
    from git_intent.explain.blame import Explainer
    from git_intent.git.repo import Repository
    from git_intent.sessions.path_mapping import PathMapper

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
        sessions = {
            s.agent_session_id
            for i in ids
            if i in checkpoints
            for s in checkpoints[i].sessions
            if s.agent_session_id in extracted
        }
        if not sessions or commit not in diffs:
            continue
        own = {extracted[s].session_id for s in sessions} | sessions
        commits_scored += 1
        parents = git(work, "rev-list", "--parents", "-n1", commit).split()[1:]
        committed = datetime.fromtimestamp(int(git(work, "show", "-s", "--format=%ct", commit)), timezone.utc)
        after = (
            datetime.fromtimestamp(int(git(work, "show", "-s", "--format=%ct", parents[0])), timezone.utc)
            if parents
            else None
        )
        # Backfill maps recorded paths against HEAD's files; the commit's own files tell when that lost a
        # line.
        mappers = (PathMapper(work, repo.tree_files(commit)), at_head)
        for path, lines in diffs[commit].items():
            wanted = [(n, t) for n, t in lines if t.strip() and writers.get(t.strip(), set()) & own]
            if not wanted:
                continue
            blamed = {
                b.final_line: b for b in repo.blame(path, rev=commit, ranges=[(n, n) for n, _ in wanted])
            }
            for number, text in wanted:
                norm = text.strip()
                mine = [
                    (extracted[s], w)
                    for s in own
                    if s in extracted
                    for w in extracted[s].payload.get(norm, [])
                ]
                here = [(item, w) for item, w in mine if same_file(w.path, path)]
                wrote = [(item, w) for item, w in here if w.introduced]
                made = [(item, w) for item, w in wrote if w.when is None or w.when <= committed + SLACK]
                unreachable = (
                    "written by the checkpoint's sessions only into other paths"
                    if not here
                    else "only unchanged text of the sessions' edits of this file"
                    if not wrote
                    else "the sessions wrote it into this file only after the commit"
                    if not made
                    else None
                )
                scope = "unreachable" if unreachable else "reachable"
                if not unreachable:
                    reachable_at[commit].add(norm)
                line = blamed[number]
                answer = explainer(path, line)
                got = (
                    answer.attribution.session_id if answer.status == "agent" and answer.attribution else None
                )
                outcome = "hit" if got in own else "wrong" if got else "miss"
                counts[outcome] += 1
                counts[f"{scope} {outcome}"] += 1
                if outcome == "hit":
                    continue
                cause = unreachable or _cause(
                    outcome,
                    line.commit,
                    commit,
                    norm,
                    path,
                    made,
                    got,
                    extracted,
                    mappers,
                    after,
                    committed,
                    window,
                    credited,
                    writers,
                )
                key = f"{outcome} ({scope}): {cause}"
                causes[key] += 1
                if len(samples[key]) < SAMPLES:
                    samples[key].append(
                        {
                            "commit": commit[:12],
                            "path": path,
                            "line": number,
                            "text": norm[:80],
                            "blamed_commit": (line.commit or "")[:12],
                            "status": answer.status,
                            "credited": got,
                            "sessions": sorted(sessions),
                            "written_to": sorted({w.path for _, w in mine})[:3],
                            "reason": answer.reason,
                        }
                    )
    figures: dict[str, Any] = {"commits": commits_scored}
    for scope in ("", "reachable "):
        hit, wrong, miss = (counts[f"{scope}{o}"] for o in ("hit", "wrong", "miss"))
        name = scope.strip() or "verifiable"
        figures[name] = {
            "lines": hit + wrong + miss,
            "hits": hit,
            "wrong": wrong,
            "misses": miss,
            "recall": hit / (hit + wrong + miss) if hit + wrong + miss else None,
            "precision": hit / (hit + wrong) if hit + wrong else None,
        }
    figures.update(
        {
            "causes": dict(causes.most_common()),
            "samples": dict(samples),
            "reachable_at": {c: sorted(v) for c, v in reachable_at.items()},
        }
    )
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


def _cause(
    outcome: str,
    blamed: str | None,
    commit: str,
    norm: str,
    path: str,
    made: list[tuple[Extracted, Written]],
    got: str | None,
    extracted: dict[str, Extracted],
    mappers: tuple[Any, Any],
    after: datetime | None,
    committed: datetime,
    window: timedelta,
    credited: set[str],
    writers: dict[str, set[str]],
) -> str:
    """Why a reachable line (`made`: the checkpoint's edits that wrote it into this file before the commit)
    was not credited to its session: the first reason that holds."""
    from git_intent.capture.attribute import is_trivial

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
    at_commit, at_head = mappers
    if not any(at_commit.to_repo(w.path, item.cwd) == path for item, w in made):
        return "recorded path not mapped onto the file"
    if not any(at_head.to_repo(w.path, item.cwd) == path for item, w in made):
        return "path mapped against HEAD's files only (the file is gone or moved at HEAD)"
    earliest = (after or committed) - window - SLACK
    if not any(w.when is None or earliest <= w.when for _, w in made):
        return "edit older than the look-back window"
    if trivial:
        return "trivial-line rule (the nearest credited line of its hunk is not its session's)"
    if not any(w.added for _, w in made):
        return "the adapter's added lines leave it out (only in new_string, not in its replay diff)"
    if not any(item.session_id in credited for item, _ in made):
        return "session credited nowhere by backfill"
    return "an edit of this file in the window added it, yet not credited"
