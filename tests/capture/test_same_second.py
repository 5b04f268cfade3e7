"""Two commits in the same wall-clock second, through the installed hook: git's commit times are whole
seconds, so a Write stamped just after commit 1's second still falls in commit 1's window (its slack) and
the hook credits it there; commit 2's window then holds the same Write again. A line a person changed in
commit 2 must not be credited to that Write as a near match, while the lines the agent wrote keep their
credits in both commits."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from support import SYNC, Clock, claude_session, commit_all, commit_at_all, git, install

from git_intent.git.repo import Repository
from git_intent.notes import read_note

BODY = "def price(amount):\n    total = amount * 1.19\n    return round(total, 2)\n"
CHANGED = "    total = amount * 1.07\n"  # the person's line: a near match (fuzz.ratio 90.5) of the agent's
GUARD = "    assert total >= 0, 'a price is never negative'\n"  # the agent's new line in commit 2


def credited(root: Path, commit: str) -> list[tuple[str, int, int, str, str]]:
    """(path, start, end, message id, match) of every lines record of the note on `commit`."""
    note = read_note(Repository(root), commit)
    assert note is not None
    return [(r.path, r.start, r.end, r.message_id, r.match) for r in note.lines]


def test_a_write_credited_by_the_parent_does_not_claim_the_persons_changed_line(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "commit.gpgsign", "false")
    (root / "README.md").write_text("# test repo\n")
    second = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(minutes=5)
    commit_at_all(root, "initial", second - timedelta(hours=1))
    install(root)
    # The session's clock runs 1.2 s past the commits' second: inside commit 1's window, and after the
    # parent's second as commit 2 sees it.
    agent = claude_session(root, Clock(second + timedelta(seconds=1, milliseconds=200)))
    agent.prompt("Add a pricing helper")
    write = agent.write("Writing it now.", root / "pricing.py", BODY)
    agent.save()
    stamp = {"GIT_AUTHOR_DATE": second.isoformat(), "GIT_COMMITTER_DATE": second.isoformat()}
    first = commit_all(root, "pricing helper", env={**SYNC, **stamp})
    assert credited(root, first) == [("pricing.py", 1, 3, write, "exact")]

    guard = agent.edit("Guard it.", root / "pricing.py", "    return", GUARD + "    return")
    agent.save()
    text = (root / "pricing.py").read_text(encoding="utf-8")
    (root / "pricing.py").write_text(text.replace("    total = amount * 1.19\n", CHANGED), encoding="utf-8")
    child = commit_all(root, "reduced rate, guarded", env={**SYNC, **stamp})
    assert git(root, "log", "-2", "--format=%ct").split() == [str(int(second.timestamp()))] * 2
    assert git(root, "diff", "--numstat", first, child).split() == ["2", "1", "pricing.py"]
    # Line 2 (the person's) stays human; line 3 is the agent's Edit; commit 1's note is untouched.
    assert credited(root, child) == [("pricing.py", 3, 3, guard, "exact")]
    assert credited(root, first) == [("pricing.py", 1, 3, write, "exact")]
