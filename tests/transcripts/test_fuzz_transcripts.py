"""Mutants of every fixture transcript never break reading.

Each fixture is damaged the ways real files are — truncated, byte-flipped, lines duplicated and deleted,
fields of the wrong type, NUL bytes, invalid UTF-8, lone surrogates, a huge line, a deeply nested line —
with a fixed seed. For every mutant: no exception but TranscriptError escapes (that is exit 1 with a
sentence, never exit 3); where one record was damaged, no session is lost and at most that record's
message is; and reading costs time linear in the file's size. A last case runs the CLI over mutants.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, run_cli

from git_intent.core.errors import TranscriptError
from git_intent.core.values import Session, to_json
from git_intent.sessions.discovery import read_transcript

SEED = 20260501
ROUNDS = 2  # mutants per fixture and kind
KINDS = (
    "truncate",
    "flip",
    "duplicate",
    "delete",
    "wrong_type",
    "nul",
    "utf8",
    "surrogate",
    "huge",
    "nested",
)
# One record damaged (or one added): the session must stand. Truncation and random flips may cut anywhere.
ONE_RECORD = frozenset(KINDS) - {"truncate", "flip"}
# Time per byte: the fixtures read at 0.07-0.7 us/B; a quadratic reader took 75-300 s on a 600 KB line.
SECONDS_PER_BYTE = 5e-6
SECONDS_FLOOR = 0.3
WRONG = ({}, ["replace"], 5, None, True, "", [[]], {"a": {}}, 1e308, -1)
TRANSCRIPTS = CORPUS / "transcripts"
COMPANIONS = frozenset({"task_metadata.json", "history_item.json"})


@dataclass(frozen=True)
class Fixture:
    """One fixture transcript: `read` is what is handed to the reader (a storage tree is read as a folder,
    `damage` the file inside it that is mutated)."""

    rel: str
    # "lines" (JSON Lines, Markdown), "document" (one JSON object), "log" (JSON Lines whose first line holds
    # the whole document: a record lost there loses the session), "sqlite", "tree"
    layout: str

    @property
    def source(self) -> Path:
        return TRANSCRIPTS / self.rel


def fixtures() -> list[Fixture]:
    found = []
    for path in sorted(TRANSCRIPTS.rglob("*")):
        rel = str(path.relative_to(TRANSCRIPTS))
        if (
            not path.is_file()
            or path.name in ("README.md", "MANIFEST.json", "schema.sql")
            or ".meta." in path.name
        ):
            continue
        if path.name in COMPANIONS or path.with_name(f"{path.stem}.messages.json").is_file():
            # a file read beside a transcript (a task's metadata, a Cline session's manifest), never alone
            continue
        if "synthetic__opencode-storage" in rel:
            continue  # the tree is one fixture, below
        layout = {".jsonl": "lines", ".md": "lines", ".json": "document", ".db": "sqlite"}[path.suffix]
        if path.read_bytes().startswith(b'{"kind":0'):
            # VS Code's chat session log: its first line holds the whole session, later ones change it
            layout = "log"
        found.append(Fixture(rel, layout))
    found.append(Fixture("opencode/synthetic__opencode-storage", "tree"))
    return found


FIXTURES = fixtures()


# --- mutations: each returns the mutated bytes of one file -----------------------------------------------


def pick_line(rng: random.Random, lines: list[bytes]) -> int:
    """A non-empty line (the last one of a file ends with a newline, leaving an empty piece)."""
    return rng.choice([i for i, line in enumerate(lines) if line.strip()] or [0])


def wrong_type(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """`value` with one field somewhere inside it replaced by a value of the wrong type."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        if depth > 3 or rng.random() < 0.4 or not isinstance(value[key], (dict, list)):
            return {**value, key: rng.choice(WRONG)}
        return {**value, key: wrong_type(rng, value[key], depth + 1)}
    if isinstance(value, list) and value:
        index = rng.randrange(len(value))
        copy = list(value)
        copy[index] = rng.choice(WRONG) if rng.random() < 0.4 else wrong_type(rng, value[index], depth + 1)
        return copy
    return rng.choice(WRONG)


