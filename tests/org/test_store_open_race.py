"""Several `org sync` jobs opening one new SQLite store at the same moment. Switching a file to WAL needs it
alone, and SQLite answers "database is locked" at once, without its busy timeout, while another connection
writes: a job that met that failed (one CI run in a few). Opening now waits for the writer."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from git_intent.org.store import open_store


def test_a_store_opened_while_another_connection_writes_waits_for_it(tmp_path: Path) -> None:
    path = tmp_path / "org.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE early (x)")  # the file exists, still in rollback-journal mode
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO early VALUES (1)")

    def commit_later() -> None:
        time.sleep(0.5)
        writer.execute("COMMIT")

    later = threading.Thread(target=commit_later)
    later.start()
    started = time.monotonic()
    try:
        with open_store(path) as store:
            assert store.repositories() == []
    finally:
        later.join()
        writer.close()
    assert time.monotonic() - started >= 0.4  # it waited for the writer rather than going around it
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
