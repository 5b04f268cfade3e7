"""`git intent backfill`: recall on the real linked corpus, idempotence, resuming, a bad range, and the
bulk path against recording each commit."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus, git, run_cli
from support import (
    ENTIRE_8ECE,
    ENTIRE_AC3F_S0,
    ENTIRE_AC3F_S2,
    GITSYNC_8FEA,
    Clock,
    at,
    claude_session,
    make_repo,
    session_cwd,
)
from support.transcript_replay import commit_replayed, rebuild_claude, rebuild_codex, write_replayed

from git_intent.capture.backfill import backfill as backfill_commits
from git_intent.capture.record import attribute_commit, back_up, note_records, record_commit, summarize
from git_intent.config import lookback
from git_intent.git.objects import InProcessRepository
from git_intent.git.repo import Repository
from git_intent.notes import read_notes, write_note
from git_intent.sessions.discovery import candidate_sessions
from git_intent.sessions.path_mapping import PathMapper


def backfill(repo: Path, *args: str) -> dict[str, object]:
    proc = run_cli("backfill", *args, "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def _linked_history(tmp_path: Path) -> tuple[Path, list[Path]]:
    """One history holding all four linked commits, no hooks run, and the four transcripts that wrote them."""
    t8, t0, t2, tg = (
        corpus("linked", *ENTIRE_8ECE),
        corpus("linked", *ENTIRE_AC3F_S0),
        corpus("linked", *ENTIRE_AC3F_S2),
        corpus("linked", *GITSYNC_8FEA),
    )
    repo = make_repo(tmp_path / "repo")
    steps = [
        (t8, rebuild_claude(t8), "fix test"),
        (t2, rebuild_claude(t2), "log error when marshalling fails"),
        (t0, rebuild_claude(t0), "handle if a single jsonl line is bigger then chunk size"),
        (tg, rebuild_codex(tg), "even more general url validation"),
    ]
    steps.sort(key=lambda s: at(s[1].first_edit_at))
    for transcript, rebuild, subject in steps:
        cwd = session_cwd(transcript)
        fresh = {p: t for p, t in rebuild.pre.items() if not (repo / p[len(cwd.rstrip("/")) + 1 :]).exists()}
        write_replayed(repo, fresh, cwd)
        commit_replayed(repo, f"baseline for {subject}", at(rebuild.first_edit_at) - timedelta(minutes=30))
        write_replayed(repo, rebuild.post, cwd)
        commit_replayed(repo, subject, at(rebuild.last_edit_at) + timedelta(minutes=1))
    return repo, [s[0] for s in steps]


# What backfill credits on the linked history, by session.
LINKED_SESSIONS = {
    "claude-code:cc432c40-914a-4c1a-a972-0103199a736a": 54,
    "claude-code:1ed1f046-f456-4f14-9c74-bb83179cf809": 8,
    "claude-code:0a0314fb-b206-450f-b895-cd5181a28ae5": 32,
    "codex:019ddd6f-3680-7fb3-8f93-e567af97d303": 45,
}


def test_backfill_recall_on_the_linked_corpus(tmp_path: Path) -> None:
    """One history holding all four linked commits, recorded by backfill alone (no hooks ran)."""
    repo, transcripts = _linked_history(tmp_path)
    args = [a for t in transcripts for a in ("--transcript", str(t))]
    result = backfill(repo, *args)
    print(
        f"backfill recall on the linked corpus: {result['lines_attributed']}/{result['lines_added']} "
        f"(including the baselines' lines, which no agent wrote); sessions {result['sessions']}"
    )
    assert result["commits"] == 8 and result["recorded"] == 8
    assert result["sessions"] == LINKED_SESSIONS
    assert result["transcripts_skipped"] == 0
    again = backfill(repo, *args)
    assert (again["recorded"], again["skipped"]) == (0, 8)
    assert git(repo, "fsck", "--no-dangling") is not None


def test_backfill_reads_every_transcript_below_a_folder(tmp_path: Path) -> None:
    """`--transcript DIR`: the transcripts of another machine, copied into nested folders beside files no
    adapter reads, credit what the four files given one by one credit."""
    repo, transcripts = _linked_history(tmp_path)
    elsewhere = tmp_path / "from-a-colleague"
    for i, transcript in enumerate(transcripts):
        nested = elsewhere / f"project-{i % 2}" / ("sessions" if i < 2 else "older/sessions")
        nested.mkdir(parents=True, exist_ok=True)
        shutil.copy(transcript, nested / transcript.name)
    (elsewhere / "README.txt").write_text("Transcripts of the linked commits.\n")
    (elsewhere / "project-1" / "settings.json").write_text('{"theme": "dark"}\n')
    result = backfill(repo, "--transcript", str(elsewhere))
    assert (result["commits"], result["recorded"]) == (8, 8)
    assert result["sessions"] == LINKED_SESSIONS
    assert result["transcripts_skipped"] == 2
    text = run_cli("backfill", "--force", "--transcript", str(elsewhere), cwd=repo)
    assert text.returncode == 0, text.stderr
    assert "2 files below the --transcript folders are no transcript; skipped:" in text.stdout
    assert f"  {elsewhere / 'README.txt'}: not a transcript format (.txt)" in text.stdout.splitlines()
    assert [f["path"] for f in result["skipped_files"]] == [
        str(elsewhere / "README.txt"),
        str(elsewhere / "project-1" / "settings.json"),
    ]


def test_backfill_of_a_missing_transcript_path_is_one_sentence(repo: Path) -> None:
    proc = run_cli("backfill", "--transcript", "no-such-folder", cwd=repo)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: The transcript file or folder no-such-folder does not exist.")


def test_backfill_resumes_and_changes_nothing_twice(repo: Path) -> None:
    for i in range(6):
        (repo / f"f{i}.txt").write_text(f"line {i}\n")
        git(repo, "add", f"f{i}.txt")
        git(repo, "commit", "-q", "-m", f"c{i}")
    first = backfill(repo, "HEAD~3")
    assert (first["commits"], first["recorded"]) == (4, 4)
    notes_ref = git(repo, "rev-parse", "refs/notes/intent")
    rest = backfill(repo)
    assert (rest["commits"], rest["recorded"], rest["skipped"]) == (7, 3, 4)
    moved = git(repo, "rev-parse", "refs/notes/intent")
    assert moved != notes_ref
    assert backfill(repo)["recorded"] == 0
    assert git(repo, "rev-parse", "refs/notes/intent") == moved
    listed = git(repo, "notes", "--ref", "refs/notes/intent", "list").splitlines()
    assert len(listed) == 7


def test_backfill_of_a_bad_range_is_one_sentence(repo: Path) -> None:
    proc = run_cli("backfill", "no-such-branch..HEAD", cwd=repo)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: 'no-such-branch..HEAD' is not a revision or range")


def _commit(repo: Path, clock: Clock, message: str, *args: str) -> str:
    stamp = clock.tick(20_000)
    env = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, *args, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


def _generated_history(repo: Path) -> None:
    """Three sessions editing six files over ~40 commits, with people's commits and rewordings, a lines-free
    merge of a side branch, a note of another tool, and an amended commit whose note git copied (a commit
    whose credits are carried from the commit it replaced)."""
    rng = random.Random(14)
    clock = Clock(datetime.now(timezone.utc) - timedelta(days=2))
    sessions = [claude_session(repo, clock) for _ in range(3)]
    files = [f"src/mod_{i}.py" for i in range(6)]
    for step in range(36):
        session = sessions[step % 3]
        name = (
            files[rng.randrange(len(files))] if not 24 < step <= 28 else "src/side.py"
        )  # no conflict to merge
        path = repo / name
        if step % 7 == 3:  # a person's commit: a new line, and sometimes a reworded agent line
            text = path.read_text() if path.exists() else ""
            lines = text.splitlines()
            if lines and rng.random() < 0.5:
                lines[-1] = lines[-1].replace("value", "amount")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join([*lines, f"# reviewed at step {step}"]) + "\n")
        elif not path.exists():
            session.write(f"Create {name}", path, f"def f{step}(value):\n    return value + {step}\n")
        else:
            old = path.read_text().splitlines()[-1] + "\n"
            new = (
                f"{old}def g{step}(value):\n    return value * {step}  # step {step}\n    return None  # "
                f"{step}\n"
            )
            session.edit(f"Extend {name}", path, old, new)
        _commit(repo, clock, f"step {step}")
        if step == 20:
            git(repo, "notes", "--ref", "refs/notes/intent", "add", "-m", "a line of another tool", "HEAD")
        if step == 24:
            git(repo, "checkout", "-q", "-b", "side")
        if step == 28:
            git(repo, "checkout", "-q", "main")
    git(
        repo,
        "merge",
        "-q",
        "--no-ff",
        "side",
        "-m",
        "merge side",
        env={"GIT_COMMITTER_DATE": clock.tick(20_000)},
    )
    path = repo / "src" / "amended.py"
    sessions[0].write("Add amended.py", path, "def amended(value):\n    return value - 1\n")
    for session in sessions:
        session.save()
    replaced = _commit(repo, clock, "amended, first")
    record_commit(Repository(repo), replaced)
    git(repo, "config", "notes.rewriteRef", "refs/notes/intent")
    path.write_text(path.read_text() + "# and a person's line\n")
    _commit(repo, clock, "amended", "--amend")


def _notes_and_backup(repo: Path) -> tuple[dict[str, str], list[dict[str, object]], list[str]]:
    notes = {
        c: git(repo, "notes", "--ref", "refs/notes/intent", "show", c)
        for _, c in (
            line.split() for line in git(repo, "notes", "--ref", "refs/notes/intent", "list").splitlines()
        )
    }
    journal = repo / ".opencode" / "intent" / "journal.jsonl"
    entries = (
        [
            {k: v for k, v in json.loads(line).items() if k != "recorded_at"}
            for line in journal.read_text().splitlines()
        ]
        if journal.exists()
        else []
    )
    copies = sorted(
        str(p.relative_to(repo)) for p in (repo / ".opencode" / "intent" / "sessions").rglob("*.jsonl")
    )
    return notes, entries, copies


def test_bulk_backfill_writes_what_recording_each_commit_writes(tmp_path: Path) -> None:
    """The bulk path (one rev-list, one streamed git log -p, edits sorted once, one fast-import) against
    the per-commit path backfill took before (`attribute_commit` for each commit, as `record` does): the same
    notes, journal and backup copies on a generated history."""
    repo = make_repo(tmp_path / "repo")
    _generated_history(repo)
    start_notes = git(repo, "rev-parse", "refs/notes/intent").strip()
    shutil.copytree(
        repo / ".opencode" / "intent", tmp_path / "backup"
    )  # record_commit's, of the replaced commit
    # The per-commit path, as backfill ran it before it read the history in bulk.
    slow = InProcessRepository.of(Repository(repo))
    commits = git(repo, "rev-list", "--reverse", "HEAD").split()
    own = {c for c, note in read_notes(slow, commits).items() if note.own is not None}
    window = lookback(slow)
    sessions = candidate_sessions(slow, min(slow.commit_time(c) for c in commits) - window)
    mapper = PathMapper(slow.root, slow.tree_files("HEAD"), slow.worktrees)
    for commit in commits:
        if commit in own:
            continue
        credits = attribute_commit(slow, commit, sessions=sessions, mapper=mapper, window=window)
        write_note(slow, commit, note_records(commit, credits))
        summary = summarize(commit, credits)
        if summary.sessions:
            back_up(slow, commit, credits, summary)
    expected = _notes_and_backup(repo)
    git(repo, "update-ref", "refs/notes/intent", start_notes)
    shutil.rmtree(repo / ".opencode" / "intent")
    shutil.copytree(tmp_path / "backup", repo / ".opencode" / "intent")
    result = backfill_commits(Repository(repo))
    assert (result.commits, result.recorded, result.skipped) == (
        len(commits),
        len(commits) - len(own),
        len(own),
    )
    notes, journal, copies = _notes_and_backup(repo)
    assert len(notes) == len(commits) + 1  # and the replaced commit's
    assert sum(1 for text in notes.values() if '"derived_from"' in text) == 1  # the amend carried its credits
    assert any("a line of another tool" in text for text in notes.values())
    assert 50 < result.lines_attributed < result.lines_added
    assert notes == expected[0]
    assert journal == expected[1] and len(journal) > 30
    assert copies == expected[2] and len(copies) == 3


def test_backfill_starts_a_fixed_number_of_git_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The history is read in bulk, so the git processes a backfill starts do not grow with
    its commits (before: 2.8 per commit with pygit2 reads, 8.9 without)."""
    repo = make_repo(tmp_path / "repo")
    _generated_history(repo)
    started: list[str] = []
    popen = subprocess.Popen.__init__

    def counting(self: subprocess.Popen[bytes], args: Any, *rest: Any, **options: Any) -> None:
        if isinstance(args, list) and args[:1] == ["git"]:
            started.append(next((a for a in args[1:] if not a.startswith("-") and "=" not in a), ""))
        popen(self, args, *rest, **options)

    monkeypatch.setattr(subprocess.Popen, "__init__", counting)
    result = backfill_commits(Repository(repo))
    monkeypatch.undo()
    assert result.recorded == 38
    # rev-list, notes list (x3), cat-file (x2), config, ls-tree, worktree, the log of the paths written, the
    # streamed log (the merge's diffs too: before, one `git diff` per parent of each merge, 616 of 640
    # processes on entireio/cli), the amended commit's notes (its note is read in process), fast-import,
    # ls-files (x2), the trailers of the range (the sessions each commit names), and a few more for discovery:
    # far fewer than one per commit.
    assert "diff" not in started, started
    assert len(started) <= 23, started


