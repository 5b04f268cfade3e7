"""Quotes a reader can use, on real excerpts of entireio/cli and entireio/git-sync
sessions replayed into a repository and recorded: a numbered list is never cut inside an item, a bare
confirmation shows the proposal it confirmed, a prompt typed while the agent worked and a slash command's
arguments are quoted, evidence is in time order and nothing quoted as a reason comes after the edit, and
review shows `confirmed` as blame does."""

from __future__ import annotations

import http.client
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote as url_quote
from urllib.parse import urlsplit

import pytest
from conftest import corpus, git, run_cli
from support.answer_support import build_repo
from support.review_repo import isolated_env, serving

from git_intent.answer import why
from git_intent.git.repo import Repository
from git_intent.review import review_range
from git_intent.review.text import reason_of
from git_intent.sessions.discovery import read_transcript

SOPH_CLI = "/Users/soph/Work/entire/devenv/cli"
ALEX_2 = "/Users/alex/workspace/cli/.worktrees/2"
ALEX_3 = "/Users/alex/workspace/cli/.worktrees/3"
SOPH_SYNC = "/Users/soph/Work/entire/devenv/git-sync"
LIST = ("transcripts", "claude-code", "entire-cli__d51bd3632c2d__numbered-list-excerpt.jsonl")
YES_FIX_IT = ("transcripts", "claude-code", "entire-cli__ada8171575ce__yes-fix-it-excerpt.jsonl")
TYPED_WHILE_WORKING = (
    "transcripts",
    "claude-code",
    "entire-cli__db3f4ae57df0__typed-while-working-excerpt.jsonl",
)
GOAL = ("transcripts", "claude-code", "git-sync__f27edbb5033d__goal-command-excerpt.jsonl")
YEP_DO_IT = ("transcripts", "claude-code", "entire-cli__d65f53d0e8e2__yep-do-it-excerpt.jsonl")


def replayed(tmp_path: Path, fixture: tuple[str, ...], cwd: str) -> Path:
    """The excerpt's edits replayed over their pre-images and recorded as one commit."""
    return build_repo(tmp_path / "repo", corpus(*fixture), cwd=cwd)


def line_of(repo: Path, path: str, text: str) -> str:
    """`PATH:LINE` of the first line of `path` holding `text`."""
    lines = (repo / path).read_text(encoding="utf-8").splitlines()
    return f"{path}:{next(n for n, line in enumerate(lines, 1) if text in line)}"


def answer(repo: Path, location: str) -> list[str]:
    return why(Repository(repo), location, offline=True, cwd=repo).answer.splitlines()


def evidence(repo: Path, location: str) -> list[dict[str, Any]]:
    proc = run_cli("blame", location, "--json", cwd=repo)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    items: list[dict[str, Any]] = json.loads(proc.stdout)["lines"][0]["evidence"]
    return items


def test_a_numbered_list_is_quoted_whole_after_its_lead_in_and_the_turn_in_time_order(tmp_path: Path) -> None:
    repo = replayed(tmp_path, LIST, SOPH_CLI)
    where = line_of(
        repo, "cmd/entire/cli/strategy/content_overlap.go", "The session created/modified the file"
    )
    sid = "4a364c97-9dde-4a98-a973-26edea2c0e8b"
    lines = answer(repo, where)
    # Before: "The session created/modified the file 2." (the next item's number glued to a cut item).
    assert lines[2] == (
        'The agent explained "The issue is that if a file was in `filesTouched` but NOT in the HEAD tree, '
        'it means: 1. The session created/modified the file" '
        f"[{sid}:274ce3b0-9423-4280-92d7-31f055c025a0]."
    )
    items = evidence(repo, where)
    assert [(e["kind"], e["message_id"][:8], e["best"]) for e in items] == [
        ("request", "64ad8ad8", False),
        ("reasoning", "a2ff2c1f", False),
        ("reasoning", "756edc81", False),
        ("reasoning", "274ce3b0", True),
        ("edit", "f09ae1ef", False),
    ]
    stamps = [e["timestamp"] for e in items]
    assert stamps == sorted(stamps)


def test_a_bare_confirmation_shows_the_part_of_the_proposal_naming_the_code(tmp_path: Path) -> None:
    repo = replayed(tmp_path, YES_FIX_IT, ALEX_2)
    where = line_of(
        repo, "cmd/entire/cli/strategy/manual_commit_git.go", "resolveAgentType(ctx.AgentType, state)"
    )
    sid = "e8106766-ab6a-43ed-8849-77d5114eaff1"
    # Before: the proposal was its last question, "Want me to go ahead and implement the fix?".
    assert answer(repo, where)[1] == (
        f'The user answered "yes, fix it" [{sid}:0971ef53-1b68-4fc7-9962-b95774d0db49] to the agent\'s '
        "“**The root cause is in `manual_commit_git.go`** - both `SaveChanges` (line 40) and "
        "`SaveTaskCheckpoint` "
        '(line 179) use `DefaultAgentType` ("Agent") when the session state doesn\'t exist or is partial, '
        'completely **ignoring** `ctx.AgentType` which already has the correct value ("Claude Code").” '
        f"[{sid}:b5378ee3-b97c-43b2-8dad-fc2cd3328c40]."
    )
    text = run_cli("blame", where, cwd=repo).stdout
    assert (
        "  confirmed 2026-02-06 04:06 UTC [b5378ee3]\n"
        "            **The root cause is in `manual_commit_git.go`**"
    ) in text


