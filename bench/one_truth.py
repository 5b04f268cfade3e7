"""One true answer on a real history: the same notes on every route and run, nothing credited after its
commit, every surface classifying a line alike, and the same answers with and without the caches.

On a clone of a repository whose authors recorded their sessions with Entire (entireio/cli, entireio/git-sync:
the `entire/checkpoints/v1` branch holds their native transcripts), as a new user would (HOME isolated, no
transcript on the machine):

1. Determinism. `git intent import --from entire`, twice; the notes after each run compared: notes changed and
   lines whose credit (session, message) moved. Then `git intent backfill --force HEAD`, another route over
   the same transcripts (the import's backup copies): notes of the commits both wrote, compared the same way.
2. Causality. Every line a note credits, against the time of the message credited: lines credited to a message
   later than the commit's committer time plus `capture.timeline.WINDOW_SLACK` (goal 0); and, for information,
   later than the commit's author date (a rebased or amended commit's committer time is later than its work).
3. Surfaces (`--range`, default HEAD~20..HEAD): the class of each added line (agent with evidence, agent
   without, human, unrecorded) from `blame`, `review`, `audit`, `stats` and `export`, each in a child process
   with `--json`; lines whose class differs between any two (goal 0), and the totals of audit and stats. They
   start from the notes the second import left (`--notes`): commits without a trailer have none, so their
   lines are answered as `record` would credit them now.
4. Caches. The same answers with `.git/intent/index.db`, the record cache and the parse caches removed, then
   with them built (`git intent index`): answers that differ (goal 0).

Run (the import takes ~1.5 min a run on entireio/cli):

    .venv/bin/python bench/one_truth.py --repo /work/.mirror/entireio+cli/repo --keep /tmp/ot-cli
    .venv/bin/python bench/one_truth.py --reuse /tmp/ot-cli --phases surfaces,caches
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import isolate  # noqa: E402

PHASES = ("determinism", "causality", "surfaces", "caches")
CLI = [sys.executable, "-m", "git_intent"]


def git(work: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=work, check=True, capture_output=True, text=True).stdout


def intent(work: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`git intent ARGS` in a child process (the installed CLI, as a user runs it)."""
    proc = subprocess.run([*CLI, *args], cwd=work, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise SystemExit(f"git intent {' '.join(args)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc


def setup(root: Path, mirror: Path) -> Path:
    """A clone of `mirror` with its checkpoints branch, main checked out, in `root/work`."""
    work = root / "work"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(mirror), str(work)], check=True)
    branch = git(work, "symbolic-ref", "--short", "HEAD").strip() or "main"
    git(work, "checkout", "-q", branch)
    git(work, "branch", "-q", "entire/checkpoints/v1", "origin/entire/checkpoints/v1")
    return work


def snapshot(work: Path) -> dict[str, str]:
    """commit -> note text on refs/notes/git-intent."""
    listing = git(work, "notes", "--ref", "refs/notes/git-intent", "list").split("\n")
    pairs = [line.split() for line in listing if line]
    if not pairs:
        return {}
    out = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=work,
        check=True,
        capture_output=True,
        input="".join(f"{blob}\n" for blob, _ in pairs).encode(),
    ).stdout
    notes: dict[str, str] = {}
    pos = 0
    for _, commit in pairs:
        newline = out.index(b"\n", pos)
        size = int(out[pos:newline].split()[2])
        notes[commit] = out[newline + 1 : newline + 1 + size].decode()
        pos = newline + 1 + size + 1
    return notes


def credits(note: str) -> dict[tuple[str, int], tuple[str, str]]:
    """(path, line) -> (session id, message id) of a note's lines records."""
    found: dict[tuple[str, int], tuple[str, str]] = {}
    for line in note.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("kind") == "lines":
            for n in range(record["start"], record["end"] + 1):
                found[(record["path"], n)] = (record["session_id"], record["message_id"])
    return found


def compare(one: dict[str, str], other: dict[str, str]) -> dict[str, Any]:
    """Notes that differ between two snapshots (of the commits both hold), and the credited lines that
    moved."""
    common = sorted(set(one) & set(other))
    changed = [c for c in common if one[c] != other[c]]
    moved = session = lost = gained = 0
    examples: list[str] = []
    for commit in changed:
        a, b = credits(one[commit]), credits(other[commit])
        for key in set(a) | set(b):
            if key not in b:
                lost += 1
            elif key not in a:
                gained += 1
            elif a[key] != b[key]:
                moved += 1
                session += a[key][0] != b[key][0]
                if len(examples) < 5:
                    examples.append(
                        f"{commit[:8]} {key[0]}:{key[1]} {a[key][0][:8]}:{a[key][1][:8]} -> "
                        f"{b[key][0][:8]}:{b[key][1][:8]}"
                    )
    return {
        "common": len(common),
        "notes_changed": len(changed),
        "lines_moved": moved,
        "to_another_session": session,
        "lines_lost": lost,
        "lines_gained": gained,
        "examples": examples,
    }


def determinism(work: Path, figures: dict[str, Any], say: Callable[[str], None]) -> None:
    runs = []
    for n in (1, 2):
        started = time.perf_counter()
        proc = intent(work, "import", "--from", "entire", "--json")
        runs.append({"seconds": round(time.perf_counter() - started, 1), **_import_counts(proc.stdout)})
        (work.parent / f"notes-import-{n}.json").write_text(json.dumps(snapshot(work)))
        say(f"import {n}: {runs[-1]}")
    first = json.loads((work.parent / "notes-import-1.json").read_text())
    second = json.loads((work.parent / "notes-import-2.json").read_text())
    figures["import_twice"] = {"runs": runs, **compare(first, second)}
    say(f"second import against the first: {figures['import_twice']}")
    started = time.perf_counter()
    intent(work, "backfill", "--force", "HEAD", "--json")
    third = snapshot(work)
    (work.parent / "notes-backfill.json").write_text(json.dumps(third))
    figures["backfill_after_import"] = {
        "seconds": round(time.perf_counter() - started, 1),
        **compare(second, third),
    }
    say(f"backfill --force HEAD against the import: {figures['backfill_after_import']}")


