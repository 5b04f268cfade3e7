"""A private PostgreSQL server for the organisation store's tests and bench: Debian's server binaries
(installed through scripts/ensure-postgresql when missing), a fresh cluster from initdb in a temporary
directory, listening on a unix socket there only (no TCP port to clash with another run).

PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` system user (or `nobody`)
and initdb, pg_ctl and the server run as that user through runuser; as anyone else they run as the caller.
Clients connect over the socket as the cluster's superuser `postgres` with trust authentication.

Without a server: locally the tests skip and say why; under CI (the `CI` variable set) they fail instead.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ENSURE = Path(__file__).resolve().parents[2] / "scripts" / "ensure-postgresql"
SUPERUSER = "postgres"
# fsync off: a test cluster is thrown away, and a durable commit per test write costs seconds per test file.
TEST_SETTINGS = ("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")


class ServerUnavailable(Exception):
    """No PostgreSQL server could be found, installed or started; the message says why."""


def server_bindir() -> Path:
    """The directory of initdb, pg_ctl and postgres, installing Debian's package through
    scripts/ensure-postgresql when missing. Raises ServerUnavailable with the script's sentence."""
    try:
        proc = subprocess.run([str(ENSURE)], capture_output=True, text=True, timeout=1200)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ServerUnavailable(f"scripts/ensure-postgresql could not run: {exc}") from exc
    if proc.returncode != 0 or not proc.stdout.strip():
        raise ServerUnavailable(proc.stderr.strip() or "scripts/ensure-postgresql found no server.")
    return Path(proc.stdout.split()[-1])


def _run_as() -> str | None:
    """The user the server runs as when we are root (None: run as ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise ServerUnavailable(
        "Running as root, and neither a postgres nor a nobody user exists to run the server."
    )


def _runuser() -> str:
    """util-linux's runuser: in /usr/sbin or /sbin, which a user's PATH (and CI's) often lacks."""
    found = shutil.which("runuser", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"]))
    if found is None:
        raise ServerUnavailable(
            "Running as root, and runuser (util-linux) is not installed to run the server."
        )
    return found


@dataclass
class PostgresServer:
    """One running cluster: `url` reaches its `postgres` database; `database(name)` makes another."""

    bindir: Path
    root: Path
    user: str | None

    @property
    def socket_dir(self) -> Path:
        return self.root / "socket"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres") -> str:
        """A libpq URL for `database` over the unix socket."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}"

    def _command(self, *argv: str) -> list[str]:
        prefix = [_runuser(), "-u", self.user, "--"] if self.user else []
        return [*prefix, *argv]

    def _run(self, *argv: str) -> None:
        try:
            proc = subprocess.run(
                self._command(*argv), capture_output=True, text=True, timeout=120, cwd=self.root
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ServerUnavailable(f"{Path(argv[0]).name} could not run: {exc}") from exc
        if proc.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise ServerUnavailable(
                f"{Path(argv[0]).name} failed (exit {proc.returncode}): {proc.stderr.strip()} {tail}".strip()
            )

    def start(self, settings: tuple[str, ...] = TEST_SETTINGS) -> None:
        """initdb (trust authentication, UTF-8) and start the server on the socket, waiting until it
        accepts connections. Raises ServerUnavailable with the tool's own message."""
        self.socket_dir.mkdir()
        if self.user:
            record = pwd.getpwnam(self.user)
            for path in (self.root, self.socket_dir):
                os.chown(path, record.pw_uid, record.pw_gid)
        self._run(
            str(self.bindir / "initdb"),
            "-D", str(self.data_dir),
            "-U", SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        )  # fmt: skip
        options = " ".join(("-c", "listen_addresses=", "-k", str(self.socket_dir), *settings))
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D", str(self.data_dir),
            "-l", str(self.root / "server.log"),
            "-o", options,
            "-w",
            "start",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop the server at once and remove its directory."""
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def database(self, name: str) -> str:
        """Create database `name` (dropping one of that name first) and return its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def start_server(settings: tuple[str, ...] = TEST_SETTINGS) -> PostgresServer:
    """A started private server in a new directory under the system temporary directory (not pytest's,
    which root keeps private: the server's user must reach it). The caller stops it."""
    bindir = server_bindir()
    user = _run_as()
    root = Path(tempfile.mkdtemp(prefix="git-intent-pg-"))
    server = PostgresServer(bindir, root, user)
    try:
        server.start(settings)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return server


def unavailable(reason: str) -> None:
    """Skip locally with the reason; under CI, fail with it (CI never skips the PostgreSQL tests)."""
    sentence = f"The PostgreSQL tests need a server, and none could be started: {reason}"
    if os.environ.get("CI"):
        pytest.fail(sentence)
    pytest.skip(sentence)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One private PostgreSQL server for the whole test session."""
    try:
        server = start_server()
    except ServerUnavailable as exc:
        unavailable(str(exc))
        raise AssertionError("unreachable") from exc
    try:
        yield server
    finally:
        server.stop()
