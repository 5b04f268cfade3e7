"""Sharing figures: planted secrets found in git objects after a push, false redactions on the
fixture transcripts' code edits, redaction throughput, and evidence-ref size per recorded commit.

1. Leaks. The three Claude Code sessions of the linked corpus (entire-cli 8ece5fc12e98, ac3f02a3c337 sessions
   2 and 0; fixtures/linked/README.md) are copied with fakes planted (tests/support/planted.py: 14 rule
   families, 10 per family per session = 420): one third appended to every user prompt, one third spread over
   the assistant's thinking and text blocks, one third over the tool outputs. Each commit is rebuilt and
   recorded as `record_corpus.py` does, shared at `--level` (default `sessions`: every planted secret is in
   text the redactor is given), pushed to a bare remote and fetched into a fresh clone. Then every object of
   the remote and of the clone (`git cat-file --batch-all-objects --batch`) is searched for each secret and
   for 12-character windows across it. "given" counts the fakes that were in text handed to the redactor.
2. False redactions. Every edit of every fixture transcript (fixtures/transcripts, fixtures/linked) is
   redacted without the diff exemption; each finding other than a home path is a false redaction (the
   fixtures hold no real secret). The git SHAs, UUIDs and long base64/hex runs in those edits are counted,
   and how many were left intact.
3. Throughput. Every text part and edit of the fixture transcripts through `redact_text`, one call per
   string (as sharing does), and the same text as one string; MB/s of UTF-8 input.
4. Size. The four linked-corpus commits (the three above, unplanted, and git-sync 8feaf84a600f, Codex)
   shared at `evidence` and at `sessions`: bytes of every object reachable from refs/intent/evidence
   (uncompressed, and as a pack), per recorded commit.

Run from the repository root:

    .venv/bin/python bench/share_figures.py            # table
    .venv/bin/python bench/share_figures.py --json     # figures as JSON
    .venv/bin/python bench/share_figures.py --level evidence
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _common import isolate
from record_corpus import CASES, DEFAULT_CORPUS, run_case

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from support.planted import FAMILIES, Planted, fragments, plant, plant_claude  # noqa: E402

HEX = re.compile(r"\b[0-9a-f]{7,64}\b")
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/])")


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: {proc.stderr.strip()}")
    return proc.stdout


def objects(repo: Path) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, capture_output=True, check=True
    ).stdout


def share_and_push(repo: Path, remote: Path, level: str) -> dict[str, Any]:
    from git_intent.git.repo import Repository
    from git_intent.share.remote import push

    git(repo, "config", "intent.share", level)
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    return push(Repository(repo), "origin").model_dump()


def store_size(repo: Path) -> tuple[int, int]:
    """(uncompressed bytes of every object reachable from refs/intent/evidence, bytes of a pack of them)."""
    listing = git(repo, "rev-list", "--objects", "refs/intent/evidence")
    names = "\n".join(line.split()[0] for line in listing.splitlines()) + "\n"
    sizes = subprocess.run(
        ["git", "cat-file", "--batch-check=%(objectsize)"],
        cwd=repo,
        input=names,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    pack = subprocess.run(
        ["git", "pack-objects", "--stdout", "-q"],
        cwd=repo,
        input=names.encode(),
        capture_output=True,
        check=True,
    ).stdout
    return sum(int(s) for s in sizes), len(pack)


def planted_corpus(corpus: Path, target: Path) -> list[Planted]:
    """A copy of the linked corpus with 140 fakes planted into each Claude Code session; returns them all."""
    shutil.copytree(corpus, target)
    fakes: list[Planted] = []
    claude = [s for case in CASES for s in case.sessions if s.agent == "claude"]
    for index, session in enumerate(claude):
        mine = plant(10, seed=100 + index)
        thirds = [mine[i::3] for i in range(3)]
        plant_claude(corpus / session.transcript, target / session.transcript, *thirds)
        fakes += mine
    return fakes


def given_to_redactor(repo: Path, level: str, fakes: list[Planted]) -> set[str]:
    """The fakes present in the payloads sharing hands to `seal()` (recomputed for the recorded commits)."""
    from git_intent.git.repo import Repository
    from git_intent.share import collect

    texts: list[str] = []
    original = collect.seal

    def spy(payload: dict[str, Any], keep: frozenset[str] = frozenset()) -> Any:
        texts.append(json.dumps(payload, ensure_ascii=False))
        return original(payload, keep)

    collect.seal = spy  # type: ignore[assignment]
    try:
        commits = list(collect.noted_commits(Repository(repo)))
        git(repo, "update-ref", "-d", "refs/intent/evidence")
        collect.share_commits(Repository(repo), commits, level)
    finally:
        collect.seal = original  # type: ignore[assignment]
    blob = "\n".join(texts)
    return {f.secret for f in fakes if json.dumps(f.secret)[1:-1] in blob or f.secret in blob}


def leaks(root: Path, corpus: Path, level: str) -> dict[str, Any]:
    fakes = planted_corpus(corpus, root / "planted")
    remote = root / "leaks.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    repos = []
    for i, case in enumerate(c for c in CASES if all(s.agent == "claude" for s in c.sessions)):
        folder = root / f"leak{i}"
        run_case(case, root / "planted", folder)
        repos.append(folder)
    pushed = []
    for i, repo in enumerate(repos):
        if i:  # one remote for all: the second repository has its own history, on its own branch
            git(repo, "branch", "-m", "main", f"case{i}")
        git(repo, "config", "intent.share", level)
        git(repo, "remote", "add", "origin", str(remote))
        git(repo, "push", "-q", "origin", "HEAD")
        from git_intent.git.repo import Repository
        from git_intent.share.remote import push

        pushed.append(push(Repository(repo), "origin").model_dump())
    clone = root / "reviewer"
    git(root, "clone", "-q", str(remote), str(clone))
    from git_intent.git.repo import Repository
    from git_intent.share.remote import fetch

    fetch(Repository(clone), "origin")
    given: set[str] = set()
    for repo in repos:
        given |= given_to_redactor(repo, level, fakes)
    everything = objects(remote) + objects(clone)
    found = [f for f in fakes if any(piece.encode() in everything for piece in fragments(f.secret))]
    redactions: dict[str, int] = {}
    for row in pushed:
        for rule, count in row["redactions"].items():
            redactions[rule] = redactions.get(rule, 0) + count
    return {
        "level": level,
        "planted": len(fakes),
        "families": len(FAMILIES),
        "given": len(given),
        "found_in_objects": len(found),
        "found": [f"{f.family}: {f.secret[:8]}…" for f in found],
        "found_given": sum(1 for f in found if f.secret in given),
        "redactions": redactions,
    }


def fixture_texts() -> tuple[list[str], list[str]]:
    from git_intent.sessions.discovery import read_transcript

    texts, edits = [], []
    fixtures = ROOT / "fixtures"
    paths = sorted((fixtures / "transcripts").rglob("*")) + sorted((fixtures / "linked").rglob("*.jsonl"))
    for path in paths:
        if not path.is_file():
            continue
        try:
            sessions = read_transcript(path)
        except Exception:
            continue
        for session in sessions:
            texts += [p.text for m in session.messages for p in m.parts if p.text]
            edits += [e.new_text for e in session.edits if e.new_text]
    return texts, edits


def false_redactions(texts: list[str], edits: list[str]) -> dict[str, Any]:
    from git_intent.redaction.redact import redact_text

    found: list[str] = []
    tokens = intact = 0
    for text in edits:
        secrets = [f for f in redact_text(text).findings if f.rule != "home-path"]
        found += [f"{f.rule}: {text[f.start : f.end][:60]}" for f in secrets]
        for pattern in (HEX, UUID, BASE64):
            for match in pattern.finditer(text):
                tokens += 1
                intact += not any(f.start < match.end() and match.start() < f.end for f in secrets)
    prose = [
        f"{f.rule}: {t[f.start : f.end][:60]}"
        for t in texts
        for f in redact_text(t).findings
        if f.rule != "home-path"
    ]
    return {
        "edits": len(edits),
        "edit_false_redactions": len(found),
        "edit_examples": found[:10],
        "sha_uuid_base64_tokens": tokens,
        "tokens_intact": intact,
        "message_texts": len(texts),
        "message_redactions": len(prose),
        "message_examples": prose[:10],
    }


def throughput(texts: list[str], edits: list[str]) -> dict[str, Any]:
    from git_intent.redaction.redact import redact_text

    strings = texts + edits
    size = sum(len(s.encode("utf-8")) for s in strings) / 1e6
    redact_text("warm up: load and compile the rules")
    start = time.perf_counter()
    for text in strings:
        redact_text(text)
    each = time.perf_counter() - start
    start = time.perf_counter()
    redact_text("\n".join(strings))
    joined = time.perf_counter() - start
    return {
        "mb": round(size, 3),
        "strings": len(strings),
        "mb_per_s_per_string": round(size / each, 2),
        "mb_per_s_joined": round(size / joined, 2),
    }


def sizes(root: Path, corpus: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for level in ("evidence", "sessions"):
        commits = raw = packed = 0
        for i, case in enumerate(CASES):
            folder = root / f"size-{level}-{i}"
            rows = run_case(case, corpus, folder)
            remote = root / f"size-{level}-{i}.git"
            git(root, "init", "-q", "--bare", "-b", "main", str(remote))
            share_and_push(folder, remote, level)
            a, b = store_size(remote)
            commits, raw, packed = commits + len(rows), raw + a, packed + b
        out[level] = {
            "commits": commits,
            "bytes": raw,
            "packed_bytes": packed,
            "bytes_per_commit": raw // commits,
            "packed_bytes_per_commit": packed // commits,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"default {DEFAULT_CORPUS}")
    parser.add_argument("--level", choices=("evidence", "sessions"), default="sessions")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="git-intent-share-"))
    try:
        isolate(root)
        texts, edits = fixture_texts()
        figures = {
            "leaks": leaks(root, args.corpus, args.level),
            "false_redactions": false_redactions(texts, edits),
            "throughput": throughput(texts, edits),
            "size": sizes(root, args.corpus),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)
    figures["date"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    figures["machine"] = f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    leak, false, speed, size = (figures[k] for k in ("leaks", "false_redactions", "throughput", "size"))
    print(f"git-intent sharing figures, {figures['date']}\n{figures['machine']}\n")
    print(
        f"planted secrets found in git objects after push ({leak['level']} level): "
        f"{leak['found_in_objects']} of {leak['planted']} planted ({leak['families']} families); "
        f"{leak['found_given']} of the {leak['given']} given to the redactor"
    )
    print(
        f"false redactions on fixture code edits: {false['edit_false_redactions']} in {false['edits']} "
        f"edits; SHA/UUID/base64 runs left intact: {false['tokens_intact']} of "
        f"{false['sha_uuid_base64_tokens']}"
    )
    print(
        f"redactions in fixture message texts (no secrets planted): {false['message_redactions']} in "
        f"{false['message_texts']} texts: {false['message_examples']}"
    )
    print(
        f"redaction throughput: {speed['mb_per_s_per_string']} MB/s one call per string "
        f"({speed['strings']} strings, {speed['mb']} MB), {speed['mb_per_s_joined']} MB/s as one string"
    )
    for level, row in size.items():
        print(
            f"evidence ref at {level}: {row['bytes']} bytes ({row['packed_bytes']} packed) for "
            f"{row['commits']} commits = {row['bytes_per_commit']} bytes/commit "
            f"({row['packed_bytes_per_commit']} packed)"
        )


if __name__ == "__main__":
    main()
