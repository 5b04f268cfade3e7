"""Reading time of a real Codex rollout with one pathological line inserted.

Each ~600 KB line is inserted after the third record of fixtures/transcripts/codex/git-sync__8feaf84a600f
__apply-patch.jsonl (144 KB) and the file is read with the Codex adapter; the figure is the median of
`--runs` reads in ms, the time per byte of the whole file, and the reading of the unchanged file as a
reference. Before the fix these lines took 33-300 s each (the resync loop retried `raw_decode` at every
`{"`, and each failure counted newlines up to its position).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from git_intent.adapters import codex

ROLLOUT = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "transcripts"
    / "codex"
    / ("git-sync__8feaf84a600f__apply-patch.jsonl")
)
LINES = {
    "none (reference)": "",
    "nested objects": '{"a":' * 120_000,
    "nested arrays": '{"a":[' * 100_000,
    "torn record of complete objects": '{"a":{"b":1},' * 50_000,
    "a quote after every brace": '{"' * 300_000,
    "objects in an unterminated string": '{"a":"' + '{"x":1}a' * 80_000,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    lines = ROLLOUT.read_text(encoding="utf-8").splitlines(keepends=True)
    figures = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ROLLOUT.name
        for name, nasty in LINES.items():
            path.write_text(
                "".join([*lines[:3], nasty + "\n" if nasty else "", *lines[3:]]), encoding="utf-8"
            )
            samples = []
            for _ in range(args.runs):
                started = time.perf_counter()
                codex.read(path)
                samples.append(time.perf_counter() - started)
            size = path.stat().st_size
            median = statistics.median(samples)
            figures.append(
                {
                    "line": name,
                    "bytes": size,
                    "median_ms": round(median * 1000, 1),
                    "us_per_byte": round(median / size * 1e6, 3),
                }
            )
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    print(f"{'inserted line':36} {'file bytes':>10} {'median ms':>10} {'us/byte':>8}")
    for f in figures:
        print(f"{f['line']:36} {f['bytes']:>10} {f['median_ms']:>10} {f['us_per_byte']:>8}")


if __name__ == "__main__":
    main()
