"""State files planted as symbolic links: git-intent writes nothing through them. Each file
it writes under `.git/intent` is opened with O_NOFOLLOW and refused with one sentence when it is a link; no
file outside `.git/intent` changes, not its content and not its mode."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from support import SYNC, claude_session, commit_all, install, note_text, run_cli

from git_intent.core import state_files
from git_intent.core.state_files import LinkedFileError

PRECIOUS = "precious content outside .git/intent\n"


def planted(target_dir: Path, link: Path) -> Path:
    """`link` made a symbolic link to a new 0644 file in `target_dir`; the target."""
    target = target_dir / f"victim-{link.name}"
    target.write_text(PRECIOUS)
    target.chmod(0o644)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return target


def untouched(target: Path) -> bool:
    return target.read_text() == PRECIOUS and stat.S_IMODE(target.stat().st_mode) == 0o644


WRITERS: dict[str, Callable[[Path], object]] = {
    "write_text": lambda p: state_files.write_text(p, "1234"),
    "append_text": lambda p: state_files.append_text(p).close(),
    "lock_file": lambda p: state_files.lock_file(p).close(),
    "private_database": state_files.private_database,
    "open_private": lambda p: os.close(state_files.open_private(p, state_files.REPLACE)),
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_every_private_writer_refuses_a_link_in_one_sentence(tmp_path: Path, writer: str) -> None:
    state = tmp_path / "intent"
    target = planted(tmp_path, state / "worker.pid")
    with pytest.raises(LinkedFileError) as raised:
        WRITERS[writer](state / "worker.pid")
    assert str(raised.value) == (
        f"{state / 'worker.pid'} is a symbolic link; git-intent writes nothing through a link (remove it "
        f"and run the command again)."
    )
    assert isinstance(raised.value, OSError) and untouched(target)


def test_error_log_as_a_link_is_not_appended_to(
    repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from git_intent.cli import _write_error_log

    target = planted(tmp_path, repo / ".git" / "intent" / "error.log")
    monkeypatch.chdir(repo)
    assert _write_error_log("Traceback: a planted crash report") is None
    assert untouched(target)


@pytest.mark.slow
def test_a_commit_writes_nothing_through_linked_state_files(repo: Path, tmp_path: Path) -> None:
    root = repo.resolve()
    install(root)
    state = root / ".git" / "intent"
    outside = tmp_path / "outside"
    outside.mkdir()
    targets = [planted(outside, state / name) for name in ("worker.pid", "hook.log", "error.log")]
    session = claude_session(root)
    session.prompt("Add a module")
    session.write("Writing mod.py.", root / "mod.py", "VALUE = 1\n")
    session.save()
    commit_all(root, "add mod.py", env=SYNC)  # the commit itself never fails
    assert all(untouched(t) for t in targets)
    assert note_text(root, "HEAD") is None  # the worker refused to write its pid through the link: queued
    assert "queued    1 job(s)" in run_cli("status", cwd=root).stdout
    assert not (
        state / "worker.pid"
    ).exists()  # the worker removed its own planted name (the link, not its target)
    pending = run_cli("record", "--pending", cwd=root)
    assert pending.returncode == 0 and note_text(root, "HEAD") is not None, pending.stderr
    assert all(untouched(t) for t in targets)


@pytest.mark.parametrize("name", ["worker.pid", "worker.lock"])
def test_the_cli_refuses_a_linked_state_file_in_one_sentence(repo: Path, tmp_path: Path, name: str) -> None:
    target = planted(tmp_path, repo / ".git" / "intent" / name)
    proc = run_cli("record", "--pending", cwd=repo)
    assert (proc.returncode, proc.stderr) == (
        1,
        f"error: {repo / '.git' / 'intent' / name} is a symbolic link; "
        "git-intent writes nothing through a link (remove it and run the command again).\n",
    )
    assert untouched(target)


def test_info_exclude_as_a_link_is_not_appended_to(repo: Path, tmp_path: Path) -> None:
    from git_intent.git.repo import Repository
    from git_intent.sessions.backup import ensure_excluded

    (repo / ".git" / "info" / "exclude").unlink(missing_ok=True)  # git init wrote one
    target = planted(tmp_path, repo / ".git" / "info" / "exclude")
    assert ensure_excluded(Repository(repo)) is False
    assert untouched(target)