def mutate(kind: str, data: bytes, rng: random.Random, layout: str) -> bytes:
    lines = data.split(b"\n")
    if kind == "truncate":
        return data[: rng.randrange(len(data))]
    if kind == "flip":
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        return bytes(flipped)
    if kind == "duplicate":
        i = pick_line(rng, lines)
        return b"\n".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])
    if kind == "delete":
        i = pick_line(rng, lines)
        return b"\n".join([*lines[:i], *lines[i + 1 :]])
    if kind == "wrong_type":
        if layout == "document":  # one record of the document: a message of a legacy chat, else a field
            document = json.loads(data)
            messages = document.get("messages") if isinstance(document, dict) else None
            if isinstance(messages, list) and messages:
                i = rng.randrange(len(messages))
                document["messages"][i] = wrong_type(rng, messages[i])
            else:
                document = wrong_type(rng, document)
            return json.dumps(document, indent=1).encode()
        i = pick_line(rng, lines)
        try:
            lines[i] = json.dumps(wrong_type(rng, json.loads(lines[i]))).encode()
        except ValueError:  # a Markdown line, or a torn one: damage its text instead
            lines[i] = b"<<<<<<< SEARCH\n" + lines[i][: len(lines[i]) // 2] + b"\n>>>>>>> REPLACE"
        return b"\n".join(lines)
    i = pick_line(rng, lines)
    line = lines[i]
    at = rng.randrange(len(line) + 1)
    if kind == "nul":
        lines[i] = line[:at] + b"\x00" + line[at:]
    elif kind == "utf8":
        lines[i] = (
            line[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]) + line[at:]
        )
    elif kind == "surrogate":
        quote = line.find(b'"', at)
        lines[i] = line[:quote] + b"\\ud83d" + line[quote:] if quote > 0 else line + b'{"x":"\\udc00"}'
    elif kind == "huge":
        lines.insert(
            i, b'{"type":"user","message":{"content":"' + b"x" * rng.randint(1 << 19, 1 << 21) + b'"}}'
        )
    elif kind == "nested":
        opener = rng.choice([b'{"a":', b"[", b'{"a":[', b'{"'])
        lines.insert(i, opener * rng.randint(2_000, 120_000))
    return b"\n".join(lines)


def mutate_sqlite(kind: str, path: Path, rng: random.Random) -> None:
    """Row-level damage through SQLite for the kinds that hit one record; the file's bytes for the others."""
    if kind in ("truncate", "flip"):
        path.write_bytes(mutate(kind, path.read_bytes(), rng, "sqlite"))
        return
    with sqlite3.connect(path) as conn:
        # The JSON columns each agent's store keeps its records in: OpenCode's, Crush's, Goose's.
        present = {
            (t, str(c[1]))
            for t in ("part", "message", "messages")
            for c in conn.execute(f"PRAGMA table_info({t})")
        }
        table, column = rng.choice(
            [
                tc
                for tc in (
                    ("part", "data"),
                    ("message", "data"),
                    ("messages", "parts"),
                    ("messages", "content_json"),
                )
                if tc in present
            ]
        )
        rowid, data = rng.choice(conn.execute(f"SELECT rowid, {column} FROM {table}").fetchall())
        if kind == "delete":
            conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
            return
        if kind == "duplicate":
            conn.execute(f"UPDATE {table} SET {column} = {column} || ' ' WHERE rowid = ?", (rowid,))
            return
        raw = mutate(kind, data.encode(), rng, "document")
        value: Any = raw if kind in ("nul", "utf8") else raw.decode("utf-8", "surrogatepass")
        conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (value, rowid))


def make_mutant(fixture: Fixture, kind: str, rng: random.Random, folder: Path) -> Path:
    """A mutated copy of `fixture` in `folder`; returns the path to read."""
    if fixture.layout == "tree":
        tree = folder / "storage"
        shutil.copytree(fixture.source, tree)
        target = rng.choice(sorted(tree.rglob("*.json")))
        target.write_bytes(mutate(kind, target.read_bytes(), rng, "document"))
        return tree
    copy = folder / fixture.source.parent.name / fixture.source.name
    copy.parent.mkdir(parents=True)
    shutil.copyfile(fixture.source, copy)
    if fixture.layout == "sqlite":
        mutate_sqlite(kind, copy, rng)
    else:
        copy.write_bytes(mutate(kind, copy.read_bytes(), rng, fixture.layout))
    return copy


# --- the oracle --------------------------------------------------------------------------------------------


