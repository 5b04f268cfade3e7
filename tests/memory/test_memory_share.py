"""The memory travels: `git intent push` puts the redacted log on refs/intent/evidence when sharing carries
text, a teammate's `git intent fetch` brings it, and their memory answers with it."""

from __future__ import annotations

import json
from pathlib import Path

from support import git, run_cli
from support.memory_support import PlantedRepo, planted, template  # noqa: F401  (fixtures)
from support.planted import fragments, plant

from git_intent.git.repo import Repository
from git_intent.memory.log import append_observations, log_path, memory_lock, observation_id, read_log
from git_intent.memory.share import MEMORY_PATH
from git_intent.memory.update import update_memory
from git_intent.memory.values import Observation


def test_a_teammate_sees_the_same_memory_redacted(planted: PlantedRepo, tmp_path: Path) -> None:  # noqa: F811
    repo = Repository(planted.root)
    update_memory(repo, use_model=False)
    secret = next(p for p in plant(1) if p.family == "github")
    leaky = Observation(
        id=observation_id("fact", secret.text, [f"{planted.first}:{planted.ids['fact']}"]),
        kind="fact",
        text=secret.text,
        citations=[f"{planted.first}:{planted.ids['fact']}"],
    )
    with memory_lock(repo):
        append_observations(repo, [leaky])
    mine = {o.id: o for o in read_log(log_path(repo))}
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(planted.root, "remote", "add", "origin", str(remote))
    git(planted.root, "config", "intent.share", "evidence")
    git(planted.root, "push", "-q", "origin", "main")
    pushed = run_cli("push", cwd=planted.root)
    assert pushed.returncode == 0, pushed.stderr
    blob = git(remote, "cat-file", "blob", f"refs/intent/evidence:{MEMORY_PATH}")
    assert not any(f in blob for f in fragments(secret.secret))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    fetched = run_cli("fetch", cwd=clone)
    assert fetched.returncode == 0, fetched.stderr
    answer = json.loads(run_cli("memory", "--json", "--no-update", "--budget", "5000", cwd=clone).stdout)
    theirs = {o["id"]: o for o in answer["observations"]}
    assert set(theirs) == set(mine)
    assert all(o["source"] == "shared" for o in theirs.values())
    assert theirs[leaky.id]["text"] != secret.text and secret.secret not in theirs[leaky.id]["text"]
    for observation_id_, o in theirs.items():
        if observation_id_ != leaky.id:
            assert (o["kind"], o["text"], o["citations"]) == (
                mine[observation_id_].kind,
                mine[observation_id_].text,
                mine[observation_id_].citations,
            )
    sqlite = next(o for o in theirs.values() if o["text"].startswith("Let's use SQLite"))
    assert sqlite["superseded_by"] is not None  # the reversal travels with what it reversed


def test_two_logs_merge_into_their_union(planted: PlantedRepo, tmp_path: Path) -> None:  # noqa: F811
    update_memory(Repository(planted.root), use_model=False)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(planted.root, "remote", "add", "origin", str(remote))
    git(planted.root, "config", "intent.share", "evidence")
    git(planted.root, "push", "-q", "origin", "main")
    assert run_cli("push", cwd=planted.root).returncode == 0
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    git(clone, "config", "intent.share", "evidence")
    assert run_cli("fetch", cwd=clone).returncode == 0
    theirs = Repository(clone)
    own = Observation(
        id=observation_id("convention", "Name feature flags ff_<area>_<name>.", ["t1:m1"]),
        kind="convention",
        text="Name feature flags ff_<area>_<name>.",
        citations=["t1:m1"],
    )
    with memory_lock(theirs):
        append_observations(theirs, [own])
    assert run_cli("push", cwd=clone).returncode == 0, "the teammate's push"
    assert run_cli("fetch", cwd=planted.root).returncode == 0
    answer = json.loads(
        run_cli("memory", "--json", "--no-update", "--budget", "5000", cwd=planted.root).stdout
    )
    ids = [o["id"] for o in answer["observations"]]
    assert own.id in ids and len(ids) == len(set(ids)) == 10
    assert next(o for o in answer["observations"] if o["id"] == own.id)["source"] == "shared"
