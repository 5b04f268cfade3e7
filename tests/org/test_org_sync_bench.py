"""bench/org_sync.py's generated organisation is what the bench claims: 3 repositories x 3 commits built by
fast-import, synced into a SQLite store, counted line by line; one more noted commit loads that repository
alone."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from git_intent.org.store import open_store
from git_intent.org.sync import sync

BENCH = Path(__file__).resolve().parents[2] / "bench" / "org_sync.py"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("org_sync_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_generated_organisation_syncs_with_its_exact_counts(tmp_path: Path) -> None:
    org = bench()
    paths = [str(p) for p in org.make_organisation(tmp_path / "org", 3, 3)]
    with open_store(tmp_path / "org.db") as store:
        report = sync(paths, store, cache_dir=tmp_path / "cache", jobs=2)
        assert [(r.name, r.status, r.commits, r.credits) for r in report.sources] == [
            ("repo-000", "loaded", 3, 6),
            ("repo-001", "loaded", 3, 6),
            ("repo-002", "loaded", 3, 6),
        ]
        # each repository: commits add 3, 4 and 5 lines, of which 2, 2 and 3 are credited to a session
        by_repo = {
            s.key: (s.commits, s.sessions, s.lines, s.lines_by_class) for s in store.stats_rows("repo")
        }
        classes = {"agent_without_evidence": 7, "human": 5}
        assert by_repo == {f"repo-00{n}": (3, 3, 12, classes) for n in range(3)}
        # the first session of repositories 0-3 is one session: it spans the three
        [spanning] = store.spanning_session_rows()
        assert (spanning.repositories, spanning.commits, spanning.lines) == (
            ["repo-000", "repo-001", "repo-002"],
            3,
            6,
        )
        org.add_commit(Path(paths[1]), 1, 3)
        again = sync(paths, store, cache_dir=tmp_path / "cache", jobs=2)
        assert [(r.status, r.commits) for r in again.sources] == [
            ("unchanged", 0),
            ("loaded", 4),
            ("unchanged", 0),
        ]
