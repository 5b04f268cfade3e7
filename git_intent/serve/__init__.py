"""`git intent serve`: a local web view of the repository's intent (starlette + uvicorn, the `serve`
extra, imported only by this command), bound to 127.0.0.1 only."""

from __future__ import annotations

import errno
import secrets
import socket
import threading
import time
import webbrowser
from collections.abc import Callable

from ..errors import IntentError
from ..git.repo import Repository

HOST = "127.0.0.1"


class PortBusyError(IntentError):
    """The port asked for is taken by another program."""


def bind(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:`port` (0: a free port chosen by the system).

    Raises PortBusyError (one sentence naming --port) when the port is in use."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EADDRINUSE, errno.EACCES):
            raise PortBusyError(f"Port {port} on {HOST} is already in use or not allowed; choose another with "
                                f"--port (for example --port 0 for any free port).") from exc
        raise
    sock.listen(128)
    return sock


def run_server(repo: Repository, port: int, *, open_browser: bool = False,
               echo: Callable[[str], object] = print) -> None:
    """Serve `repo` on 127.0.0.1:`port` until interrupted; say the address through `echo` first.

    Raises PortBusyError when the port is taken."""
    try:
        import uvicorn

        from .app import create_app
    except ImportError as exc:
        raise IntentError(f"git intent serve needs the serve extra ({exc.name or 'starlette'} is not installed).",
                          hint="pip install 'git-intent[serve]'") from exc
    sock = bind(port)
    url = f"http://{HOST}:{sock.getsockname()[1]}/"
    app = create_app(repo, secrets.token_urlsafe(32))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                                           server_header=False))
    echo(f"Serving the intent of {repo.root} at {url} (Ctrl-C stops it).")
    if open_browser:
        threading.Thread(target=_open_when_started, args=(server, url), daemon=True).start()
    server.run(sockets=[sock])


def _open_when_started(server: object, url: str) -> None:
    deadline = time.monotonic() + 10
    while not getattr(server, "started", False) and time.monotonic() < deadline:
        time.sleep(0.05)
    webbrowser.open(url)
