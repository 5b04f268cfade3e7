"""One answer whatever the route: the same transcripts and history give byte-identical notes however often
and in whichever order `record`, `backfill` and `import` run; nothing is credited to a message later than
its commit; a tie between edits that wrote the same text is broken by one documented order (the session the
commit names, then the edit whose neighbouring lines agree with the file, then time, then ids)."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from support import ClaudeSession, Clock, blame_json, commit_at, git, make_repo, run_cli, run_in_terminal
from support.transcript_replay import linked_history


def notes(repo: Path) -> dict[str, str]:
    """commit -> the text of its note on refs/notes/intent."""
    listing = git(repo, "notes", "--ref", "refs/notes/intent", "list").split("\n")
    return {
        commit: git(repo, "notes", "--ref", "refs/notes/intent", "show", commit)
        for commit in (line.split()[1] for line in listing if line)
    }


def cli(repo: Path, *args: str) -> None:
    proc = run_cli(*args, cwd=repo)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_import_backfill_and_record_write_the_same_notes_in_any_order(tmp_path: Path) -> None:
    """The linked corpus's real commits rebuilt, with their real Entire checkpoints: a second import rewrites
    nothing, and backfill and record, in either order, write byte for byte the notes the import wrote."""
    repo = make_repo(tmp_path / "repo")
    trailer_commits = linked_history(repo)

    cli(repo, "import", "--from", "entire")
    first = notes(repo)
    assert set(first) == set(trailer_commits)
    cli(repo, "import", "--from", "entire")
    assert notes(repo) == first
    cli(repo, "backfill", "--force", "HEAD")
    assert {c: n for c, n in notes(repo).items() if c in first} == first
    for commit in reversed(trailer_commits):  # newest first: an order no other route uses
        cli(repo, "record", commit)
    assert {c: n for c, n in notes(repo).items() if c in first} == first

    git(repo, "update-ref", "-d", "refs/notes/intent")  # the transcripts stay in the backup the import made
    code, shown = run_in_terminal(["git", "intent", "backfill", "HEAD"], repo)  # a bar per step on a terminal
    assert code == 0 and "Reading transcripts" in shown and "Recording commits" in shown, shown
    assert {c: n for c, n in notes(repo).items() if c in first} == first


def two_sessions_write_one_line(
    root: Path, *, trailer: str = ""
) -> tuple[ClaudeSession, str, ClaudeSession, str]:
    """Sessions A (earlier) and B (later) each write the same line into their own new file; one commit adds
    it to `shared.py` (neither file of theirs is committed, so only the line's text links it to them)."""
    start = datetime.now(timezone.utc) - timedelta(hours=1)
    line = "total = compute_order_total(items, discount_rate)"
    first = ClaudeSession(cwd=root, clock=Clock(start), session_id="aaaaaaaa-0000-4000-8000-000000000001")
    first.prompt("Compute the order total")
    first_id = first.write("Writing it.", root / "shared.py", f"{line}\n")
    first.save()
    second = ClaudeSession(
        cwd=root,
        clock=Clock(start + timedelta(minutes=10)),
        session_id="bbbbbbbb-0000-4000-8000-000000000002",
    )
    second.prompt("Compute the order total again")
    second_id = second.write("Writing it.", root / "shared.py", f"{line}\n")
    second.save()
    git(root, "add", "shared.py")
    git(root, "commit", "-q", "-m", f"order total{trailer}")
    return first, first_id, second, second_id


def test_the_session_a_commit_names_wins_a_tie(repo: Path) -> None:
    root = repo.resolve()
    first, first_id, _, _ = two_sessions_write_one_line(
        root, trailer="\n\nClaude-Session: aaaaaaaa-0000-4000-8000-000000000001"
    )
    cli(root, "record", "HEAD")
    line = blame_json(root, "shared.py:1")["lines"][0]
    assert (line["attribution"]["session_id"], line["attribution"]["message_id"]) == (
        first.session_id,
        first_id,
    )


def test_without_a_named_session_the_last_edit_wins_and_ids_settle_the_rest(repo: Path) -> None:
    root = repo.resolve()
    _, _, second, second_id = two_sessions_write_one_line(root)
    cli(root, "record", "HEAD")
    line = blame_json(root, "shared.py:1")["lines"][0]
    assert (line["attribution"]["session_id"], line["attribution"]["message_id"]) == (
        second.session_id,
        second_id,
    )


def test_a_repeated_line_goes_to_the_edit_whose_neighbours_the_file_keeps(repo: Path) -> None:
    """Two edits of one session add `CheckpointTime time.Time`, one inside each struct: each committed line
    goes to the edit that wrote it where it stands, not to the later edit (the last-edit rule alone gave
    both to it)."""
    root = repo.resolve()
    path = root / "info.go"
    path.write_text('package strategy\n\nimport "time"\n', encoding="utf-8")
    git(root, "add", "info.go")
    commit_at(root, "base", datetime.now(timezone.utc) - timedelta(hours=2), "info.go")
    agent = ClaudeSession(cwd=root, clock=Clock(datetime.now(timezone.utc) - timedelta(hours=1)))
    agent.prompt("Record when each checkpoint and each log entry was written")
    base = path.read_text(encoding="utf-8")
    newer = (
        "type newerLogInfo struct {\n\tSessionID      string\n\tCheckpointTime time.Time\n"
        "\tLocalTime      time.Time\n}\n"
    )
    newer_id = agent.edit("Adding newerLogInfo.", path, base, base + "\n" + newer)
    grown = path.read_text(encoding="utf-8")
    restore = (
        "type SessionRestoreInfo struct {\n\tPrompt         string\n\tStatus         int\n"
        "\tCheckpointTime time.Time\n}\n"
    )
    restore_id = agent.edit("Adding SessionRestoreInfo.", path, grown, grown + "\n" + restore)
    agent.save()
    git(root, "add", "info.go")
    git(root, "commit", "-q", "-m", "restore info")
    cli(root, "record", "HEAD")
    text = path.read_text(encoding="utf-8").splitlines()
    lines = [n for n, t in enumerate(text, 1) if t.strip() == "CheckpointTime time.Time"]
    assert len(lines) == 2
    found = [blame_json(root, f"info.go:{n}")["lines"][0]["attribution"]["message_id"] for n in lines]
    assert found == [newer_id, restore_id]


def test_nothing_is_credited_to_a_message_written_after_the_commit(repo: Path) -> None:
    """A session writes the committed line an hour after the commit: neither record nor the answer for a
    commit without a note credits it."""
    root = repo.resolve()
    committed = datetime.now(timezone.utc) - timedelta(hours=3)
    (root / "rate.py").write_text("RATE_LIMIT_PER_MINUTE = compute_rate_limit(settings)\n", encoding="utf-8")
    sha = commit_at(root, "rate limit", committed, "rate.py")
    later = ClaudeSession(cwd=root, clock=Clock(committed + timedelta(hours=1)))
    later.prompt("Set the rate limit")
    later.write(
        "Writing it.",
        root / "elsewhere" / "rate.py",
        "RATE_LIMIT_PER_MINUTE = compute_rate_limit(settings)\n",
    )
    later.save()
    (root / "elsewhere" / "rate.py").unlink()
    unnoted = blame_json(root, "rate.py:1")["lines"][0]
    assert (unnoted["commit"], unnoted["status"], unnoted["attribution"]) == (sha, "unrecorded", None)
    cli(root, "record", sha)
    recorded = blame_json(root, "rate.py:1")["lines"][0]
    assert (recorded["status"], recorded["attribution"]) == ("human", None)


def test_a_note_recorded_elsewhere_keeps_credits_this_machine_cannot_check(repo: Path) -> None:
    """Recording again on a machine without the session keeps the note's credits of it; with the session back,
    the same note is written again."""
    root = repo.resolve()
    agent = ClaudeSession(cwd=root, clock=Clock(datetime.now(timezone.utc) - timedelta(minutes=30)))
    agent.prompt("Add the greeting")
    agent.write("Writing it.", root / "greet.py", "def greet_visitor(name):\n    return f'Hello, {name}'\n")
    transcript = agent.save()
    git(root, "add", "greet.py")
    git(root, "commit", "-q", "-m", "greet")
    cli(root, "record", "HEAD")
    before = notes(root)
    moved = transcript.with_suffix(".away")
    transcript.rename(moved)
    shutil.rmtree(root / ".opencode")  # the backup copy too: as on a teammate's machine
    cli(root, "record", "HEAD")
    assert notes(root) == before
    moved.rename(transcript)
    cli(root, "record", "HEAD")
    assert notes(root) == before
    assert json.loads(before[next(iter(before))].splitlines()[0])["schema"] == "git-intent/1"
