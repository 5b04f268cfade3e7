"""`git intent review RANGE`: the three linked entire-cli commits in one history
(tests/support/review_repo.py), reviewed as JSON, text and a pull-request comment; ranges, diff parsing,
truncation and the model seam."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import git, run_cli
from support.review_repo import CHUNKING, S0, S2, S8, SCRIPT_PROMPT, ReviewRepo, build_review_repo

from git_intent.core.errors import IntentError
from git_intent.git.repo import Repository
from git_intent.review import ReviewAnswer, review_markdown, review_range, summarise_sessions
from git_intent.review.markdown import GITHUB_LIMIT
from git_intent.review.ranges import diff_files, resolve_range
from git_intent.review.values import ModelSummary, ReviewGroup, SessionReview

pytestmark = pytest.mark.slow
GEMINI = "cmd/entire/cli/agent/geminicli/gemini.go"
ALLOWED_TAGS = {"details", "summary", "code", "sub", "b"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> ReviewRepo:
    return build_review_repo(tmp_path_factory.mktemp("review"))


def review(built: ReviewRepo, *args: str) -> Any:
    proc = run_cli("review", *args, cwd=built.path, env=built.env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if "--json" in args else proc.stdout


def groups(answer: dict[str, Any], path: str) -> list[dict[str, Any]]:
    found = next(f for f in answer["files"] if f["path"] == path)
    return [g for h in found["hunks"] for g in h["groups"]]


def test_the_whole_range_as_json(built: ReviewRepo) -> None:
    answer = review(built, f"{built.baseline}..HEAD", "--json")
    assert (answer["base"], answer["end"]) == (built.baseline, git(built.path, "rev-parse", "HEAD").strip())
    assert [f["path"] for f in answer["files"]] == [
        CHUNKING,
        "cmd/entire/cli/agent/chunking_test.go",
        GEMINI,
        "cmd/entire/cli/telemetry/detached.go",
        "cmd/entire/cli/telemetry/detached_test.go",
        "docs/notes.md",
    ]
    rows = {
        r["path"]: (r["agent"], r["human"], r["unrecorded"], r["changed_by_person"], r["sessions"])
        for r in answer["summary"]
    }
    # the linked commits credit 8 + 32 + 54 lines; Pat's change to one of session 0's lines counts as a
    # person's
    assert rows[CHUNKING] == (4, 1, 1, 1, [f"claude-code:{S0}"])
    assert rows[GEMINI] == (8, 0, 0, 0, [f"claude-code:{S2}"])
    assert rows["cmd/entire/cli/telemetry/detached.go"][:3] == (25, 0, 0)
    totals = answer["totals"]
    assert (totals["agent"], totals["human"], totals["unrecorded"]) == (95, 1, 1)
    assert [s["session_id"] for s in answer["sessions"]] == [S0, S2, S8, built.script_session]
    assert [s["lines"] for s in answer["sessions"]] == [31, 8, 54, 2]


def test_an_agent_group_carries_blames_attribution_and_evidence(built: ReviewRepo) -> None:
    answer = review(built, f"{built.baseline}..HEAD", "--json")
    first = groups(answer, GEMINI)[0]
    assert first["status"] == "agent"
    assert (
        first["attribution"]["agent"],
        first["attribution"]["session_id"],
        first["attribution"]["tool"],
        first["attribution"]["method"],
    ) == ("claude-code", S2, "Edit", "note")
    kinds = [e["kind"] for e in first["evidence"]]
    assert kinds[0] == "request" and "edit" in kinds
    assert first["evidence"][0]["text"].startswith("Add error handling/logging for Gemini message marshaling")
    assert first["commits"] == [built.gemini]
    # the same request, the same evidence as `git intent blame` gives for that line
    line = first["start"]
    blamed = json.loads(run_cli("blame", f"{GEMINI}:{line}", "--json", cwd=built.path, env=built.env).stdout)
    assert blamed["lines"][0]["attribution"] == first["attribution"]
    assert blamed["lines"][0]["evidence"] == first["evidence"]


def test_a_persons_change_to_an_agents_line_carries_previous(built: ReviewRepo) -> None:
    answer = review(built, f"{built.baseline}..HEAD", "--json")
    person = [g for g in groups(answer, CHUNKING) if g["status"] == "human"]
    assert len(person) == 1
    group = person[0]
    assert (group["start"], group["end"], group["author"], group["commits"]) == (
        built.changed_line,
        built.changed_line,
        "Pat Person",
        [built.person],
    )
    previous = group["lines"][0]["previous"]
    assert previous["commit"] == built.chunking
    assert previous["content"].strip() == "if len(lineWithNewline) > maxSize {"
    assert (previous["attribution"]["session_id"], previous["attribution"]["message_id"]) == (
        S0,
        "b2f3c599-0740-40d5-9f43-d4f2332d829c",
    )
    # lines nobody changed carry none
    assert all(line["previous"] is None for g in groups(answer, GEMINI) for line in g["lines"])


def test_an_unrecorded_commit_is_said_and_counted(built: ReviewRepo) -> None:
    answer = review(built, f"{built.baseline}..HEAD", "--json")
    first = groups(answer, CHUNKING)[0]
    assert (first["status"], first["start"], first["commits"]) == ("unrecorded", 1, [built.unrecorded])
    assert answer["problems"] == [first["reason"]]
    assert built.unrecorded[:12] in first["reason"]


def test_one_commit_and_an_end_that_is_not_checked_out(built: ReviewRepo) -> None:
    git(built.path, "checkout", "-q", "--detach", built.baseline)
    try:
        answer = review(built, built.gemini, "--json")
    finally:
        git(built.path, "checkout", "-q", "main")
    assert (answer["base"], answer["end"]) == (built.baseline, built.gemini)
    assert [f["path"] for f in answer["files"]] == [GEMINI]
    assert (answer["totals"]["agent"], answer["totals"]["human"]) == (8, 0)


def test_three_dot_and_open_ranges(built: ReviewRepo) -> None:
    repo = Repository(built.path)
    assert resolve_range(repo, f"{built.person}...{built.telemetry}").base == built.person
    assert resolve_range(repo, f"{built.telemetry}..").end == git(built.path, "rev-parse", "HEAD").strip()
    with pytest.raises(IntentError, match="is not a range of this repository"):
        resolve_range(repo, "no-such-branch..HEAD")


def test_text_quotes_the_request_and_the_reason_with_citations(built: ReviewRepo) -> None:
    text = review(built, f"{built.baseline}..HEAD")
    lines = text.splitlines()
    assert lines[0].startswith(f"review {built.baseline}..HEAD · base {built.baseline[:12]}")
    assert re.search(r"^  total\s+95\s+1\s+1\s+1 changed an agent's lines$", text, re.MULTILINE)
    gemini = text[text.index(f"\n{GEMINI} (modified)") :]
    assert "asked     “Add error handling/logging for Gemini message marshaling failures" in gemini
    assert "[1ed1f046:dabe33ec]" in gemini
    # the reason picker's passage: the sentence naming the line's word (`"context"`)
    assert (
        "because   “I'll use `context.Background()` for the logging since this is an edge case utility "
        "function.”" in gemini
    )
    assert "same request and reason as line 5 above" in gemini
    assert f"! line {built.changed_line} changed a line claude-code wrote [0a0314fb:b2f3c599]" in text


def test_a_bad_range_is_one_sentence(built: ReviewRepo) -> None:
    proc = run_cli("review", "nope..HEAD", cwd=built.path, env=built.env)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: 'nope..HEAD' is not a range of this repository")


def outside_fences(markdown: str) -> str:
    """The comment without its fenced code blocks (where anything is shown as text)."""
    out, fence = [], None
    for line in markdown.split("\n"):
        match = re.match(r"^(`{3,})", line)
        if fence is None and match:
            fence = match[1]
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            out.append(line)
    assert fence is None, "a code fence is left open"
    return "\n".join(out)


def assert_safe_markdown(markdown: str) -> None:
    rest = outside_fences(markdown)
    tags = {t.lower() for t in re.findall(r"</?([A-Za-z][\w-]*)", rest)}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    assert rest.count("<details>") == rest.count("</details>")
    assert "@" not in re.sub(r"&#64;", "", rest).replace("@@", "")


def test_markdown_escapes_transcript_text_and_keeps_the_words(built: ReviewRepo) -> None:
    markdown = review(built, f"{built.baseline}..HEAD", "--format", "markdown")
    assert len(markdown) <= GITHUB_LIMIT
    assert markdown.startswith(f"### git-intent review of <code>{built.baseline}..HEAD</code>")
    assert_safe_markdown(markdown)
    # the user's words as written, inside a fence: `<script>` is shown, never run
    assert f"```text\n{SCRIPT_PROMPT}\n```" in markdown
    assert "<script>" not in outside_fences(markdown)
    assert "| <code>cmd&#47;" not in markdown  # slashes are not escaped: paths stay readable
    assert f"| <code>{CHUNKING}</code> | 4 | 1 (1 changed an agent&#39;s) | 1 |" not in markdown
    assert (
        f"| <code>{CHUNKING}</code> | 4 | 1 (1 changed an agent's) | 1 | claude-code <code>0a0314fb</code> |"
        in markdown
    )


@pytest.fixture(scope="module")
def answer(built: ReviewRepo) -> Iterator[ReviewAnswer]:
    yield review_range(Repository(built.path), f"{built.baseline}..HEAD")


def test_a_long_review_collapses_then_truncates_within_the_limit(answer: ReviewAnswer) -> None:
    hostile = answer.model_copy(deep=True)
    for review_file in hostile.files:
        for hunk in review_file.hunks:
            for group in hunk.groups:
                for item in group.evidence:
                    item.text = "````\n</details><img src=x onerror=alert(1)> @everyone\n" + item.text
    big = hostile.model_copy(update={"files": hostile.files * 120})
    markdown = review_markdown(big)
    assert len(markdown) <= GITHUB_LIMIT
    assert_safe_markdown(markdown)
    assert markdown.rstrip().endswith(
        f"Run <code>git intent review {answer.range}</code> to see the whole review."
    )
    shown = re.search(r"(\d+) of (\d+) files shown", markdown)
    assert shown is not None and 0 < int(shown[1]) < int(shown[2]) == len(big.files)
    assert "Quotes left out to fit the comment limit." in markdown
    small = review_markdown(answer)
    assert "Truncated" not in small and "Quotes left out" not in small


def test_the_summariser_seam(answer: ReviewAnswer) -> None:
    seen: list[tuple[str, int]] = []

    def summarise(session: SessionReview, found: list[ReviewGroup]) -> ModelSummary:
        seen.append((session.session_id, sum(g.counted for g in found)))
        if session.session_id == S2:
            raise IntentError("The model did not answer.")
        return ModelSummary(
            text=f"Asked to fix it [{session.session_id}:{session.messages[0]}].",
            citations=[f"{session.session_id}:{session.messages[0]}"],
        )

    assert summarise_sessions(answer, None) is answer
    summarised = summarise_sessions(answer, summarise)
    assert seen == [(s.session_id, s.lines) for s in answer.sessions]
    by_id = {s.session_id: s.summary for s in summarised.sessions}
    summary = by_id[S0]
    assert by_id[S2] is None and summary is not None
    assert summary.citations == [f"{S0}:{answer.sessions[0].messages[0]}"]
    assert summarised.problems[-1] == f"No summary of session {S2}: The model did not answer."
    assert "Asked to fix it" in review_markdown(summarised)


def test_diff_parsing_renames_binaries_and_odd_paths(repo: Path) -> None:
    (repo / "old name.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    (repo / "blob.bin").write_bytes(b"\0\1\2")
    (repo / "tail.txt").write_text("no newline")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "files")
    git(repo, "mv", "old name.txt", 'new "name".txt')
    (repo / 'new "name".txt').write_text("one\ntwo\nTHREE\nfour\nfive\n")
    (repo / "blob.bin").write_bytes(b"\0\1\2\3")
    (repo / "tail.txt").write_text("no newline\n+++ looks like a header")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "changes")
    files = diff_files(Repository(repo), git(repo, "rev-parse", "HEAD~1").strip(), "HEAD")
    by_path = {f.path: f for f in files}
    assert set(by_path) == {"blob.bin", 'new "name".txt', "tail.txt"}
    renamed = by_path['new "name".txt']
    assert (renamed.change, renamed.old_path) == ("renamed", "old name.txt")
    assert [(h.old_start, h.new_start, h.removed, h.added) for h in renamed.hunks] == [
        (3, 3, ["three"], ["THREE"])
    ]
    assert by_path["blob.bin"].binary and not by_path["blob.bin"].hunks
    assert [(h.removed, h.added) for h in by_path["tail.txt"].hunks] == [
        (["no newline"], ["no newline", "+++ looks like a header"])
    ]


def test_each_note_and_each_session_is_read_once(built: ReviewRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    import git_intent.explain.classify as blame
    import git_intent.review.build as build
    import git_intent.sessions.discovery as discovery

    notes: list[str] = []
    sessions: list[str] = []
    blames: list[tuple[str, ...]] = []
    read_note, find_session = blame.read_note, discovery.find_session
    run_git, run_blame = Repository.git, Repository.blame

    def counting_git(self: Repository, *args: str, **kwargs: Any) -> str:
        if args and args[0] == "blame":
            blames.append(args)
        return run_git(self, *args, **kwargs)

    monkeypatch.setattr(
        blame, "read_note", lambda repo, commit: notes.append(commit) or read_note(repo, commit)
    )
    monkeypatch.setattr(
        discovery,
        "find_session",
        lambda repo, sid, *a, **k: sessions.append(sid) or find_session(repo, sid, *a, **k),
    )

    def counting_blame(self: Repository, path: str, *args: Any, **kwargs: Any) -> Any:
        blames.append(("blame", kwargs.get("rev") or "", "--", path))
        return run_blame(self, path, *args, **kwargs)

    monkeypatch.setattr(Repository, "git", counting_git)
    monkeypatch.setattr(Repository, "blame", counting_blame)
    result = build.review_range(Repository(built.path), f"{built.baseline}..HEAD")
    assert result.totals.agent == 95
    assert sorted(notes) == sorted(set(notes))
    assert sorted(sessions) == sorted({S0, S2, S8, built.script_session})
    # one blame per file with added lines at the range's end, plus one at the parent of Pat's commit
    assert len(blames) == len(result.files) + 1
    assert sum(1 for args in blames if args[-3] == built.person) == 0 and blames[-1][-3] == built.chunking
