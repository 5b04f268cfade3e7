"""Answering MCP's `initialize` before the SDK is loaded: the handshake an agent waits for costs
Python's start-up, not the ~0.9 s of CPU the `mcp` SDK (2.x) spends building its protocol types.

How: the first line on stdin is read here (standard library only). When it is an `initialize` request for a
protocol version the SDK negotiates as is (`HANDSHAKE_VERSIONS`), the answer the SDK would give is written at
once. Then fds 0 and 1 are put behind two pipes and the SDK server runs on them unaware: the `initialize`
line is replayed to it first (so its session state is the one the client sees), the rest of stdin follows,
and its own answer to the replayed `initialize` is dropped on the way out — after checking it equals the one
sent (`mismatch` is logged when it does not; tests/mcp/test_mcp_early.py checks both against the SDK).
Anything else (another first message, another version) is replayed untouched and the SDK answers it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

# The versions the SDK answers with the version asked for (mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS of
# the pinned SDK, mcp>=2.3,<3); tests/mcp/test_mcp_early.py fails when the installed SDK disagrees.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# What the SDK's MCPServer declares (it registers prompt, resource and tool handlers); checked by the same
# test.
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}


def initialize_result(
    request: dict[str, Any], name: str, version: str, instructions: str
) -> dict[str, Any] | None:
    """The JSON-RPC response the SDK gives to `request`, or None when it is not an `initialize` this module
    may answer alone (a notification, another method, a version the SDK would counter-offer)."""
    if request.get("method") != "initialize" or "id" not in request or request.get("jsonrpc") != "2.0":
        return None
    params = request.get("params")
    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    if asked not in HANDSHAKE_VERSIONS:
        return None
    return {
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": {
            "capabilities": CAPABILITIES,
            "instructions": instructions,
            "protocolVersion": asked,
            "serverInfo": {"name": name, "version": version},
        },
    }


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _pump(source: BinaryIO, first: bytes, sink: int) -> None:
    """Copy `first`, then `source` line by line, into the fd `sink`; close it at the end of `source`."""
    try:
        with os.fdopen(sink, "wb", buffering=0) as out:
            out.write(first)
            for line in iter(source.readline, b""):
                out.write(line)
    except (OSError, ValueError):
        pass


def _filter(source: int, out: BinaryIO, drop: dict[str, Any] | None, mismatch: Callable[[str], None]) -> None:
    """Forward the SDK's output lines from the fd `source` to `out`, leaving out its one answer to the
    replayed `initialize` (`drop`, None when none was sent), compared first with the answer already sent."""
    pending = drop is not None
    with os.fdopen(source, "rb") as lines:
        for line in iter(lines.readline, b""):
            if pending and drop is not None:
                message = _decode(line)
                if message is not None and message.get("id") == drop["id"] and "method" not in message:
                    pending = False
                    if message != drop:
                        mismatch(f"the SDK answered initialize with {line.decode('utf-8', 'replace')[:2000]}")
                    continue
            out.write(line)
            out.flush()


def serve_early(
    run: Callable[[], None], name: str, version: str, instructions: str, mismatch: Callable[[str], None]
) -> None:
    """Read the first message, answer it here when it is an `initialize` this module may answer, then call
    `run` (which loads the SDK and serves fds 0 and 1 until stdin closes) with stdin and stdout behind
    pipes as described in the module docstring. Returns when `run` returns and the output is drained."""
    stdin = os.fdopen(os.dup(0), "rb", buffering=0)
    stdout = os.fdopen(os.dup(1), "wb", buffering=0)
    first = stdin.readline()
    answer = initialize_result(_decode(first) or {}, name, version, instructions)
    if answer is not None:
        stdout.write(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n")
        stdout.flush()
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    os.dup2(in_read, 0)
    os.dup2(out_write, 1)
    os.close(in_read)
    os.close(out_write)
    pump = threading.Thread(target=_pump, args=(stdin, first, in_write), daemon=True)
    pump.start()
    forward = threading.Thread(target=_filter, args=(out_read, stdout, answer, mismatch), daemon=True)
    forward.start()
    try:
        run()
    finally:
        # The SDK is done with fd 1: closing it ends the filter's input, so the last answers are flushed.
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
        # The SDK keeps a private duplicate of fd 1 that may outlive `run`, so the filter may never see the
        # end of its input: wait until what was written has been forwarded instead (at most 2 s).
        _drain(out_read, forward)


def _drain(fd: int, forward: threading.Thread) -> None:
    import fcntl
    import termios
    import time

    deadline = time.monotonic() + 2.0
    while forward.is_alive() and time.monotonic() < deadline:
        try:
            pending = int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), "little")
        except OSError:
            return
        if pending == 0:
            forward.join(timeout=0.05)  # the line read last is being written out
            return
        time.sleep(0.01)


def serve(start: Path) -> None:
    """`git intent mcp`: serve the repository containing `start` on stdin/stdout, answering `initialize`
    before the SDK is loaded (the caller checks that the `mcp` extra is installed)."""
    from ..core.version import __version__
    from . import INSTRUCTIONS

    def run() -> None:
        from .server import serve as serve_sdk

        serve_sdk(start)

    def mismatch(problem: str) -> None:
        sys.stderr.write(f"git-intent mcp: {problem}\n")

    serve_early(run, "git-intent", __version__, INSTRUCTIONS, mismatch)
