"""End to end through the installed post-commit hook: real `git commit`, real agent transcripts on disk.

The transcripts are written where and how Claude Code and Codex CLI write them (project folder named after
the cwd; dated rollout folder), the files are changed on disk exactly as the agents' edits would leave them,
and the commit is recorded by the hook's detached worker, so notes are polled for.
"""

from __future__ import annotations

import json
import re
import stat
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from support import (
    ClaudeSession,
    Clock,
    CodexSession,
    blame_json,
    claude_project_dir,
    commit_all,
    git,
    install,
    journal,
    json_lines,
    line_of,
    note_text,
    run_cli,
    wait_for,
    wait_for_note,
)

MARKER = "git-intent-hook-marker"


# --- the scenario shared by the main-flow tests ----------------------------------------------------------

UTIL_BEFORE = '"""Small helpers."""\n\n\ndef slugify(text):\n    return text.lower().replace(" ", "-")\n'
UTIL_AFTER = UTIL_BEFORE + (
    '\n\ndef shout(text):\n    """Upper-case text and add an exclamation mark."""\n'
    '    return text.upper() + "!"\n'
)
EXTRA = (
    '"""Constants added by the codex session."""\n\nDEFAULT_GREETING_TARGET = "world"\n'
    "MAX_GREETING_LENGTH = 280\n"
)
APP = (
    '"""Greeting service written by the agent for the end-to-end test."""\n\n\n'
    'def greet(name):\n    """Return a friendly greeting for name."""\n'
    '    return f"Hello, {name}! Welcome to git-intent."\n\n\n'
    'if __name__ == "__main__":\n    print(greet("world"))\n'
)
README_OLD = "# test repo"
README_NEW = "# test repo\n\nA greeting service that explains itself with git-intent."
CLAUDE_PROMPT = (
    "Add a greet(name) function in app.py that welcomes the user to git-intent, and mention it in the README."
)
CLAUDE_WRITE_TEXT = "I'll create app.py with a greet function and a small main block."
CLAUDE_EDIT_TEXT = "Now I'll describe the service in the README."
CODEX_PROMPT = "Add a shout(text) helper to lib/util.py and put the greeting constants in lib/extra.py."
CODEX_SAY = "I'm adding the shout helper next to slugify and a new constants module."


@dataclass
class Scenario:
    repo: Path
    commit: str
    claude: ClaudeSession
    claude_path: Path
    codex: CodexSession
    codex_path: Path
    prompt_id: str
    write_id: str
    edit_id: str
    codex_prompt_id: str
    codex_say_id: str
    patch_id: str


def agent_scenario(repo: Path, commit_after: timedelta | None = None) -> Scenario:
    """Baseline commit, hook installed, a Claude Code and a Codex session edit files, a real `git commit`,
    and the hook's worker has finished (note written, journal holds both sessions).

    `commit_after`: date the agent commit this long after now (default: the real time of the commit)."""
    repo = repo.resolve()
    (repo / "lib").mkdir()
    (repo / "lib" / "util.py").write_text(UTIL_BEFORE, encoding="utf-8")
    commit_all(repo, "baseline helpers")
    install(repo)
    time.sleep(0.05)
    clock = Clock()
    claude = ClaudeSession(cwd=repo, clock=clock)
    prompt_id = claude.prompt(CLAUDE_PROMPT)
    write_id = claude.write(CLAUDE_WRITE_TEXT, repo / "app.py", APP)
    edit_id = claude.edit(CLAUDE_EDIT_TEXT, repo / "README.md", README_OLD, README_NEW)
    claude.say("Done: app.py has greet(name) and the README describes it.")
    claude_path = claude.save()
    codex = CodexSession(cwd=repo, clock=clock)
    codex_prompt_id = codex.prompt(CODEX_PROMPT)
    codex_say_id = codex.say(CODEX_SAY)
    patch_id = codex.apply_patch({repo / "lib" / "util.py": UTIL_AFTER, repo / "lib" / "extra.py": EXTRA})
    codex.say("Added shout() and lib/extra.py.", phase="final_answer")
    codex_path = codex.save()
    env = None
    if commit_after is not None:
        when = (datetime.now(timezone.utc) + commit_after).isoformat()
        env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    sha = commit_all(repo, "greet, shout and constants", env=env)
    wait_for_note(repo, sha)
    wait_for(
        lambda: (
            {e["session_id"] for e in journal(repo) if e["commit"] == sha}
            >= {claude.session_id, codex.session_id}
        ),
        "the journal entries of both sessions",
    )
    return Scenario(
        repo=repo,
        commit=sha,
        claude=claude,
        claude_path=claude_path,
        codex=codex,
        codex_path=codex_path,
        prompt_id=prompt_id,
        write_id=write_id,
        edit_id=edit_id,
        codex_prompt_id=codex_prompt_id,
        codex_say_id=codex_say_id,
        patch_id=patch_id,
    )


