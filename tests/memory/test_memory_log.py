"""The observation log on the planted repository: what the offline observer finds, with which citations,
what it leaves alone, reversals, reflection, the state and `git intent memory` itself."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from support import run_cli
from support.memory_support import PlantedRepo, planted, template  # noqa: F401  (fixtures)

from git_intent.git.repo import Repository
from git_intent.memory.citing import checked, shown
from git_intent.memory.log import log_path, read_log
from git_intent.memory.recall import memory_for, remembered
from git_intent.memory.stored import project_state
from git_intent.memory.update import update_memory
from git_intent.memory.values import Observation, Remembered
from git_intent.sessions.discovery import find_session


def matching(found: list[Remembered], kind: str, words: str) -> list[Remembered]:
    return [o for o in found if o.kind == kind and words in o.text]


def test_offline_observer_finds_every_planted_item_with_its_citations(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    result = update_memory(Repository(planted.root), use_model=False)
    found = remembered(Repository(planted.root))
    for item in planted.planted:
        hits = matching(found, item.kind, item.words)
        assert len(hits) == 1, (item, [(o.kind, o.text) for o in found])
        assert hits[0].citations == item.cites
        assert hits[0].source == "offline"
    planted_ids = {o.id for item in planted.planted for o in matching(found, item.kind, item.words)}
    # The real prompts around them give one question of their own ("should we also logWarn in that block?",
    # a person's words in fixtures/transcripts/claude-code) and nothing else: no rule from "I always forget",
    # "Do not make changes yet." or a pasted review.
    assert [(o.kind, o.text) for o in found if o.id not in planted_ids] == [
        ("open_question", "should we also logWarn in that block?")
    ]
    assert result.appended == len(found) and result.dropped_citations == 0
    assert result.model_skipped == "no model is configured (intent.memoryModel or intent.model)"


def test_paths_are_the_files_named_and_the_files_the_turn_edited(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    update_memory(Repository(planted.root), use_model=False)
    found = remembered(Repository(planted.root))
    assert matching(found, "constraint", "Never retry POST")[0].paths == ["src/http_client.py"]
    assert matching(found, "decision", "SQLite for the response cache")[0].paths == ["src/cache.py"]
    assert matching(found, "convention", "snake_case")[0].paths == []


def test_a_reversed_decision_is_marked_superseded_not_deleted(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    repo = Repository(planted.root)
    update_memory(repo, use_model=False)
    found = remembered(repo)
    sqlite = matching(found, "decision", "Let's use SQLite")[0]
    redis = matching(found, "decision", "Redis instead of SQLite")[0]
    assert sqlite.superseded_by == redis.id and redis.supersedes == sqlite.id and redis.superseded_by is None
    state = project_state(repo)
    assert [i.id for i in state.superseded] == [sqlite.id] and state.superseded[0].superseded_by == redis.id
    assert redis.id in [i.id for i in state.decisions] and sqlite.id not in [i.id for i in state.decisions]
    shown_cache = json.loads(run_cli("memory", "src/cache.py", "--json", cwd=planted.root).stdout)
    ids = [o["id"] for o in shown_cache["observations"]]
    assert ids.index(redis.id) < ids.index(sqlite.id)  # newest first, the reversal beside what it reversed
    text = run_cli("memory", "src/cache.py", "--no-update", cwd=planted.root).stdout
    assert f"decision (superseded by {redis.id})" in text


def test_an_update_with_nothing_new_appends_nothing(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    repo = Repository(planted.root)
    first = update_memory(repo, use_model=False)
    lines = log_path(repo).read_text().splitlines()
    second = update_memory(repo, use_model=False)
    assert first.appended == len(lines) > 0 and second.appended == 0
    assert log_path(repo).read_text().splitlines() == lines
    assert oct(log_path(repo).stat().st_mode & 0o777) == "0o600"


def test_a_forged_citation_is_dropped_and_an_observation_left_without_one_is_dropped(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    session = find_session(Repository(planted.root), planted.first)
    read, known = shown([session])
    real = f"{planted.first}:{planted.ids['constraint']}"
    forged = f"{planted.first}:00000000-dead-beef-0000-000000000000"
    other = f"not-a-session:{planted.ids['constraint']}"
    raw = Observation(
        id="0" * 16, kind="constraint", text="Never retry POST requests", citations=[forged, real, other]
    )
    kept, dropped = checked(raw, read, known)
    assert kept is not None and kept.citations == [real] and dropped == 2 and kept.id != raw.id
    assert checked(replace(raw, citations=[forged]), read, known) == (None, 1)
    quoted, dropped = checked(replace(raw, citations=[real]), read, known, quote="retry every POST")
    assert quoted is None and dropped == 1


def test_memory_for_exact_lines_gives_the_request_and_the_sessions_that_wrote_them(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    update_memory(Repository(planted.root), use_model=False)
    proc = run_cli("memory", "src/http_client.py:7", "--json", "--no-update", cwd=planted.root)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["path"] == "src/http_client.py" and answer["lines"] == [7]
    assert answer["sessions"] == [planted.first]
    assert [(r["message_id"], r["lines"]) for r in answer["requests"]] == [(planted.ids["constraint"], [7])]
    assert "Never retry POST requests" in answer["requests"][0]["text"]
    kinds = {(o["kind"], o["text"]) for o in answer["observations"]}
    assert ("constraint", "Never retry POST requests: they are not idempotent.") in kinds
    assert ("convention", "Always use snake_case for config keys.") in kinds  # the session's own rules
    assert all("Redis" not in o["text"] for o in answer["observations"])  # another file, another session


def test_the_budget_bounds_the_answer(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    repo = Repository(planted.root)
    update_memory(repo, use_model=False)
    whole = memory_for(repo, None, budget=5000)
    small = memory_for(repo, None, budget=60)
    assert len(whole.observations) == 9 and whole.left_out == 0
    assert 0 < len(small.observations) < 9 and small.left_out == 9 - len(small.observations)
    assert [o.id for o in small.observations] == [o.id for o in whole.observations][: len(small.observations)]


def test_bad_locations_fail_with_one_sentence(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    proc = run_cli("memory", "src/http_client.py:900", cwd=planted.root)
    assert proc.returncode == 1 and proc.stderr.startswith("error: ")
    outside = run_cli("memory", "../elsewhere.py", cwd=planted.root)
    assert outside.returncode == 1 and "outside the repository" in outside.stderr


def test_reflection_folds_older_observations_keeping_every_citation(
    planted: PlantedRepo,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = Repository(planted.root)
    update_memory(repo, use_model=False)
    before = remembered(repo)
    monkeypatch.setenv("GIT_INTENT_MEMORY_REFLECT_AT", "1")
    result = update_memory(repo, use_model=False)
    after = remembered(repo)
    log = read_log(log_path(repo))
    folded = [o for o in log if o.level == 1]
    assert result.reflected and folded
    for fold in folded:
        members = [o for o in before if o.id in fold.compacts]
        assert len(members) >= 2 and {m.kind for m in members} == {fold.kind}
        assert set(fold.citations) == {c for m in members for c in m.citations}
        assert all(m.text in fold.text for m in members)
    hidden = {i for fold in folded for i in fold.compacts}
    assert not hidden & {o.id for o in after} and hidden <= {o.id for o in log}  # kept in the log, not shown
    sqlite = matching(after, "decision", "Let's use SQLite")
    assert sqlite and sqlite[0].superseded_by is not None  # a reversed decision is never folded
    cited = {c for o in before for c in o.citations}
    assert cited == {c for o in after for c in o.citations}


def test_state_text_and_json(
    planted: PlantedRepo,  # noqa: F811
) -> None:
    proc = run_cli("memory", "--state", "--json", cwd=planted.root)
    state = json.loads(proc.stdout)
    assert [i["text"] for i in state["constraints"]] == [
        "Never retry POST requests: they are not idempotent."
    ]
    assert [i["text"] for i in state["conventions"]] == ["Always use snake_case for config keys."]
    assert len(state["decisions"]) == 2 and len(state["superseded"]) == 1 and state["observations"] == 9
    text = run_cli("memory", "--state", "--no-update", cwd=planted.root).stdout
    assert "\nConstraints\n- Never retry POST requests: they are not idempotent. [" in text
    assert "\nSuperseded\n- Let's use SQLite for the response cache in src/cache.py. (superseded by " in text
