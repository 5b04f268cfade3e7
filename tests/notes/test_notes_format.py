"""Text formats: note JSON Lines (render/parse), `git blame --porcelain` and `git diff -U0` from real git."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from support import commit_all, git

from git_intent.git.repo import Hunk, Repository, parse_added_hunks, parse_porcelain
from git_intent.notes import (
    NOTE_SCHEMA,
    CommitRecord,
    LinesRecord,
    NoteRecord,
    SessionRecord,
    parse_note,
    render_note,
)

SHA = "a" * 40


def sample_records() -> list[NoteRecord]:
    return [
        CommitRecord(commit=SHA, lines_added=5, lines_attributed=3, recorded_by="git-intent 0.1"),
        SessionRecord(agent="claude-code", session_id="s-1", lines_attributed=3, transcript_sha256="f" * 64),
        LinesRecord(
            agent="claude-code",
            session_id="s-1",
            message_id="m-2",
            tool="Edit",
            path="src/app.py",
            start=3,
            end=5,
            match="exact",
            confidence=1.0,
            sha="0123456789abcdef",
        ),
        LinesRecord(
            agent="codex",
            session_id="s-2",
            message_id="r7",
            tool="apply_patch",
            path="src/app.py",
            start=1,
            end=1,
            match="fuzzy",
            confidence=0.85,
            sha="fedcba9876543210",
        ),
    ]


def test_render_note_exact_bytes() -> None:
    record = CommitRecord(commit=SHA, lines_added=3, lines_attributed=2, recorded_by="git-intent 0.1.0")
    assert render_note([record]) == (
        '{"commit":"' + SHA + '","kind":"commit","lines_added":3,"lines_attributed":2,'
        '"recorded_by":"git-intent 0.1.0","schema":"git-intent/1"}\n'
    )


def test_render_note_sorts_dedupes_and_is_order_independent() -> None:
    records = sample_records()
    text = render_note(records)
    shuffled = render_note([records[2], records[0], records[3], records[1], records[2], records[0]])
    assert shuffled == text
    lines = text.splitlines()
    assert len(lines) == 4
    assert lines == sorted(lines)
    assert text.endswith("\n") and "\n\n" not in text
    for line in lines:
        value = json.loads(line)
        assert value["schema"] == NOTE_SCHEMA
        assert list(value) == sorted(value)
        assert None not in value.values()
        assert " " not in line.replace("git-intent 0.1", "")


def test_render_parse_round_trip() -> None:
    records = sample_records()
    text = render_note(records)
    note = parse_note(SHA, text)
    assert note.commit == SHA
    assert note.foreign_lines == 0
    assert set(note.records) == set(records)
    assert render_note(list(note.records)) == text


def test_parse_note_counts_foreign_lines() -> None:
    good = render_note(sample_records()[:2])
    text = (
        "\n".join(
            [
                "",
                "not json at all",
                '["a", "list"]',
                json.dumps({"schema": "authorship/3.0.0", "kind": "commit"}),
                json.dumps({"schema": NOTE_SCHEMA, "kind": "bogus"}),
                json.dumps({"schema": NOTE_SCHEMA, "kind": "lines", "start": "three"}),
                # a teammate's damaged lines: a kind that is a list, a number no float holds, an agent with a
                # newline
                json.dumps({"schema": NOTE_SCHEMA, "kind": ["lines"]}),
                '{"schema": "git-intent/1", "kind": "lines", "agent": "codex", "session_id": "s", '
                '"message_id": "m", "tool": "Edit", "match": "exact", "path": "a.py", "start": 1, "end": '
                '1, "sha": "0", '
                f'"confidence": 1{"0" * 400}}}',
                json.dumps(
                    {
                        "schema": NOTE_SCHEMA,
                        "kind": "session",
                        "agent": "codex\n",
                        "session_id": "s",
                        "lines_attributed": 1,
                    }
                ),
                "   ",
            ]
        )
        + "\n"
        + good
    )
    note = parse_note(SHA, text)
    assert note.foreign_lines == 8
    assert [r.kind for r in note.records] == ["session", "commit"]  # file order: rendered lines are sorted


def test_parse_note_keeps_unknown_fields_of_newer_writers() -> None:
    line = json.dumps(
        {
            "schema": NOTE_SCHEMA,
            "kind": "session",
            "agent": "codex",
            "session_id": "s",
            "lines_attributed": 1,
            "future_field": [1, 2],
        }
    )
    (record,) = parse_note(SHA, line).records
    assert record.extra == {"future_field": [1, 2]}
    assert json.loads(render_note([record])) == json.loads(line)


def test_notes_concatenated_by_git_merge_parse_as_union() -> None:
    # cat_sort_uniq concatenates both notes, sorts the lines and drops duplicates
    first, second = sample_records()[:3], sample_records()[2:]
    merged = "".join(
        sorted(
            set(render_note(first).splitlines(keepends=True))
            | set(render_note(second).splitlines(keepends=True))
        )
    )
    assert merged == render_note(sample_records())
    assert set(parse_note(SHA, merged).records) == set(sample_records())


# --------------------------------------------------------------------------------------------------
# git blame --porcelain
# --------------------------------------------------------------------------------------------------


def author_time(repo: Path, sha: str) -> datetime:
    return datetime.fromtimestamp(int(git(repo, "show", "-s", "--format=%at", sha).strip()), timezone.utc)


def test_parse_porcelain_real_blame(repo: Path) -> None:
    (repo / "app.py").write_text("one\ntwo\nthree\n")
    first = commit_all(repo, "first")
    (repo / "app.py").write_text("one\nTWO\nthree\nfour\n")
    second = commit_all(repo, "second")
    git(repo, "mv", "app.py", "my app.py")
    commit_all(repo, "rename")
    (repo / "my app.py").write_text("one\nTWO\nthree\nfour\n\tfive\n\n")

    lines = parse_porcelain(git(repo, "blame", "--porcelain", "--", "my app.py").encode())
    assert [(b.commit, b.orig_path, b.orig_line, b.final_line, b.content) for b in lines] == [
        (first, "app.py", 1, 1, "one"),
        (second, "app.py", 2, 2, "TWO"),
        (first, "app.py", 3, 3, "three"),
        (second, "app.py", 4, 4, "four"),
        (None, "my app.py", 5, 5, "\tfive"),
        (None, "my app.py", 6, 6, ""),
    ]
    assert [b.author for b in lines[:4]] == ["Test Person"] * 4
    assert lines[0].author_time == author_time(repo, first)
    assert lines[1].author_time == author_time(repo, second)
    assert lines[4].author == "Not Committed Yet"


def test_parse_porcelain_line_range_and_repeated_commit(repo: Path) -> None:
    (repo / "f.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    sha = commit_all(repo, "ten lines")
    out = git(repo, "blame", "--porcelain", "-L", "4,6", "--", "f.txt")
    assert out.count("\nauthor ") == 1  # details are printed once per commit
    lines = parse_porcelain(out.encode())
    assert [(b.commit, b.final_line, b.content) for b in lines] == [
        (sha, 4, "line 4"),
        (sha, 5, "line 5"),
        (sha, 6, "line 6"),
    ]
    assert all(b.orig_path == "f.txt" and b.author == "Test Person" for b in lines)


def test_repository_blame_with_contents(repo: Path, tmp_path: Path) -> None:
    (repo / "f.txt").write_text("a\nb\n")
    sha = commit_all(repo, "two lines")
    buffer = tmp_path / "buffer.txt"
    buffer.write_text("a\nchanged\n")
    lines = Repository(repo).blame("f.txt", 1, 2, contents=buffer)
    assert [(b.commit, b.content) for b in lines] == [(sha, "a"), (None, "changed")]


# --------------------------------------------------------------------------------------------------
# git diff -U0
# --------------------------------------------------------------------------------------------------


def diff(repo: Path) -> str:
    return git(repo, "diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames", "HEAD~1", "HEAD")


def test_parse_added_hunks_real_diff(repo: Path) -> None:
    (repo / "keep.txt").write_text("a\nb\nc\n")
    (repo / "gone.txt").write_text("bye\n")
    (repo / "dir").mkdir()
    (repo / "dir" / "café.txt").write_text("k\n")
    commit_all(repo, "base")
    (repo / "keep.txt").write_text("a\nB\nc\nd\ne\n")
    (repo / "gone.txt").unlink()
    (repo / "new.py").write_text("n1\n\nn3\n")
    (repo / "dir" / "café.txt").write_text("k\nl\n")
    (repo / "noeol.txt").write_text("no newline")
    sha = commit_all(repo, "change")
    expected = [
        Hunk("dir/café.txt", 2, ("l",)),
        Hunk("keep.txt", 2, ("B",)),
        Hunk("keep.txt", 4, ("d", "e")),
        Hunk("new.py", 1, ("n1", "", "n3")),
        Hunk("noeol.txt", 1, ("no newline",)),
    ]
    assert parse_added_hunks(diff(repo)) == expected
    assert Repository(repo).added_hunks(sha) == expected


def test_added_hunks_of_root_commit(repo: Path) -> None:
    root = git(repo, "rev-parse", "HEAD").strip()
    assert Repository(repo).added_hunks(root) == [Hunk("README.md", 1, ("# test repo",))]


def test_parse_added_hunks_deletion_only_diff(repo: Path) -> None:
    (repo / "x.txt").write_text("1\n2\n")
    commit_all(repo, "x")
    (repo / "x.txt").write_text("1\n")
    (repo / "README.md").unlink()
    commit_all(repo, "delete")
    assert parse_added_hunks(diff(repo)) == []


def test_parse_added_hunks_path_with_spaces(repo: Path) -> None:
    (repo / "my notes.txt").write_text("a\n")
    commit_all(repo, "base")
    (repo / "my notes.txt").write_text("a\nb\n")
    commit_all(repo, "more")
    assert parse_added_hunks(diff(repo)) == [Hunk("my notes.txt", 2, ("b",))]


def test_parse_added_hunks_added_line_starting_with_plus_plus(repo: Path) -> None:
    (repo / "c.txt").write_text("x\n")
    commit_all(repo, "base")
    (repo / "c.txt").write_text("x\n++ counter\nafter\n")
    commit_all(repo, "plus plus")
    assert parse_added_hunks(diff(repo)) == [Hunk("c.txt", 2, ("++ counter", "after"))]
