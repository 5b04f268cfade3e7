"""Latency of `git intent lsp` (goals: hover p50 ≤ 50 ms after the first; first answer ≤ 1 s),
driven by pygls's own client over stdio, on a small repository and on a clone of entireio/cli.

What it measures (wall time, `time.perf_counter`), per repository:

  a. start → first hover   spawn `git-intent lsp`, initialize, open the file, hover one line: what a user
  waits
                           for on the first hover of a session (process start and imports included)
  b. first hover           the same first hover alone (after initialize): the whole-file blame it computes
  c. hover while warming   `--hovers` hovers on lines spread over the file (default 40) right after the first,
                           while the whole file is still blamed in the background (each line blamed alone)
  d. code lens             textDocument/codeLens on the file (it waits for the whole file's blame), then
                           codeLens/resolve of every lens
  e. hover after first     the same hovers again, the file's answer resident: p50, p95, max
  f. hover, edited buffer  the same after an incremental didChange inserted a line at the top (the buffer's
                           diff is mapped back to the lines blamed, once per document version)

Repositories:
  small   the one `git intent demo` builds (a real Claude Code session, chunking.go, 188 lines) cli     a
  clone of entireio/cli (`--cli-snapshot`: the shared bare snapshot folder)
          whose agent lines come from `git intent import --from entire` (its authors' checkpoints branch; a
          few minutes once). `--cli-clone DIR` reuses a clone already imported. The file hovered: the one at
          HEAD with the most agent-line records in the newest notes (`--cli-file` to choose).

HOME, git config and agent folders are isolated (bench/_common.py). Run from the repository root:

    .venv/bin/python bench/lsp_latency.py --skip-cli
    .venv/bin/python bench/lsp_latency.py --cli-clone /tmp/cli-imported --hovers 40
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import isolate
from blame_latency import find_cli
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

SNAPSHOT = Path("/work/.mirror/entireio+cli/repo")


def ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": statistics.median(ordered) * 1000,
        "p95_ms": ordered[math.ceil(0.95 * len(ordered)) - 1] * 1000,
        "max_ms": ordered[-1] * 1000,
        "n": len(ordered),
    }


async def measure(script: str, repo: Path, path: str, hovers: int) -> dict[str, Any]:
    full = repo / path
    uri = from_fs_path(str(full)) or ""
    text = full.read_text(encoding="utf-8")
    count = text.count("\n")
    lines = sorted({1 + (k * 7919) % count for k in range(hovers)})
    client = LanguageClient("bench", "1")
    began = time.perf_counter()
    await client.start_io(script, "lsp", cwd=str(repo), env=dict(os.environ))
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(), process_id=os.getpid(), root_uri=from_fs_path(str(repo))
        )
    )
    client.initialized(types.InitializedParams())
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "text", 1, text))
    )

    async def hover(line: int) -> tuple[float, Any]:
        start = time.perf_counter()
        found = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line - 1, 0))
        )
        return time.perf_counter() - start, found

    first, found = await hover(lines[0])
    start_to_first = time.perf_counter() - began
    warming = [
        (await hover(line))[0] for line in lines[1:]
    ]  # while the whole file is blamed in the background
    start = time.perf_counter()
    lenses = (
        await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
        or []
    )
    for lens in lenses:
        await client.code_lens_resolve_async(lens)
    lens_time = time.perf_counter() - start
    after = [(await hover(line))[0] for line in lines[1:]]
    answered = Counter([kind((await hover(line))[1]) for line in lines])
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=uri),
            [
                types.TextDocumentContentChangePartial(
                    types.Range(types.Position(0, 0), types.Position(0, 0)), "// edit\n"
                )
            ],
        )
    )
    edited = [(await hover(line + 1))[0] for line in lines[1:]]
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "file": path,
        "lines": count,
        "first_answered": kind(found),
        "start_to_first_hover_ms": start_to_first * 1000,
        "first_hover_ms": first * 1000,
        "hover_while_warming": ms(warming),
        "hover_after_first": ms(after),
        "hover_edited_buffer": ms(edited),
        "code_lens_and_resolve_ms": lens_time * 1000,
        "lenses": len(lenses),
        "sampled_answers": dict(answered),
    }


def kind(hover: Any) -> str:
    """What a hover answered, by its first line: agent, person, or the status or sentence it gave."""
    head = hover.contents.value.split("\n", 1)[0] if hover is not None else "null"
    if "** wrote this line" in head:
        return "agent"
    if head.startswith("**No agent"):
        return "person"
    return head.split("**")[1] if head.startswith("**") else "sentence: " + head[:40]


def busiest_file(repo: Path) -> str:
    """The file at HEAD with the most agent-line records in the newest 200 notes."""
    listed = subprocess.run(
        ["git", "notes", "--ref", "intent", "list"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.split()[1::2][:200]
    present = set(
        subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.split()
    )
    counts: Counter[str] = Counter()
    for commit in listed:
        note = subprocess.run(
            ["git", "notes", "--ref", "intent", "show", commit], cwd=repo, capture_output=True, text=True
        ).stdout
        for row in note.splitlines():
            try:
                record = json.loads(row)
            except ValueError:
                continue
            if record.get("kind") == "lines" and record.get("path") in present:
                counts[record["path"]] += record["end"] - record["start"] + 1
    return counts.most_common(1)[0][0]


def cli_clone(root: Path, snapshot: Path, script: str) -> Path:
    clone = root / "cli"
    subprocess.run(["git", "clone", "-q", str(snapshot), str(clone)], check=True)
    began = time.perf_counter()
    subprocess.run([script, "import", "--from", "entire"], cwd=clone, check=True, capture_output=True)
    print(
        f"(cli clone: `git intent import --from entire` took {time.perf_counter() - began:.0f} s)",
        file=sys.stderr,
    )
    return clone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hovers", type=int, default=40)
    parser.add_argument("--skip-cli", action="store_true", help="Only the small repository.")
    parser.add_argument("--cli-snapshot", type=Path, default=SNAPSHOT)
    parser.add_argument(
        "--cli-clone", type=Path, help="A clone of entireio/cli already imported (reused as is)."
    )
    parser.add_argument("--cli-file", help="The file of entireio/cli to hover (default: the busiest).")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    script = find_cli()
    root = Path(tempfile.mkdtemp(prefix="git-intent-bench-"))
    try:
        isolate(root)
        from git_intent.demo import run_demo

        demo = root / "demo"
        run_demo(demo)
        figures = {
            "small": asyncio.run(measure(script, demo, "cmd/entire/cli/agent/chunking.go", args.hovers))
        }
        if not args.skip_cli:
            clone = args.cli_clone or cli_clone(root, args.cli_snapshot, script)
            figures["cli"] = asyncio.run(
                measure(script, clone, args.cli_file or busiest_file(clone), args.hovers)
            )
        if args.json:
            print(json.dumps(figures, indent=2))
            return
        for name, row in figures.items():
            print(f"{name}: {row['file']} ({row['lines']} lines; sampled answers {row['sampled_answers']})")
            print(f"  start → first hover      {row['start_to_first_hover_ms']:8.1f} ms")
            print(
                f"  first hover              {row['first_hover_ms']:8.1f} ms (answered: "
                f"{row['first_answered']})"
            )
            for label, key in (
                ("hover while warming", "hover_while_warming"),
                ("hover after the first", "hover_after_first"),
                ("hover, edited buffer", "hover_edited_buffer"),
            ):
                f = row[key]
                print(
                    f"  {label:24} p50 {f['p50_ms']:6.1f} ms  p95 {f['p95_ms']:6.1f} ms  max "
                    f"{f['max_ms']:6.1f} ms  (n={f['n']})"
                )
            print(
                f"  code lens + resolve      {row['code_lens_and_resolve_ms']:8.1f} ms ({row['lenses']} "
                "lenses)"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