def test_backfill_credits_a_file_deleted_before_head_from_a_transcript_of_another_machine(
    repo: Path, tmp_path: Path
) -> None:
    # The transcript names its author's checkout, so its paths map onto this one by suffix, against the files
    # of the history: a file deleted before HEAD was missed (637 of 23,717 lines of entireio/cli's history).
    clock = Clock(datetime.now(timezone.utc) - timedelta(days=1))
    session = claude_session(repo, clock)
    session.write(
        "Add the helper", repo / "tools" / "helper.py", "def helper(value):\n    return value * 2\n"
    )
    written = _commit(repo, clock, "add helper")
    git(repo, "rm", "-q", "tools/helper.py")
    _commit(repo, clock, "remove helper")
    elsewhere = tmp_path / "from-alex" / f"{session.session_id}.jsonl"
    elsewhere.parent.mkdir()
    elsewhere.write_text(session.save().read_text().replace(str(repo), "/Users/alex/work/project"))
    shutil.rmtree(session.save().parent)

    assert backfill(repo, "--transcript", str(elsewhere))["lines_attributed"] == 2
    (credit,) = [
        r
        for r in map(
            json.loads, git(repo, "notes", "--ref", "refs/notes/intent", "show", written).splitlines()
        )
        if r["kind"] == "lines"
    ]
    assert (credit["path"], credit["start"], credit["end"], credit["session_id"]) == (
        "tools/helper.py",
        1,
        2,
        session.session_id,
    )


def test_a_backfill_that_credits_nobody_says_how_to_bring_transcripts_in(repo: Path) -> None:
    (repo / "a.py").write_text("print('hello, world')\n")
    git(repo, "add", "a.py")
    git(repo, "commit", "-q", "-m", "a person's commit")
    proc = run_cli("backfill", cwd=repo)
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[-1] == (
        "No transcript on this machine credits a line of these commits. Transcripts recorded elsewhere "
        "(another checkout, a teammate's) come in with: git intent backfill --transcript DIR"
    )
