"""git's pager for `git intent blame` on a terminal, chosen as git chooses it, so the answer reads like
`git blame`'s. Standard library only: the plain `blame LOCATION` route runs without click (printing.py).

The choice, in git's order: never when standard output is not a terminal, when git already pages us
(`git -p intent …` or `pager.intent`: git sets `GIT_PAGER_IN_USE`), or with `--no-pager` (ours, or git's:
`git --no-pager intent` sets `GIT_PAGER=cat`); then `pager.blame` as git reads it for `git blame` (false: no
pager; true or unset: the pager; any other value: that command); then `git var GIT_PAGER` (`GIT_PAGER`,
`core.pager`, `PAGER`, else less). `cat` or an empty command means no pager. The pager runs through the shell
with `LESS=FRX` and `LV=-c` unless set, as git runs it (pager.c): less quits at once when the answer fits.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["pager_command", "paged"]

_FALSE = frozenset({"false", "no", "off", "0", ""})
_TRUE = frozenset({"true", "yes", "on", "1"})


def pager_command(setting: str = "pager.blame") -> str | None:
    """The shell command to page standard output through, or None for no pager (see the module's rules)."""
    if os.environ.get("GIT_PAGER_IN_USE") or not _is_terminal(sys.stdout):
        return None
    configured = _git("config", "--get", setting)
    if configured is not None and configured.strip().lower() in _FALSE:
        return None
    if configured is not None and configured.strip().lower() not in _TRUE:
        command: str | None = configured.strip()
    else:
        command = _git("var", "GIT_PAGER")
    command = (command or "").strip()
    return None if command in ("", "cat") else command


@contextmanager
def paged(enabled: bool = True) -> Iterator[None]:
    """Send what is written to standard output (and to standard error when that is the terminal too, as git
    does) through the pager while the block runs, then wait for the reader to quit it. A reader who quits
    before the end is not an error: the rest of the output is dropped."""
    command = pager_command() if enabled else None
    if command is None:
        yield
        return
    env = {**os.environ, "LESS": os.environ.get("LESS", "FRX"), "LV": os.environ.get("LV", "-c")}
    try:
        pager = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        yield
        return
    assert pager.stdin is not None
    streams = [sys.stdout] + ([sys.stderr] if _is_terminal(sys.stderr) else [])
    for stream in streams:
        stream.flush()
    saved = {stream.fileno(): os.dup(stream.fileno()) for stream in streams}
    for fd in saved:
        os.dup2(pager.stdin.fileno(), fd)
    pager.stdin.close()
    broken = False
    try:
        yield
    except BrokenPipeError:
        broken = True
    finally:
        for stream in streams:
            try:
                stream.flush()
            except BrokenPipeError:
                broken = True
        # Our ends of the pipe closed, the pager sees the end of its input. After a broken pipe what is left
        # in the buffers must not reach the terminal: /dev/null takes stdout's place.
        devnull = os.open(os.devnull, os.O_WRONLY) if broken else None
        for fd, original in saved.items():
            os.dup2(devnull if devnull is not None and fd == 1 else original, fd)
            os.close(original)
        if devnull is not None:
            os.close(devnull)
        pager.wait()


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # a closed stream
        return False


def _git(*args: str) -> str | None:
    """git's answer on stdout, or None when it exits non-zero (an unset key) or cannot run."""
    try:
        proc = subprocess.run(["git", *args], capture_output=True, text=True)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None