def test_a_prompt_typed_while_the_agent_worked_follows_the_prompt_that_opened_the_turn(
    tmp_path: Path,
) -> None:
    repo = replayed(tmp_path, TYPED_WHILE_WORKING, ALEX_3)
    where = line_of(
        repo, "cmd/entire/cli/strategy/manual_commit_hooks.go", '"post-commit: condensation failed"'
    )
    sid = "b6b20c21-d3cb-42a4-9a55-bb2dbb2212e4"
    lines = answer(repo, where)
    assert lines[1:4] == [
        "The user asked \"yeah we need to add this test case, and also any missing scenarios - I'd like to "
        "see if we "
        f'can simplify but we need a safety net" [{sid}:c1c27696-731d-49b2-9ca1-c981a7c0eb2e].',
        f'While the agent worked, the user added "should we also logWarn in that block?" '
        f"[{sid}:12fb4026-6769-46b4-aa96-6a77f6c96679].",
        'The agent explained "Since this is a warning about a failed operation that developers would want '
        "to see in logs, I should add a call to the logging package alongside or instead of the stderr "
        'output." '
        f"[{sid}:2084ba82-e2bf-4a81-8c05-fda6b28e95e2].",
    ]
    assert [(e["kind"], e["message_id"][:8]) for e in evidence(repo, where)] == [
        ("request", "c1c27696"),
        ("reasoning", "1b8cae1f"),
        ("request", "12fb4026"),
        ("reasoning", "2084ba82"),
        ("reasoning", "23575590"),
        ("edit", "0801f9ae"),
        ("follow-up", "51e8f01a"),
    ]


def test_a_slash_command_typed_with_arguments_is_the_request(tmp_path: Path) -> None:
    (session,) = read_transcript(corpus(*GOAL))
    prompts = {m.message_id[:8]: m.is_prompt for m in session.messages if m.role == "user"}
    assert prompts == {
        "2d613849": False,
        "cbc43650": False,
        "e58aa06f": True,
        "d75e1793": False,
        "5e64b973": False,
    }  # the caveat, `/model` (no arguments), `/goal …`, its echo, a hook's note
    repo = replayed(tmp_path, GOAL, SOPH_SYNC)
    sid = "1e0a84da-d36b-4e8a-925c-b32310479358"
    assert answer(repo, line_of(repo, "results_test.go", "got := hashString(plumbing.ZeroHash)"))[1] == (
        'The user asked "simplify this repo, make sure to de-slop it continue until you are happy, make '
        "sure to backfill tests and validate any significant change. The output of this should be a PR "
        "with green CI, reviewed that simplify and makes the codebase more robust and elegant, without "
        "dropping any features. "
        f'Work on …" [{sid}:e58aa06f-2651-48db-a1a4-0eb494e92d9d].'
    )


@pytest.fixture(scope="module")
def yep_do_it(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The "yep do it" session's two edits, made right after the confirmation (no words of the agent before
    them; "Done. Two comment improvements…" after), replayed and recorded in an isolated HOME."""
    root = tmp_path_factory.mktemp("yep")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in isolated_env(root / "home").items():
            patch.setenv(name, value)
        for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_INTENT", "XDG_CACHE_HOME"):
            patch.delenv(name, raising=False)
        return replayed(root, YEP_DO_IT, ALEX_2)


CONFIRMED = (
    "Want me to make the comment fix on `GetTranscriptStart` and add a note about the one-way migration?"
)


def test_review_shows_confirmed_and_never_gives_words_said_after_the_edit_as_its_reason(
    yep_do_it: Path,
) -> None:
    review = review_range(Repository(yep_do_it), "HEAD")
    groups = [g for f in review.files for h in f.hunks for g in h.groups]
    assert [(g.start, g.end) for g in groups] == [(364, 365), (151, 155)]
    for group in groups:
        edit = next(e for e in group.evidence if e.kind == "edit")
        assert (
            reason_of(group) is None
        )  # before: the follow-up "Done. Two comment improvements…" as "because"
        assert [e.kind for e in group.evidence] == ["request", "confirmed", "edit", "follow-up"]
        assert all(
            e.timestamp is not None and edit.timestamp is not None and e.timestamp <= edit.timestamp
            for e in group.evidence
            if e.kind in ("request", "confirmed")
        )
    text = run_cli("review", "HEAD", cwd=yep_do_it).stdout
    assert "because" not in text and "Done. Two comment improvements" not in text
    assert text.count(f"            confirmed “{CONFIRMED}” [2956cee6:142a8104]\n") == 2
    assert (
        f"    asked     “yep do it” [2956cee6:0983832e]\n    confirmed “{CONFIRMED}” [2956cee6:142a8104]\n"
        in text
    )  # the sessions list too
    markdown = run_cli("review", "HEAD", "--format", "markdown", cwd=yep_do_it).stdout
    assert markdown.count(f"confirmed <code>2956cee6:142a8104</code>:\n\n```text\n{CONFIRMED}\n```\n") == 3
    assert "because" not in markdown


def test_the_web_review_shows_confirmed_as_blame_does(yep_do_it: Path) -> None:
    with serving(SimpleNamespace(path=yep_do_it, env=dict(os.environ))) as site:  # type: ignore[arg-type]
        where = urlsplit(site.base)
        connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=60)
        connection.request(
            "GET",
            f"/review?range={url_quote(git(yep_do_it, 'rev-parse', 'HEAD').strip())}",
            headers={"Cookie": site.cookie},
        )
        page = connection.getresponse().read().decode()
        connection.close()
    shown = (
        '<span class="kind">confirmed</span>',
        "Want me to make the comment fix on `GetTranscriptStart` and add a note about the one-way "
        "migration?</blockquote>",
    )
    assert all(page.count(part) == 3 for part in shown)  # the session, and each of the two groups
    assert "then said" not in page and "Done. Two comment improvements" not in page
