"""JSON decoders on the fixture transcripts: would orjson or msgspec pay for a dependency?

Decodes every line of every JSON Lines transcript in fixtures/ with the standard library's
`JSONDecoder.raw_decode` (what `transcripts.jsonl` uses), `orjson.loads` and `msgspec.json.Decoder.decode`
(each skipped when not installed), and reads the same files through the adapters
(`discovery.read_transcript`), so the decoder's share of reading a transcript is known. CPU time, best of
`--rounds`.

Run: .venv/bin/python bench/json_decoders.py [--rounds N]   (pip install orjson msgspec to compare them)
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def best_of(rounds: int, run: Callable[[], object]) -> float:
    """The least CPU seconds `run` took over `rounds` runs."""
    times = []
    for _ in range(rounds):
        began = time.process_time()
        run()
        times.append(time.process_time() - began)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from git_intent.sessions.discovery import read_transcript

    files = sorted(FIXTURES.glob("transcripts/**/*.jsonl")) + sorted(FIXTURES.glob("linked/**/full.jsonl"))
    lines = [
        line for path in files for line in path.read_text(encoding="utf-8", errors="replace").splitlines(True)
    ]
    size = sum(len(line.encode("utf-8")) for line in lines) / 1e6
    decoders: dict[str, Callable[[str], object]] = {"json (stdlib raw_decode)": json.JSONDecoder().raw_decode}
    try:
        import orjson

        decoders["orjson"] = orjson.loads
    except ImportError:
        print("orjson is not installed")
    try:
        import msgspec

        decoders["msgspec"] = msgspec.json.Decoder().decode
    except ImportError:
        print("msgspec is not installed")

    def decode_all(decode: Callable[[str], object]) -> None:
        for line in lines:
            try:
                decode(line)
            except ValueError:  # orjson's and msgspec's errors are ValueErrors too
                pass

    def read_all() -> None:
        for path in files:
            try:
                read_transcript(path)
            except Exception:  # a fixture no adapter reads (a plug-in's) is not what is measured
                pass

    print(f"{len(files)} transcripts, {len(lines):,} lines, {size:.1f} MB; CPU ms, best of {args.rounds}")
    reading = best_of(args.rounds, read_all)
    print(f"{'read_transcript (adapters, stdlib decoding)':<45} {reading * 1000:8.1f} ms")
    stdlib = 0.0
    for name, decode in decoders.items():
        spent = best_of(args.rounds, lambda decode=decode: decode_all(decode))  # type: ignore[misc]
        stdlib = stdlib or spent
        print(
            f"{name:<45} {spent * 1000:8.1f} ms = {size / spent:6.0f} MB/s; {100 * spent / reading:4.1f}% "
            f"of reading; reading would take {100 * (reading - stdlib + spent) / reading:5.1f}% of today's"
        )


if __name__ == "__main__":
    main()
