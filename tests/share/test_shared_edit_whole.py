"""A teammate reads a shared edit whole: `show SESSION:MESSAGE` prints the edit's diff and `why` quotes the
edited lines, exactly as its author sees them (two clones of one bare remote, evidence shared by `push` and
brought by `fetch`).

The `evidence` level shares a message's text, not its tool calls; the diff and the quote hang from the call,
so the teammate saw only the message's header and "The edit (Write on util.py) wrote [2]." with no quote. The
reader now rebuilds the call from the shared edit, and `show` prints a path inside the work tree relative to
it, as the shared edit names it.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from support import ClaudeSession, Clock, git, run_cli

UTIL = "def add(a, b):\n    return a + b\n"
EDITED = "def add(a, b):\n    return int(a) + int(b)\n"


def clone(remote: Path, path: Path) -> Path:
    git(remote.parent, "clone", "-q", str(remote), str(path))
    git(path, "config", "commit.gpgsign", "false")
    return path


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "util.py")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def ok(*args: str, cwd: Path) -> str:
    proc = run_cli(*args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_teammate_sees_a_shared_edit_as_its_author_does(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    author = clone(remote, tmp_path / "author")
    (author / "README").write_text("base\n", encoding="utf-8")
    git(author, "add", "README")
    git(author, "commit", "-q", "-m", "base")
    session = ClaudeSession(cwd=author, clock=Clock(datetime.now(timezone.utc) - timedelta(hours=1)))
    session.prompt("Write a helper that adds two numbers")
    write = session.write("Writing util.py.", author / "util.py", UTIL)
    session.save()
    first = commit(author, "util")
    ok("record", first, cwd=author)
    session.prompt("Accept numbers given as strings too")
    edit = session.edit(
        "Converting both operands.", author / "util.py", "    return a + b", "    return int(a) + int(b)"
    )
    session.save()
    ok("record", commit(author, "util: strings"), cwd=author)
    git(author, "config", "intent.share", "evidence")
    git(author, "push", "-q", "origin", "main")
    assert "Shared 2 commit(s) from 1 session(s)" in ok("push", cwd=author)
    teammate = clone(remote, tmp_path / "teammate")
    assert ok("fetch", cwd=teammate) == "Fetched from origin: notes merged; shared evidence merged.\n"

    shown = {repo.name: ok("show", f"{session.session_id}:{write}", cwd=repo) for repo in (author, teammate)}
    assert shown["teammate"] == shown["author"]
    assert shown["author"].splitlines()[2:] == [
        "Writing util.py.",
        f"[tool call Write {shown['author'].split('[tool call Write ')[1].split(']')[0]}]",
        "--- /dev/null",
        "+++ b/util.py",
        "@@ -0,0 +1,2 @@",
        "+def add(a, b):",
        "+    return a + b",
    ]

    def why(repo: Path, line: str) -> tuple[str, str]:
        """The answer and its closing line (how many of the session's tokens it read: the teammate has
        only the shared messages)."""
        *answer, footer = ok("why", line, cwd=repo).rstrip("\n").split("\n")
        return "\n".join(answer), footer

    for repo in (author, teammate):
        git(repo, "checkout", "-q", first)  # the Write's line, before the Edit replaced it
    (mine, my_footer), (theirs, their_footer) = why(author, "util.py:2"), why(teammate, "util.py:2")
    assert theirs == mine
    assert 'The edit (Write on util.py) wrote "return a + b" [2].' in mine.splitlines()
    assert my_footer == "offline · 0 model calls · read ~19 of 170 session tokens"
    assert their_footer == "offline · 0 model calls · read ~19 of 82 session tokens"
    for repo in (author, teammate):
        git(repo, "checkout", "-q", "main")
    (mine, _), (theirs, _) = why(author, "util.py:2"), why(teammate, "util.py:2")
    assert theirs == mine
    assert 'The edit (Edit on util.py) wrote "return int(a) + int(b)" [2].' in mine.splitlines()
    # The Edit's diff: the author has the whole file before and after it (numbered hunks), the teammate the
    # replaced and replacing text only; the lines removed and added are the same.
    author_diff = ok("show", f"{session.session_id}:{edit}", cwd=author).splitlines()
    teammate_diff = ok("show", f"{session.session_id}:{edit}", cwd=teammate).splitlines()
    assert author_diff[5:] == [
        "+++ b/util.py",
        "@@ -1,2 +1,2 @@",
        " def add(a, b):",
        "-    return a + b",
        "+    return int(a) + int(b)",
    ]
    assert teammate_diff[5:] == [
        "+++ b/util.py",
        "@@ … @@",
        "-    return a + b",
        "+    return int(a) + int(b)",
    ]
