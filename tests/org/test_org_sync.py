"""`org sync`: real repositories in tmp dirs (the demo's real Claude Code session pushed with its evidence to
a bare remote, and a repository noted by the hook), synced from a path and from a file:// URL into bare
mirrors, counted as `git intent stats` counts them; a second sync touches nothing; a bad source fails
alone."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support import git, run_cli
from support.org_repos import DEMO_MODEL, DEMO_SESSION, STEPS, Shared, hooked_repo, shared_demo
from support.review_repo import isolated_env

from git_intent.org.rows import CreditRow, RepoSnapshot
from git_intent.org.sync import snapshot, sync

pytestmark = pytest.mark.slow


class MemoryStore:
    """The two calls sync makes of the store, kept in memory: each repository's last snapshot."""

    def __init__(self) -> None:
        self.held: dict[str, RepoSnapshot] = {}
        self.replaced: list[str] = []

    def last_head(self, key: str) -> str | None:
        found = self.held.get(key)
        return found.head if found else None

    def replace_repository(self, snapshot: RepoSnapshot) -> None:
        self.held[snapshot.key] = snapshot
        self.replaced.append(snapshot.key)


@dataclass(frozen=True)
class World:
    demo: Shared
    hooked: Path
    session_id: str
    env: dict[str, str]  # the home the repositories were built in: their transcripts are there


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("org")
    env = isolated_env(root / "home")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_INTENT", "XDG_CACHE_HOME"):
            patch.delenv(name, raising=False)
        demo = shared_demo(root)
        hooked, session_id = hooked_repo(root / "hooked")
    return World(demo, hooked, session_id, env)


