"""Fixtures of the organisation store's tests (a plugin of tests/conftest.py): every store test runs on
SQLite and on a real PostgreSQL server (tests/support/postgres.py), one fresh database per test."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from git_intent.org.store import OrgStore, open_store

from .postgres import PostgresServer, postgres_server

__all__ = ["postgres_server", "store", "store_target"]

_numbers = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a new, empty store opens: a SQLite path, or the URL of a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "org.db")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.database(f"org_test_{next(_numbers)}")


@pytest.fixture
def store(store_target: str) -> Iterator[OrgStore]:
    with open_store(store_target) as opened:
        yield opened
