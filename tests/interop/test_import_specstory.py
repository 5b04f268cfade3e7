"""`git intent import --from specstory`: SpecStory histories committed with the code are no evidence until
imported; then the commits their edits produced are credited to the messages that wrote them, "imported
from SpecStory"."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from conftest import corpus
from support import commit_at, git, make_repo, run_cli

UTC = timezone.utc
FOLDER = corpus("transcripts/specstory")
CLAUDE = FOLDER / "getspecstory__claude-code__2026-01-28_13-10-29Z-take-a-look-at.md"
CODEX = FOLDER / "getspecstory__codex__2026-02-20_16-33-05Z-start-with-docs-git.md"
CURSOR = FOLDER / "better-agents__cursor__check-and-fix-tag-format__excerpt.md"
OLDER = FOLDER / "minsky__2025-04-27_20-11-enhancing-session-commands-for-directory-management.md"
HISTORIES = (CLAUDE, CODEX, CURSOR, OLDER)


def fenced_after(text: str, marker: str, opening: str) -> str:
    """The text of the first fence opening with `opening` after `marker`, by plain string search."""
    start = text.index(opening, text.index(marker)) + len(opening)
    return text[start : text.index("\n```", start)]


def release_yml(tag_prefix: str, version_prefix: str) -> str:
    """A release workflow whose lines 10-14 and 43-47 are those the Cursor history's chunks show."""
    lines = [f"# line {n}" for n in range(1, 51)]
    lines[9:14] = [
        "  publish:",
        "    if: |",
        "      (github.event_name == 'release' && startsWith(github.event.release.tag_name, "
        f"'{tag_prefix}')) ||",
        "      (github.event_name == 'workflow_dispatch' && github.ref == 'refs/heads/main') ||",
        "      (github.event_name == 'workflow_call')",
    ]
    lines[42:47] = [
        "        run: |",
        '          TAG_NAME="${GITHUB_REF#refs/tags/}"',
        f'          VERSION="${{TAG_NAME#{version_prefix}}}"',
        '          echo "version=$VERSION" >> "$GITHUB_OUTPUT"',
        "",
    ]
    return "\n".join(lines) + "\n"


def build(root: Path) -> dict[str, str]:
    """A history whose commits hold what the histories' edits wrote, then the histories committed; the
    SHAs."""
    ci = fenced_after(CLAUDE.read_text(encoding="utf-8"), 'data-tool-name="Write"', "```yaml\n")
    diff = fenced_after(
        CODEX.read_text(encoding="utf-8"), "**Add: `docs/git-provenance/RECOMMENDATIONS.md`**", "```diff\n"
    )
    workflows = root / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "release.yml").write_text(release_yml("javascript/", "javascript/v"))
    shas = {"base": commit_at(root, "release workflow", datetime(2025, 11, 15, 6, 0, tzinfo=UTC), ".")}
    (workflows / "release.yml").write_text(
        release_yml("@langwatch/better-agents/", "@langwatch/better-agents/v")
    )
    shas["tags"] = commit_at(root, "tag format", datetime(2025, 11, 15, 6, 40, tzinfo=UTC), ".")
    (workflows / "ci.yml").write_text(ci)
    shas["ci"] = commit_at(root, "CI workflow", datetime(2026, 1, 28, 13, 22, 42, tzinfo=UTC), ".")
    (root / "docs" / "git-provenance").mkdir(parents=True)
    (root / "docs" / "git-provenance" / "RECOMMENDATIONS.md").write_text(
        "\n".join(line[1:] for line in diff.splitlines()) + "\n"
    )
    shas["docs"] = commit_at(root, "recommendations", datetime(2026, 2, 20, 16, 50, tzinfo=UTC), ".")
    history = root / ".specstory" / "history"
    history.mkdir(parents=True)
    for path in HISTORIES:
        shutil.copyfile(path, history / path.name)
    shutil.copyfile(
        CLAUDE, history / "2026-01-28_13-10-29Z-copy.md"
    )  # SpecStory renames: one session, two files
    (history / "README.md").write_text("# Our agent chats\n")
    shas["histories"] = commit_at(root, "SpecStory histories", datetime(2026, 3, 1, 9, 0, tzinfo=UTC), ".")
    return shas


