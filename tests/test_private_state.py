"""What git-intent keeps on disk is private to its owner.

- Everything under `<git common dir>/intent/` is created 0700 (folders) / 0600 (files): the queue and its
  jobs (written by the sh shims), hook.log, the worker's lock, failed/, error.log, index.db and SQLite's
  -wal/-shm — the index holds transcript text (here a planted `DB_PASSWORD=`). The shims' umask does not
  leak into the commit's other hooks or into the worker's git objects.
- A state folder an earlier version left 0755/0644 is tightened when git-intent next opens it.
- A full disk while copying a session into the backup leaves no temporary file with transcript text; the
  backup is retried on the next run, and `git intent status` counts the backups still to make.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import SYNC, claude_session, commit_all, git, install, journal, run_cli

from git_intent.core.state_files import private_dir
from git_intent.git.repo import Repository

SECRET = "DB_PASSWORD=hunter2-planted-for-this-test"


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The umask most systems give users (022): without care, new files are 0644 and folders 0755."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def modes(root: Path) -> dict[str, str]:
    """Every path below `root` (and `root` itself as "."), relative, with its permission bits in octal."""
    found = {".": oct(stat.S_IMODE(root.stat().st_mode))}
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = Path(folder, name)
            found[str(path.relative_to(root))] = oct(stat.S_IMODE(path.lstat().st_mode))
    return found


def loose(root: Path) -> dict[str, str]:
    """The paths below `root` that are not 0700 folders or 0600 files."""
    return {
        name: mode
        for name, mode in modes(root).items()
        if mode != ("0o700" if (root / name).is_dir() else "0o600")
    }


def agent_commit(repo: Path, name: str, env: dict[str, str] | None = None) -> Path:
    """A Claude Code session writes `name` (holding SECRET) and the work is committed; the transcript."""
    session = claude_session(repo)
    session.prompt(f"Add {name} with the database settings.")
    session.write(
        f"Writing {name}; it reads {SECRET} from the environment.",
        repo / name,
        f"# settings\nURL = 'postgres://db'\n# {SECRET}\n",
    )
    transcript = session.save()
    commit_all(repo, f"add {name}", env=env)
    return transcript


def test_everything_under_the_state_folder_is_private(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    legacy = repo / ".git" / "hooks" / "post-commit"
    legacy.write_text(
        '#!/bin/sh\necho ran > "$(git rev-parse --git-dir)/legacy-made-this"\n', encoding="utf-8"
    )
    legacy.chmod(0o755)
    install(repo)
    state = repo / ".git" / "intent"
    # The shim queues the job and the worker dies right after reading it: the job stays queued.
    agent_commit(repo, "settings.py", env={**SYNC, "GIT_INTENT_CRASH_AT": "after-journal"})
    queued = list((state / "queue").glob("*.job"))
    assert len(queued) == 1
    assert stat.S_IMODE(queued[0].stat().st_mode) == 0o600
    # The earlier hook runs before the shim sets anything: its files keep the user's usual mode (the check
    # that the shim's umask does not leak into git is the object mode below).
    assert stat.S_IMODE((repo / ".git" / "legacy-made-this").stat().st_mode) == 0o644
    (state / "queue" / "1-torn.job").write_text("not a job\nend\n", encoding="utf-8")  # goes to failed/
    drained = run_cli("record", "--pending", cwd=repo)
    assert drained.stdout.endswith("1 queued job(s) processed, 0 to retry, 1 failed.\n"), drained.stderr
    assert run_cli("index", cwd=repo).returncode == 0
    assert SECRET.encode() in (state / "index.db").read_bytes()
    # What other hook managers call renders the shim into shims/ (no pairs on stdin: nothing is queued).
    assert subprocess.run(["git-intent-hook", "post-rewrite", "amend"], cwd=repo, input=b"").returncode == 0
    monkeypatch.chdir(repo)
    from git_intent.cli import _write_error_log

    assert _write_error_log("a report") == state / "error.log"
    from git_intent.index import open_index

    db = open_index(Repository(repo))  # while it is open, SQLite's side files exist
    try:
        db.conn.execute("INSERT OR REPLACE INTO fts_state(name, indexed_id) VALUES ('perm-test', 0)")
        db.conn.commit()
        assert (state / "index.db-wal").exists() and (state / "index.db-shm").exists()
        assert loose(state) == {}
    finally:
        db.close()
    assert {
        "hook.log",
        "error.log",
        "index.db",
        "worker.lock",
        "notes.lock",
        "queue",
        "failed",
        "failed/1-torn.job",
        "failed/1-torn.job.error",
        "shims/post-rewrite",
    } <= set(modes(state))
    assert loose(state) == {}
    # The worker's git objects (the notes) keep git's usual modes: the umask did not reach the worker.
    blob = git(repo, "rev-parse", "refs/notes/intent:" + git(repo, "rev-parse", "HEAD").strip()).strip()
    loose_object = repo / ".git" / "objects" / blob[:2] / blob[2:]
    assert stat.S_IMODE(loose_object.stat().st_mode) == 0o444


def test_a_state_folder_left_open_by_an_earlier_version_is_tightened(repo: Path) -> None:
    install(repo)
    agent_commit(repo, "settings.py", env=SYNC)
    assert run_cli("index", cwd=repo).returncode == 0
    state = repo / ".git" / "intent"
    # What an earlier version left: every folder 0755, every file 0644.
    for folder, _dirs, files in os.walk(state):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(Path(folder, name), 0o644)
    (state / "failed").mkdir(mode=0o755)
    (state / "failed" / "old.job.error").write_text("an old report\n", encoding="utf-8")
    assert loose(state) != {}
    proc = run_cli("search", "database", cwd=repo)  # any command that opens the index
    assert proc.returncode == 0, proc.stderr
    assert loose(state) == {}


# --- a full disk while backing a session up ----------------------------------------------------------------


def full_disk_after(limit: int) -> Any:
    """A `shutil.copyfileobj` that writes `limit` bytes, then fails as a full disk does."""

    def copy(source: Any, target: Any, length: int = 0) -> None:
        target.write(source.read(limit))
        target.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    return copy


def backup_files(repo: Path) -> list[str]:
    sessions = repo / ".opencode" / "intent" / "sessions"
    return (
        sorted(str(p.relative_to(sessions)) for p in sessions.rglob("*") if p.is_file())
        if sessions.is_dir()
        else []
    )


def status_json(repo: Path) -> dict[str, Any]:
    proc = run_cli("status", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def test_a_full_disk_during_the_backup_leaves_no_transcript_text_and_is_retried(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_intent.capture.record import record_commit

    transcript = agent_commit(repo, "settings.py")
    session_id = transcript.stem
    with monkeypatch.context() as patch:
        patch.setattr(shutil, "copyfileobj", full_disk_after(200))
        result = record_commit(Repository(repo), "HEAD")
    assert result.note_written and result.lines_attributed == 3
    assert backup_files(repo) == []  # no tmp*.tmp holding the first 200 bytes of the transcript
    [entry] = journal(repo)
    assert entry["backup"] is None and entry["session_id"] == session_id
    report = status_json(repo)
    assert report["pending_backups"] == 1
    proc = run_cli("status", cwd=repo)
    assert (
        "backups   1 session copy(ies) still to make in the backup (a copy failed, say on a full disk); "
        "the next commit retries, `git intent record --pending` now."
    ) in proc.stdout.splitlines()

    # A temporary file a killed worker left an hour ago is cleaned on the next run, too.
    stale = repo / ".opencode" / "intent" / "sessions" / "claude-code" / "tmpk1ll3d.tmp"
    stale.write_text("transcript text\n", encoding="utf-8")
    hour_ago = time.time() - 3600
    os.utime(stale, (hour_ago, hour_ago))
    proc = run_cli("record", "--pending", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert backup_files(repo) == [f"claude-code/{session_id}.jsonl"]
    copy = repo / ".opencode" / "intent" / "sessions" / "claude-code" / f"{session_id}.jsonl"
    assert copy.read_bytes() == transcript.read_bytes()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    first, second = journal(repo)
    assert first == entry
    assert {k: second[k] for k in ("commit", "agent", "session_id", "backup", "retried")} == {
        "commit": entry["commit"],
        "agent": "claude-code",
        "session_id": session_id,
        "backup": str(copy),
        "retried": True,
    }
    assert status_json(repo)["pending_backups"] == 0


def test_a_backup_whose_transcript_is_gone_is_not_pending_forever(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_intent.capture.record import record_commit

    transcript = agent_commit(repo, "settings.py")
    with monkeypatch.context() as patch:
        patch.setattr(shutil, "copyfileobj", full_disk_after(10))
        record_commit(Repository(repo), "HEAD")
    assert status_json(repo)["pending_backups"] == 1
    transcript.unlink()  # the agent deleted it (Claude Code does after 30 days)
    proc = run_cli("record", "--pending", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert status_json(repo)["pending_backups"] == 0
    assert backup_files(repo) == []
    assert len(journal(repo)) == 1


def test_a_linked_state_folder_is_not_walked_through_its_link(tmp_path: Path) -> None:
    # A link's own mode reads 0777: it was taken for a folder open to others, and everything behind it was
    # walked and chmodded on every hook.log line and lock.
    real = tmp_path / "elsewhere"
    real.mkdir(mode=0o700)
    (real / "notes.txt").write_text("the user's file\n")
    (real / "notes.txt").chmod(0o644)
    link = tmp_path / "intent"
    link.symlink_to(real)
    assert private_dir(link, "queue") == link / "queue"
    assert stat.S_IMODE((real / "notes.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((real / "queue").stat().st_mode) == 0o700
