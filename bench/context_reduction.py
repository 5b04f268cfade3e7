"""Context reduction: every corpus transcript's raw size against its rendering at the default budget.

For every Claude Code, Codex, Gemini CLI, Cursor and Aider transcript file in fixtures/transcripts
and every linked `full.jsonl` in fixtures/linked, the script reads the file with the adapters,
splits each session into topics (`segment_topics`) and renders it with no user choices at the default
budget (`render_context`, 8,000 tokens per session), then prints per file:

  raw        the whole transcript file: bytes, and tokens estimated as bytes / 4
  rendered   tokens of the rendered text of all the file's sessions (characters / 4)
  reduction  100 × (1 − rendered / raw tokens), in %
  floor      tokens of the rendering with every topic set to placeholder (user turns still pinned): the
             least a rendering that keeps every fact verbatim can be; when it exceeds 5% of the raw tokens,
             95% is out of reach without dropping facts
  facts      user-stated facts still present verbatim in the rendering: sentences of prompts (user turns
             typed by a person) that carry a number, a quoted or backticked name, or "must", "always",
             "never", "don't" (`topics.fact_sentences`); kept when the sentence is a substring of the
             text rendered for its session

and whether the targets are met: at least 95% smaller, 100% of the facts kept. A file under
10 KB is marked tiny: a rendering's fixed header (session line, how to reopen messages, topic map) is
~150 tokens, more than 5% of such a file, so 95% is out of reach by construction.

Pure computation on the files in place: no git, no HOME, nothing written. Run from the repository root:

    .venv/bin/python bench/context_reduction.py                 # table
    .venv/bin/python bench/context_reduction.py --json          # the same figures as JSON
    .venv/bin/python bench/context_reduction.py --budget 4000   # another budget
    .venv/bin/python bench/context_reduction.py --corpus DIR    # another copy of fixtures
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from git_intent.adapters import sniff
from git_intent.fidelity.budget import DEFAULT_BUDGET, render_context
from git_intent.fidelity.choices import FidelityState
from git_intent.fidelity.topics import fact_sentences, segment_topics

AGENTS = ("claude-code", "codex", "gemini", "cursor", "aider")  # folder names under corpus/transcripts
TINY_BYTES = 10_000
REDUCTION_TARGET = 95.0


@dataclass
class FileResult:
    file: str
    agent: str
    sessions: int
    raw_bytes: int
    raw_tokens: int
    rendered_tokens: int
    floor_tokens: int
    reduction: float
    facts: int
    facts_kept: int
    over_budget_sessions: int
    ms: float
    tiny: bool

    @property
    def reduction_met(self) -> bool:
        return self.reduction >= REDUCTION_TARGET

    @property
    def floor_blocks(self) -> bool:
        """Whether even the all-placeholder rendering is more than 5% of the raw tokens."""
        return self.floor_tokens > self.raw_tokens * (100 - REDUCTION_TARGET) / 100

    @property
    def facts_met(self) -> bool:
        return self.facts_kept == self.facts


def transcript_files(corpus: Path) -> list[Path]:
    """The corpus transcripts of the five agents, then the linked checkpoints' full.jsonl files."""
    found = [
        p
        for agent in AGENTS
        for p in sorted((corpus / "transcripts" / agent).rglob("*"))
        if p.is_file() and p.name != "README.md" and not p.name.endswith(".meta.json")
    ]
    return found + sorted((corpus / "linked").rglob("full.jsonl"))


