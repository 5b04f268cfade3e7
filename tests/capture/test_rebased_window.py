"""A rebased commit is credited to the session that wrote it days before its new parent.

entireio/git-sync d851ee02ef08 was authored on 2026-04-15 16:04 +02:00, the day Claude Code session c7d001b2
made its edits, then rebased onto a parent committed on 04-24 (committer date 04-29). The window of edits that
may explain a commit reached back 7 days from the parent's commit time only (04-17), so none of its 366 lines
was credited and `why` said "written by a person". The fixture is an excerpt of that session (three Edit
calls, one per file, with their results; fixtures/transcripts/claude-code/README.md); the test rebuilds the
commit from it with the real dates, rebases it with `git rebase`, and backfills or records it from the
transcript.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import corpus, run_cli
from support import at, blame_json, git, make_repo, session_cwd
from support.transcript_replay import commit_replayed, rebuild_claude, write_replayed

EXCERPT = corpus("transcripts", "claude-code", "git-sync__32bf11bd8793-1__rebased-excerpt.jsonl")
SESSION = "c7d001b2-f56b-4999-82ed-3af83b6837b6"
# The three lines of the sampled 40 that blame gave to a person (bench/reason_picker.py on git-sync), with
# the Edit call (the assistant record's uuid) that wrote each.
LINES = {
    (
        "internal/gitproto/refs.go",
        "func decodeV2LSRefs(r *bytes.Reader) ([]*plumbing.Reference, plumbing.ReferenceName, error) {",
    ): "cd54fd14-2b0e-4dab-a572-4ede29e48508",
    (
        "internal/planner/checkpoint.go",
        "return FirstParentChainStoppingAt(store, tip, nil)",
    ): "ec065359-0139-44df-8d03-ec2fe612cb06",
    (
        "internal/strategy/bootstrap/bootstrap.go",
        "ordered, trunkIdx := orderTrunkFirst(desired, p.SourceHeadTarget)",
    ): "5ba17cf4-50e1-4bdf-be97-d33464fa6907",
}
AUTHORED = "2026-04-15T16:04:53+02:00"  # d851ee02ef08's author date, kept by the rebase
PARENT_COMMITTED = "2026-04-24T14:19:48+02:00"  # its parent 66ab8c4 (a merge of another pull request)
REBASED = "2026-04-29T08:56:26+02:00"  # its committer date


def _rebased_commit(tmp_path: Path) -> Path:
    """The session's files before its edits (a person's commit), the edits committed on a branch at the real
    author date, another person's commit on main nine days later, and the branch rebased onto it."""
    repo = make_repo(tmp_path / "repo")
    rebuild = rebuild_claude(EXCERPT)
    cwd = session_cwd(EXCERPT)
    write_replayed(repo, rebuild.pre, cwd)
    commit_replayed(repo, "baseline", at("2026-04-15T09:00:00+00:00"))
    git(repo, "checkout", "-q", "-b", "soph/branch-optimizations")
    write_replayed(repo, rebuild.post, cwd)
    commit_replayed(
        repo,
        "Plan trunk first in batched bootstrap to cut per-branch graph fetches",
        at(AUTHORED),
        author="Stefan Haubold <soph@example.com>",
    )
    git(repo, "checkout", "-q", "main")
    (repo / "CHANGELOG.md").write_text("follow info/refs redirects\n", encoding="utf-8")
    commit_replayed(repo, "Merge pull request #9", at(PARENT_COMMITTED))
    git(repo, "checkout", "-q", "soph/branch-optimizations")
    git(
        repo,
        "-c",
        "commit.gpgsign=false",
        "rebase",
        "-q",
        "main",
        env={
            "GIT_COMMITTER_DATE": REBASED,
            "GIT_COMMITTER_NAME": "Stefan Haubold",
            "GIT_COMMITTER_EMAIL": "soph@example.com",
        },
    )
    dates = git(repo, "log", "-3", "--format=%aI %cI %s").splitlines()
    assert (
        dates[0]
        == f"{AUTHORED} {REBASED} Plan trunk first in batched bootstrap to cut per-branch graph fetches"
    )
    assert dates[1].endswith(" Merge pull request #9")
    return repo


def _line(repo: Path, path: str, text: str) -> int:
    """The 1-based number of the one line of `path` that reads `text` once stripped."""
    found = [
        n
        for n, line in enumerate((repo / path).read_text(encoding="utf-8").splitlines(), 1)
        if line.strip() == text
    ]
    assert len(found) == 1, (path, text, found)
    return found[0]


@pytest.mark.parametrize("command", ["backfill", "record"])
def test_a_rebased_commit_is_credited_to_the_session_that_wrote_it_before_its_new_parent(
    tmp_path: Path, command: str
) -> None:
    repo = _rebased_commit(tmp_path)
    proc = run_cli(command, "--transcript", str(EXCERPT), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["sessions"] == {f"claude-code:{SESSION}": 96}
    for (path, text), message_id in LINES.items():
        answer = blame_json(repo, f"{path}:{_line(repo, path, text)}")
        attribution = answer["lines"][0]["attribution"]
        assert (attribution["agent"], attribution["session_id"], attribution["message_id"]) == (
            "claude-code",
            SESSION,
            message_id,
        ), (path, text)


def test_the_window_of_a_commit_not_rebased_starts_at_its_parent(tmp_path: Path) -> None:
    """The author date widens the window only when it is before the parent: a commit made on top of main with
    the session's edits older than the look-back before its parent stays a person's, as before."""
    repo = _rebased_commit(tmp_path)
    git(
        repo,
        "-c",
        "commit.gpgsign=false",
        "commit",
        "-q",
        "--amend",
        "--no-edit",
        "--reset-author",
        env={"GIT_AUTHOR_DATE": REBASED, "GIT_COMMITTER_DATE": REBASED},
    )
    proc = run_cli("backfill", "--transcript", str(EXCERPT), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["sessions"] == {}


def test_the_author_date_widens_the_window_by_thirty_days_at_most() -> None:
    """A cherry-pick of months-old work must not make backfill read every transcript
    since."""
    from datetime import datetime, timedelta, timezone

    from git_intent.config import REBASE_REACH, window_start

    week = timedelta(days=7)
    parent = datetime(2026, 4, 24, 12, tzinfo=timezone.utc)
    committed = datetime(2026, 4, 29, 8, tzinfo=timezone.utc)
    rebased = datetime(2026, 4, 15, 14, tzinfo=timezone.utc)
    assert window_start(parent, committed, rebased, week) == rebased - week
    assert window_start(parent, committed, committed, week) == parent - week  # authored after the parent
    assert window_start(parent, committed, datetime(2019, 1, 1, tzinfo=timezone.utc), week) == (
        parent - REBASE_REACH - week
    )
    assert (
        window_start(None, committed, rebased, week) == rebased - week
    )  # a root commit, the content fallback
