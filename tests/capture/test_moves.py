"""Moves followed: a file the agent wrote and then moved or copied keeps the credit of the edits made before.

The real case, entireio/cli 57e529db "added an overview diagram with scenarios and mermaid diagramms" (trailer
Entire-Checkpoint: 7e72a8d8fdb8): Claude Code session f4237e82 wrote docs/checkpoint-scenarios.md with a
`Write`, moved it with `mv` (Bash) to docs/architecture/, then made three `Edit`s there. Only the new path was
committed, so the Write's lines, written under the old path, were credited to nobody: a person on the text
lines, the agent (the Edits' neighbours) on blank ones. The fixture is an excerpt of that session (the
prompts, the Write, the mv and the Edits with their results; fixtures/transcripts/claude-code/README.md); the
commit is rebuilt from it, byte for byte the blob of the real commit, and recorded by every route.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus, run_cli
from support import A_PY, ClaudeSession, Clock, at, blame_json, claude_project_dir, commit_at, git, make_repo
from support.transcript_replay import commit_replayed, rebuild_claude

from git_intent.capture.moves import Move, Moves
from git_intent.capture.record import record_commit
from git_intent.capture.timeline import EditTimeline, moved_copies
from git_intent.core.values import AddedLine, Edit, Session
from git_intent.git.repo import Repository
from git_intent.sessions.path_mapping import PathMapper

EXCERPT = corpus("transcripts", "claude-code", "entire-cli__7e72a8d8fdb8__moved-file-excerpt.jsonl")
SESSION = "f4237e82-ca7b-48a3-bfed-36548f3e4f6b"
CWD = "/Users/soph/Work/entire/devenv/cli"
MOVED = "docs/architecture/checkpoint-scenarios.md"
BLOB = "eec077f727491f237d757bafc79c552bfcbeed0e"  # the file's blob at 57e529db
WRITE = "a9f1f175-3338-4d20-8bb4-27ea10e60a14"  # the Write's assistant record, before the mv
EDITS = {
    "12390639-a1ae-40aa-9d3d-f9104bf78fff",
    "9712a037-837a-4d3a-96ea-aa920b2b04f8",
    "cc16e5f9-c3a0-4648-b8db-fe0cbb6d4c9b",
}  # the three Edits made after it, at the new path
AUTHORED, COMMITTED = "2026-02-14T11:37:16+01:00", "2026-02-14T16:39:57+01:00"
PARENT = "2026-02-14T16:39:56+01:00"  # 26c3570a, the commit it was rebased onto


def _moved_commit(tmp_path: Path) -> Path:
    """The repository before the session (a person's commit), then the moved file as the session left it,
    committed at the real commit's dates."""
    repo = make_repo(tmp_path / "repo")
    (repo / "README.md").write_text("# cli\n", encoding="utf-8")
    commit_replayed(repo, "baseline", at(PARENT))
    post = rebuild_claude(EXCERPT).post
    target = repo / MOVED
    target.parent.mkdir(parents=True)
    target.write_text(post[f"{CWD}/{MOVED}"], encoding="utf-8", newline="")
    git(repo, "add", MOVED)
    git(
        repo,
        "-c",
        "commit.gpgsign=false",
        "commit",
        "-q",
        "-m",
        "added an overview diagram with scenarios",
        env={"GIT_AUTHOR_DATE": AUTHORED, "GIT_COMMITTER_DATE": COMMITTED},
    )
    assert git(repo, "rev-parse", f"HEAD:{MOVED}").strip() == BLOB
    return repo


def _credits(repo: Path) -> dict[int, tuple[str, str, str]]:
    """line -> (session, message, tool) of the note's ranges on the moved file."""
    credited: dict[int, tuple[str, str, str]] = {}
    for line in git(repo, "notes", "--ref", "intent", "show", "HEAD").splitlines():
        record = json.loads(line)
        if record.get("kind") == "lines" and record.get("path") == MOVED:
            for number in range(record["start"], record["end"] + 1):
                credited[number] = (record["session_id"], record["message_id"], record["tool"])
    return credited


def _records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in EXCERPT.read_text(encoding="utf-8").splitlines()]


def _edit_texts(record: dict[str, Any]) -> list[str]:
    """The `new_string` of the Edit calls an assistant record makes (read from the raw record, not the
    adapter)."""
    content = record.get("message", {}).get("content") if record.get("type") == "assistant" else None
    return [
        block["input"]["new_string"]
        for block in content or []
        if block.get("type") == "tool_use" and block.get("name") == "Edit"
    ]