# --- a. install / uninstall ----------------------------------------------------------------------------


LEGACY_HOOK = (
    "#!/bin/sh\n# a user hook that was here first\n"
    'echo "legacy ran $(git rev-parse HEAD)" >> "$(git rev-parse --git-dir)/legacy-ran"\n'
)


def test_install_prints_changes_and_is_idempotent(repo: Path) -> None:
    root = repo.resolve()
    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    hook = root / ".git" / "hooks" / "post-commit"
    assert proc.stdout.splitlines() == [
        f"Installed the post-commit hook at {hook}.",
        f"Installed the post-rewrite hook at {hook.with_name('post-rewrite')}.",
        f"Installed the post-merge hook at {hook.with_name('post-merge')}.",
        f"Installed the post-checkout hook at {hook.with_name('post-checkout')}.",
        "Set git config notes.intent.mergeStrategy = cat_sort_uniq.",
        "Created refs/notes/intent.",
        "Added /.opencode/intent/ (the local backup) to .git/info/exclude.",
        "Notes stay on this machine until `git intent push`; `git intent install --push-notes` makes every "
        "`git push` carry them.",
    ]
    assert proc.stderr == ""
    assert MARKER in hook.read_text(encoding="utf-8")
    assert hook.stat().st_mode & stat.S_IXUSR
    # git itself never reads refs/notes/intent (a damaged ref must not fail an amend or rebase)
    assert git(repo, "config", "--get-all", "notes.rewriteRef", check=False) == ""
    assert git(repo, "config", "--get-all", "notes.intent.mergeStrategy").splitlines() == ["cat_sort_uniq"]
    exclude = (root / ".git" / "info" / "exclude").read_text(encoding="utf-8")
    assert exclude.splitlines().count("/.opencode/intent/") == 1

    again = run_cli("install", cwd=repo)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "git-intent is already installed here; nothing changed.\n"
    assert (root / ".git" / "info" / "exclude").read_text(encoding="utf-8") == exclude


def test_install_adds_post_rewrite_hook(repo: Path) -> None:
    install(repo)
    hook = repo / ".git" / "hooks" / "post-rewrite"
    assert hook.is_file() and MARKER in hook.read_text(encoding="utf-8")