def _import_counts(stdout: str) -> dict[str, Any]:
    try:
        data = json.loads(stdout)
    except ValueError:
        return {}
    return {k: data.get(k) for k in ("sessions", "commits", "lines_added", "lines_attributed")}


def causality(work: Path, figures: dict[str, Any], say: Callable[[str], None]) -> None:
    """Lines credited to a message later than their commit, read through the library (the backup copies)."""
    from git_intent.capture.timeline import WINDOW_SLACK
    from git_intent.core.errors import IntentError
    from git_intent.git.repo import Repository
    from git_intent.sessions.discovery import find_session

    repo = Repository(work)
    notes = snapshot(work)
    times = {}
    for line in git(work, "log", "--all", "--format=%H %ct %at").splitlines():
        sha, committed, authored = line.split()
        times[sha] = (
            datetime.fromtimestamp(int(committed), timezone.utc),
            datetime.fromtimestamp(int(authored), timezone.utc),
        )
    stamps: dict[tuple[str, str], dict[str, datetime | None]] = {}
    later = after_author = untimed = missing = total = 0
    examples: list[str] = []
    for commit, note in notes.items():
        for record in (json.loads(x) for x in note.splitlines() if x.startswith("{")):
            if record.get("kind") != "lines" or record.get("derived_from"):
                continue
            key = (record["agent"], record["session_id"])
            if key not in stamps:
                try:
                    session = find_session(repo, record["session_id"], record["agent"], exact=True)
                    stamps[key] = {m.message_id: m.timestamp for m in session.messages}
                    stamps[key].update({e.message_id: e.timestamp for e in session.edits if e.timestamp})
                except IntentError:
                    stamps[key] = {}
            lines = record["end"] - record["start"] + 1
            total += lines
            when = stamps[key].get(record["message_id"])
            if record["message_id"] not in stamps[key]:
                missing += lines
            elif when is None:
                untimed += lines
            elif when > times[commit][0] + WINDOW_SLACK:
                later += lines
                if len(examples) < 5:
                    examples.append(
                        f"{commit[:8]} {record['path']}:{record['start']} message {when:%Y-%m-%d %H:%M} > "
                        f"committed {times[commit][0]:%Y-%m-%d %H:%M}"
                    )
            elif when > times[commit][1] + WINDOW_SLACK:
                after_author += lines
    figures["causality"] = {
        "lines_credited": total,
        "later_than_commit": later,
        "later_than_author_date_only": after_author,
        "message_untimed": untimed,
        "message_not_here": missing,
        "examples": examples,
    }
    say(f"causality: {figures['causality']}")


def restore(work: Path, saved: Path) -> None:
    """refs/notes/git-intent as `saved` (commit -> note text) holds it, byte for byte."""
    subprocess.run(["git", "update-ref", "-d", "refs/notes/git-intent"], cwd=work, check=True)
    for commit, text in json.loads(saved.read_text()).items():
        blob = (
            subprocess.run(
                ["git", "hash-object", "-w", "--stdin"],
                cwd=work,
                input=text.encode(),
                check=True,
                capture_output=True,
            )
            .stdout.decode()
            .strip()
        )
        git(work, "notes", "--ref", "refs/notes/git-intent", "add", "-f", "-C", blob, commit)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", type=Path, default=Path("/work/.mirror/entireio+cli/repo"))
    parser.add_argument(
        "--keep", type=Path, default=None, help="build the sandbox in this new folder and keep it"
    )
    parser.add_argument(
        "--reuse", type=Path, default=None, help="measure again in a sandbox kept with --keep"
    )
    parser.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)}")
    parser.add_argument("--range", default="HEAD~20..HEAD", help="the range the surfaces are compared on")
    parser.add_argument(
        "--notes",
        default="import-2",
        help="the notes the surfaces and caches phases start from: "
        "import-2 (as the second import left them: commits without a trailer have none), backfill, or "
        "current",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    phases = [p for p in args.phases.split(",") if p]
    say: Callable[[str], None] = (lambda _t: None) if args.json else print
    root = args.reuse or args.keep or Path(tempfile.mkdtemp(prefix="one-truth-"))
    root.mkdir(parents=True, exist_ok=True)
    isolate(root)
    work = root / "work"
    if args.reuse is None:
        if work.exists():
            shutil.rmtree(work)
        work = setup(root, args.repo)
    figures: dict[str, Any] = {"repo": str(args.repo), "range": args.range}
    if "determinism" in phases:
        determinism(work, figures, say)
    if "causality" in phases:
        causality(work, figures, say)
    if "surfaces" in phases or "caches" in phases:
        from one_truth_surfaces import caches, surfaces

        if args.notes != "current":
            restore(work, root / f"notes-{args.notes}.json")
            say(f"notes restored from notes-{args.notes}.json")

        if "surfaces" in phases:
            surfaces(work, args.range, figures, say)
        if "caches" in phases:
            caches(work, args.range, figures, say)
    if args.json:
        print(json.dumps(figures, indent=2, default=str))
    if args.keep is None and args.reuse is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