def measure(path: Path, corpus: Path, budget: int) -> FileResult | None:
    adapter = sniff(path)
    if adapter is None:
        return None
    started = time.perf_counter()
    sessions = adapter.read(path)
    rendered = floor = facts = kept = over = 0
    for session in sessions:
        topics = segment_topics(session)
        context = render_context(session, topics, budget_tokens=budget)
        rendered += context.tokens
        least = FidelityState(topics={t.topic_id: "placeholder" for t in topics})
        floor += render_context(session, topics, least, budget_tokens=budget).tokens
        over += not context.fits
        for message in session.messages:
            if message.is_prompt:
                for fact in fact_sentences(message.text):
                    facts += 1
                    kept += fact in context.text
    ms = (time.perf_counter() - started) * 1000
    raw_bytes = path.stat().st_size
    raw_tokens = -(-raw_bytes // 4)
    return FileResult(
        file=str(path.relative_to(corpus)),
        agent=adapter.NAME,
        sessions=len(sessions),
        raw_bytes=raw_bytes,
        raw_tokens=raw_tokens,
        rendered_tokens=rendered,
        floor_tokens=floor,
        reduction=100 * (1 - rendered / raw_tokens),
        facts=facts,
        facts_kept=kept,
        over_budget_sessions=over,
        ms=round(ms, 1),
        tiny=raw_bytes < TINY_BYTES,
    )


def short_name(file: str) -> str:
    """`agent/file` for a corpus transcript (sub-folders dropped), the path for a linked checkpoint."""
    parts = file.split("/")
    return f"{parts[1]}/{parts[-1]}" if parts[0] == "transcripts" else file


def table(results: list[FileResult], budget: int) -> str:
    width = max(len(short_name(r.file)) for r in results)
    out = [
        f"Budget {budget:,} tokens per session; tokens = characters / 4 (raw: file bytes / 4); "
        "floor = every topic at placeholder, user turns still pinned.",
        "",
        f"{'file':<{width}} {'sess':>4} {'raw bytes':>10} {'raw tok':>8} {'rendered':>8} {'floor':>6} "
        f"{'smaller':>7} {'facts':>7}  {'≥95%':<4} {'facts':<5} note",
    ]
    for r in results:
        notes = ["tiny (<10 KB)"] if r.tiny else []
        if not r.reduction_met and r.floor_blocks:
            notes.append("floor >5% of raw")
        if r.over_budget_sessions:
            notes.append(f"{r.over_budget_sessions} session(s) over budget")
        out.append(
            f"{short_name(r.file):<{width}} {r.sessions:>4} {r.raw_bytes:>10,} {r.raw_tokens:>8,} "
            f"{r.rendered_tokens:>8,} {r.floor_tokens:>6,} {r.reduction:>6.1f}% "
            f"{f'{r.facts_kept}/{r.facts}':>7}  {'yes' if r.reduction_met else 'NO':<4} "
            f"{'yes' if r.facts_met else 'NO':<5} {'; '.join(notes)}"
        )
    raw = sum(r.raw_tokens for r in results)
    rendered = sum(r.rendered_tokens for r in results)
    facts, kept = sum(r.facts for r in results), sum(r.facts_kept for r in results)
    big = [r for r in results if not r.tiny]
    out += [
        "",
        f"Total: {len(results)} files, {sum(r.raw_bytes for r in results):,} bytes = {raw:,} raw tokens → "
        f"{rendered:,} rendered tokens: {100 * (1 - rendered / raw):.1f}% smaller.",
        f"Facts kept verbatim: {kept}/{facts} ({100 * kept / max(1, facts):.1f}%); all facts kept in "
        f"{sum(r.facts_met for r in results)}/{len(results)} files.",
        f"≥95% smaller: {sum(r.reduction_met for r in results)}/{len(results)} files; "
        f"{sum(r.reduction_met for r in big)}/{len(big)} files of 10 KB or more.",
        f"Time: {sum(r.ms for r in results):,.0f} ms in all (reading, segmenting, two renderings per "
        "session).",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[1] / "fixtures")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve()
    if not (corpus / "transcripts").is_dir():
        print(f"No corpus at {corpus} (expected a transcripts/ folder); give --corpus DIR.", file=sys.stderr)
        return 1
    results = [r for p in transcript_files(corpus) if (r := measure(p, corpus, args.budget)) is not None]
    if args.json:
        print(
            json.dumps(
                [
                    {
                        **asdict(r),
                        "reduction_met": r.reduction_met,
                        "facts_met": r.facts_met,
                        "floor_blocks": r.floor_blocks,
                    }
                    for r in results
                ],
                indent=1,
            )
        )
    else:
        print(table(results, args.budget))
    return 0


if __name__ == "__main__":
    sys.exit(main())
