"""`git intent serve`: a local web view of the repository's intent (starlette + uvicorn, the `serve` extra,
imported only by this command), bound to 127.0.0.1 only and open only to whoever holds this run's key."""

from __future__ import annotations

import errno
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import webbrowser
from collections.abc import Callable
from html import escape
from pathlib import Path

from ..core.errors import IntentError
from ..core.state_files import write_text
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
            raise PortBusyError(
                f"Port {port} on {HOST} is already in use or not allowed; choose another with --port (for "
                f"example --port 0 for any free port)."
            ) from exc
        raise
    sock.listen(128)
    return sock


def run_server(
    repo: Repository, port: int, *, open_browser: bool = False, echo: Callable[[str], object] = print
) -> None:
    """Serve `repo` on 127.0.0.1:`port` until interrupted; say the address through `echo` first: it carries
    this run's key (`http://127.0.0.1:PORT/?token=KEY`), made here with `secrets.token_urlsafe(32)`, without
    which every request gets 401. `open_browser` opens it through a file only this user can read.

    Raises PortBusyError when the port is taken."""

    def create(token: str, key: str) -> object:
        from .app import create_app

        return create_app(repo, token, key)

    _serve(create, f"the intent of {repo.root}", port, open_browser, echo)


def run_org_server(
    target: str, port: int, *, open_browser: bool = False, echo: Callable[[str], object] = print
) -> None:
    """Serve the org dashboard of the store `target` (a SQLite file or a postgresql:// URL, as `org sync
    --db` takes it) on 127.0.0.1:`port`, as `run_server` serves a repository (same key, same guard).

    Raises IntentError when the store cannot be opened, PortBusyError when the port is taken."""
    from ..org.store import open_store

    if "://" not in target and not Path(target).is_file():
        raise IntentError(
            f"There is no org store at {target}.",
            hint="Load one with `git intent org sync SOURCES --db PATH`.",
        )
    with open_store(target):  # a wrong path or server says so now, not on the first page
        pass
    # the file's name, or the database's: a URL's user and password are never shown
    shown_title = Path(target).name if "://" not in target else target.split("?", 1)[0].rsplit("/", 1)[-1]

    def create(token: str, key: str) -> object:
        from .org_app import create_org_app

        return create_org_app(lambda: open_store(target), shown_title, token, key)

    _serve(create, f"the organisation store {shown_title}", port, open_browser, echo)


def _serve(
    create: Callable[[str, str], object],
    what: str,
    port: int,
    open_browser: bool,
    echo: Callable[[str], object],
) -> None:
    """Bind, make this run's key and form token, build the app with `create(token, key)`, say the address
    and serve until interrupted."""
    try:
        import jinja2  # noqa: F401 — the apps import it (and starlette) inside `create`
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as exc:
        raise IntentError(
            f"git intent serve needs the serve extra ({exc.name or 'starlette'} is not installed).",
            hint="pip install 'git-intent-provenance[serve]'",
        ) from exc
    sock = bind(port)
    key = secrets.token_urlsafe(32)
    url = f"http://{HOST}:{sock.getsockname()[1]}/?token={key}"
    app = create(secrets.token_urlsafe(32), key)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False)  # type: ignore[arg-type]
    )
    echo(f"Serving {what} at {url} (Ctrl-C stops it).")
    folder = Path(tempfile.mkdtemp(prefix="git-intent-serve-")) if open_browser else None  # 0700
    if folder is not None and threading.current_thread() is threading.main_thread():
        # uvicorn re-raises the SIGTERM that stopped it once it is done: with the default action the process
        # would end there, before the page holding the key is removed
        signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    try:
        if folder is not None:
            threading.Thread(
                target=_open_when_started, args=(server, opening_page(folder, url)), daemon=True
            ).start()
        server.run(sockets=[sock])
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def opening_page(folder: Path, url: str) -> str:
    """The `file:` address of a page in `folder` (created 0600) that goes on to `url`: a browser started
    with the key in its arguments would show it to every account on the machine (`ps`); this page shows it
    to no one else (Jupyter's servers open their address the same way)."""
    page = folder / "open.html"
    target = escape(url)
    write_text(
        page,
        f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" '
        f'content="0;url={target}"><title>git intent</title><p><a href="{target}">Open git intent '
        f"serve</a></p>\n",
    )
    return page.as_uri()


def _open_when_started(server: object, address: str) -> None:
    deadline = time.monotonic() + 10
    while not getattr(server, "started", False) and time.monotonic() < deadline:
        time.sleep(0.05)
    webbrowser.open(address)