def stats(repo: Path, env: dict[str, str]) -> Any:
    proc = run_cli("stats", "--json", cwd=repo, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def by_class(found: RepoSnapshot) -> dict[str, int]:
    counts: dict[str, int] = {}
    for credit in found.credits:
        counts[credit.line_class] = counts.get(credit.line_class, 0) + credit.lines
    return counts


def objects(mirror: Path) -> dict[str, str]:
    out = git(mirror, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
    return dict(line.split() for line in out.splitlines())


def files(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_a_remote_with_shared_evidence_is_read_as_stats_counts_it(world: World, tmp_path: Path) -> None:
    demo = world.demo
    found = snapshot(str(demo.remote), tmp_path / "cache")
    head = git(demo.work, "rev-parse", "HEAD").strip()
    base = git(demo.work, "rev-parse", "HEAD~1").strip()
    assert (found.key, found.name) == (str(demo.remote.resolve()), "demo")
    assert [(c.sha, c.lines_added, c.author) for c in found.commits] == sorted(
        [(base, 333, "A Person <person@example.com>"), (head, 32, "Soph <soph@example.com>")]
    )
    assert found.credits == tuple(
        sorted(
            [
                CreditRow(base, None, None, None, "human", 333, False),
                CreditRow(head, "claude-code", DEMO_MODEL, DEMO_SESSION, "agent_with_evidence", 32, True),
            ],
            key=lambda c: c.sha,
        )
    )
    # the same classes and totals `git intent stats` gives in the clone that has the transcript
    report = stats(demo.work, world.env)
    assert by_class(found) == {k: v for k, v in report["by_class"].items() if v}
    assert sum(c.lines_added for c in found.commits) == report["lines_added"]
    assert {m.session_id for m in found.messages} == {DEMO_SESSION}
    assert {m.role for m in found.messages} == {"user", "assistant"}
    assert any("MaxChunkSize" in m.text for m in found.messages)
    # bare, and no file of the repository came: the commits' trees and blobs stayed on the remote
    mirror = next((tmp_path / "cache").glob("demo-*.git"))
    held = objects(mirror)
    assert git(mirror, "rev-parse", "--is-bare-repository").strip() == "true"
    assert git(demo.work, "rev-parse", f"{head}^{{tree}}").strip() not in held
    blobs = git(demo.work, "ls-tree", "-r", "--format=%(objectname)", head).split()
    assert blobs and not set(blobs) & set(held)


def test_a_file_url_of_a_hooked_repository_without_evidence(world: World, tmp_path: Path) -> None:
    hooked, session_id = world.hooked, world.session_id
    found = snapshot(hooked.as_uri(), tmp_path / "cache")
    head = git(hooked, "rev-parse", "HEAD").strip()
    base = git(hooked, "rev-parse", "HEAD~1").strip()
    assert (found.key, found.name, found.messages) == (hooked.as_uri(), "hooked", ())
    assert (
        found.credits
        == (
            CreditRow(base, None, None, None, "human", 2, False),
            CreditRow(head, "claude-code", None, session_id, "agent_without_evidence", 4, False),
        )[:: 1 if base < head else -1]
    )
    # stats here reads the transcript on this machine: the same lines, with evidence
    report = stats(hooked, world.env)
    assert report["by_class"] == {
        "agent_with_evidence": 4,
        "agent_without_evidence": 0,
        "human": 2,
        "unrecorded": 0,
    }


def test_second_sync_touches_nothing_and_a_new_note_is_loaded(world: World, tmp_path: Path) -> None:
    demo, copy = world.demo, tmp_path / "copy.git"
    git(tmp_path, "clone", "-q", "--mirror", str(world.hooked), str(copy))
    store, cache = MemoryStore(), tmp_path / "cache"
    sources = [str(demo.remote), copy.as_uri()]
    first = sync(sources, store, cache_dir=cache, jobs=2)
    assert [(r.status, r.commits) for r in first.sources] == [("loaded", 2), ("loaded", 2)]
    before = files(cache)
    again = sync(sources, store, cache_dir=cache)
    assert [r.status for r in again.sources] == ["unchanged", "unchanged"]
    assert (again.loaded, again.unchanged, again.failed) == (0, 2, 0)
    assert store.replaced == [str(demo.remote.resolve()), copy.as_uri()]
    assert files(cache) == before

    tree = git(copy, "rev-parse", "main^{tree}").strip()
    sha = git(copy, "commit-tree", tree, "-p", "main", "-m", "more").strip()
    git(copy, "update-ref", "refs/heads/more", sha)
    git(copy, "notes", "--ref", "refs/notes/git-intent", "add", "-m", commit_note(sha, 1), sha)
    third = sync(sources, store, cache_dir=cache)
    assert [r.status for r in third.sources] == ["unchanged", "loaded"]
    held = store.held[copy.as_uri()]
    assert len(held.commits) == 3
    assert [c.lines_added for c in held.commits if c.sha == sha] == [1]
    assert [(c.line_class, c.lines) for c in held.credits if c.sha == sha] == [("human", 1)]


def commit_note(sha: str, lines: int) -> str:
    record = {
        "schema": "git-intent/1",
        "kind": "commit",
        "commit": sha,
        "lines_added": lines,
        "lines_attributed": 0,
        "recorded_by": "test",
    }
    return json.dumps(record, sort_keys=True)


def test_a_bad_source_fails_alone_with_one_sentence(world: World, tmp_path: Path) -> None:
    demo = world.demo
    plain = tmp_path / "plain"
    plain.mkdir()
    store = MemoryStore()
    report = sync(
        [
            str(tmp_path / "missing"),
            "https://user:s3cret@127.0.0.1:9/x.git",
            str(demo.remote),
            plain.as_uri(),
        ],
        store,
        cache_dir=tmp_path / "cache",
        jobs=3,
    )
    assert [r.status for r in report.sources] == ["failed", "failed", "loaded", "failed"]
    assert (report.loaded, report.unchanged, report.failed) == (1, 0, 3)
    assert (
        report.sources[0].problem
        == f"{tmp_path / 'missing'} is neither a repository URL nor an existing path."
    )
    assert report.sources[1].source == "https://127.0.0.1:9/x.git"
    assert all("\n" not in (r.problem or "") and "s3cret" not in (r.problem or "") for r in report.sources)
    assert (report.sources[1].problem or "").startswith(
        "git cannot read it: unable to access 'https://127.0.0"
    )
    assert (
        report.sources[3].problem == f"git cannot read it: '{plain}' does not appear to be a git repository."
    )
    assert store.replaced == [str(demo.remote.resolve())]


def test_notes_under_the_old_ref_are_read(world: World, tmp_path: Path) -> None:
    hooked, session_id = world.hooked, world.session_id
    old = tmp_path / "old"
    git(tmp_path, "clone", "-q", "--bare", str(hooked), str(old))
    git(old, "fetch", "-q", str(hooked), "refs/notes/git-intent:refs/notes/intent")
    assert git(old, "for-each-ref", "refs/notes/").split()[-1] == "refs/notes/intent"
    found = snapshot(str(old), tmp_path / "cache")
    new = snapshot(str(hooked), tmp_path / "cache")
    assert (found.commits, found.credits) == (new.commits, new.credits)
    assert session_id in {c.session_id for c in found.credits}


def test_a_shared_blob_that_names_another_session_is_skipped(world: World, tmp_path: Path) -> None:
    demo = world.demo
    forged = tmp_path / "forged.git"
    git(tmp_path, "clone", "-q", "--mirror", str(demo.remote), str(forged))
    tree = git(forged, "ls-tree", "-r", "refs/intent/evidence").splitlines()
    moved = [
        line.replace(f"evidence/claude-code/{DEMO_SESSION}.json", "evidence/claude-code/someone-else.json")
        for line in tree
    ]
    env = {**os.environ, "GIT_INDEX_FILE": str(tmp_path / "index")}
    listing = "".join(f"{line}\n" for line in moved)
    subprocess.run(
        ["git", "update-index", "--add", "--index-info"],
        cwd=forged,
        env=env,
        input=listing,
        text=True,
        check=True,
    )
    new_tree = git(forged, "write-tree", env=env).strip()
    commit = git(forged, "commit-tree", new_tree, "-m", "forged").strip()
    git(forged, "update-ref", "refs/intent/evidence", commit)
    found = snapshot(str(forged), tmp_path / "cache")
    assert found.messages == ()
    assert [c.line_class for c in found.credits if c.agent] == ["agent_without_evidence"]


def test_a_note_copied_by_a_rewrite_is_checked_against_the_files(world: World, tmp_path: Path) -> None:
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(world.hooked), str(work))
    git(work, "fetch", "-q", "origin", "refs/notes/git-intent:refs/notes/git-intent")
    rewrite = ("-c", "notes.rewriteRef=refs/notes/git-intent", "-c", "notes.rewriteMode=overwrite")
    git(work, *rewrite, "commit", "-q", "--amend", "-m", "agent writes steps.py (reworded)")
    kept = git(work, "rev-parse", "HEAD").strip()
    git(work, "branch", "-q", "edited", "HEAD")
    git(work, "checkout", "-q", "edited")
    (work / "steps.py").write_text(STEPS.replace("first step", "step one"), encoding="utf-8")
    git(work, *rewrite, "commit", "-q", "--amend", "-a", "-m", "agent writes steps.py (edited)")
    edited = git(work, "rev-parse", "HEAD").strip()
    found = snapshot(str(work), tmp_path / "cache")
    credits = {(c.sha, c.line_class, c.session_id, c.lines) for c in found.credits if c.sha in (kept, edited)}
    # the reworded commit's lines still hash to the note's ranges: the session's; the edited one's do not
    assert credits == {
        (kept, "agent_without_evidence", world.session_id, 4),
        (edited, "unrecorded", None, 4),
    }
    assert {c.sha: c.lines_added for c in found.commits if c.sha in (kept, edited)} == {kept: 4, edited: 4}


def test_the_command_loads_the_good_sources_and_gives_each_bad_one_a_line(
    world: World, tmp_path: Path
) -> None:
    from jsonschema import Draft202012Validator

    from git_intent.org.store import open_store
    from git_intent.schemas import json_schema

    db, missing = tmp_path / "org.db", tmp_path / "missing"
    listing = tmp_path / "repos.txt"
    listing.write_text(f"# the team\n{world.demo.remote}\n{missing}\n", encoding="utf-8")
    proc = run_cli("org", "sync", f"@{listing}", world.hooked.as_uri(), "--db", str(db), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"error: {missing}: {missing} is neither a repository URL nor an existing path."
    ]
    assert proc.stdout.splitlines() == [
        f"loaded demo ({world.demo.remote.resolve()}): 2 commits, 2 credit rows, 9 shared messages",
        f"loaded hooked ({world.hooked.as_uri()}): 2 commits, 2 credit rows, 0 shared messages",
        "3 sources: 2 loaded, 0 unchanged, 1 failed.",
    ]
    again = run_cli(
        "org", "sync", str(world.demo.remote), world.hooked.as_uri(), "--db", str(db), "--json", cwd=tmp_path
    )
    assert (again.returncode, again.stderr) == (0, "")
    report = json.loads(again.stdout)
    Draft202012Validator(json_schema("org-sync")).validate(report)
    assert [s["status"] for s in report["sources"]] == ["unchanged", "unchanged"]
    with open_store(db) as store:
        assert sorted(r["name"] for r in store.repositories()) == ["demo", "hooked"]


def test_one_sync_job_per_repository_at_once_on_either_store(
    world: World, tmp_path: Path, store_target: str
) -> None:
    """What CI does: each repository's job runs `org sync` on its own repository, at the same moment, against
    one store (SQLite or a real PostgreSQL server); every repository is loaded once, and what the store
    answers is what one job after the other gives."""
    from git_intent.org.store import open_store

    jobs = [str(world.demo.remote), world.hooked.as_uri()]
    env = {**os.environ, **world.env, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    running = [
        subprocess.Popen(
            ["git", "intent", "org", "sync", source, "--db", store_target, "--json"],
            cwd=tmp_path,
            env={**env, "XDG_CACHE_HOME": str(tmp_path / f"cache{index}")},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for index, source in enumerate(jobs)
    ]
    for proc in running:
        out, err = proc.communicate(timeout=300)
        assert (proc.returncode, err) == (0, ""), out
        assert [s["status"] for s in json.loads(out)["sources"]] == ["loaded"]
    with open_store(store_target) as store:
        together = (store.repositories(), store.stats(by="repo"), store.stats(by="agent"))
    assert sorted(r["name"] for r in together[0]) == ["demo", "hooked"]
    by_repo = {row["key"]: (row["commits"], row["lines"], row["agent_lines"]) for row in together[1]}
    assert set(by_repo) == {"demo", "hooked"}

    alone = tmp_path / "alone.db"
    for source in jobs:
        proc = run_cli("org", "sync", source, "--db", str(alone), cwd=tmp_path, env={**env})
        assert proc.returncode == 0, proc.stderr
    with open_store(alone) as store:
        assert by_repo == {
            row["key"]: (row["commits"], row["lines"], row["agent_lines"]) for row in store.stats(by="repo")
        }
        assert sorted(together[2], key=lambda row: str(row["key"])) == sorted(
            store.stats(by="agent"), key=lambda row: str(row["key"])
        )
