"""`git intent blame` on real files, end to end through the installed hook: bare CRs, exit codes and
warnings, a line's history (`previous`), how a link was found, whole-file blame, move detection on
request, and the content fallback through the session index."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from support import Clock, claude_project_dir, git, install, note_text, run_cli
from support import claude_session as session
from support import commit_synced as commit

from git_intent.git.repo import parse_porcelain

MODEL = "claude-opus-4-5-20251101"  # what support.ClaudeSession writes as message.model


def blame_json(repo: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = run_cli("blame", *args, "--json", cwd=repo, env=env)
    assert (proc.returncode, proc.stderr) == (0, ""), (proc.stdout, proc.stderr)
    answer: dict[str, Any] = json.loads(proc.stdout)
    return answer


def who(line: dict[str, Any]) -> tuple[str, str | None, str | None]:
    a = line["attribution"]
    return line["status"], a and a["session_id"], a and a["message_id"]


# --- a bare CR inside a line, CR-only line endings
# ---------------------------------------------


def test_parse_porcelain_ends_lines_at_lf_only() -> None:
    sha = "ab" * 20
    data = (
        f"{sha} 1 1 2\nauthor A\nauthor-time 1700000000\nprevious {'cd' * 20} old name.txt\n"
        f"filename a.txt\n\tx = 1\ry = 2\n{sha} 2 2\n\tlast\r\n"
    ).encode()
    lines = parse_porcelain(data)
    assert [(b.final_line, b.content, b.previous) for b in lines] == [
        (1, "x = 1\ry = 2", ("cd" * 20, "old name.txt")),
        (2, "last\r", ("cd" * 20, "old name.txt")),
    ]


def test_bare_cr_and_cr_only_endings_are_recorded_and_blamed(repo: Path) -> None:
    root = repo.resolve()
    install(root)
    agent = session(root)
    agent.prompt("Write the legacy config files")
    mixed = agent.write(
        "Writing mixed.cfg.", root / "mixed.cfg", "alpha_setting = 1\rbeta_setting = 2\ngamma_setting = 3\n"
    )
    mac = agent.write("Writing mac.cfg.", root / "mac.cfg", "first line here\rsecond line here\rthird line\r")
    agent.save()
    sha = commit(root, "legacy configs")
    assert note_text(root, sha) is not None

    recorded = json.loads(run_cli("record", sha, "--json", cwd=root).stdout)
    assert (recorded["lines_added"], recorded["lines_attributed"]) == (3, 3)  # git counts 2 + 1 lines

    lines = blame_json(root, "mixed.cfg:1-2")["lines"]
    assert [(ln["line"], ln["content"]) for ln in lines] == [
        (1, "alpha_setting = 1\rbeta_setting = 2"),
        (2, "gamma_setting = 3"),
    ]
    assert [who(ln) for ln in lines] == [("agent", agent.session_id, mixed)] * 2
    whole = blame_json(root, "mac.cfg")
    assert [(ln["line"], ln["content"], who(ln)) for ln in whole["lines"]] == [
        (1, "first line here\rsecond line here\rthird line\r", ("agent", agent.session_id, mac))
    ]
    text = run_cli("blame", "mixed.cfg:1", cwd=root)
    assert text.returncode == 0 and "alpha_setting = 1\\x0dbeta_setting = 2" in text.stdout, text.stdout
    past = run_cli("blame", "mixed.cfg:3", cwd=root)  # git's count: 2 lines, not 3
    assert past.returncode == 1 and "has 2 lines" in past.stderr


# --- exit codes and warnings
# ------------------------------------------------------------------


def test_answers_exit_0_and_an_unreadable_note_warns_once(repo: Path) -> None:
    root = repo.resolve()
    (root / "app.py").write_text("def main():\n    return 0\n", encoding="utf-8")
    sha = commit(root, "no hook saw this")
    (root / "app.py").write_text("def main():\n    return 1  # not committed\n", encoding="utf-8")
    answer = blame_json(root, "app.py")  # unrecorded and uncommitted lines are answers
    assert [ln["status"] for ln in answer["lines"]] == ["unrecorded", "uncommitted"]
    text = run_cli("blame", "app.py:1", cwd=root)
    assert (text.returncode, text.stderr) == (0, "")
    assert text.stdout.count("has no git-intent note") == 1  # the reason once, in the answer

    git(root, "notes", "--ref", "refs/notes/intent", "add", "-f", "-m", "garbage", sha)
    for args in (("app.py:1",), ("app.py",), ("app.py:1", "--json")):
        proc = run_cli("blame", *args, cwd=root)
        assert proc.returncode == 1, args  # a note that cannot be read leaves the question unanswered
        assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith(
            f"warning: The note on {sha[:12]}"
        )
        if "--json" not in args:  # the sentence is not repeated in the text answer
            assert "not a git-intent record" not in proc.stdout and "unreadable" in proc.stdout, proc.stdout


# --- a line's history; how a link was found
# --------------------------------------------


def test_a_person_changed_an_agents_line_and_blame_names_both(repo: Path) -> None:
    root = repo.resolve()
    install(root)
    agent = session(root)
    agent.prompt("Add a pricing helper")
    body = "def price(amount):\n    total = amount * 1.19\n    return round(total, 2)\n"
    write_id = agent.write("Writing pricing.py.", root / "pricing.py", body)
    agent.save()
    first = commit(root, "pricing helper")
    (root / "pricing.py").write_text(
        body.replace("amount * 1.19", "amount * 1.07  # reduced rate"), encoding="utf-8"
    )
    second = commit(root, "reduced rate")
    assert note_text(root, second) is not None

    line = blame_json(root, "pricing.py:2")["lines"][0]
    assert (line["commit"], line["status"], line["attribution"]) == (second, "human", None)
    attribution = {
        "agent": "claude-code",
        "session_id": agent.session_id,
        "message_id": write_id,
        "tool": "Write",
        "method": "note",
        "confidence": 1.0,
        "derived_from": None,
        "model": MODEL,
    }
    assert line["previous"] == {
        "commit": first,
        "path": "pricing.py",
        "line": 2,
        "content": "    total = amount * 1.19",
        "attribution": attribution,
    }
    untouched = blame_json(root, "pricing.py:3")["lines"][0]
    assert (untouched["status"], untouched["previous"]) == ("agent", None)
    text = run_cli("blame", "pricing.py:2", cwd=root).stdout
    assert "written   by a person" in text
    assert f"replaced  a line claude-code wrote · session {agent.session_id} · message {write_id[:8]}" in text
    assert "was: total = amount * 1.19" in text


def test_a_content_match_says_so_and_the_quoted_diff_keeps_its_hunks(repo: Path) -> None:
    root = repo.resolve()
    agent = session(root)
    agent.prompt("Rename the two settings")
    old = "".join(f"setting_{i} = {i}\n" for i in range(1, 11))
    (root / "settings.py").write_text(old, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "settings")
    new = old.replace("setting_2 = 2", "renamed_second_setting = 2").replace(
        "setting_9 = 9", "renamed_ninth_setting = 9"
    )
    edit_id = agent.edit("Renaming both.", root / "settings.py", old, new)
    agent.save()
    sha = commit(root, "renamed, with no hook installed")
    assert note_text(root, sha) is None

    line = blame_json(root, "settings.py:2")["lines"][0]
    assert (line["status"], line["attribution"]["method"], line["attribution"]["message_id"]) == (
        "agent",
        "content",
        edit_id,
    )
    assert line["attribution"]["model"] == MODEL
    text = run_cli("blame", "settings.py:2", cwd=root).stdout
    assert "found by content (no note)" in text and "Found by content" in text
    edit = next(e["text"] for e in line["evidence"] if e["kind"] == "edit").splitlines()
    assert edit[1:] == [
        " setting_1 = 1",
        "-setting_2 = 2",
        "+renamed_second_setting = 2",
        " setting_3 = 3",
        "@@ … @@",  # the two hunks stay apart
        " setting_8 = 8",
        "-setting_9 = 9",
        "+renamed_ninth_setting = 9",
        " setting_10 = 10",
    ]
    assert "            @@ … @@" in text


def test_the_content_fallback_reaches_back_from_a_rebased_commits_author_date(repo: Path) -> None:
    """A rebase keeps the work's author date and moves it onto a newer parent; with no note, the line is
    credited as recording credits it, from the author date."""
    root = repo.resolve()
    authored = datetime(2026, 4, 15, 14, 0, tzinfo=timezone.utc)
    agent = session(root, Clock(authored - timedelta(minutes=5)))
    agent.prompt("Rename the second setting")
    old = "".join(f"setting_{i} = {i}\n" for i in range(1, 6))
    (root / "settings.py").write_text(old, encoding="utf-8")
    git(root, "add", "-A")
    base = (authored + timedelta(days=13)).isoformat()  # the branch it was rebased onto moved on meanwhile
    git(root, "commit", "-q", "-m", "settings", env={"GIT_AUTHOR_DATE": base, "GIT_COMMITTER_DATE": base})
    new = old.replace("setting_2 = 2", "renamed_second_setting = 2")
    edit_id = agent.edit("Renaming it.", root / "settings.py", old, new)
    agent.save()
    git(
        root,
        "commit",
        "-q",
        "-am",
        "renamed, then rebased two weeks later",
        env={
            "GIT_AUTHOR_DATE": authored.isoformat(),
            "GIT_COMMITTER_DATE": (authored + timedelta(days=14)).isoformat(),
        },
    )
    line = blame_json(root, "settings.py:2")["lines"][0]
    assert (line["status"], line["attribution"]["method"], line["attribution"]["message_id"]) == (
        "agent",
        "content",
        edit_id,
    )


# --- whole-file blame
# ----------------------------------------------------------------------------


def test_whole_file_blame_answers_every_line_in_ranges_with_one_git_blame(repo: Path, tmp_path: Path) -> None:
    root = repo.resolve()
    install(root)
    agent = session(root)
    agent.prompt("Write a small module")
    write_id = agent.write(
        "Writing mod.py.", root / "mod.py", "import os\n\n\ndef home():\n    return os.environ['HOME']\n"
    )
    agent.save()
    first = commit(root, "module")
    with (root / "mod.py").open("a", encoding="utf-8") as handle:
        handle.write("\n# maintained by the platform team\nTEAM = 'platform'\n")
    second = commit(root, "ownership")

    trace = tmp_path / "trace.log"
    answer = blame_json(root, "mod.py", env={"GIT_TRACE": str(trace)})
    lines = answer["lines"]
    assert [ln["line"] for ln in lines] == list(range(1, 9))  # blank lines included
    assert [ln["content"] for ln in lines[:3]] == ["import os", "", ""]
    assert [(ln["status"], ln["commit"]) for ln in lines] == [("agent", first)] * 5 + [("human", second)] * 3
    attribution = {
        "agent": "claude-code",
        "session_id": agent.session_id,
        "message_id": write_id,
        "tool": "Write",
        "method": "note",
        "confidence": 1.0,
        "derived_from": None,
        "model": MODEL,
    }
    assert answer["ranges"] == [
        {"start": 1, "end": 5, "status": "agent", "attribution": attribution},
        {"start": 6, "end": 8, "status": "human", "attribution": None},
    ]
    assert all(ln["evidence"] and ln["evidence"][0]["text"] == "Write a small module" for ln in lines[:5])
    calls = trace.read_text(encoding="utf-8").splitlines()
    assert sum("built-in: git blame " in c for c in calls) == 1, calls
    # the notes of both commits read at once (a listing, then their blobs), none one by one
    assert sum("built-in: git notes --ref refs/notes/intent list" in c for c in calls) == 1, calls
    assert not any("built-in: git notes " in c and c.endswith((first, second)) for c in calls), calls

    text = run_cli("blame", "mod.py", cwd=root)
    assert text.returncode == 0, text.stderr
    rows = text.stdout.splitlines()
    label = f"claude-code {agent.session_id[:8]}:{write_id[:8]}"
    assert rows[0] == "mod.py · 8 lines · 2 ranges · 5 claude-code, 3 person"
    assert rows[1] == f"1 │ {label} │ import os"
    assert rows[2] == f"2 │ {' ' * len(label)} │ "
    assert rows[6] == f"6 │ {'person':<{len(label)}} │ "
    assert rows[8] == f"8 │ {' ' * len(label)} │ TEAM = 'platform'"
    assert (
        f"{label:<30}  lines 1-5  Write · {MODEL}  → git intent show {agent.session_id}:{write_id[:8]}"
        in rows
    )


@pytest.mark.slow
def test_whole_file_blame_of_a_long_file_stays_one_row_per_line(repo: Path) -> None:
    root = repo.resolve()
    (root / "big.txt").write_text("".join(f"row {i}\n" for i in range(1, 1001)), encoding="utf-8")
    commit(root, "a thousand rows, no hook")
    for n in range(1, 1001, 100):  # ten people's commits, each changing one row
        text = (root / "big.txt").read_text(encoding="utf-8").replace(f"row {n}\n", f"row {n} changed\n")
        (root / "big.txt").write_text(text, encoding="utf-8")
        commit(root, f"change {n}")
    proc = run_cli("blame", "big.txt", cwd=root)
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()
    # summary, the lines, a blank, the legend line, three of the eleven commits' reasons and a count
    assert len(rows) == 1 + 1000 + 1 + 1 + 3 + 1, rows[1000:]
    assert rows[-1] == "  … and 8 more unrecorded commits (--json gives every line's reason)"
    assert (
        rows[1].startswith("   1 │ unrecorded │ row 1 changed")
        and rows[1000] == "1000 │            │ row 1000"
    )
    assert len(json.loads(run_cli("blame", "big.txt", "--json", cwd=root).stdout)["ranges"]) == 1


# --- blame follows the diff; moves only on request
# -------------------------------------------


BLOCK = (
    "def retry_with_backoff(call, attempts=5):\n"
    "    for attempt in range(attempts):\n"
    "        delay_seconds = 2 ** attempt * 0.125\n"
    "        yield attempt, delay_seconds\n"
)


def test_plain_blame_keeps_an_agents_line_that_older_text_matches(repo: Path) -> None:
    root = repo.resolve()
    (root / "old.py").write_text("# helpers\n" + BLOCK, encoding="utf-8")
    older = commit(root, "an older copy of the text, no note")
    install(root)
    agent = session(root)
    agent.prompt("Copy the retry helper into net.py and tidy old.py")
    write_id = agent.write("Writing net.py.", root / "net.py", BLOCK)
    agent.edit("Tidying old.py.", root / "old.py", "# helpers\n", "# helpers (deprecated)\n")
    agent.save()
    added = commit(root, "net helper")
    assert [
        ln.split()[0]
        for ln in git(root, "blame", "-M", "-C", "--porcelain", "--", "net.py").splitlines()
        if len(ln.split()) >= 3 and len(ln.split()[0]) == 40
    ][:1] == [older]  # what -M -C did

    for args in (("net.py:1-4",), ("net.py:1-4", "--moves")):
        lines = blame_json(root, *args)["lines"]
        assert [(ln["commit"], *who(ln), ln["moved_in"]) for ln in lines] == [
            (added, "agent", agent.session_id, write_id, None)
        ] * 4, args


def test_moves_on_request_follow_a_persons_move_to_the_agents_commit(repo: Path) -> None:
    root = repo.resolve()
    install(root)
    git(root, "config", "intent.lookbackDays", "0")  # the person's commit must not re-credit the old edit
    agent = session(root)
    agent.prompt("Write the retry helper")
    write_id = agent.write("Writing a.py.", root / "a.py", "# a\n" + BLOCK)
    agent.save()
    written = commit(root, "retry helper")
    (root / "a.py").write_text("# a\n", encoding="utf-8")
    (root / "b.py").write_text("# b\n" + BLOCK, encoding="utf-8")
    moved = commit(root, "a person moves it to b.py")
    assert json.loads(note_text(root, moved).splitlines()[0]).get("lines_attributed") == 0  # type: ignore[union-attr]

    plain = blame_json(root, "b.py:2-5")["lines"]
    assert [(ln["commit"], ln["status"], ln["moved_in"]) for ln in plain] == [(moved, "human", None)] * 4
    follow = blame_json(root, "b.py:2-5", "--moves")["lines"]
    assert [(ln["commit"], *who(ln), ln["moved_in"]) for ln in follow] == [
        (written, "agent", agent.session_id, write_id, moved)
    ] * 4
    text = run_cli("blame", "b.py:2-5", "--moves", cwd=root).stdout  # -C needs 40 characters: the block
    assert f"moved     here by commit {moved[:12]}" in text


# --- the content fallback through the session index
# --------------------------------------------


def test_a_commit_without_a_note_is_answered_alike_with_and_without_the_session_index(repo: Path) -> None:
    """The index is a cache: it never changes an answer. With the transcript here the line is credited as
    `record` would credit it; once the transcript is gone, it is unrecorded, index or not."""
    root = repo.resolve()
    agent = session(root)
    agent.prompt("Add the cache helper")
    write_id = agent.write(
        "Writing cache.py.",
        root / "cache.py",
        "def cached_lookup(key, table):\n    return table.setdefault(key, compute_value(key))\n",
    )
    transcript = agent.save()
    sha = commit(root, "cache helper, no hook")
    without = blame_json(root, "cache.py:2")
    indexed = run_cli("index", "--json", cwd=root)
    assert indexed.returncode == 0, indexed.stderr
    line = blame_json(root, "cache.py:2")["lines"][0]
    assert line == without["lines"][0]
    assert (line["commit"], *who(line), line["attribution"]["method"], line["line_class"]) == (
        sha,
        "agent",
        agent.session_id,
        write_id,
        "content",
        "agent_with_evidence",
    )
    assert "Found by content" in line["reason"] and line["evidence"]

    shutil.rmtree(claude_project_dir(root))
    assert not transcript.exists() and not (root / ".opencode").exists()
    gone = blame_json(root, "cache.py:2")["lines"][0]
    assert (gone["status"], gone["attribution"], gone["line_class"]) == ("unrecorded", None, "unrecorded")
    os.remove(root / ".git" / "intent" / "index.db")
    assert blame_json(root, "cache.py:2")["lines"][0] == gone


def test_messages_carry_the_model_their_transcript_records() -> None:
    from conftest import corpus

    from git_intent.adapters import claude_code, codex

    claude = claude_code.read(
        corpus("linked", "entire-cli", "checkpoints", "8e", "ce5fc12e98", "0", "full.jsonl")
    )[0]
    assert {m.model for m in claude.messages if m.role == "assistant"} == {MODEL}
    assert {m.model for m in claude.messages if m.role != "assistant"} == {None}
    rollout = codex.read(corpus("linked", "git-sync", "checkpoints", "8f", "eaf84a600f", "0", "full.jsonl"))[
        0
    ]
    assert {m.model for m in rollout.messages if m.role == "assistant"} == {"gpt-5.4"}
