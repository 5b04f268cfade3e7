"""Index ingest of real transcripts, and what indexing less tool output would buy (a decision).

Reads every Claude Code and Codex fixture transcript (fixtures/transcripts: 10 sessions, the text of real
work), ingests `--copies` copies of them (new session ids) into a fresh index four times: tool results
indexed whole (today), cut to an 8,000- or 2,000-character head, or left out. For each it prints the share
of the text indexed, CPU seconds and MB of the *whole* text per CPU second (so the figures compare: the text
a user's transcripts hold), and how many of 200 one-word queries find other messages than today: 100 words
drawn from tool results and 100 from everything else (prompts, replies, reasoning, tool calls), top 20 each.

Run: .venv/bin/python bench/index_tool_output.py [--copies N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from _common import isolate

from git_intent.core.values import Session
from git_intent.git.repo import Repository
from git_intent.index import ingest
from git_intent.index.search import search
from git_intent.sessions.discovery import read_transcript

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
CAPS: list[tuple[str, int | None]] = [
    ("whole (today)", None),
    ("head 8,000", 8000),
    ("head 2,000", 2000),
    ("left out", 0),
]


def fixture_sessions() -> list[Session]:
    return [
        s
        for agent in ("claude-code", "codex")
        for path in sorted((FIXTURES / agent).glob("*.jsonl"))
        for s in read_transcript(path)
    ]


def copies(sessions: list[Session], count: int, cap: int | None) -> list[Session]:
    """`count` copies of `sessions` with new ids, tool results cut to `cap` characters (None: whole)."""
    out = []
    for k in range(count):
        for session in sessions:
            messages = (
                session.messages
                if cap is None
                else [
                    replace(
                        m,
                        parts=tuple(
                            replace(p, text=p.text[:cap]) if p.kind == "tool_result" else p for p in m.parts
                        ),
                    )
                    for m in session.messages
                ]
            )
            out.append(replace(session, session_id=f"{session.session_id}-{k}", messages=messages))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    sessions = fixture_sessions()
    words: dict[bool, list[str]] = {True: [], False: []}
    total = tool = 0
    for session in sessions:
        for message in session.messages:
            for part in message.parts:
                size = len(part.text.encode("utf-8"))
                total += size
                tool += size if part.kind == "tool_result" else 0
                words[part.kind == "tool_result"] += [
                    w.lower() for w in re.findall(r"[A-Za-z]{5,}", part.text)
                ]
    rng = random.Random(args.seed)
    queries = rng.sample(words[True], 100) + rng.sample(words[False], 100)
    whole_mb = total * args.copies / 1e6
    print(
        f"{len(sessions)} fixture sessions x {args.copies}: {whole_mb:.1f} MB of message text, "
        f"{100 * tool / total:.0f}% of it tool results"
    )
    print(
        f"{'tool results':<14} {'indexed MB':>10} {'CPU s':>6} {'MB/CPU s':>9} {'answers differ':>15} "
        f"{'(tool words)':>12} {'now none':>9}"
    )
    root = Path(tempfile.mkdtemp(prefix="index-tool-output-"))
    try:
        isolate(root)
        today: list[list[str]] = []
        for n, (name, cap) in enumerate(CAPS):
            subprocess.run(["git", "init", "-q", str(root / str(n))], check=True)
            repo = Repository(root / str(n))
            batch = copies(sessions, args.copies, cap)
            began = time.process_time()
            result = ingest(repo, batch)
            cpu = time.process_time() - began
            answers = [[hit.show for hit in search(repo, query)] for query in queries]
            today = today or answers
            differ = [a != b for a, b in zip(answers, today, strict=True)]
            print(
                f"{name:<14} {result.text_bytes / 1e6:>10.1f} {cpu:>6.2f} {whole_mb / cpu:>9.1f} "
                f"{sum(differ):>11} of {len(queries)} {sum(differ[:100]):>8} of 100 "
                f"{sum(1 for a, b in zip(answers, today, strict=True) if b and not a):>9}"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
