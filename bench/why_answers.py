"""Figures for `git intent why`: what the sub-agent reads, how good the offline answer is, and
what an offline answer costs over a blame.

The four linked-corpus commits are rebuilt and recorded as bench/record_corpus.py does (entire-cli
8ece5fc12e98, ac3f02a3c337 sessions 2 then 0, git-sync 8feaf84a600f). For every successful edit call of
each transcript, one line of its commit that this call alone added (at least 25 characters, unique in its
file) is asked about; the transcripts are read here with a plain JSON reader, independently of the product.

  1. tokens read: `why(repo, LINE)` with a scripted, well-behaved model on a local OpenAI-compatible server
     (tests/support/scripted_model.py, through the real litellm client): blame(path, line) →
     view_context(session, budget 400) → message_detail(the reasoning message nearest the edit, else the
     request) → an answer citing the request. `transcript_tokens_read` against `session_tokens_total`
     (characters / 4).
  2. offline quality: `why(repo, LINE, offline=True)`; an answer is right when the sentence "The user asked …"
     cites the prompt that asked for the line: the last user prompt before the edit call in the raw
     transcript. Citations verified = verified / (verified + dropped).
  3. latency: on the demo repository (line 85 of chunking.go), `git-intent why LINE --offline` and
     `git-intent blame LINE` (subprocesses), and `why(..., offline=True)` and `blame_lines(...)` in process;
     median and p95 of N rounds after 2 warm-ups, every benchmark once per round.

HOME, git's global config and the agents' folders point into a temporary folder (bench/_common.py).
Needs litellm (pip install -e '.[test]' or '.[agent]'). Run from the repository root:

    .venv/bin/python bench/why_answers.py            # table
    .venv/bin/python bench/why_answers.py --runs 30  # latency rounds (default 20)
    .venv/bin/python bench/why_answers.py --json     # the figures as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _common import isolate
from blame_latency import find_cli, summarize
from record_corpus import CASES, DEFAULT_CORPUS, run_case

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support import json_objects as records  # noqa: E402
from support.scripted_model import Reply, call, say, scripted, tool_results  # noqa: E402

WARMUPS = 2
VIEW_BUDGET = 400


# -- the transcripts, read plainly
# -----------------------------------------------------------------------------


def edit_calls(path: Path, agent: str) -> list[tuple[tuple[str, ...], str]]:
    """(lines the call added, id of the prompt before it) for each successful edit call."""
    pending: dict[str, tuple[tuple[str, ...], str]] = {}
    done: list[tuple[tuple[str, ...], str]] = []
    prompt = ""
    for n, record in records(path):
        if agent == "claude":
            message = record.get("message") if isinstance(record.get("message"), dict) else {}
            content = message.get("content")
            blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
            if (
                record.get("type") == "user"
                and not record.get("isMeta")
                and (
                    (isinstance(content, str) and not content.lstrip().startswith("<"))
                    or any(b.get("type") == "text" for b in blocks)
                    and not any(b.get("type") == "tool_result" for b in blocks)
                )
            ):
                prompt = record["uuid"]
            for block in blocks:
                if (
                    record.get("type") == "assistant"
                    and block.get("type") == "tool_use"
                    and block.get("name") in ("Edit", "MultiEdit", "Write")
                ):
                    args = block["input"]
                    pairs = (
                        [(e.get("old_string", ""), e.get("new_string", "")) for e in args.get("edits", [])]
                        if block["name"] == "MultiEdit"
                        else [("", args.get("content", ""))]
                        if block["name"] == "Write"
                        else [(args.get("old_string", ""), args.get("new_string", ""))]
                    )
                    added = tuple(
                        x for old, new in pairs for x in new.splitlines() if x not in old.splitlines()
                    )
                    pending[block["id"]] = (added, prompt)
                elif (
                    block.get("type") == "tool_result"
                    and not block.get("is_error")
                    and block.get("tool_use_id") in pending
                    and isinstance(record.get("toolUseResult"), dict)
                ):
                    done.append(pending.pop(block["tool_use_id"]))
        else:
            payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
            if record.get("type") == "event_msg" and payload.get("type") == "user_message":
                prompt = f"r{n}"
            text = payload.get("input") or payload.get("arguments") or ""
            if record.get("type") == "response_item" and isinstance(text, str) and "*** Begin Patch" in text:
                pending[payload["call_id"]] = (
                    tuple(x[1:] for x in text.split("\n") if x.startswith("+")),
                    prompt,
                )
            elif (
                payload.get("type") == "patch_apply_end"
                and payload.get("success") is True
                and payload.get("call_id") in pending
            ):
                done.append(pending.pop(payload["call_id"]))
    return done


def pick_lines(repo: Path, commit: str, calls: list[tuple[tuple[str, ...], str]]) -> list[tuple[str, str]]:
    """(PATH:LINE, expected prompt id): one line of `commit` per edit call that only that call added."""
    diff = subprocess.run(
        ["git", "diff", "-U0", "--no-color", f"{commit}~1", commit],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    picked: dict[int, tuple[str, str]] = {}
    path, number = "", 0
    for row in diff.split("\n"):
        if row.startswith("+++ "):
            path = row[6:]
        elif row.startswith("@@ "):
            number = int(row.split(" ")[2][1:].split(",")[0])
        elif row.startswith("+"):
            text = row[1:]
            makers = [i for i, (added, _) in enumerate(calls) if text in added]
            unique = (repo / path).read_text(encoding="utf-8").splitlines().count(text) == 1
            if len(text.strip()) >= 25 and len(makers) == 1 and unique:
                picked.setdefault(makers[0], (f"{path}:{number}", calls[makers[0]][1]))
            number += 1
    return list(picked.values())


# -- the scripted well-behaved model ------------------------------------------------------------------------


def _blame_of(body: dict[str, Any]) -> dict[str, Any]:
    result = tool_results(body)[0]
    first = json.loads(result.split("\n", 1)[1].rsplit("\n<<<END DATA", 1)[0])["lines"][0]
    return dict(first)


def well_behaved(location: str) -> list[Any]:
    path, line = location.rsplit(":", 1)

    def view(body: dict[str, Any]) -> Reply:
        return call(
            "view_context", session_id=_blame_of(body)["attribution"]["session_id"], budget=VIEW_BUDGET
        )

    def detail(body: dict[str, Any]) -> Reply:
        line = _blame_of(body)
        kinds = {e["kind"]: e for e in line["evidence"]}
        target = kinds.get("reasoning") or kinds["request"]
        return call("message_detail", session_id=target["session_id"], message_id=target["message_id"])

    def answer(body: dict[str, Any]) -> Reply:
        line = _blame_of(body)
        request = next(e for e in line["evidence"] if e["kind"] == "request")
        words = " ".join(request["text"].split()[:8])
        return say(
            f'The user asked "{words}" [{request["session_id"]}:{request["message_id"]}], and the edit '
            f"[{line['attribution']['session_id']}:{line['attribution']['message_id']}] wrote this line."
        )

    return [call("blame", path=path, line=int(line)), view, detail, answer]


# -- the figures
# ----------------------------------------------------------------------------------------------


def answer_figures(corpus: Path, root: Path) -> list[dict[str, Any]]:
    from git_intent.answer import why
    from git_intent.git.repo import Repository

    rows = []
    for i, case in enumerate(CASES):
        folder = root / f"repo{i}"
        for session, commit_row in zip(case.sessions, run_case(case, corpus, folder), strict=True):
            calls = edit_calls(corpus / session.transcript, session.agent)
            repo = Repository(folder)
            for location, expected in pick_lines(folder, commit_row["commit"], calls):
                offline = why(repo, location, offline=True, cwd=folder)
                asked = next(
                    (
                        s
                        for s in offline.answer.split("\n")
                        if s.startswith(("The user asked", "The user answered"))
                    ),
                    "",
                )
                asked_ids = re.findall(r"\[[^:\]]+:([^\]]+)\]", asked)
                with scripted(well_behaved(location)) as server:
                    os.environ.update(
                        {"GIT_INTENT_MODEL": "openai/scripted", "GIT_INTENT_API_BASE": server.url}
                    )
                    model = why(repo, location, cwd=folder)
                    del os.environ["GIT_INTENT_MODEL"], os.environ["GIT_INTENT_API_BASE"]
                rows.append(
                    {
                        "case": case.name,
                        "session": session.label,
                        "line": location,
                        "expected_prompt": expected,
                        "offline_right": expected in asked_ids,
                        "offline_verified": len(offline.citations),
                        "offline_dropped": len(offline.dropped_citations),
                        "model_mode": model.mode,
                        "model_steps": model.steps,
                        "model_verified": len(model.citations),
                        "model_dropped": len(model.dropped_citations),
                        "tokens_read": model.usage.transcript_tokens_read,
                        "session_tokens": model.usage.session_tokens_total,
                        "offline_tokens_read": offline.usage.transcript_tokens_read,
                    }
                )
    return rows


def latency_figures(root: Path, runs: int) -> dict[str, dict[str, Any]]:
    from git_intent.answer import why
    from git_intent.demo import run_demo
    from git_intent.explain.blame import blame_lines
    from git_intent.git.repo import Repository

    folder = root / "demo"
    run_demo(keep=folder)
    location, cli, repo = "cmd/entire/cli/agent/chunking.go:85", find_cli(), Repository(folder)

    def command(*argv: str) -> Callable[[], None]:
        return lambda: subprocess.run([cli, *argv], cwd=folder, capture_output=True, check=True) and None

    benches: dict[str, tuple[str, Callable[[], None]]] = {
        "cli_blame": (f"git-intent blame {location}", command("blame", location)),
        "cli_why_offline": (f"git-intent why {location} --offline", command("why", location, "--offline")),
        "library_blame": (
            "blame_lines(repo, LINE)",
            lambda: blame_lines(repo, location, cwd=folder) and None,
        ),
        "library_why_offline": (
            "why(repo, LINE, offline=True)",
            lambda: why(repo, location, offline=True, cwd=folder) and None,
        ),
    }
    samples: dict[str, list[int]] = {key: [] for key in benches}
    for round_no in range(WARMUPS + runs):
        for key, (_, run) in benches.items():
            started = time.perf_counter_ns()
            run()
            if round_no >= WARMUPS:
                samples[key].append(time.perf_counter_ns() - started)
    return {key: {"command": label, **summarize(samples[key])} for key, (label, _) in benches.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"default {DEFAULT_CORPUS}")
    parser.add_argument("--runs", type=int, default=20, help="latency rounds (default 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="git-intent-why-"))
    try:
        isolate(root)
        os.environ.pop("OPENAI_API_KEY", None)
        rows = answer_figures(args.corpus, root)
        latency = latency_figures(root, args.runs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    shares = [r["tokens_read"] / r["session_tokens"] for r in rows]
    verified = sum(r["offline_verified"] for r in rows)
    summary = {
        "lines": len(rows),
        "tokens_read_share_median": statistics.median(shares),
        "tokens_read_share_max": max(shares),
        "lines_under_10_percent": sum(s < 0.10 for s in shares),
        "offline_right": sum(r["offline_right"] for r in rows),
        "offline_citations_verified": verified,
        "offline_citations_dropped": sum(r["offline_dropped"] for r in rows),
        "model_answers": sum(r["model_mode"] == "model" for r in rows),
        "model_citations_dropped": sum(r["model_dropped"] for r in rows),
        "why_over_blame_cli": latency["cli_why_offline"]["median_ms"] / latency["cli_blame"]["median_ms"],
    }
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    machine = f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    if args.json:
        print(
            json.dumps(
                {"date": when, "machine": machine, "summary": summary, "lines": rows, "latency": latency},
                indent=2,
            )
        )
        return
    print(f"git intent why on the linked corpus, {when}\n{machine}\n")
    print(f"{'case':<24} {'session':<19} {'line':<52} {'read':>5} {'of':>6} {'share':>6}  offline")
    for r in rows:
        print(
            f"{r['case']:<24} {r['session']:<19} {r['line'][-52:]:<52} {r['tokens_read']:>5} "
            f"{r['session_tokens']:>6} {r['tokens_read'] / r['session_tokens']:>6.1%}  "
            f"{'right' if r['offline_right'] else 'WRONG'} ({r['offline_verified']} cited, "
            f"{r['offline_dropped']} dropped)"
        )
    print(
        f"\n1. tokens read by the sub-agent route: median {summary['tokens_read_share_median']:.1%}, max "
        f"{summary['tokens_read_share_max']:.1%} of the session; "
        f"{summary['lines_under_10_percent']}/{len(rows)} lines under 10% "
        f"({summary['model_answers']}/{len(rows)} model answers, {summary['model_citations_dropped']} "
        f"citations dropped)"
    )
    print(
        f"2. offline answers quoting the request that asked for the line: "
        f"{summary['offline_right']}/{len(rows)}; citations verified: "
        f"{verified}/{verified + summary['offline_citations_dropped']}"
    )
    print("3. latency (ms):")
    for result in latency.values():
        print(
            f"     {result['command']:<58} median {result['median_ms']:>7.1f}  p95 {result['p95_ms']:>7.1f}"
        )
    print(f"   offline why / blame (CLI medians): {summary['why_over_blame_cli']:.2f}x")


if __name__ == "__main__":
    main()