def read(path: Path) -> list[Session]:
    if path.is_dir():
        from git_intent.adapters import opencode

        return opencode.read(path)
    return read_transcript(path)


def timed(path: Path) -> tuple[list[Session] | TranscriptError, float]:
    started = time.perf_counter()
    try:
        found: list[Session] | TranscriptError = read(path)
    except TranscriptError as exc:  # a file no agent recognises any more, or a damaged store: exit 1
        found = exc
    return found, time.perf_counter() - started


def size(path: Path) -> int:
    return (
        sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        if path.is_dir()
        else path.stat().st_size
    )


def check_one_record(
    fixture: Fixture, kind: str, original: list[Session], got: list[Session] | TranscriptError, where: str
) -> None:
    assert not isinstance(got, TranscriptError), f"{where}: the transcript was lost: {got}"
    # The damaged record's message may go. In Aider's Markdown a record is a line whose meaning is its place:
    # a damaged `# aider chat started` header merges two sessions, a stray line can join two messages.
    markdown = fixture.rel.endswith(".md")
    assert len(got) >= len(original) - (1 if markdown else 0), (
        f"{where}: {len(original)} sessions became {len(got)}"
    )
    before = sum(len(s.messages) for s in original)
    after = sum(len(s.messages) for s in got)
    assert after >= before - (2 if markdown else 1), f"{where}: {before} messages became {after}"
    for session in got:
        # every string encodable: no lone surrogate survives
        json.dumps(to_json(session), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.rel for f in FIXTURES])
def test_mutants_never_break_reading(fixture: Fixture, tmp_path: Path) -> None:
    path = fixture.source
    original = read(path)
    assert original, f"{fixture.rel} reads as no session"
    rng = random.Random(f"{SEED}:{fixture.rel}")
    for kind in KINDS:
        for round_ in range(ROUNDS):
            folder = tmp_path / f"{kind}-{round_}"
            folder.mkdir()
            mutant = make_mutant(fixture, kind, rng, folder)
            where = f"{fixture.rel} {kind} #{round_} (seed {SEED})"
            got, seconds = timed(mutant)  # anything but TranscriptError escapes and fails the test here
            bound = SECONDS_FLOOR + SECONDS_PER_BYTE * size(mutant)
            assert seconds < bound, f"{where}: {seconds:.2f} s for {size(mutant)} bytes (bound {bound:.2f} s)"
            if kind in ONE_RECORD and fixture.layout not in ("document", "log"):
                check_one_record(fixture, kind, original, got, where)
            elif kind == "wrong_type":  # a whole document with one field of the wrong type still reads
                check_one_record(fixture, kind, original, got, where)
            shutil.rmtree(folder)


@pytest.mark.slow
def test_commands_over_mutants_never_exit_3(repo: Path) -> None:
    """Every JSON Lines fixture, one mutant of each kind, filed as the backup copy of its session (read
    without discovery's path check): index, search, show and context answer; none exits 3."""
    rng = random.Random(SEED)
    agents = {"gemini": "gemini-cli"}  # the fixture folders not named after their agent
    copies = repo / ".opencode" / "intent" / "sessions"
    ids = []
    for n, fixture in enumerate(f for f in FIXTURES if f.rel.endswith(".jsonl")):
        kind = KINDS[n % len(KINDS)]
        (session,) = read(fixture.source)
        folder = copies / agents.get(fixture.rel.split("/")[0], fixture.rel.split("/")[0])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session.session_id}.jsonl").write_bytes(
            mutate(kind, fixture.source.read_bytes(), rng, "lines")
        )
        ids.append(session.session_id)
    indexed = run_cli("index", "--json", cwd=repo)
    assert indexed.returncode == 0, indexed.stderr[-2000:]
    assert json.loads(indexed.stdout)["sessions"] >= len(ids) - 2  # a truncation may leave nothing to read
    for args in (("search", "the file"), ("search", "test", "--json"), ("sessions", "--json")):
        proc = run_cli(*args, cwd=repo)
        assert proc.returncode == 0, (args, proc.stderr[-2000:])
    for n, session_id in enumerate(ids[::3]):  # a sample: each command costs ~1 s
        for args in (
            ("show", session_id, "--brief") if n % 2 else ("show", session_id, "--json"),
            ("context", session_id, "--json"),
        ):
            proc = run_cli(*args, cwd=repo)
            assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, (args, proc.stderr[-2000:])
