"""The opt-in resident process for read-only commands (`GIT_INTENT_RESIDENT=1`): the CLI's start-up paid once.

`git intent blame FILE:LINE` spends ~16 ms answering and ~400 ms starting (the interpreter, click, pydantic
and the value models; bench/blame_latency.py). An editor that asks on every cursor move wants the answer
alone. With `GIT_INTENT_RESIDENT=1`, the `git-intent` script's client (`launch.py`) sends the read-only
commands in `launch.COMMANDS` to this process over a unix socket and prints its reply; the first call
starts it in the background and answers in process itself. It exits after `IDLE_SECONDS` without a
request, or at once when git-intent's files change under it.

Protocol (one connection per call): the client sends one JSON line `{"argv": [...], "cwd": str, "env":
{...}, "key": str}`; the resident process answers one JSON line `{"exit": int, "stdout": str, "stderr":
str}`, or `{"stale": true}` when it must not answer (its files changed, or the client's installation key
is not its own: the client then answers in process). It runs one request at a time, each in the caller's
working directory and environment.

Security: the socket lives in a folder only this user can enter (`$XDG_RUNTIME_DIR/git-intent`, else
`/tmp/git-intent-<uid>`, created 0700 and checked to be ours, not a link: `launch.socket_path`), and the
resident process answers only peers of its own uid (SO_PEERCRED).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
from pathlib import Path
from typing import Any

from .core.state_files import write_text
from .launch import installation_key

IDLE_SECONDS = 600
_PACKAGE = Path(__file__).resolve().parent


def _fingerprint() -> tuple[tuple[str, int], ...]:
    """Every module file of the package with its mtime: a change (an upgrade, an edit) makes the process
    stale."""
    return tuple(sorted((str(p), p.stat().st_mtime_ns) for p in _PACKAGE.rglob("*.py")))


def _peer_is_us(conn: socket.socket) -> bool:
    """Whether the peer runs as this uid (Linux's SO_PEERCRED). Where the kernel cannot say (macOS, BSD),
    the socket's 0700 folder is the check: only this user can reach the socket at all."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return False
    return int(struct.unpack("3i", creds)[1]) == os.getuid()


def run(argv: list[str], cwd: str, env: dict[str, str]) -> dict[str, Any]:
    """One CLI call in this process, in `cwd` with exactly `env`, its output captured: the reply."""
    import contextlib
    import io

    from .cli import main

    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    code = 0
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.argv = ["git-intent", *argv]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        sys.argv = saved_argv
    return {"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def serve(path: Path, idle_seconds: float = IDLE_SECONDS) -> None:
    """Answer requests on `path` until idle for `idle_seconds` or stale; removes the socket when it ends."""
    import git_intent.cli  # noqa: F401
    import git_intent.explain.blame  # noqa: F401  (the start-up paid here, once)
    import git_intent.explain.render  # noqa: F401

    fingerprint = _fingerprint()
    old = os.umask(0o077)
    try:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
    finally:
        os.umask(old)
    server.listen(16)
    server.settimeout(idle_seconds)
    pid_file = path.with_suffix(".pid")  # who answers on this socket (`kill $(cat …)` stops it)
    write_text(pid_file, str(os.getpid()))  # never through a link
    try:
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                return
            with conn:
                if not _peer_is_us(conn):
                    continue
                try:
                    with conn.makefile("rb") as lines:
                        request = json.loads(lines.readline() or b"{}")
                    if not isinstance(request, dict):
                        continue
                    stale = _fingerprint() != fingerprint
                    foreign = request.get("key") != installation_key()  # another installation, same name
                    reply = (
                        {"stale": True}
                        if stale or foreign
                        else run(
                            [str(a) for a in request["argv"]],
                            str(request["cwd"]),
                            {str(k): str(v) for k, v in dict(request["env"]).items()},
                        )
                    )
                    conn.sendall(json.dumps(reply).encode("utf-8") + b"\n")
                except (OSError, ValueError, KeyError, TypeError):
                    continue
                if stale:
                    return
    finally:
        server.close()
        for leftover in (path, pid_file):
            try:
                leftover.unlink()
            except OSError:
                pass


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
