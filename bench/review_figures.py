"""`git intent review` and `git intent serve` on the largest range of the linked fixtures.

The range: the three entire-cli commits of fixtures/linked rebuilt from their real Claude Code transcripts
into one history (ac3f02a3c337 session 2, then session 0, then 8ece5fc12e98; 94 agent lines in 5 files),
each recorded with `record_commit`, reviewed from the person's baseline to HEAD. HOME, git config and the
agents' folders point into a temporary folder (bench/_common.py), removed at the end.

What it measures (wall time, `time.perf_counter_ns`, median / p95 / min over N rounds after 2 warm-ups):

  a. git diff        `git diff BASE..HEAD` (subprocess)
  b. review          `git-intent review BASE..HEAD` (subprocess; what a user waits for)
  c. review md       `git-intent review BASE..HEAD --format markdown` (subprocess); also its size
  d. review_range    `git_intent.review.review_range(repo, "BASE..HEAD")` in this process
  e. file view       GET /file/PATH of a running `git-intent serve` for the range's largest file (HTTP,
                     the whole page: whole-file blame, evidence panels, template)
  f. browser load    the same page in headless Chromium: navigation start to the load event (only when
                     Selenium and chromium/chromedriver are installed, as for the browser tests)

Run from the repository root:

    .venv/bin/python bench/review_figures.py            # table
    .venv/bin/python bench/review_figures.py --runs 50  # more rounds
    .venv/bin/python bench/review_figures.py --json     # figures as JSON
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from _common import isolate

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "linked" / "entire-cli" / "checkpoints"
SESSIONS = (
    ("ac3f02a3c337 session 2", CORPUS / "ac" / "3f02a3c337" / "2" / "full.jsonl"),
    ("ac3f02a3c337 session 0", CORPUS / "ac" / "3f02a3c337" / "0" / "full.jsonl"),
    ("8ece5fc12e98 session 0", CORPUS / "8e" / "ce5fc12e98" / "0" / "full.jsonl"),
)
WARMUPS = 2


def session_cwd(transcript: Path) -> str:
    for line in transcript.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if isinstance(record, dict) and isinstance(record.get("cwd"), str):
            return str(record["cwd"])
    raise RuntimeError(f"no cwd in {transcript}")


def build(folder: Path) -> str:
    """The history described above in `folder`; returns the baseline commit."""
    from git_intent.capture.record import record_commit
    from git_intent.git.repo import Repository
    from git_intent.sessions.discovery import read_transcript
    from git_intent.sessions.replay import commit_replayed, write_replayed
    from git_intent.sessions.replay import rebuild as rebuild_session

    rebuilds = [
        (label, path, rebuild_session(read_transcript(path)[0]), session_cwd(path))
        for label, path in SESSIONS
    ]
    folder.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=folder, check=True)
    for _, _, rebuild, cwd in rebuilds:
        write_replayed(folder, rebuild.pre, cwd)
    first = min(datetime.fromisoformat(r.first_edit_at) for _, _, r, _ in rebuilds)
    base = commit_replayed(folder, "baseline", first - timedelta(hours=1))
    repo = Repository(folder)
    record_commit(repo, base)
    for label, path, rebuild, cwd in rebuilds:
        write_replayed(folder, rebuild.post, cwd)
        commit_replayed(folder, label, datetime.fromisoformat(rebuild.last_edit_at) + timedelta(minutes=1))
        record_commit(repo, "HEAD", transcripts=[path for _, path in SESSIONS])
    return base


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter_ns()
    action()
    return (time.perf_counter_ns() - start) / 1e6


def figures(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": statistics.median(ordered),
        "p95_ms": ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)],
        "min_ms": ordered[0],
    }


def browser_load(url: str, runs: int) -> list[float] | None:
    """Navigation start to the load event in headless Chromium, or None without Selenium or chromium."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not binary or not driver:
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    profile = tempfile.mkdtemp(prefix="intent-bench-")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}"):
        options.add_argument(argument)
    browser = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    try:
        samples = []
        for n in range(runs + WARMUPS):
            browser.get(url)
            entry = browser.execute_script(
                "const e = performance.getEntriesByType('navigation')[0];return e.loadEventEnd - e.startTime;"
            )
            if n >= WARMUPS:
                samples.append(float(entry))
        return samples
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    exe = shutil.which("git-intent", path=str(Path(sys.executable).parent)) or shutil.which("git-intent")
    if exe is None:
        sys.exit("git-intent is not installed next to this Python or on PATH")
    with tempfile.TemporaryDirectory(prefix="intent-review-bench-") as tmp:
        isolate(Path(tmp))
        folder = Path(tmp) / "repo"
        base = build(folder)
        spec = f"{base}..HEAD"

        from git_intent.git.repo import Repository
        from git_intent.review import review_range

        repo = Repository(folder)
        answer = review_range(repo, spec)
        largest = max(
            answer.files, key=lambda f: len((folder / f.path).read_text(encoding="utf-8").splitlines())
        )
        largest_lines = len((folder / largest.path).read_text(encoding="utf-8").splitlines())

        def run(*argv: str) -> Callable[[], object]:
            return lambda: subprocess.run(list(argv), cwd=folder, capture_output=True, check=True)

        benches: dict[str, Callable[[], object]] = {
            "a. git diff": run("git", "diff", spec),
            "b. git-intent review": run(exe, "review", spec),
            "c. git-intent review --format markdown": run(exe, "review", spec, "--format", "markdown"),
            "d. review_range in process": lambda: review_range(repo, spec),
        }
        server = subprocess.Popen(
            [exe, "serve", "--port", "0"], cwd=folder, stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None
            found = re.search(r"at (http://127\.0\.0\.1:\d+/)", server.stdout.readline())
            if found is None:
                sys.exit("git intent serve did not start")
            page = f"{found[1]}file/{largest.path}"
            benches["e. file view GET"] = lambda: urllib.request.urlopen(page, timeout=60).read()
            samples: dict[str, list[float]] = {name: [] for name in benches}
            for n in range(args.runs + WARMUPS):
                for name, action in benches.items():
                    took = timed(action)
                    if n >= WARMUPS:
                        samples[name].append(took)
            loads = browser_load(page, min(args.runs, 10))
        finally:
            server.terminate()
            server.wait(timeout=10)
        markdown = subprocess.run(
            [exe, "review", spec, "--format", "markdown"],
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    result: dict[str, Any] = {
        "range": "entire-cli: baseline..HEAD (ac3f02a3c337 s2, s0, 8ece5fc12e98)",
        "files": len(answer.files),
        "agent_lines": answer.totals.agent,
        "person_lines": answer.totals.human,
        "largest_file": largest.path,
        "largest_file_lines": largest_lines,
        "markdown_chars": len(markdown),
        "markdown_bytes": len(markdown.encode("utf-8")),
        "runs": args.runs,
        "figures": {name: figures(s) for name, s in samples.items()},
    }
    if loads is not None:
        result["figures"]["f. browser load (navigation → load)"] = figures(loads)
    ratio = (
        result["figures"]["b. git-intent review"]["median_ms"] / result["figures"]["a. git diff"]["median_ms"]
    )
    result["review_vs_diff"] = ratio
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"range {result['range']}: {result['files']} files, {result['agent_lines']} agent and "
        f"{result['person_lines']} person lines; {args.runs} runs after {WARMUPS} warm-ups"
    )
    print(f"{'benchmark':<42} {'median ms':>10} {'p95 ms':>9} {'min ms':>9}")
    for name, row in result["figures"].items():
        print(f"{name:<42} {row['median_ms']:>10.1f} {row['p95_ms']:>9.1f} {row['min_ms']:>9.1f}")
    print(f"review / git diff (medians): {ratio:.1f}x")
    print(
        f"markdown comment: {result['markdown_chars']:,} characters ({result['markdown_bytes']:,} bytes) "
        f"of GitHub's 65,536"
    )
    print(f"file view: {largest.path} ({largest_lines} lines)")


if __name__ == "__main__":
    main()
