"""The Aider adapter against the real chat-history excerpt and its commits, and hand-built histories."""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus

from git_intent.adapters import aider, claude_code, codex, cursor
from git_intent.core.values import Session

EXCERPT = "transcripts/aider/aider__chat-history__excerpt.md"
COMMITS = "linked/aider/commits.json"


@cache
def _sessions() -> dict[str, Session]:
    return {s.session_id: s for s in aider.read(corpus(EXCERPT))}


def _commits() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(corpus(COMMITS).read_text(encoding="utf-8"))["commits"]
    return data


# --------------------------------------------------------------------------------------------------
# The real excerpt. Figures computed with the adapter, then checked by an independent script (plain
# line scanning, no git_intent code): 79 headers of which 60 have any content; 128 runs of `#### `
# lines, 71 of them slash commands, 4 of those `/ask` (whose request aider logs again: 57 prompts);
# 77 `<<<<<<< SEARCH` lines in replies, 8 in replies cut off mid-block (69 whole blocks); 37
# `> Applied edit to` lines + 1 partly applied reply = 38 replies with edits; 67 `> Commit` lines.
# --------------------------------------------------------------------------------------------------


def test_excerpt_counts() -> None:
    sessions = list(_sessions().values())
    messages = [m for s in sessions for m in s.messages]
    assert len(sessions) == 60
    assert len(messages) == 367
    assert Counter(m.role for m in messages) == {"tool": 172, "user": 128, "assistant": 67}
    assert sum(m.is_prompt for m in messages) == 57
    assert sum(1 for m in messages for p in m.parts if p.kind == "tool_call") == 69
    assert sum(len(s.edits) for s in sessions) == 49
    assert len({(s.session_id, e.message_id) for s in sessions for e in s.edits}) == 38
    assert sum(len(e.added) for s in sessions for e in s.edits) == 289
    assert sum(s.stats.unreadable for s in sessions) == 8
    assert sum(s.stats.records for s in sessions) == 8920
    assert all(s.agent == "aider" and s.cwd == str(corpus(EXCERPT).parent) for s in sessions)


def test_session_ids_and_message_ids_are_stable_and_colon_free() -> None:
    first = aider.read(corpus(EXCERPT))
    again = aider.read(corpus(EXCERPT))
    assert [s.session_id for s in first] == [s.session_id for s in again]
    assert [[m.message_id for m in s.messages] for s in first] == [
        [m.message_id for m in s.messages] for s in again
    ]
    assert first[0].session_id == "aider-2024-08-05T193302"
    assert first[-1].session_id == "aider-2024-08-07T074637"
    assert len({s.session_id for s in first}) == 60
    assert all(":" not in s.session_id and all(":" not in m.message_id for m in s.messages) for s in first)
    assert [m.message_id for m in first[1].messages] == ["m1", "m2", "m3", "m4", "m5", "m6"]


def test_search_replace_edit_of_the_first_aider_commit() -> None:
    session = _sessions()["aider-2024-08-05T193332"]
    [edit] = session.edits
    assert (edit.path, edit.tool, edit.message_id, edit.call_id, edit.kind) == (
        "aider/utils.py",
        "search_replace",
        "m3",
        "m3.b1",
        "update",
    )
    assert [(a.text, a.line) for a in edit.added] == [
        ('        spinner = Spinner("Installing...")', None),
        ("            spinner.step()", None),
        ("        spinner.end()", None),
        ('            print("Installation complete.")', None),
    ]
    assert edit.old_text is not None and edit.old_text.startswith("def run_install(cmd):\n")
    prompt, answer = session.message("m2"), session.message("m3")
    assert prompt is not None and prompt.is_prompt
    assert prompt.text == "Use the Spinner instead of the inlined custom spinner"
    assert answer is not None and answer.text.startswith("Certainly! I'll modify the `run_install` function")
    assert [p.kind for p in answer.parts] == ["text", "tool_call", "text"]
    assert session.agent_version == "v0.47.2-dev"


