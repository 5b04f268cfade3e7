"""`git intent import`: a history rebuilt from the linked corpus with its Entire branch is explained line by
line after `import --from entire`; git-ai notes and Aider commit lines link commits to local sessions."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from support import (
    ClaudeSession,
    Clock,
    git,
    make_repo,
    run_cli,
    run_in_terminal,
)
from support.transcript_replay import linked_history


# (transcript, checkpoint id, rebuild, subject)
def import_json(repo: Path, source: str) -> dict[str, Any]:
    proc = run_cli("import", "--from", source, "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_entire_history_is_explained_line_by_line_after_import(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    linked_history(repo)
    result = import_json(repo, "entire")
    assert result["commits_in_head"] == result["commits"] == 4  # what `stats` counts as recorded
    assert json.loads(run_cli("stats", "--json", cwd=repo).stdout)["commits_recorded"] == 4
    credited: dict[str, int] = {}
    for record in result["results"]:
        for key, lines in record["sessions"].items():
            credited[key] = credited.get(key, 0) + lines
    print(f"import --from entire: {result['lines_attributed']}/{result['lines_added']} lines; {credited}")
    assert credited == {
        "claude-code:cc432c40-914a-4c1a-a972-0103199a736a": 54,
        "claude-code:1ed1f046-f456-4f14-9c74-bb83179cf809": 8,
        "claude-code:0a0314fb-b206-450f-b895-cd5181a28ae5": 32,
        "codex:019ddd6f-3680-7fb3-8f93-e567af97d303": 45,
    }
    # The transcripts exist only on the checkpoints branch and in the backup: blame still explains.
    line = json.loads(run_cli("blame", "internal/validation/validation.go:34", "--json", cwd=repo).stdout)[
        "lines"
    ][0]
    assert line["attribution"]["session_id"] == "019ddd6f-3680-7fb3-8f93-e567af97d303"
    assert line["evidence"][0]["role"] == "user" and "trailing slash" in line["evidence"][0]["text"]
    again = import_json(repo, "entire")
    assert [r["note_written"] for r in again["results"]] == [False] * len(again["results"])
    # Progress: a bar per stage on a terminal's stderr (reading the checkpoints took 27 s of 97 on
    # entireio/cli before the first commit was recorded); nothing on a pipe, nothing but the JSON with --json.
    code, shown = run_in_terminal(["git", "intent", "import", "--from", "entire"], repo)
    assert code == 0, shown
    assert "Reading Entire checkpoints" in shown and "Recording commits" in shown and "100%" in shown
    assert shown.rstrip().splitlines()[-1] == (
        "entire: 5 session(s), 4 commit(s) recorded; 139 of 139 added lines credited to agent sessions."
    )
    code, shown = run_in_terminal(["git", "intent", "import", "--from", "entire", "--json"], repo)
    assert code == 0 and json.loads(shown)["commits"] == 4
    piped = run_cli("import", "--from", "entire", cwd=repo)
    assert piped.returncode == 0 and piped.stderr == ""


def test_gitai_note_naming_a_local_session_records_the_commit(repo: Path) -> None:
    root = repo.resolve()
    session = ClaudeSession(cwd=root, clock=Clock(datetime.now(timezone.utc) - timedelta(minutes=20)))
    session.prompt("Add the scorer")
    write_id = session.write(
        "Writing it.", root / "score.py", "def score_points(hits):\n    return hits * 10\n"
    )
    session.save()
    git(root, "add", "score.py")
    git(root, "commit", "-q", "-m", "score")
    sha = git(root, "rev-parse", "HEAD").strip()
    note = "score.py\n  s_0123456789abcd 1-2\n---\n" + json.dumps(
        {
            "schema_version": "authorship/3.0.0",
            "git_ai_version": "1.0.0",
            "base_commit_sha": sha,
            "sessions": {
                "s_0123456789abcd": {
                    "agent_id": {"tool": "claude", "id": session.session_id, "model": "claude-opus-4-5"},
                    "human_author": "p",
                }
            },
        }
    )
    (root / ".git" / "ai-note").write_text(note)
    git(root, "notes", "--ref", "refs/notes/ai", "add", "-F", str(root / ".git" / "ai-note"), sha)
    result = import_json(root, "git-ai")
    assert (result["commits"], result["lines_attributed"], result["sessions"]) == (1, 2, 1)
    line = json.loads(run_cli("blame", "score.py:2", "--json", cwd=root).stdout)["lines"][0]
    assert (line["attribution"]["session_id"], line["attribution"]["message_id"]) == (
        session.session_id,
        write_id,
    )


def test_aider_commit_lines_link_commits(repo: Path) -> None:
    root = repo.resolve()
    started = datetime.now() - timedelta(minutes=10)
    (root / "greet.py").write_text("def greet_person(name):\n    return f'Hello, {name}!'\n")
    git(root, "add", "greet.py")
    git(root, "commit", "-q", "-m", "feat: add greet_person")
    short = git(root, "rev-parse", "--short", "HEAD").strip()
    history = (
        f"\n# aider chat started at {started:%Y-%m-%d %H:%M:%S}\n\n"
        "#### add a greet_person function to greet.py  \n\n"
        "greet.py\n```python\n<<<<<<< SEARCH\n=======\ndef greet_person(name):\n"
        "    return f'Hello, {name}!'\n>>>>>>> REPLACE\n```\n\n"
        f"> Applied edit to greet.py  \n> Commit {short} feat: add greet_person  \n"
    )
    (root / ".aider.chat.history.md").write_text(history)
    result = import_json(root, "aider")
    assert (result["commits"], result["lines_attributed"], result["lines_added"]) == (1, 2, 2)
    line = json.loads(run_cli("blame", "greet.py:1", "--json", cwd=root).stdout)["lines"][0]
    assert line["attribution"]["agent"] == "aider"
    assert "greet_person" in line["evidence"][0]["text"]


def test_import_without_records_is_one_sentence(repo: Path) -> None:
    for source, words in (
        ("entire", "no Entire checkpoints"),
        ("git-ai", "no git-ai notes"),
        ("aider", "no Aider chat history"),
    ):
        proc = run_cli("import", "--from", source, cwd=repo)
        assert proc.returncode == 1 and words in proc.stderr, proc.stderr