def _discovered(repo: Path) -> None:
    """The excerpt as Claude Code keeps it for this work tree: its author's folder replaced by the repository,
    in the project folder discovery reads, so recording goes through the record cache and its filter."""
    text = EXCERPT.read_text(encoding="utf-8").replace(CWD, str(repo))
    folder = claude_project_dir(repo)
    folder.mkdir(parents=True)
    (folder / f"{SESSION}.jsonl").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("route", ["record", "backfill", "record from discovery"])
def test_a_file_written_then_moved_is_credited_to_the_write(tmp_path: Path, route: str) -> None:
    repo = _moved_commit(tmp_path)
    if route == "record from discovery":
        repo = repo.resolve()
        _discovered(repo)
        proc = run_cli("record", "--json", cwd=repo)
    else:
        proc = run_cli(route, "--transcript", str(EXCERPT), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    text = (repo / MOVED).read_text(encoding="utf-8").splitlines()
    credited = _credits(repo)
    assert {session for session, _, _ in credited.values()} == {SESSION}
    # Every line is the session's: 336 non-blank and 93 blank lines, none a person's.
    assert sorted(credited) == list(range(1, 430))
    assert {message for _, message, _ in credited.values()} == {WRITE, *EDITS}
    # The 155 non-blank lines no Edit's new text holds are the Write's (before moves were followed: nobody's).
    edited = {
        line.strip() for record in _records() for new in _edit_texts(record) for line in new.splitlines()
    }
    written_only = [n for n, line in enumerate(text, 1) if line.strip() and line.strip() not in edited]
    assert len(written_only) == 155
    assert {credited[n] for n in written_only} == {(SESSION, WRITE, "Write")}
    line = text.index("    IDLE --> ACTIVE : TurnStart (UserPromptSubmit)") + 1
    attribution = blame_json(repo, f"{MOVED}:{line}")["lines"][0]["attribution"]
    assert (attribution["session_id"], attribution["message_id"], attribution["tool"]) == (
        SESSION,
        WRITE,
        "Write",
    )


def test_without_the_mv_the_write_is_not_credited_to_the_new_path(tmp_path: Path) -> None:
    """The same excerpt with the mv taken out: the Write's lines stay unexplained, so the credit above comes
    from following the move and from nothing else."""
    repo = _moved_commit(tmp_path)
    lines = EXCERPT.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"command":"mv ' not in line]
    assert len(kept) == len(lines) - 1
    cut = tmp_path / "no-mv.jsonl"
    cut.write_text("".join(kept), encoding="utf-8")
    proc = run_cli("record", "--transcript", str(cut), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    credited = _credits(repo)
    assert WRITE not in {message for _, message, _ in credited.values()}
    assert len(credited) < 429
    assert os.path.getsize(cut) < os.path.getsize(EXCERPT)


# --------------------------------------------------------------------------------------------------
# Following moves: chains, copies, folders, order, other sessions (capture.moves, EditTimeline)
# --------------------------------------------------------------------------------------------------

ROOT = Path("/work/tree")
T0 = datetime(2026, 2, 14, 10, 0, tzinfo=timezone.utc)


def _write(path: str, minute: int, text: str = "print('written')") -> Edit:
    return Edit(
        path=f"{ROOT}/{path}",
        tool="Write",
        message_id=f"w{minute}",
        timestamp=T0 + timedelta(minutes=minute),
        kind="create",
        new_text=text,
        added=(AddedLine(text=text, line=1),),
    )


def _move(source: str, target: str, minute: int, kind: str = "move") -> Edit:
    return Edit(
        path=f"{ROOT}/{target}",
        tool="Bash",
        message_id=f"m{minute}",
        kind=kind,  # type: ignore[arg-type]
        timestamp=T0 + timedelta(minutes=minute),
        source=f"{ROOT}/{source}",
    )


def _session(session_id: str, *edits: Edit) -> Session:
    return Session(
        agent="claude-code",
        session_id=session_id,
        transcript=Path(f"/t/{session_id}.jsonl"),
        cwd=str(ROOT),
        edits=list(edits),
    )


def _placed(sessions: list[Session], *tracked: str) -> list[tuple[str, str, str]]:
    """(work-tree path, session, message) of every edit the timeline holds, in its order."""
    timeline = EditTimeline(sessions)
    return [
        (m.path, m.session_id, m.edit.message_id)
        for m in timeline.window(
            T0 - timedelta(days=1), None, T0 + timedelta(days=1), PathMapper(ROOT, tracked)
        )
    ]


def test_moves_chain_and_the_old_paths_keep_their_edits() -> None:
    session = _session("s", _write("a.py", 1), _move("a.py", "b.py", 2), _move("b.py", "pkg/c.py", 3))
    assert _placed([session], "b.py", "pkg/c.py") == [
        ("a.py", "s", "w1"),
        ("b.py", "s", "w1"),
        ("pkg/c.py", "s", "w1"),
        ("b.py", "s", "m2"),
        ("pkg/c.py", "s", "m3"),
    ]
    # Only a file of the tree gets a copy: here b.py is not one (only the move's own entry maps there).
    assert _placed([session], "pkg/c.py") == [
        ("a.py", "s", "w1"),
        ("pkg/c.py", "s", "w1"),
        ("b.py", "s", "m2"),
        ("pkg/c.py", "s", "m3"),
    ]


def test_a_copy_keeps_the_edit_on_both_paths_and_later_edits_stay_where_they_were_made() -> None:
    session = _session(
        "s", _write("a.py", 1), _move("a.py", "b.py", 2, kind="copy"), _write("a.py", 3, "later")
    )
    placed = _placed([session], "a.py", "b.py")
    assert [(path, message) for path, _, message in placed if not message.startswith("m")] == [
        ("a.py", "w1"),
        ("b.py", "w1"),
        ("a.py", "w3"),
    ]


def test_an_edit_after_the_move_is_not_carried() -> None:
    """In the session's own order: a file written again at the old path after the move is another file."""
    session = _session("s", _write("a.py", 1), _move("a.py", "b.py", 2), _write("a.py", 3, "new a"))
    assert [(p, m) for p, _, m in _placed([session], "a.py", "b.py") if m.startswith("w")] == [
        ("a.py", "w1"),
        ("b.py", "w1"),
        ("a.py", "w3"),
    ]


def test_a_folder_move_carries_every_file_below_it() -> None:
    session = _session(
        "s",
        _write("src/pkg/x.py", 1),
        _write("src/pkg/sub/y.py", 2),
        _write("src/pkgx.py", 3),
        _move("src/pkg", "lib/pkg", 4),
    )
    placed = [
        (p, m) for p, _, m in _placed([session], "lib/pkg/x.py", "lib/pkg/sub/y.py") if m.startswith("w")
    ]
    # One edit's paths come in the order of their recorded paths (the timeline's last key).
    assert placed == [
        ("lib/pkg/x.py", "w1"),
        ("src/pkg/x.py", "w1"),
        ("lib/pkg/sub/y.py", "w2"),
        ("src/pkg/sub/y.py", "w2"),
        ("src/pkgx.py", "w3"),
    ]


def test_a_destination_folder_is_found_by_the_tree_and_several_sources_go_into_it() -> None:
    """`mv a.md docs` may rename or move into docs/: only the reading that names a file of the tree counts
    (`docs` itself is a folder). `mv a b docs` has a folder for certain (the destination ends with '/')."""
    tracked = ("docs/a.md", "docs/b.md", "docs/c.md")
    session = _session(
        "s",
        _write("a.md", 1),
        _write("b.md", 2),
        _write("c.md", 3),
        _move("a.md", "docs", 4),
        _move("b.md", "docs/", 5),
        _move("c.md", "docs/", 5),
    )
    assert [
        (p, m) for p, _, m in _placed([session], *tracked) if m.startswith("w") and p.startswith("docs")
    ] == [("docs/a.md", "w1"), ("docs/b.md", "w2"), ("docs/c.md", "w3")]
    # Both readings of `mv a.md docs` are places; `into` (several sources) leaves only the folder's.
    assert [(index, place) for _, index, (place, _) in moved_copies([session])] == [
        (0, f"{ROOT}/docs"),
        (0, f"{ROOT}/docs/a.md"),
        (1, f"{ROOT}/docs/b.md"),
        (2, f"{ROOT}/docs/c.md"),
    ]


def test_another_session_s_move_carries_the_edits_made_before_it() -> None:
    writer = _session("writer", _write("a.py", 1), _write("a.py", 5, "after the move"))
    mover = _session("mover", _move("a.py", "b.py", 3))
    assert [(p, s, m) for p, s, m in _placed([writer, mover], "b.py") if m.startswith("w")] == [
        ("a.py", "writer", "w1"),
        ("b.py", "writer", "w1"),
        ("a.py", "writer", "w5"),
    ]


def test_no_move_no_copies() -> None:
    session = _session("s", _write("a.py", 1), _write("b.py", 2))
    assert moved_copies([session]) == []


def test_places_of_a_path_from_another_machine_follow_its_recorded_folder() -> None:
    """Recorded paths are compared as recorded (absolute against the session's cwd), whatever machine."""
    moves = Moves(
        [
            Move(
                source="/Users/x/cli/docs/a.md",
                destination="/Users/x/cli/docs/arch/a.md",
                copy=False,
                into=False,
                when=10.0,
                owner=("claude-code", "s"),
                index=5,
                cwd="/Users/x/cli",
            )
        ]
    )
    assert moves.places("docs/a.md", "/Users/x/cli", 1.0, ("claude-code", "s"), 1) == [
        ("/Users/x/cli/docs/arch/a.md", "/Users/x/cli"),
        ("/Users/x/cli/docs/arch/a.md/a.md", "/Users/x/cli"),
    ]
    assert moves.places("docs/a.md", "/Users/x/cli", 1.0, ("claude-code", "s"), 6) == []  # made after it
    assert moves.places("/Users/x/cli/docs/b.md", None, 1.0, ("claude-code", "s"), 1) == []


# --------------------------------------------------------------------------------------------------
# Through the record cache: its commit filter keeps the edits a move took to the commit's files
# --------------------------------------------------------------------------------------------------


def test_the_cache_keeps_another_session_s_edit_of_a_file_moved_twice(repo: Path) -> None:
    repo = repo.resolve()
    start = datetime.now(timezone.utc) - timedelta(hours=2)
    writer = ClaudeSession(cwd=repo, clock=Clock(start))
    writer.prompt("Add alpha")
    write = writer.write("Writing alpha.", repo / "a.py", A_PY)
    writer.save()
    mover = ClaudeSession(cwd=repo, clock=Clock(start + timedelta(minutes=10)))
    mover.prompt("Move it into the package")
    (repo / "pkg").mkdir()
    mover.bash("Moving.", "git mv a.py b.py && mv b.py pkg/")
    (repo / "a.py").rename(repo / "pkg" / "b.py")
    mover.save()
    sha = commit_at(repo, "alpha in its package", start + timedelta(hours=1), "pkg/b.py")
    result = record_commit(Repository(repo), sha)
    assert (result.lines_added, result.lines_attributed) == (2, 2)
    credited = {
        (r["path"], r["start"], r["end"], r["session_id"], r["message_id"], r["tool"])
        for r in (
            json.loads(line) for line in git(repo, "notes", "--ref", "intent", "show", sha).splitlines()
        )
        if r.get("kind") == "lines"
    }
    assert credited == {("pkg/b.py", 1, 2, writer.session_id, write, "Write")}


# --------------------------------------------------------------------------------------------------
# The content fallback (a commit no note records): the same answer with and without the session index
# --------------------------------------------------------------------------------------------------


def test_blame_of_an_unrecorded_moved_file_finds_the_write_with_and_without_the_index(tmp_path: Path) -> None:
    repo = _moved_commit(tmp_path).resolve()
    _discovered(repo)
    text = (repo / MOVED).read_text(encoding="utf-8").splitlines()
    written = text.index("    IDLE --> ACTIVE : TurnStart (UserPromptSubmit)") + 1
    edited = text.index("### Edge Case: Stashed Files Lose Shadow Content") + 1

    def answers() -> list[tuple[str, str, str, str]]:
        found = []
        for line in (written, edited):
            attribution = blame_json(repo, f"{MOVED}:{line}")["lines"][0]["attribution"]
            found.append(
                (
                    attribution["method"],
                    attribution["session_id"],
                    attribution["message_id"],
                    attribution["tool"],
                )
            )
        return found

    scanned = answers()
    assert scanned == [
        ("content", SESSION, WRITE, "Write"),
        ("content", SESSION, "cc16e5f9-c3a0-4648-b8db-fe0cbb6d4c9b", "Edit"),
    ]
    proc = run_cli("index", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".git" / "intent" / "index.db").is_file()
    assert answers() == scanned


def test_find_edit_passes_over_the_move_beside_its_call_s_update() -> None:
    """Codex records `*** Move to:` as a move and the update, same message and call: a credit of the update's
    line finds the update (its text renders as the edit), not the move."""
    from git_intent.explain.evidence import find_edit

    move = Edit(
        path="pkg/a.py", tool="apply_patch", message_id="r2", call_id="c1", kind="move", source="a.py"
    )
    update = Edit(
        path="pkg/a.py",
        tool="apply_patch",
        message_id="r2",
        call_id="c1",
        new_text="y",
        added=(AddedLine(text="y"),),
    )
    session = _session("s", move, update)
    assert find_edit(session, "r2", "c1", "pkg/a.py") is update
    assert find_edit(_session("t", move), "r2", "c1", "pkg/a.py") is move  # nothing else: the move itself


def test_a_shared_session_leaves_its_moves_out() -> None:
    """A move adds no line to explain, and a reader before moves refuses the whole blob over its kind."""
    from git_intent.share.collect import build_payload

    session = _session("s", _write("a.py", 1), _move("a.py", "b.py", 2))
    payload = build_payload(session, [], [], "sessions")
    assert [(e["kind"], e["path"]) for e in payload["edits"]] == [("create", f"{ROOT}/a.py")]