def test_commit_links_name_every_commit_of_commits_json_in_order() -> None:
    links = aider.commit_links(corpus(EXCERPT))
    assert [short for _, _, short in links] == [c["short"] for c in _commits()]
    sessions = _sessions()
    assert all(sessions[sid].message(mid) is not None for sid, mid, _ in links)
    assert links[0] == ("aider-2024-08-05T193302", "m1", "d0ffbf1")  # --lint --commit at start-up
    assert links[1] == ("aider-2024-08-05T193332", "m3", "fd43cd4")


def test_commits_aider_wrote_link_to_the_reply_that_added_as_many_lines() -> None:
    """Each resolved commit authored by aider (not a linter's `style:` follow-up) adds, per git, exactly
    as many lines as the linked reply's edits; commits of the person's own changes link to tool messages."""
    sessions = _sessions()
    checked = 0
    for (sid, mid, short), commit in zip(aider.commit_links(corpus(EXCERPT)), _commits(), strict=True):
        if commit["sha"] is None:
            continue
        message = sessions[sid].message(mid)
        assert message is not None
        human = not commit["author"].endswith("(aider)")
        if short == "4d6bb2b":
            # aider committed a partly applied reply's blocks as "dirty" before the next edit
            assert (human, message.role, mid) == (True, "assistant", "m11")
        elif human or short == "df4d173":  # df4d173: aider's own lint commit at start-up
            assert message.role == "tool", short
        else:
            assert message.role == "assistant", short
        if message.role == "assistant" and not commit["subject"].startswith("style:"):
            added = sum(len(e.added) for e in sessions[sid].edits if e.message_id == mid)
            assert added == sum(int(f["added"]) for f in commit["files"].values()), short
            checked += 1
    assert checked == 16


def test_partly_applied_reply_keeps_the_blocks_that_matched() -> None:
    session = _sessions()["aider-2024-08-06T141301"]
    assert [e.call_id for e in session.edits] == ["m11.b1", "m11.b2", "m11.b3"]
    assert [p.call_id for p in session.messages[10].parts if p.kind == "tool_call"] == [
        "m11.b1",
        "m11.b2",
        "m11.b3",
        "m11.b4",
    ]
    assert [a.text for e in session.edits for a in e.added] == [
        "        self.cache_threshold = 0.95",
        "        if len(self.TAGS_CACHE) < self.cache_threshold * len(fnames):",
    ]


def test_replies_whose_blocks_failed_yield_no_edits() -> None:
    session = _sessions()["aider-2024-08-06T085514"]
    for answer in ("m15", "m17", "m25", "m27", "m41", "m54"):
        message = session.message(answer)
        assert message is not None and any(p.kind == "tool_call" for p in message.parts)
        assert not [e for e in session.edits if e.message_id == answer]
    errors = [m.message_id for m in session.messages if m.role == "tool" and any(p.is_error for p in m.parts)]
    assert errors == ["m16", "m18", "m26", "m28", "m42", "m55"]


def test_malformed_reply_yields_no_edit() -> None:
    session = _sessions()["aider-2024-08-06T095226"]  # a reply with two `=======` and no REPLACE
    assert session.edits == []
    assert session.messages[-1].parts[0].is_error


def test_reply_cut_off_mid_block_counts_an_unreadable_block() -> None:
    session = _sessions()["aider-2024-08-06T084710"]
    answer = session.message("m20")
    assert answer is not None and sum(p.kind == "tool_call" for p in answer.parts) == 3
    assert not [e for e in session.edits if e.message_id == "m20"]
    assert session.stats.unreadable == 1


def test_multi_line_outputs_stay_in_their_tool_message() -> None:
    tests = _sessions()["aider-2024-08-06T084710"].message("m15")
    assert tests is not None and tests.role == "tool"
    assert tests.parts[0].text.startswith("============================= test session starts")
    assert tests.parts[0].text.endswith("= 1 failed, 6 passed in 3.28s " + "=" * 26)
    commit = _sessions()["aider-2024-08-06T094424"].message("m11")
    assert commit is not None and commit.role == "tool"
    assert "\n\nThe changes in this commit add a function" in commit.parts[0].text
    assert not any(
        m.text.startswith(("platform darwin", "The changes in this commit"))
        for s in _sessions().values()
        for m in s.messages
        if m.role == "assistant"
    )


