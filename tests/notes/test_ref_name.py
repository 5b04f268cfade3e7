"""git-intent's notes ref beside SpecStory's: refs/notes/git-intent, and the notes earlier versions left on
refs/notes/intent read, blamed and moved by the next write.

SpecStory's Intent Git Mode writes `refs/notes/intent/exchanges` and `refs/notes/intent/metadata` (its
docs/git-provenance/systems/intent-git-mode.md, "How `intent git commit` Stores Provenance"): git cannot
hold those beside a ref `refs/notes/intent`, so whichever tool came second failed to write.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from support import (
    blame_json,
    claude_session,
    commit_synced,
    git,
    install,
    run_cli,
)

from git_intent.git.repo import Repository
from git_intent.notes import LEGACY_NOTES_REF, NOTES_REF, note_blobs, note_text, write_note
from git_intent.notes.records import CommitRecord, render_note

SPECSTORY = ("refs/notes/intent/exchanges", "refs/notes/intent/metadata")


def specstory_notes(repo: Path, rev: str = "HEAD") -> subprocess.CompletedProcess[str]:
    """What SpecStory's `intent git commit` writes on `rev`: one note on each of its two refs (`git notes
    --ref`, as it does); the second command's result."""
    commit = git(repo, "rev-parse", rev).strip()
    exchange = {"exchangeId": f"ex-{commit[:8]}", "sessionId": "s-1", "file": {"path": "steps.py"}}
    metadata = {"commit": commit, "exchanges": [exchange["exchangeId"]]}
    done = None
    for ref, body in zip(SPECSTORY, (exchange, metadata), strict=True):
        done = subprocess.run(
            ["git", "notes", "--ref", ref, "add", "-f", "-m", json.dumps(body), commit],
            cwd=repo,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            return done
    assert done is not None
    return done


def listing(repo: Path, ref: str) -> str:
    return git(repo, "notes", "--ref", ref, "list", check=False)


def agent_writes(repo: Path, name: str, body: str) -> tuple[str, str]:
    """A Claude Code session writes `name`; committed through the hook (worker in the foreground).
    Returns (commit, session id)."""
    agent = claude_session(repo.resolve())
    agent.prompt(f"Write {name}.")
    agent.write(f"I'll write {name}.", repo.resolve() / name, body)
    agent.save()
    return commit_synced(repo, f"agent writes {name}"), agent.session_id


def blamed_session(repo: Path, location: str) -> tuple[str, str, str]:
    line = blame_json(repo, location)["lines"][0]
    return line["status"], line["attribution"]["session_id"], line["attribution"]["method"]


def as_an_earlier_version_left_it(repo: Path) -> str:
    """Move git-intent's notes to refs/notes/intent, where versions before the rename wrote them (the note
    format is the same); the notes commit."""
    moved = git(repo, "rev-parse", NOTES_REF).strip()
    git(repo, "update-ref", LEGACY_NOTES_REF, moved)
    git(repo, "update-ref", "-d", NOTES_REF)
    return moved


def test_specstory_first_then_git_intent_both_keep_writing(repo: Path) -> None:
    assert specstory_notes(repo).returncode == 0
    before = {ref: listing(repo, ref) for ref in SPECSTORY}
    install(repo)
    commit, session = agent_writes(repo, "steps.py", "def step():\n    return 'one'\n")
    assert blamed_session(repo, "steps.py:2") == ("agent", session, "note")
    assert '"kind":"commit"' in git(repo, "notes", "--ref", NOTES_REF, "show", commit)
    done = specstory_notes(repo, commit)  # SpecStory records the same commit afterwards
    assert done.returncode == 0, done.stderr
    for ref in SPECSTORY:
        after = set(listing(repo, ref).splitlines())
        assert set(before[ref].splitlines()) < after and commit in {line.split()[1] for line in after}
    assert git(repo, "for-each-ref", "--format=%(refname)", "refs/notes/") == "\n".join(
        [NOTES_REF, *SPECSTORY, ""]
    )


def test_git_intent_first_then_specstory_both_keep_writing(repo: Path) -> None:
    install(repo)
    commit, session = agent_writes(repo, "steps.py", "def step():\n    return 'one'\n")
    done = specstory_notes(repo, commit)
    assert done.returncode == 0, done.stderr
    second, other = agent_writes(repo, "more.py", "def more():\n    return 'two'\n")
    assert blamed_session(repo, "steps.py:2") == ("agent", session, "note")
    assert blamed_session(repo, "more.py:2") == ("agent", other, "note")
    assert {line.split()[1] for line in listing(repo, NOTES_REF).splitlines()} == {commit, second}
    assert [line.split()[1] for line in listing(repo, SPECSTORY[0]).splitlines()] == [commit]


def test_notes_an_earlier_version_left_are_read_blamed_and_moved_by_the_next_commit(repo: Path) -> None:
    install(repo)
    first, session = agent_writes(repo, "steps.py", "def step():\n    return 'one'\n")
    old_note = git(repo, "notes", "--ref", NOTES_REF, "show", first)
    old = as_an_earlier_version_left_it(repo)
    # What SpecStory met in such a repository: its refs cannot be created beside refs/notes/intent.
    blocked = specstory_notes(repo)
    assert blocked.returncode == 128
    assert "'refs/notes/intent' exists; cannot create 'refs/notes/intent/exchanges'" in blocked.stderr
    # Read before anything is written: blame, and `log`, answer from the old ref.
    assert blamed_session(repo, "steps.py:2") == ("agent", session, "note")
    logged = run_cli("log", "--json", cwd=repo)
    assert logged.returncode == 0, logged.stderr
    assert first in logged.stdout
    assert git(repo, "rev-parse", "-q", "--verify", NOTES_REF, check=False) == ""  # reads wrote nothing
    # The next commit's record moves the old notes, deletes the old ref, and SpecStory can write.
    second, other = agent_writes(repo, "more.py", "def more():\n    return 'two'\n")
    assert git(repo, "rev-parse", "-q", "--verify", LEGACY_NOTES_REF, check=False) == ""
    assert git(repo, "notes", "--ref", NOTES_REF, "show", first) == old_note
    assert {line.split()[1] for line in listing(repo, NOTES_REF).splitlines()} == {first, second}
    assert subprocess.run(["git", "merge-base", "--is-ancestor", old, NOTES_REF], cwd=repo).returncode == 0
    assert blamed_session(repo, "steps.py:2") == ("agent", session, "note")
    assert blamed_session(repo, "more.py:2") == ("agent", other, "note")
    done = specstory_notes(repo, second)
    assert done.returncode == 0, done.stderr


def test_install_moves_the_old_notes_and_retires_the_old_merge_strategy(repo: Path) -> None:
    install(repo)
    first, session = agent_writes(repo, "steps.py", "def step():\n    return 'one'\n")
    as_an_earlier_version_left_it(repo)
    state = repo / ".git" / "intent" / "install.json"
    record = json.loads(state.read_text(encoding="utf-8"))
    key = "notes.git-intent.mergeStrategy"
    record["config"] = {"notes.intent.mergeStrategy": record["config"].pop(key)}  # as an earlier install
    state.write_text(json.dumps(record), encoding="utf-8")
    git(repo, "config", "--unset", key)
    git(repo, "config", "notes.intent.mergeStrategy", "cat_sort_uniq")
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:3] == [
        f"Set git config {key} = cat_sort_uniq.",
        "Unset git config notes.intent.mergeStrategy = cat_sort_uniq, which an earlier install set: "
        "git-intent's notes are on refs/notes/git-intent now (whose merge strategy install sets).",
        "Moved 1 note(s) from refs/notes/intent to refs/notes/git-intent.",
    ]
    assert git(repo, "config", "--get-regexp", r"^notes\.").splitlines() == [f"{key.lower()} cat_sort_uniq"]
    assert git(repo, "rev-parse", "-q", "--verify", LEGACY_NOTES_REF, check=False) == ""
    assert blamed_session(repo, "steps.py:2") == ("agent", session, "note")
    proc = run_cli("uninstall", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert git(repo, "config", "--get-regexp", r"^notes\.", check=False) == ""


def test_reads_take_the_old_refs_notes_for_commits_the_new_one_lacks_and_the_move_keeps_that(
    repo: Path,
) -> None:
    """Both refs exist (an earlier version wrote the old one after this one wrote the new one): a commit
    noted on both reads the new ref's note, before the move and after it."""
    commits = []
    for name in ("a", "b", "c"):
        (repo / name).write_text(f"{name}\n")
        git(repo, "add", name)
        git(repo, "commit", "-q", "-m", name)
        commits.append(git(repo, "rev-parse", "HEAD").strip())
    a, b, c = commits

    def record(commit: str, by: str) -> CommitRecord:
        return CommitRecord(commit=commit, lines_added=1, lines_attributed=0, recorded_by=by)

    api = Repository(repo)
    write_note(api, a, [record(a, "new")])
    write_note(api, b, [record(b, "new")])
    for commit in (b, c):  # what an earlier version wrote
        git(
            repo,
            "notes",
            "--ref",
            LEGACY_NOTES_REF,
            "add",
            "-m",
            render_note([record(commit, "old")]),
            commit,
        )
    old_c = git(repo, "notes", "--ref", LEGACY_NOTES_REF, "show", c)
    assert set(note_blobs(api)) == {a, b, c}
    assert ['"new"' in note_text(api, x) for x in (a, b)] == [True, True]
    assert note_text(api, c) == old_c
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "d").write_text("d\n")
    git(repo, "add", "d")
    git(repo, "commit", "-q", "-m", "d")
    d = git(repo, "rev-parse", "HEAD").strip()
    assert head == c
    write_note(api, d, [record(d, "new")])  # the first write moves them
    assert git(repo, "rev-parse", "-q", "--verify", LEGACY_NOTES_REF, check=False) == ""
    assert set(note_blobs(api)) == {a, b, c, d}
    assert '"new"' in git(repo, "notes", "--ref", NOTES_REF, "show", b)
    assert git(repo, "notes", "--ref", NOTES_REF, "show", c) == old_c
