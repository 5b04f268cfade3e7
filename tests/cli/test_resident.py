"""The opt-in resident process (GIT_INTENT_RESIDENT=1): the same answers as the CLI in process, in the
caller's directory and environment, never stale, and only through a folder that is this user's alone."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import claude_session, commit_synced, install, run_cli, wait_for

import git_intent.launch as launch
import git_intent.resident as resident_module


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private XDG_RUNTIME_DIR; every resident process started under it is stopped at the end."""
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder / "git-intent"
    for pid_file in (folder / "git-intent").glob("*.pid") if (folder / "git-intent").is_dir() else []:
        try:
            os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGTERM)
        except (OSError, ValueError):
            pass


@pytest.fixture
def agent_repo(repo: Path) -> Path:
    install(repo)
    session = claude_session(repo)
    session.prompt("add a greeting helper")
    session.write("Adding greet().", repo / "src" / "greet.py", "def greet(name):\n    return f'hi {name}'\n")
    session.save()
    commit_synced(repo, "greet")
    return repo


RESIDENT = {"GIT_INTENT_RESIDENT": "1"}


def started(runtime: Path) -> Path:
    sockets: list[Path] = wait_for(
        lambda: [p for p in runtime.glob("*.sock") if p.with_suffix(".pid").exists()],
        "the resident process to listen",
    )
    return sockets[0]


def test_the_resident_process_answers_as_the_cli_does(
    agent_repo: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run_cli("blame", "src/greet.py:1", cwd=agent_repo, env=RESIDENT)  # answered here; starts one
    started(runtime)
    monkeypatch.chdir(agent_repo)
    assert launch.ask_resident(["blame", "src/greet.py:1"]) == 0  # None would mean "answer it here"
    assert capsys.readouterr().out == first.stdout
    for args in (
        ("blame", "src/greet.py:1"),
        ("blame", "src/greet.py:1", "--json"),
        ("log",),
        ("blame", "missing.py:1"),
        ("sessions", "--json"),
    ):
        here = run_cli(*args, cwd=agent_repo)
        there = run_cli(*args, cwd=agent_repo, env=RESIDENT)
        assert (there.returncode, there.stdout, there.stderr) == (
            here.returncode,
            here.stdout,
            here.stderr,
        ), args
        # ... and it was the resident process that answered (None: the caller would have answered it itself)
        assert launch.ask_resident(list(args)) == here.returncode, args
        answered = capsys.readouterr()
        assert (answered.out, answered.err) == (here.stdout, here.stderr), args
    assert first.stdout == run_cli("blame", "src/greet.py:1", cwd=agent_repo).stdout
    assert (
        json.loads(run_cli("blame", "src/greet.py:1", "--json", cwd=agent_repo, env=RESIDENT).stdout)[
            "lines"
        ][0]["status"]
        == "agent"
    )


def test_each_call_runs_in_the_callers_folder_and_sees_new_commits(
    agent_repo: Path, runtime: Path, tmp_path: Path
) -> None:
    run_cli("log", cwd=agent_repo, env=RESIDENT)
    started(runtime)
    inner = run_cli(
        "blame", "greet.py:1", cwd=agent_repo / "src", env=RESIDENT
    )  # relative to the caller's cwd
    assert inner.returncode == 0 and "greet.py:1" in inner.stdout
    (agent_repo / "src" / "greet.py").write_text(
        "def greet(name):\n    return f'hello {name}'\n", encoding="utf-8"
    )
    commit_synced(agent_repo, "a person's edit")
    line = json.loads(run_cli("blame", "src/greet.py:2", "--json", cwd=agent_repo, env=RESIDENT).stdout)[
        "lines"
    ][0]
    assert (line["status"], line["content"]) == ("human", "    return f'hello {name}'")
    other = tmp_path / "elsewhere"
    other.mkdir()
    outside = run_cli("blame", "x.py:1", cwd=other, env=RESIDENT)
    assert outside.returncode == 1 and f"{other} is not inside a git work tree" in outside.stderr


def test_a_changed_installation_is_never_answered_by_the_old_process(agent_repo: Path, runtime: Path) -> None:
    run_cli("log", cwd=agent_repo, env=RESIDENT)
    sock = started(runtime)
    module = Path(resident_module.__file__)
    before = module.stat()
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    try:
        proc = run_cli("blame", "src/greet.py:1", cwd=agent_repo, env=RESIDENT)  # answered in process
        assert proc.returncode == 0 and "greet.py:1" in proc.stdout
        wait_for(lambda: not sock.exists(), "the stale resident process to leave")
    finally:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_socket_folder_others_can_enter_is_never_used(agent_repo: Path, runtime: Path) -> None:
    runtime.mkdir(mode=0o755)
    runtime.chmod(0o755)
    assert launch.socket_path() is None
    proc = run_cli("blame", "src/greet.py:1", cwd=agent_repo, env=RESIDENT)
    assert proc.returncode == 0 and "greet.py:1" in proc.stdout
    time.sleep(1)
    assert list(runtime.iterdir()) == []


def test_only_read_only_commands_go_to_the_resident_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_INTENT_RESIDENT", "1")
    assert launch.enabled(["blame", "a.py:1"]) and launch.enabled(["show", "abc"])
    for argv in (["record", "HEAD"], ["install"], ["blame", "--help"], ["serve"], ["redact", "-"], []):
        assert not launch.enabled(argv), argv
    monkeypatch.setenv("GIT_INTENT_RESIDENT", "0")
    assert not launch.enabled(["blame", "a.py:1"])


def test_another_installation_whose_socket_has_the_same_name_is_answered_in_process(
    agent_repo: Path, runtime: Path
) -> None:
    run_cli("log", cwd=agent_repo, env=RESIDENT)
    sock = started(runtime)
    request = {"argv": ["log"], "cwd": str(agent_repo), "env": dict(os.environ), "key": "0.0.9\0elsewhere"}
    assert ask(sock, json.dumps(request).encode() + b"\n") == {"stale": True}  # the caller answers it itself
    assert ask(sock, b"[1, 2]\n") is None  # not a request: no answer, and the process lives on
    request["key"] = launch.installation_key()
    reply = ask(sock, json.dumps(request).encode() + b"\n")  # its own installation is still served
    assert reply is not None and reply["exit"] == 0 and "greet" in reply["stdout"]


def ask(sock: Path, line: bytes) -> dict[str, object] | None:
    """One raw request line to the resident process; its reply, or None when it closes without one."""
    with socket.socket(socket.AF_UNIX) as conn:
        conn.settimeout(30)
        conn.connect(str(sock))
        conn.sendall(line)
        with conn.makefile("rb") as reply:
            text = reply.readline()
    return json.loads(text) if text else None