def test_ask_request_logged_twice_is_one_prompt() -> None:
    messages = _sessions()["aider-2024-08-06T094424"].messages
    assert [(m.role, m.is_prompt) for m in messages[1:4]] == [
        ("user", True),
        ("user", False),
        ("assistant", False),
    ]
    assert messages[1].text == "/ask is there a portable way to know the user's preferred language?"


@pytest.fixture
def minus_three() -> Iterator[None]:
    """The machine's local time zone as UTC-3 (where the excerpt was written), restored afterwards."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "XXX3"
    time.tzset()
    yield
    if saved is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = saved
    time.tzset()


def test_header_time_is_local_time_and_every_message_carries_it(minus_three: None) -> None:
    first = aider.read(corpus(EXCERPT))[0]
    start = datetime(2024, 8, 5, 19, 33, 2, tzinfo=timezone(timedelta(hours=-3)))
    assert first.started_at == first.ended_at == start
    committed = datetime.fromisoformat(_commits()[0]["date"])  # d0ffbf1, made by that session
    assert timedelta(0) <= committed - start < timedelta(seconds=10)
    assert all(
        e.timestamp is not None and e.timestamp.utcoffset() is not None
        for s in aider.read(corpus(EXCERPT))
        for e in s.edits
    )


def test_sniff_and_the_other_formats() -> None:
    path = corpus(EXCERPT)
    assert aider.sniff(path)
    assert not claude_code.sniff(path) and not codex.sniff(path) and not cursor.sniff(path)
    assert not aider.sniff(corpus("transcripts/cursor/git-ai__cursor-session-simple.jsonl"))
    assert not aider.sniff(corpus("transcripts/aider/README.md"))


# --------------------------------------------------------------------------------------------------
# Hand-built histories, written the way aider's InputOutput writes them
# --------------------------------------------------------------------------------------------------


def header(when: str) -> str:
    return f"\n# aider chat started at {when}\n\n"


def said(*lines: str) -> str:
    return "".join(f"> {line}  \n" for line in lines)


def typed(text: str) -> str:
    return "\n" + "  \n".join(f"#### {line}" for line in text.splitlines()) + "  \n"


def reply(text: str) -> str:
    return "\n" + text.strip() + "\n\n"


def block(path: str, search: str, replace: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


def write(tmp_path: Path, text: str, name: str = aider.HISTORY) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


START = said("aider --model x", "Aider v0.50.0", "Model: x with diff edit format")


def test_markdown_markers_inside_a_reply_do_not_split_it(tmp_path: Path) -> None:
    edit = block("docs/a.md", "old\n", "#### New header\n> a quote\n\n#### Another\n")
    path = write(
        tmp_path,
        header("2024-01-02 03:04:05")
        + START
        + typed("edit the doc")
        + reply("Here:\n\n" + edit + "\n#### Not a prompt either\n\nDone.")
        + said("Tokens: 1 sent", "Applied edit to docs/a.md", "Commit abc1234 docs: edit"),
    )
    [session] = aider.read(path)
    assert [m.role for m in session.messages] == ["tool", "user", "assistant", "tool"]
    [e] = session.edits
    assert [a.text for a in e.added] == ["#### New header", "> a quote", "", "#### Another"]
    assert "#### Not a prompt either" in session.messages[2].text
    assert aider.commit_links(path) == [("aider-2024-01-02T030405", "m3", "abc1234")]


def test_whole_file_fence_counts_only_when_aider_applied_it(tmp_path: Path) -> None:
    # The first fence's last line looks like a path: its closing fence must not open a "file".
    fence = "src/app.py\n```\nimport os\n\nprint(os.name)\n```"
    path = write(
        tmp_path,
        header("2024-01-02 03:04:05")
        + START
        + typed("write app")
        + reply("Sure:\n\n```\nos.name\n```\n\n" + fence)
        + said("Applied edit to src/app.py")
        + typed("show it again")
        + reply("Like this:\n\n" + fence)
        + said("Tokens: 1 sent"),
    )
    [session] = aider.read(path)
    [edit] = session.edits
    assert (edit.tool, edit.path, edit.message_id, edit.old_text) == ("whole_file", "src/app.py", "m3", None)
    assert [(a.text, a.line) for a in edit.added] == [("import os", 1), ("", 2), ("print(os.name)", 3)]
    assert [p.kind for p in session.messages[5].parts] == ["text"]  # unconfirmed fence stays prose


def test_skipped_dry_run_and_unconfirmed_replies_yield_no_edits(tmp_path: Path) -> None:
    two = block("a.py", "x\n", "y\n") + "\n" + block("b.py", "x\n", "y\n")
    path = write(
        tmp_path,
        header("2024-01-02 03:04:05")
        + START
        + typed("one")
        + reply(two)
        + said("Skipping edits to b.py", "Applied edit to a.py")
        + typed("two")
        + reply(block("c.py", "x\n", "y\n"))
        + said("Did not apply edit to c.py (--dry-run)")
        + typed("three")
        + reply(block("d.py", "x\n", "y\n"))
        + said("^C again to exit"),
    )
    assert [(e.path, e.message_id) for e in aider.read(path)[0].edits] == [("a.py", "m3")]


def test_logs_that_never_confirm_edits_keep_every_block(tmp_path: Path) -> None:
    path = write(tmp_path, header("2024-01-02 03:04:05") + typed("go") + reply(block("d.py", "x\n", "y\n")))
    assert [e.path for e in aider.read(path)[0].edits] == ["d.py"]


def test_block_without_path_uses_previous_file_and_empty_search_creates(tmp_path: Path) -> None:
    text = (
        block("new.py", "", "a = 1\nb = 2\n") + "\n```python\n<<<<<<< SEARCH\na = 1\n=======\na = 3\n"
        ">>>>>>> REPLACE\n```\n\nSee the note:\n```python\n<<<<<<< SEARCH\nunterminated\n"
    )
    path = write(
        tmp_path, header("2024-01-02 03:04:05") + typed("go") + reply(text) + said("Applied edit to new.py")
    )
    [session] = aider.read(path)
    assert [(e.path, e.kind, [a.text for a in e.added]) for e in session.edits] == [
        ("new.py", "create", ["a = 1", "b = 2"]),
        ("new.py", "update", ["a = 3"]),
    ]
    assert session.stats.unreadable == 1


def test_commit_link_rules(tmp_path: Path) -> None:
    edit = block("a.py", "x\n", "y\n")
    path = write(
        tmp_path,
        header("2024-01-02 03:04:05")
        + said("aider --commit", "Commit 0000001 dirty at start")
        + typed("one")
        + reply(edit)
        + said(
            "Tokens: 1",
            "Committing a.py before applying edits.",
            "Commit 0000002 the person's work",
            "Applied edit to a.py",
            "Commit 0000003 feat: one",
            "Commit 0000004 style: lint",
        )
        + typed("/commit")
        + said("Commit 0000005 the person's later work")
        + typed("two")
        + reply(edit)
        + said("Applied edit to a.py")
        + typed("three")
        + reply(edit)
        + said("Applied edit to a.py")
        + typed("/commit")
        + said("Commit 0000006 both replies (--no-auto-commits)"),
    )
    sid = "aider-2024-01-02T030405"
    assert aider.commit_links(path) == [
        (sid, "m1", "0000001"),
        (sid, "m4", "0000002"),
        (sid, "m3", "0000003"),
        (sid, "m3", "0000004"),
        (sid, "m6", "0000005"),
        (sid, "m11", "0000006"),
    ]


def test_sessions_ids_repeat_preamble_and_empty_headers(tmp_path: Path) -> None:
    text = (
        "stray line from a cut file  \n"
        + header("2024-01-02 03:04:05")
        + typed("a")
        + header("2024-01-02 03:04:05")
        + typed("b")
        + header("2024-01-02 03:04:06")
        + header("2024-01-02 03:04:05")
        + typed("c")
        + header("2024-13-45 03:04:05")
        + typed("d")
    )
    sessions = aider.read(write(tmp_path, text))
    assert [s.session_id for s in sessions] == [
        "aider-before-first-header",
        "aider-2024-01-02T030405",
        "aider-2024-01-02T030405-2",
        "aider-2024-01-02T030405-3",
        "aider-2024-13-45T030405",
    ]
    assert sessions[0].started_at is None and sessions[-1].started_at is None
    assert [[m.text for m in s.messages] for s in sessions[1:]] == [["a"], ["b"], ["c"], ["d"]]


def test_multi_line_prompt_is_one_message_and_commands_are_not_prompts(tmp_path: Path) -> None:
    text = (
        header("2024-01-02 03:04:05")
        + typed("first line\n\nthird line")
        + typed("/undo")
        + typed("/ask why?")
        + typed("<blank>")
        + typed("/code do it")
    )
    messages = aider.read(write(tmp_path, text))[0].messages
    assert [(m.text, m.is_prompt) for m in messages] == [
        ("first line\n\nthird line", True),
        ("/undo", False),
        ("/ask why?", True),
        ("<blank>", False),
        ("/code do it", True),
    ]


def test_crlf_history_reads_the_same(tmp_path: Path) -> None:
    text = (
        header("2024-01-02 03:04:05")
        + START
        + typed("go")
        + reply(block("a.py", "x\n", "y\n"))
        + said("Applied edit to a.py", "Commit 1234567 feat: go")
    )
    plain = aider.read(write(tmp_path, text))[0]
    crlf = aider.read(write(tmp_path, text.replace("\n", "\r\n"), "crlf.md"))[0]
    assert [m.text for m in crlf.messages] == [m.text for m in plain.messages]
    assert crlf.edits[0].added == plain.edits[0].added
    assert aider.commit_links(tmp_path / "crlf.md") == [("aider-2024-01-02T030405", "m3", "1234567")]


def test_history_without_trailing_spaces_is_split_like_aider_does(tmp_path: Path) -> None:
    text = (
        "# aider chat started at 2024-01-02 03:04:05\n\n> Aider v0.9.0\n\n#### go\n\nSure.\n\n"
        "a.md\n```\n<<<<<<< SEARCH\nx\n=======\n> quoted\n#### heading\n>>>>>>> REPLACE\n```\n\n"
        "> Applied edit to a.md\n> Commit 89abcde feat: go\n"
    )
    session = aider.read(write(tmp_path, text))[0]
    assert [m.role for m in session.messages] == ["tool", "user", "assistant", "tool"]
    assert [a.text for a in session.edits[0].added] == ["> quoted", "#### heading"]
    assert session.agent_version == "v0.9.0"


def test_sniff_by_name_or_header(tmp_path: Path) -> None:
    assert aider.sniff(write(tmp_path, "anything"))
    assert aider.sniff(write(tmp_path, "\n# aider chat started at 2024-01-02 03:04:05\n", "copy.md"))
    assert not aider.sniff(write(tmp_path, "# Title\n", "notes.md"))
    assert not aider.sniff(tmp_path / "missing.md")


def test_discover_yields_the_history_in_the_root(tmp_path: Path) -> None:
    assert list(aider.discover(tmp_path)) == []
    path = write(tmp_path, header("2024-01-02 03:04:05"))
    assert list(aider.discover(tmp_path)) == [path]
    os.utime(path, (1_600_000_000, 1_600_000_000))
    assert list(aider.discover(tmp_path, since=datetime(2021, 1, 1, tzinfo=timezone.utc))) == []


def test_unreadable_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        aider.read(tmp_path / aider.HISTORY)
    with pytest.raises(OSError):
        aider.commit_links(tmp_path / aider.HISTORY)


def test_shuffled_and_cut_history_never_raises(tmp_path: Path) -> None:
    lines = corpus(EXCERPT).read_text(encoding="utf-8").splitlines(keepends=True)
    rng = random.Random(7)
    for attempt in range(5):
        sample = rng.sample(lines, 2000) if attempt % 2 else lines[rng.randrange(len(lines)) :][:3000]
        path = write(tmp_path, "".join(sample) + "<<<<<<< SEARCH\n\x00\ufffd", f"h{attempt}.md")
        sessions = aider.read(path)
        links = aider.commit_links(path)
        ids = {(s.session_id, m.message_id) for s in sessions for m in s.messages}
        assert all((sid, mid) in ids for sid, mid, _ in links)
