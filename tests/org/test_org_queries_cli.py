"""`git intent org stats|search|sessions` on both back ends: the text tables, and --json rows that equal the
store's answers and validate against docs/schemas/org-*.json."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from support.organisation import ALL, T0

from git_intent.cli import org_queries
from git_intent.core.errors import IntentError
from git_intent.org.store import open_store
from git_intent.schemas import json_schema


@pytest.fixture
def loaded(store_target: str) -> str:
    with open_store(store_target) as store:
        for snapshot in ALL:
            store.replace_repository(snapshot())
    return store_target


def run(command: click.Command, *args: str) -> str:
    result = CliRunner().invoke(command, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_stats_table_and_json(loaded: str) -> None:
    assert run(org_queries.stats, "--db", loaded).splitlines() == [
        "repository                       repos  commits sessions     lines   agent evidence",
        "api                                  1        2        2        42   76.2%    62.5%",
        "web                                  1        1        1         8  100.0%   100.0%",
        "docs                                 1        1        0         5    0.0%     0.0%",
    ]
    by_agent = run(org_queries.stats, "--by", "agent", "--db", loaded).splitlines()
    assert [line.split()[0] for line in by_agent] == ["agent", "claude-code", "(none)", "codex"]
    rows = json.loads(
        run(org_queries.stats, "--by", "week", "--since", "2023-11-20", "--json", "--db", loaded)
    )
    Draft202012Validator(json_schema("org-stats")).validate(rows)
    assert [(r["key"], r["lines"]) for r in rows] == [("2023-11-20", 12), ("2023-11-27", 5)]
    with open_store(loaded) as store:
        assert json.loads(run(org_queries.stats, "--json", "--db", loaded)) == store.stats("repo")


def test_stats_of_an_empty_store_says_so(store_target: str) -> None:
    assert run(org_queries.stats, "--db", store_target) == (
        "No credited lines in the store; run `git intent org sync`.\n"
    )


def test_search_text_and_json(loaded: str) -> None:
    assert run(org_queries.search, "retry budget", "-n", "1", "--db", loaded).splitlines() == [
        "web  2023-11-14 23:03  claude-code s-shared:m3",
        "  Now the web client: [retry] [budget]",
    ]
    hits = json.loads(run(org_queries.search, "retry", "--json", "--db", loaded))
    Draft202012Validator(json_schema("org-search")).validate(hits)
    assert [(h["repository"], h["message_id"], h["at"]) for h in hits] == [
        ("web", "m3", T0 + 3000),
        ("api", "m2", T0 - 30),
        ("api", "m1", T0 - 60),
    ]
    assert run(org_queries.search, "nothing-like-this", "--db", loaded) == (
        "No shared message holds every word of 'nothing-like-this'.\n"
    )


def test_search_without_a_word_is_one_sentence(loaded: str) -> None:
    with pytest.raises(IntentError, match=r"^The search '\*\*\*' has no word to look for\.$"):
        CliRunner().invoke(org_queries.search, ["***", "--db", loaded], catch_exceptions=False)


def test_sessions_text_and_json(loaded: str) -> None:
    assert run(org_queries.sessions, "--db", loaded) == (
        "claude-code s-shared: 2 commits, 28 lines in 2 repositories (api, web), 2023-11-14 22:13 to "
        "2023-11-14 23:13, evidence shared\n"
    )
    rows = json.loads(run(org_queries.sessions, "--json", "--db", loaded))
    Draft202012Validator(json_schema("org-sessions")).validate(rows)
    assert [(r["session_id"], r["repositories"]) for r in rows] == [("s-shared", ["api", "web"])]
