"""Many pushers: 20 clones of one bare remote, each with its own recorded agent commit shared at `evidence`,
run `git intent push` at the same moment. Rejected pushes fetch, merge (notes with cat_sort_uniq, the
evidence store tree by tree) and retry: every clone finishes and the remote holds all 20 notes and all 20
commits' evidence. bench/push_contention.py measures the same race."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support import NOTES_REF, claude_session, git, run_cli

CLONES = 20


def recorded_clones(tmp: Path, count: int) -> tuple[Path, list[Path], list[str]]:
    """A bare remote; `count` clones, each with one agent commit recorded on its own pushed branch."""
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    seed = tmp / "seed"
    git(tmp, "clone", "-q", str(remote), str(seed))
    (seed / "README.md").write_text("# contention\n", encoding="utf-8")
    git(seed, "add", "README.md")
    git(seed, "commit", "-q", "-m", "base")
    git(seed, "push", "-q", "origin", "main")
    clones, commits = [], []
    for i in range(count):
        clone = (tmp / f"clone-{i:02d}").resolve()
        git(tmp, "clone", "-q", str(remote), str(clone))
        git(clone, "config", "intent.share", "evidence")
        agent = claude_session(clone)
        agent.prompt(f"Write module {i}.")
        agent.write(f"Writing mod_{i}.py.", clone / f"mod_{i}.py", f"def value_{i}():\n    return {i} * 7\n")
        agent.save()
        git(clone, "add", "-A")
        git(clone, "commit", "-q", "-m", f"module {i}")
        recorded = run_cli("record", cwd=clone)
        assert recorded.returncode == 0, recorded.stderr
        git(clone, "push", "-q", "origin", f"HEAD:refs/heads/clone-{i:02d}")  # published: its evidence goes
        clones.append(clone)
        commits.append(git(clone, "rev-parse", "HEAD").strip())
    return remote, clones, commits


@pytest.mark.slow
def test_twenty_clones_pushing_at_once_lose_no_record_and_all_finish(tmp_path: Path) -> None:
    remote, clones, commits = recorded_clones(tmp_path, CLONES)

    procs = [
        subprocess.Popen(
            ["git", "intent", "push", "--json"],
            cwd=clone,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for clone in clones
    ]
    outcomes = [proc.communicate(timeout=600) for proc in procs]

    assert [proc.returncode for proc in procs] == [0] * CLONES, [err for _, err in outcomes]
    results = [json.loads(out) for out, _ in outcomes]
    assert all(r["pushed"] == [NOTES_REF, "refs/intent/evidence"] for r in results)
    assert all(r["commits_shared"] == 1 for r in results)
    assert sum(r["notes_shared"] for r in results) == CLONES  # each note reached the remote exactly once
    assert sum(r["retries"] for r in results) >= 1  # they did collide
    noted = {line.split()[1] for line in git(remote, "notes", "--ref", NOTES_REF, "list").splitlines()}
    assert noted == set(commits)
    for clone, commit in zip(clones, commits, strict=True):
        assert git(remote, "notes", "--ref", NOTES_REF, "show", commit) == git(
            clone, "notes", "--ref", NOTES_REF, "show", commit
        )
    shared = git(remote, "ls-tree", "-r", "--name-only", "refs/intent/evidence", "commits/").split()
    assert sorted(path.removeprefix("commits/").replace("/", "") for path in shared) == sorted(commits)
    sessions = git(remote, "ls-tree", "-r", "--name-only", "refs/intent/evidence", "evidence/").split()
    assert len(sessions) == CLONES  # one session per clone, none dropped by a merge