def blame(root: Path, location: str) -> dict[str, Any]:
    proc = run_cli("blame", location, "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    line: dict[str, Any] = json.loads(proc.stdout)["lines"][0]
    return line


def import_json(root: Path, *args: str) -> dict[str, Any]:
    proc = run_cli("import", "--from", "specstory", *args, "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def test_committed_histories_credit_lines_only_once_imported(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    shas = build(root)
    # Before: the histories came with the commit, no agent of this machine wrote a line.
    before = blame(root, ".github/workflows/ci.yml:1")
    assert (before["status"], before["attribution"], before["line_class"]) == (
        "unrecorded",
        None,
        "unrecorded",
    )
    assert run_cli("record", shas["ci"], cwd=root).returncode == 0
    assert (
        blame(root, ".github/workflows/ci.yml:1")["line_class"] == "human"
    )  # recorded: still no agent's line
    git(root, "notes", "--ref", "refs/notes/git-intent", "remove", shas["ci"])

    result = import_json(root)
    ci = CLAUDE.read_text(encoding="utf-8")
    written = [
        line for line in fenced_after(ci, 'data-tool-name="Write"', "```yaml\n").splitlines() if line.strip()
    ]
    recommendations = [
        line
        for line in fenced_after(CODEX.read_text(encoding="utf-8"), "**Add: `docs", "```diff\n").splitlines()
        if line[1:].strip()
    ]
    assert (len(written), len(recommendations)) == (34, 221)
    assert {
        k: result[k] for k in ("sessions", "commits", "commits_in_head", "lines_added", "lines_attributed")
    } == {
        "sessions": 4,
        "commits": 3,
        "commits_in_head": 3,
        "lines_added": 2 + 34 + 221,
        "lines_attributed": 257,
    }
    assert [(r["commit"], r["lines_attributed"], r["sessions"]) for r in result["results"]] == [
        (shas["tags"], 2, {"specstory:80f30514-fcad-482a-8822-0444aaaba3db": 2}),
        (shas["ci"], 34, {"specstory:3c887384-88d4-4b43-b3de-b109170c7946": 34}),
        (shas["docs"], 221, {"specstory:019c7be4-e46e-7930-a7cb-7c6dfc4882c2": 221}),
    ]
    assert result["skipped"] == [
        "README.md: not a SpecStory history",
        "2026-01-28_13-10-29Z-copy.md: the session of "
        "getspecstory__claude-code__2026-01-28_13-10-29Z-take-a-look-at.md, which is kept (the longest)",
        "6 Claude Code edit(s) name their file but not the new text (SpecStory does not save it): "
        "session-level only, no line credited from them",
    ]

    line = blame(root, ".github/workflows/ci.yml:1")
    assert line["attribution"] == {
        "agent": "specstory",
        "session_id": "3c887384-88d4-4b43-b3de-b109170c7946",
        "message_id": "m33",
        "tool": "Write",
        "method": "note",
        "confidence": 1.0,
        "derived_from": None,
        "model": "claude-opus-4-5-20251101",
    }
    assert line["line_class"] == "agent_with_evidence"
    assert line["reason"].startswith(
        "Imported from SpecStory: the conversation is a SpecStory history that came"
    )
    assert [(e["kind"], e["message_id"]) for e in line["evidence"]][:1] == [("request", "m30")]
    assert "address the 2 version issues" in line["evidence"][0]["text"]
    patched = blame(root, ".github/workflows/release.yml:45")["attribution"]
    assert (patched["session_id"], patched["message_id"], patched["tool"]) == (
        "80f30514-fcad-482a-8822-0444aaaba3db",
        "m2",
        "search_replace",
    )
    text = run_cli("blame", ".github/workflows/ci.yml:1", cwd=root).stdout
    assert (
        "written   by specstory · session 3c887384-88d4-4b43-b3de-b109170c7946 · message m33 · Write" in text
    )
    assert "Imported from SpecStory" in text

    again = import_json(root)
    assert [r["note_written"] for r in again["results"]] == [False, False, False]
    assert again["lines_attributed"] == 257


def test_links_out_of_the_work_tree_and_fifos_are_not_read(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    history = root / ".specstory" / "history"
    history.mkdir(parents=True)
    secret = tmp_path / "elsewhere.md"
    secret.write_text(CLAUDE.read_text(encoding="utf-8"))  # any file of this user's, shaped like a history
    (history / "leak.md").symlink_to(secret)
    os.mkfifo(history / "pipe.md")
    shutil.copyfile(CURSOR, history / CURSOR.name)
    commit_at(
        root,
        "histories",
        datetime(2026, 1, 1, tzinfo=UTC),
        ".specstory/history/leak.md",
        f".specstory/history/{CURSOR.name}",
    )
    result = import_json(root)
    assert result["sessions"] == 1
    assert result["skipped"] == [
        f"leak.md: .specstory/history/leak.md leads outside the work tree (to {secret}); only files inside "
        "it are read.",
        "pipe.md: .specstory/history/pipe.md is not a regular file (a FIFO); only regular files are read.",
    ]
    assert not (
        root / ".opencode" / "intent" / "sessions" / "specstory" / "3c887384-88d4-4b43-b3de-b109170c7946.md"
    ).exists()


def test_another_folder_and_bad_folders(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "ci").mkdir()
    shutil.copyfile(CLAUDE, root / "ci" / CLAUDE.name)
    (root / "notes").mkdir()
    (root / "notes" / "todo.md").write_text("# todo\n")
    commit_at(root, "files", datetime(2026, 1, 28, 12, 0, tzinfo=UTC), ".")
    result = import_json(root, "ci")
    assert (result["sessions"], result["commits"]) == (1, 0)
    for args, sentence in (
        (["nowhere"], "There is no SpecStory history folder at nowhere."),
        ([], f"There is no SpecStory history folder at {root / '.specstory' / 'history'}."),
        (["notes"], "notes holds no SpecStory history (Markdown files SpecStory wrote)."),
    ):
        proc = run_cli("import", "--from", "specstory", *args, cwd=root)
        assert proc.returncode == 1 and proc.stdout == ""
        assert proc.stderr.splitlines()[0] == f"error: {sentence}"
