"""git_intent.notes, the one owner of the note format: notes written by the released 0.1.0 still read (and
render back byte for byte), records need their fields, runs of lines become ranges, carrying keeps unknown
fields, batch writes keep other tools' lines; and the layers above it: blame loads neither the recorder nor
rapidfuzz, and the hooks' worker runs without the CLI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict, replace
from pathlib import Path

import pytest
from support import commit_file, git, note_text

from git_intent.git.repo import Repository
from git_intent.notes import (
    CommitRecord,
    Credit,
    CreditedLine,
    LinesRecord,
    SessionRecord,
    build_note,
    lines_record,
    parse_note,
    range_digest,
    read_notes,
    render_note,
    write_notes,
)

# Notes written by git-intent 0.1.0 (main at e96a2ee) through its own hooks, backfill and record: a hook
# commit with a person's tweak (fuzzy) and a CRLF .bat file, a message-only amend, a squash, a cherry-pick,
# a note that kept another tool's line, and a backfilled note.
RELEASE_FILE = Path(__file__).resolve().parents[1] / "data" / "notes-0.1.0.json"
RELEASE = json.loads(RELEASE_FILE.read_text(encoding="utf-8"))["notes"]


@pytest.mark.parametrize("label", sorted(RELEASE))
def test_notes_of_release_0_1_0_read_as_typed_records_and_render_back_byte_for_byte(label: str) -> None:
    text: str = RELEASE[label]
    values = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    commit = next(v["commit"] for v in values if v["kind"] == "commit")
    note = parse_note(commit, text)
    assert note.foreign == (("Reviewed-by: another tool",) if label == "foreign-kept" else ())
    assert len(note.records) == len(values)
    kinds = {"commit": CommitRecord, "session": SessionRecord, "lines": LinesRecord}
    assert [type(r) for r in note.records] == [kinds[v["kind"]] for v in values]
    assert note.own is not None and note.own.commit == commit
    assert render_note(note.records, note.foreign) == text


def test_release_fuzzy_credit_and_crlf_digest_read_as_written() -> None:
    note = parse_note("b10cdca4cdf5ca5a6c4037118379731adfdf25f8", RELEASE["record-hook"])
    fuzzy = note.covering("app.py", 3)
    assert fuzzy is not None and (fuzzy.match, fuzzy.confidence, fuzzy.tool) == ("fuzzy", 0.89, "Write")
    bat = note.covering("run.bat", 2)
    assert bat is not None and (bat.start, bat.end) == (1, 3)
    lines = ["@echo off", "REM start the greeting service now", "python app.py"]
    # 0.1.0 hashed the diff read with universal newlines; the blob keeps "\r": both hash alike now
    assert bat.matches([f"{line}\r" for line in lines] + [""])
    assert bat.sha == range_digest(lines) == range_digest([f"{line}\r" for line in lines])
    assert note.covering("run.bat", 4) is None and note.covering("app.py", 4) is None


@pytest.mark.parametrize(
    "value",
    [
        {
            "kind": "lines",
            "agent": "codex",
            "session_id": "s",
            "message_id": "m",
            "tool": "t",
            "match": "exact",
            "confidence": 1.0,
            "path": "a.py",
            "start": 1,
            "end": 1,
        },  # no sha
        {
            "kind": "lines",
            "agent": "codex",
            "session_id": "s",
            "message_id": "m",
            "tool": "t",
            "match": "exact",
            "confidence": 1.0,
            "path": "a.py",
            "start": 0,
            "end": 1,
            "sha": "0" * 16,
        },  # lines are 1-based
        {"kind": "session", "session_id": "s", "lines_attributed": 1},  # no agent
        {"kind": "commit", "commit": "a" * 40, "lines_added": 1, "lines_attributed": 0},  # no recorded_by
        {"kind": "unknown", "commit": "a" * 40},
    ],
    ids=[
        "lines-without-sha",
        "line-zero",
        "session-without-agent",
        "commit-without-recorded_by",
        "unknown-kind",
    ],
)
def test_a_record_without_its_required_fields_is_a_foreign_line(value: dict[str, object]) -> None:
    line = json.dumps({"schema": "git-intent/1", **value})
    note = parse_note("a" * 40, line + "\n")
    assert (note.records, note.foreign) == ((), (line,))


CLAUDE = Credit(
    agent="claude-code",
    session_id="s-1",
    message_id="m-1",
    call_id="c-1",
    tool="Write",
    match="exact",
    confidence=1.0,
)


def test_build_note_makes_ranges_of_runs_and_counts_non_blank_lines() -> None:
    fuzzy = replace(CLAUDE, match="fuzzy", confidence=0.89)
    codex = Credit(
        agent="codex", session_id="s-2", message_id="r7", tool="apply_patch", match="exact", confidence=1.0
    )
    lines = [
        CreditedLine("a.py", 1, "def f():", CLAUDE),
        CreditedLine("a.py", 2, "", CLAUDE),
        CreditedLine("a.py", 3, "    return 1", fuzzy),
        CreditedLine("a.py", 4, "x = 1", None),
        CreditedLine("a.py", 6, "y = 2", CLAUDE),
        CreditedLine("b.py", 7, "z = 3", codex),
    ]
    template = SessionRecord(
        agent="claude-code", session_id="s-1", lines_attributed=0, transcript_sha256="f" * 64
    )
    records = build_note("a" * 40, lines, {("claude-code", "s-1"): template}, recorded_by="git-intent test")
    assert records[0] == CommitRecord(
        commit="a" * 40, lines_added=5, lines_attributed=4, recorded_by="git-intent test"
    )
    assert [(r.path, r.start, r.end, r.match, r.sha) for r in records if isinstance(r, LinesRecord)] == [
        ("a.py", 1, 2, "exact", range_digest(["def f():", ""])),
        ("a.py", 3, 3, "fuzzy", range_digest(["    return 1"])),
        ("a.py", 6, 6, "exact", range_digest(["y = 2"])),
        ("b.py", 7, 7, "exact", range_digest(["z = 3"])),
    ]
    assert [r for r in records if isinstance(r, SessionRecord)] == [
        replace(template, lines_attributed=3),
        SessionRecord(agent="codex", session_id="s-2", lines_attributed=1),
    ]


def test_carrying_a_credit_keeps_every_field_of_its_record() -> None:
    line = json.dumps(
        {
            "schema": "git-intent/1",
            "kind": "lines",
            "path": "a.py",
            "start": 4,
            "end": 5,
            "sha": "0" * 16,
            "reviewed_by": ["a person"],
            **{k: v for k, v in asdict(CLAUDE).items() if v is not None and k != "extra"},
        }
    )
    (record,) = parse_note("a" * 40, line).lines
    carried = lines_record([CreditedLine("b.py", 9, "x", record.credit)])
    assert carried.extra == {"reviewed_by": ["a person"]}
    assert carried.credit == record.credit
    assert (carried.path, carried.start, carried.end, carried.sha) == ("b.py", 9, 9, range_digest(["x"]))


def test_write_notes_in_one_batch_keeps_other_tools_lines_and_skips_unchanged_notes(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    second = commit_file(repo, "b.txt", "b\n")
    git(repo, "notes", "--ref", "refs/notes/git-intent", "add", "-m", "Reviewed-by: another tool", first)
    notes = {
        sha: [CommitRecord(commit=sha, lines_added=1, lines_attributed=0, recorded_by="git-intent test")]
        for sha in (first, second)
    }
    store = Repository(repo)
    assert write_notes(store, notes) == 2
    assert note_text(repo, first) == "Reviewed-by: another tool\n" + render_note(notes[first])
    assert note_text(repo, second) == render_note(notes[second])
    head = git(repo, "rev-parse", "refs/notes/git-intent")
    assert write_notes(store, notes) == 0
    assert git(repo, "rev-parse", "refs/notes/git-intent") == head
    read = read_notes(store)
    assert {sha: (n.own, n.foreign) for sha, n in read.items()} == {
        first: (notes[first][0], ("Reviewed-by: another tool",)),
        second: (notes[second][0], ()),
    }


def test_blame_imports_neither_the_recorder_nor_rapidfuzz() -> None:
    heavy = [
        "rapidfuzz",
        "git_intent.capture.record",
        "git_intent.capture.attribute",
        "git_intent.capture.carry",
        "click",
        "sqlite3",
        "git_intent.capture.edit_cache",
        "git_intent.sessions.shared",
        "git_intent.adapters.opencode",
    ]
    code = f"import sys, git_intent.explain.blame; print([m for m in {heavy!r} if m in sys.modules])"
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout == "[]\n"


@pytest.mark.slow
def test_hook_worker_records_a_queued_commit_without_the_cli(repo: Path) -> None:
    sha = commit_file(repo, "w.txt", "a line a person wrote\n")
    queue = repo / ".git" / "intent" / "queue"
    queue.mkdir(parents=True)
    # a job exactly as hooks/post-commit writes it
    (queue / f"1-{sha}.job").write_text(
        f"hook post-commit\nworktree {repo}\ncherry-pick \nreflog\n{sha} commit: add w.txt\nend\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-P", "-X", "importtime", "-m", "git_intent.capture.worker", "--wait"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "git_intent.capture.record" in imported  # (git_intent.capture.worker runs as __main__)
    assert not {"click", "git_intent.cli"} & imported
    assert json.loads((note_text(repo, sha) or "").splitlines()[0])["commit"] == sha
    assert not list(queue.iterdir())