@pytest.mark.slow
def test_existing_hook_is_kept_runs_and_is_restored(repo: Path) -> None:
    root = repo.resolve()
    hooks = root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    user_hook = hooks / "post-commit"
    user_hook.write_bytes(LEGACY_HOOK.encode())
    user_hook.chmod(0o755)

    proc = run_cli("install", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == [
        "Kept your existing post-commit hook as post-commit.legacy; it still runs first.",
        f"Installed the post-commit hook at {user_hook}.",
    ]
    assert (hooks / "post-commit.legacy").read_bytes() == LEGACY_HOOK.encode()
    assert MARKER in user_hook.read_text(encoding="utf-8")

    (repo / "notes.txt").write_text("a person wrote this line by hand\n", encoding="utf-8")
    sha = commit_all(repo, "human change")
    assert (root / ".git" / "legacy-ran").read_text(encoding="utf-8") == f"legacy ran {sha}\n"
    records = json_lines(wait_for_note(repo, sha))
    assert [r["kind"] for r in records] == ["commit"]
    assert (records[0]["lines_added"], records[0]["lines_attributed"]) == (1, 0)

    again = run_cli("install", cwd=repo)
    assert again.stdout == "git-intent is already installed here; nothing changed.\n"
    assert (hooks / "post-commit.legacy").read_bytes() == LEGACY_HOOK.encode()

    gone = run_cli("uninstall", cwd=repo)
    assert gone.returncode == 0, gone.stderr
    assert gone.stdout.splitlines() == [
        "Removed the post-commit hook.",
        "Restored your earlier post-commit hook.",
        "Removed the post-rewrite hook.",
        "Removed the post-merge hook.",
        "Removed the post-checkout hook.",
        "Unset git config notes.intent.mergeStrategy = cat_sort_uniq.",
    ]
    assert user_hook.read_bytes() == LEGACY_HOOK.encode()
    assert user_hook.stat().st_mode & stat.S_IXUSR
    assert not (hooks / "post-commit.legacy").exists()
    assert git(repo, "config", "--get-all", "notes.rewriteRef", check=False) == ""
    assert run_cli("uninstall", cwd=repo).stdout == "git-intent was not installed here; nothing changed.\n"
    # notes stay after uninstall
    assert note_text(repo, sha) is not None


# --- b. the main flow -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_hook_records_claude_and_codex_sessions(repo: Path) -> None:
    s = agent_scenario(repo)
    root = s.repo

    # The note: one commit record, both sessions, line ranges.
    records = json_lines(note_text(root, s.commit) or "")
    commit_record = [r for r in records if r["kind"] == "commit"]
    assert len(commit_record) == 1 and commit_record[0]["commit"] == s.commit
    sessions = {(r["agent"], r["session_id"]) for r in records if r["kind"] == "session"}
    assert sessions == {("claude-code", s.claude.session_id), ("codex", s.codex.session_id)}

    # Claude Code: a line of the Write, and a line of the Edit.
    line = line_of(root / "app.py", '    return f"Hello, {name}! Welcome to git-intent."')
    answer = blame_json(root, f"app.py:{line}")
    assert len(answer["lines"]) == 1
    got = answer["lines"][0]
    assert (got["path"], got["line"], got["commit"]) == ("app.py", line, s.commit)
    assert got["content"] == '    return f"Hello, {name}! Welcome to git-intent."'
    assert got["status"] == "agent"
    attribution = got["attribution"]
    assert (
        attribution["agent"],
        attribution["session_id"],
        attribution["message_id"],
        attribution["tool"],
    ) == ("claude-code", s.claude.session_id, s.write_id, "Write")
    assert attribution["method"] == "note"
    assert attribution["confidence"] == 1.0
    first = got["evidence"][0]
    assert (first["role"], first["message_id"], first["session_id"], first["text"]) == (
        "user",
        s.prompt_id,
        s.claude.session_id,
        CLAUDE_PROMPT,
    )
    assert first["timestamp"] is not None
    roles = [(e["role"], e["message_id"]) for e in got["evidence"]]
    assert ("assistant", s.write_id) in roles
    assert any(CLAUDE_WRITE_TEXT in e["text"] for e in got["evidence"])

    readme_line = line_of(root / "README.md", "A greeting service that explains itself with git-intent.")
    got = blame_json(root, f"README.md:{readme_line}")["lines"][0]
    assert (
        got["attribution"]["agent"],
        got["attribution"]["session_id"],
        got["attribution"]["message_id"],
        got["attribution"]["tool"],
    ) == ("claude-code", s.claude.session_id, s.edit_id, "Edit")
    assert (got["evidence"][0]["role"], got["evidence"][0]["message_id"], got["evidence"][0]["text"]) == (
        "user",
        s.prompt_id,
        CLAUDE_PROMPT,
    )
    # the README's first line predates the session: it is the root commit's, which has no note
    root_line = run_cli("blame", "README.md:1", "--json", cwd=root)
    assert json.loads(root_line.stdout)["lines"][0]["status"] == "unrecorded"

    # Codex: an updated file and an added file, both from the one apply_patch call.
    assert re.fullmatch(r"r\d+", s.patch_id)
    for path, text in (
        ("lib/util.py", '    return text.upper() + "!"'),
        ("lib/extra.py", "MAX_GREETING_LENGTH = 280"),
    ):
        n = line_of(root / path, text)
        got = blame_json(root, f"{path}:{n}")["lines"][0]
        assert got["commit"] == s.commit and got["status"] == "agent"
        assert (
            got["attribution"]["agent"],
            got["attribution"]["session_id"],
            got["attribution"]["message_id"],
            got["attribution"]["tool"],
        ) == ("codex", s.codex.session_id, s.patch_id, "apply_patch")
        assert (got["evidence"][0]["role"], got["evidence"][0]["message_id"], got["evidence"][0]["text"]) == (
            "user",
            s.codex_prompt_id,
            CODEX_PROMPT,
        )
        assert any(e["message_id"] == s.codex_say_id and e["text"] == CODEX_SAY for e in got["evidence"])
    # The untouched baseline line of lib/util.py stays with the (unrecorded) baseline commit.
    slug = blame_json_any(root, "lib/util.py:4")["lines"][0]
    assert slug["commit"] != s.commit and slug["attribution"] is None

    # A range: app.py lines 1-6 all come from the Write.
    whole = blame_json(root, f"app.py:1-{line}")
    assert [ln["line"] for ln in whole["lines"]] == list(range(1, line + 1))
    credited = [ln for ln in whole["lines"] if ln["content"].strip()]
    assert all(ln["attribution"]["message_id"] == s.write_id for ln in credited)

    # Human-readable blame names the session and the message.
    readable = run_cli("blame", f"app.py:{line}", cwd=root)
    assert readable.returncode == 0, readable.stderr
    assert f"git intent show {s.claude.session_id}:{s.write_id[:8]}" in readable.stdout
    assert CLAUDE_PROMPT in " ".join(readable.stdout.split())


def blame_json_any(repo: Path, location: str) -> dict[str, Any]:
    """`blame --json`, which exits 0 whatever the lines' statuses."""
    proc = run_cli("blame", location, "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    answer: dict[str, Any] = json.loads(proc.stdout)
    return answer


@pytest.mark.slow
def test_show_log_and_backup_after_hook(repo: Path) -> None:
    s = agent_scenario(repo)
    root = s.repo

    # show SESSION:MESSAGE prints the exact message text
    shown = run_cli("show", f"{s.claude.session_id}:{s.prompt_id}", cwd=root)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"session   claude-code {s.claude.session_id}"
    assert lines[1].startswith(f"── {s.prompt_id} · user (prompt) · ")
    assert lines[2:] == [CLAUDE_PROMPT]
    shown = run_cli("show", f"{s.claude.session_id[:8]}:{s.write_id[:8]}", cwd=root)
    assert shown.returncode == 0, shown.stderr
    assert CLAUDE_WRITE_TEXT in shown.stdout.splitlines()
    assert "[tool call Write " in shown.stdout
    shown = run_cli("show", f"{s.codex.session_id}:{s.codex_prompt_id}", cwd=root)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[2:] == [CODEX_PROMPT]
    as_json = run_cli("show", f"{s.codex.session_id}:{s.codex_say_id}", "--json", cwd=root)
    message = json.loads(as_json.stdout)
    assert (message["message_id"], message["role"]) == (s.codex_say_id, "assistant")
    assert [p["text"] for p in message["parts"]] == [CODEX_SAY]

    # log lists the commit with both sessions
    log = run_cli("log", cwd=root)
    assert log.returncode == 0, log.stderr
    assert log.stdout.splitlines()[0].startswith(s.commit[:12])
    assert "greet, shout and constants" in log.stdout.splitlines()[0]
    assert s.claude.session_id in log.stdout and s.codex.session_id in log.stdout
    entries = json.loads(run_cli("log", "--json", cwd=root).stdout)
    assert entries[0]["commit"] == s.commit and entries[0]["recorded"] is True
    credited = {(c["agent"], c["session_id"]): c["lines"] for c in entries[0]["sessions"]}
    # app.py: 6 non-blank of 10 lines; README: 1 (+ blank); util.py: 3 (+2 blank); extra.py: 3 (+1 blank)
    assert set(credited) == {("claude-code", s.claude.session_id), ("codex", s.codex.session_id)}
    assert entries[0]["lines_added"] == 6 + 1 + 3 + 3
    assert entries[0]["lines_attributed"] == entries[0]["lines_added"]

    # the local backup: journal lines for the commit, private session copies, never in git status
    mine = [e for e in journal(root) if e["commit"] == s.commit]
    assert {(e["agent"], e["session_id"]) for e in mine} == {
        ("claude-code", s.claude.session_id),
        ("codex", s.codex.session_id),
    }
    assert all(e["lines"] > 0 for e in mine)
    for agent, session_id, source in (
        ("claude-code", s.claude.session_id, s.claude_path),
        ("codex", s.codex.session_id, s.codex_path),
    ):
        copy = root / ".opencode" / "intent" / "sessions" / agent / f"{session_id}.jsonl"
        assert copy.read_bytes() == source.read_bytes()
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert stat.S_IMODE((root / ".opencode" / "intent" / "journal.jsonl").stat().st_mode) == 0o600
    assert ".opencode" not in git(root, "status", "--porcelain", "--untracked-files=all")
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""

    # the backup keeps the why answerable after the agents delete their transcripts
    s.claude_path.unlink()
    s.codex_path.unlink()
    line = line_of(root / "app.py", '    return f"Hello, {name}! Welcome to git-intent."')
    got = blame_json(root, f"app.py:{line}")["lines"][0]
    assert got["attribution"]["message_id"] == s.write_id
    assert got["evidence"][0]["text"] == CLAUDE_PROMPT


# --- c. a person changes an agent line afterwards ----------------------------------------------------------


AGENT_LINE = '    return f"Hello, {name}! Welcome to git-intent."'
HUMAN_LINE = '    return f"Hello, {name}! Welcome back to git-intent."'


def human_tweak(s: Scenario) -> str:
    """A person rewords one of the agent's lines and commits it five minutes later."""
    app = s.repo / "app.py"
    app.write_text(app.read_text(encoding="utf-8").replace(AGENT_LINE, HUMAN_LINE), encoding="utf-8")
    later = (datetime.now(timezone.utc) + timedelta(minutes=5)).isoformat()
    sha = commit_all(
        s.repo, "tweak the greeting", env={"GIT_AUTHOR_DATE": later, "GIT_COMMITTER_DATE": later}
    )
    wait_for_note(s.repo, sha)
    return sha


def assert_human_tweak(s: Scenario, sha: str) -> None:
    root, app = s.repo, s.repo / "app.py"
    records = json_lines(note_text(root, sha) or "")
    assert [r["kind"] for r in records] == ["commit"], records
    assert (records[0]["lines_added"], records[0]["lines_attributed"]) == (1, 0)
    got = blame_json(root, f"app.py:{line_of(app, HUMAN_LINE)}")["lines"][0]
    assert (got["commit"], got["attribution"], got["status"], got["evidence"]) == (sha, None, "human", [])
    assert got["content"] == HUMAN_LINE
    for text in ("def greet(name):", '    """Return a friendly greeting for name."""'):
        other = blame_json(root, f"app.py:{line_of(app, text)}")["lines"][0]
        assert other["commit"] == s.commit
        assert (other["attribution"]["session_id"], other["attribution"]["message_id"]) == (
            s.claude.session_id,
            s.write_id,
        )


@pytest.mark.slow
def test_human_change_after_agent_commit(repo: Path) -> None:
    # the agent ran its checks and committed twenty seconds after its last edit
    s = agent_scenario(repo, commit_after=timedelta(seconds=20))
    assert_human_tweak(s, human_tweak(s))


@pytest.mark.slow
def test_human_change_after_agent_committed_at_once(repo: Path) -> None:
    # regression: edits up to 2s before the parent commit were reused for the next commit and a reworded
    # line went to the agent as a fuzzy match
    s = agent_scenario(repo)  # the agent committed in the same second as its last edit
    assert_human_tweak(s, human_tweak(s))


# --- d. a session of another repository is never credited ---------------------------------------------------


@pytest.mark.slow
def test_session_of_another_repository_is_not_credited(repo: Path, tmp_path: Path) -> None:
    root = repo.resolve()
    # "<tmp>/repo-2": its Claude project folder name starts with this repository's folder name plus '-'
    other = (tmp_path / "repo-2").resolve()
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    (other / "README.md").write_text("# test repo\n")
    git(other, "add", "README.md")
    git(other, "commit", "-q", "-m", "initial")
    assert claude_project_dir(other).name.startswith(claude_project_dir(root).name + "-")
    install(repo)
    time.sleep(0.05)

    clock = Clock()
    claude = ClaudeSession(cwd=other, clock=clock)
    claude.prompt(CLAUDE_PROMPT)
    claude.write(CLAUDE_WRITE_TEXT, other / "app.py", APP)
    claude.save()
    codex = CodexSession(cwd=other, clock=clock)
    codex.prompt(CODEX_PROMPT)
    codex.apply_patch({other / "lib" / "extra.py": EXTRA})
    codex.save()
    # meanwhile, in this repository, a person types the very same lines
    (root / "app.py").write_text(APP, encoding="utf-8")
    (root / "lib").mkdir()
    (root / "lib" / "extra.py").write_text(EXTRA, encoding="utf-8")
    sha = commit_all(root, "same lines, typed by hand")

    records = json_lines(wait_for_note(root, sha))
    assert [r["kind"] for r in records] == ["commit"], records
    assert records[0]["lines_attributed"] == 0
    got = blame_json(root, f"app.py:{line_of(root / 'app.py', 'def greet(name):')}")["lines"][0]
    assert (got["attribution"], got["status"]) == (None, "human")
    got = blame_json(root, "lib/extra.py:4")["lines"][0]
    assert (got["attribution"], got["status"]) == (None, "human")
    assert not (root / ".opencode" / "intent" / "sessions").exists()


# --- e. GIT_INTENT=0 ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_git_intent_0_disables_the_hook(repo: Path) -> None:
    install(repo)
    (repo / "notes.txt").write_text("written while git-intent was switched off\n", encoding="utf-8")
    # GIT_INTENT_HOOK_SYNC=1 makes an enabled hook record before `git commit` returns, so the absence of a
    # note right after the commit proves the hook did nothing.
    sha = commit_all(repo, "off", env={"GIT_INTENT": "0", "GIT_INTENT_HOOK_SYNC": "1"})
    assert note_text(repo, sha) is None
    queue = repo / ".git" / "intent" / "queue.jsonl"
    assert not queue.exists() or sha not in queue.read_text(encoding="utf-8")
    time.sleep(0.5)
    assert note_text(repo, sha) is None
    # and the same commit path with the hook on does record (control)
    (repo / "notes.txt").write_text("written with git-intent on\n", encoding="utf-8")
    sha = commit_all(repo, "on", env={"GIT_INTENT_HOOK_SYNC": "1"})
    assert note_text(repo, sha) is not None


# --- f. record is idempotent
# -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_record_twice_leaves_the_note_byte_identical(repo: Path) -> None:
    s = agent_scenario(repo)
    root = s.repo
    before = note_text(root, s.commit)
    entries = len(journal(root))
    for _ in range(2):
        proc = run_cli("record", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith(f"{s.commit[:12]}: 13 of 13 added lines credited to agent sessions: ")
        assert proc.stdout.endswith(" Note unchanged.\n")
        assert f"claude-code:{s.claude.session_id} (7 lines)" in proc.stdout
        assert f"codex:{s.codex.session_id} (6 lines)" in proc.stdout
        assert note_text(root, s.commit) == before
    assert len(journal(root)) == entries
    as_json = json.loads(run_cli("record", s.commit[:12], "--json", cwd=root).stdout)
    assert (
        as_json["commit"],
        as_json["note_written"],
        as_json["lines_added"],
        as_json["lines_attributed"],
    ) == (s.commit, False, 13, 13)


def test_record_without_hook_writes_then_says_unchanged(repo: Path) -> None:
    (repo / "hand.txt").write_text("a line typed by a person\n", encoding="utf-8")
    sha = commit_all(repo, "by hand")
    first = run_cli("record", cwd=repo)
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"{sha[:12]}: 0 of 1 added lines credited to agent sessions. Note written.\n"
    text = note_text(repo, sha)
    second = run_cli("record", "HEAD", cwd=repo)
    assert second.stdout == f"{sha[:12]}: 0 of 1 added lines credited to agent sessions. Note unchanged.\n"
    assert note_text(repo, sha) == text


def test_hook_fast_path_imports_only_the_standard_library() -> None:
    """docs/design.md: importing pydantic/pygit2 in the hook adds ~100-190 ms to every commit."""
    import subprocess
    import sys

    code = (
        "import sys, git_intent.capture.hook; print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pydantic', 'pygit2', 'click', 'rapidfuzz', 'sqlite_utils', 'litellm')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
