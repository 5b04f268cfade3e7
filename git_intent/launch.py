"""The `git-intent` script: the resident process's client when asked for and able, else the CLI.

With `GIT_INTENT_RESIDENT=1`, the read-only commands in `COMMANDS` go to a resident `python -m
git_intent.resident` (`resident.py`: the server, the protocol and the security rules) over a unix socket;
the first call starts it in the background and answers in process itself. This module is the client, and
imports only what the client needs (`os`, `sys`, `json`, `socket`, `zlib`): its cost is the caller's whole
cost on top of starting Python (bench/blame_latency.py row k). Everything else is imported only
when the call is answered in process.
"""

from __future__ import annotations

import os
import sys

from .core.version import __version__

# Read-only, fast, no stdin, no progress bar: what an editor or a script asks again and again.
COMMANDS = frozenset({"blame", "show", "log", "search", "context", "sessions", "stats", "memory"})
_PACKAGE = os.path.dirname(os.path.realpath(__file__))


def main() -> None:
    """Entry point: hand read-only commands to the resident process with GIT_INTENT_RESIDENT=1."""
    argv = sys.argv[1:]
    if argv == ["memory", "--hook"]:  # the edit guard: the agent waits for it before every edit
        from .memory.guard import main as guard

        sys.exit(guard())
    if enabled(argv):
        code = ask_resident(argv)
        if code is not None:
            sys.exit(code)
    from .cli import main as cli_main

    cli_main()


def enabled(argv: list[str]) -> bool:
    """Whether this call should go to the resident process: opted in, a listed command, no help asked, and not
    a blame for a person at a terminal (it goes through git's pager, which the resident process's captured
    output cannot give; editors and scripts, for whom the resident process is, read a pipe)."""
    return (
        os.environ.get("GIT_INTENT_RESIDENT") == "1"
        and hasattr(os, "getuid")
        and bool(argv)
        and argv[0] in COMMANDS
        and not {"-h", "--help"} & set(argv)
        and not (argv[0] == "blame" and _on_terminal())
    )


def _on_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # no stdout, or a closed one
        return False


def installation_key() -> str:
    """What tells one installation from another: version, package folder, interpreter environment and
    PYTHONPATH. Another of any of them is another resident process; the server checks the client's key."""
    return "\0".join((__version__, _PACKAGE, sys.prefix, os.environ.get("PYTHONPATH", "")))


def socket_path() -> str | None:
    """The socket for this installation, in a folder only this user can use (`$XDG_RUNTIME_DIR/git-intent`,
    else `/tmp/git-intent-<uid>`, created 0700); None when no such folder can be had (a folder of someone
    else's, one open to others, or a link in its place)."""
    import stat
    import zlib

    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = os.path.join(base, "git-intent") if base else f"/tmp/git-intent-{os.getuid()}"
    try:
        if base:
            os.makedirs(base, mode=0o700, exist_ok=True)
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    # A name, not a secret: the server compares the whole key, so two keys of one name cannot mix.
    return os.path.join(
        folder, f"{zlib.crc32(installation_key().encode('utf-8', 'surrogateescape')):08x}.sock"
    )


def ask_resident(argv: list[str]) -> int | None:
    """Run `git intent ARGV` in the resident process and print its output; its exit code, or None when the
    caller must answer in process (no resident process yet: one is started; a stale one; any failure)."""
    import json
    import socket

    path = socket_path()
    if path is None:
        return None
    try:
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(2.0)
            conn.connect(path)
            conn.settimeout(None)  # connected: a long answer is still an answer
            request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "key": installation_key()}
            conn.sendall(json.dumps(request).encode("utf-8", "surrogateescape") + b"\n")
            with conn.makefile("rb") as reply_file:
                reply = json.loads(reply_file.readline() or b"{}")
    except ConnectionRefusedError:  # a socket file left by a process that died
        _start(path, stale_socket=True)
        return None
    except FileNotFoundError:
        _start(path)
        return None
    except (OSError, ValueError):  # busy past the timeout, a reply cut short: answer in process
        return None
    if not isinstance(reply, dict) or reply.get("stale") or not isinstance(reply.get("exit"), int):
        return None
    sys.stdout.write(str(reply.get("stdout", "")))
    sys.stderr.write(str(reply.get("stderr", "")))
    return int(reply["exit"])


def _start(path: str, *, stale_socket: bool = False) -> None:
    """Start the resident process for `path` in the background, detached; never raises. (Two callers may
    both start one: the second cannot bind the socket and exits.)"""
    import subprocess  # ~5 ms: only when one must be started

    try:
        if stale_socket:
            os.unlink(path)
    except OSError:
        pass
    try:
        subprocess.Popen(
            [sys.executable, "-P", "-m", "git_intent.resident", path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        pass
