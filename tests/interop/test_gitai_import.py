"""`git intent import --from git-ai` on both note formats: git-ai 1.4's sessions-v2 (`sessions` records, keys
`s_…::t_…`, no message text) and the older `prompts` format, each on a commit of a real repository.

The notes are real ones from git-ai's own refs/notes/ai (fixtures/linked/git-ai-notes, provenance in
fixtures/linked/README.md), or built as git-ai 1.4+ serialises them
(src/authorship/authorship_log_serialization.rs: keys `s_` + 14 hex of SHA-256 of `tool:id`, `t_` + 14 random
hex). The files they annotate are built so that every line is unique: a line credited by text alone cannot
land on another line.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from conftest import corpus, git, run_cli
from support import at, blame_json, make_repo, note_records, note_text, session_cwd
from support.transcript_replay import commit_replayed, rebuild_codex, write_replayed

from git_intent.adapters import codex
from git_intent.peers.git_ai import attested_spans, parse_gitai_note

NOTES = corpus("linked", "git-ai-notes")
V2_CODEX = "01a5453803e2452430fa2bde9a3cd6f7dfa95ccf"  # git-ai 1.5.3: one codex session, keys s_…::t_…
OLD_CURSOR = (
    "00309900d71f8da788cde3006b058627ec0841a7"  # git-ai 1.0.22: a prompts record with messages, `human`
)
CODEX_130 = corpus("transcripts", "codex", "git-sync__6857343fdac4__0.130-excerpt.jsonl")
CODEX_SESSION = "019e27f2-b7de-71c3-a0f9-70d6539231ba"


def import_json(repo: Path) -> dict[str, Any]:
    proc = run_cli("import", "--from", "git-ai", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def add_note(repo: Path, commit: str, text: str) -> None:
    note = repo / ".git" / "ai-note.txt"
    note.write_text(text, encoding="utf-8")
    git(repo, "notes", "--ref", "refs/notes/ai", "add", "-f", "-F", str(note), commit)


def commit_files(repo: Path, files: dict[str, int], subject: str) -> str:
    """Commit `files` (path -> line count), each line unique (`<path> line <n>`); returns the commit."""
    for path, count in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text("".join(f"{path} line {n}\n" for n in range(1, count + 1)), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject)
    return git(repo, "rev-parse", "HEAD").strip()


def credited(repo: Path, commit: str) -> dict[tuple[str, str, str, str | None], dict[str, list[int]]]:
    """{(agent, session id, tool, model): {path: the lines credited}} of the git-intent note on `commit`."""
    found: dict[tuple[str, str, str, str | None], dict[str, list[int]]] = {}
    for record in note_records(repo, commit):
        if record.get("kind") == "lines":
            key = (record["agent"], record["session_id"], record["tool"], record.get("model_id"))
            found.setdefault(key, {}).setdefault(record["path"], []).extend(
                range(record["start"], record["end"] + 1)
            )
    return {key: {path: sorted(lines) for path, lines in paths.items()} for key, paths in found.items()}


def lines(spec: str) -> list[int]:
    """`1-3,7` -> [1, 2, 3, 7]."""
    out: list[int] = []
    for part in spec.split(","):
        start, _, end = part.partition("-")
        out.extend(range(int(start), int(end or start) + 1))
    return out


def session_key(tool: str, agent_id: str) -> str:
    """The session key git-ai 1.4+ writes (`generate_session_id`)."""
    return "s_" + hashlib.sha256(f"{tool}:{agent_id}".encode()).hexdigest()[:14]


def test_session_key_is_git_ais() -> None:
    """The real 1.5.3 note's key is computed from its `agent_id` as the builder above computes it."""
    note = parse_gitai_note((NOTES / f"{V2_CODEX}.note.txt").read_text(encoding="utf-8"))
    assert list(note.sessions) == [session_key("codex", "019e8e27-0a8c-7eb2-b677-5719a3a20122")]


def test_sessions_v2_note_credits_its_exact_lines_to_the_agent_and_model(repo: Path) -> None:
    """No transcript of the codex session is here: its attested lines go to codex and gpt-5.5,
    session-less, and every other added line is a person's."""
    commit = commit_files(
        repo, {"agent-support/opencode/git-ai.ts": 410, "src/mdm/agents/opencode.rs": 220}, "v2"
    )
    add_note(repo, commit, (NOTES / f"{V2_CODEX}.note.txt").read_text(encoding="utf-8"))
    result = import_json(repo)
    assert (result["sessions"], result["commits"], result["lines_added"], result["lines_attributed"]) == (
        0,
        1,
        630,
        148,
    )
    assert result["skipped"] == [
        f"{commit[:12]}: the codex session 019e8e27-0a8c-7eb2-b677-5719a3a20122 is not on this machine"
    ]
    assert credited(repo, commit) == {
        ("codex", "", "git-ai", "gpt-5.5"): {
            "agent-support/opencode/git-ai.ts": lines("20,165-171,267-400,402-406"),
            "src/mdm/agents/opencode.rs": [215],
        }
    }
    line = blame_json(repo, "src/mdm/agents/opencode.rs:215")["lines"][0]
    assert line["attribution"] == {
        "agent": "codex",
        "session_id": "",
        "message_id": "",
        "tool": "git-ai",
        "method": "agent-trace",
        "confidence": 0.5,
        "derived_from": None,
        "model": "gpt-5.5",
    }
    assert line["status"] == "agent" and line["line_class"] == "agent_without_evidence"
    assert "git-ai note" in line["reason"]
    assert blame_json(repo, "src/mdm/agents/opencode.rs:214")["lines"][0]["status"] == "human"


def _codex_history(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository whose last commit is what the real codex 0.130 session wrote (its files before it in a
    baseline commit), with that session's rollout where Codex keeps rollouts; (repo, commit, parent)."""
    repo = make_repo(tmp_path / "repo")
    rebuild = rebuild_codex(CODEX_130)
    cwd = session_cwd(CODEX_130)
    write_replayed(repo, rebuild.pre, cwd)
    parent = commit_replayed(repo, "baseline", at(rebuild.first_edit_at) - timedelta(minutes=30))
    write_replayed(repo, rebuild.post, cwd)
    commit = commit_replayed(
        repo, "update to go-git v6.0.0-alpha.3", at(rebuild.last_edit_at) + timedelta(minutes=1)
    )
    rollouts = codex.codex_home() / "sessions" / "2026" / "05" / "14"
    rollouts.mkdir(parents=True)
    shutil.copy(CODEX_130, rollouts / f"rollout-2026-05-14T10-00-00-{CODEX_SESSION}.jsonl")
    return repo, commit, parent


def _added(repo: Path, commit: str, parent: str) -> dict[str, list[int]]:
    """{path: the line numbers `commit` added against `parent`}, from `git diff -U0`."""
    added: dict[str, list[int]] = {}
    path = ""
    for row in git(repo, "diff", "-U0", "--no-renames", parent, commit).splitlines():
        if row.startswith("+++ b/"):
            path = row[len("+++ b/") :]
        elif row.startswith("@@"):
            new = row.split()[2][1:]
            start, _, count = new.partition(",")
            added.setdefault(path, []).extend(range(int(start), int(start) + int(count or 1)))
    return added


def _v2_note(commit: str, attested: dict[str, list[int]], tool: str, agent_id: str, model: str) -> str:
    """A sessions-v2 note as git-ai 1.4+ serialises one: per file one `s_…::t_…` entry, then the metadata."""
    key = session_key(tool, agent_id)
    head = "".join(
        f"{path}\n  {key}::t_{n:014x} {','.join(map(str, numbers))}\n"
        for n, (path, numbers) in enumerate(sorted(attested.items()))
    )
    return (
        head
        + "---\n"
        + json.dumps(
            {
                "schema_version": "authorship/3.0.0",
                "git_ai_version": "1.6.24",
                "base_commit_sha": commit,
                "prompts": {},
                "sessions": {
                    key: {
                        "agent_id": {"tool": tool, "id": agent_id, "model": model},
                        "human_author": "A Person <person@example.com>",
                    }
                },
            },
            indent=2,
        )
    )


def test_local_transcript_of_the_named_session_credits_each_line_to_its_message(tmp_path: Path) -> None:
    repo, commit, parent = _codex_history(tmp_path)
    attested = _added(repo, commit, parent)
    add_note(repo, commit, _v2_note(commit, attested, "codex", CODEX_SESSION, "gpt-5.5"))
    result = import_json(repo)
    assert (result["sessions"], result["commits"], result["skipped"]) == (1, 1, [])
    records = [r for r in note_records(repo, commit) if r.get("kind") == "lines"]
    # Every line the note attests is credited, and to the session by a message: the transcript wins them all.
    assert {(r["agent"], r["session_id"], r["tool"]) for r in records} == {
        ("codex", CODEX_SESSION, "apply_patch")
    }
    assert all(r["message_id"] for r in records)
    assert result["lines_attributed"] == result["lines_added"] == 12
    (session,) = codex.read(CODEX_130)
    edit = next(e for e in session.edits if e.path.endswith("internal/gitproto/capability.go"))
    text = next(a.text for a in edit.added if a.text.strip())
    number = (repo / "internal/gitproto/capability.go").read_text(encoding="utf-8").splitlines().index(
        text
    ) + 1
    got = blame_json(repo, f"internal/gitproto/capability.go:{number}")["lines"][0]["attribution"]
    assert (got["session_id"], got["message_id"], got["method"]) == (CODEX_SESSION, edit.message_id, "note")


def test_old_format_note_with_a_local_transcript_imports_as_before(tmp_path: Path) -> None:
    """A `prompts` record (16-hex key, `messages` embedded) naming the same local session: the transcript
    credits the lines, message by message, as before sessions-v2."""
    repo, commit, parent = _codex_history(tmp_path)
    key = hashlib.sha256(f"codex:{CODEX_SESSION}".encode()).hexdigest()[:16]
    head = "".join(
        f"{path}\n  {key} {','.join(map(str, numbers))}\n"
        for path, numbers in sorted(_added(repo, commit, parent).items())
    )
    add_note(
        repo,
        commit,
        head
        + "---\n"
        + json.dumps(
            {
                "schema_version": "authorship/3.0.0",
                "git_ai_version": "1.0.25",
                "base_commit_sha": commit,
                "prompts": {
                    key: {
                        "agent_id": {"tool": "codex", "id": CODEX_SESSION, "model": "gpt-5.5"},
                        "human_author": None,
                        "messages": [{"type": "user", "text": "update go-git"}],
                        "total_additions": 12,
                        "total_deletions": 12,
                        "accepted_lines": 12,
                        "overriden_lines": 0,
                    }
                },
            },
            indent=2,
        ),
    )
    result = import_json(repo)
    assert (result["sessions"], result["commits"], result["lines_attributed"], result["skipped"]) == (
        1,
        1,
        12,
        [],
    )
    assert {(r["session_id"], r["tool"]) for r in note_records(repo, commit) if r.get("kind") == "lines"} == {
        (CODEX_SESSION, "apply_patch")
    }


def test_old_and_new_formats_in_one_history_and_in_one_note(repo: Path) -> None:
    """An older `prompts` note (with the literal `human` key), a sessions-v2 note, and one note holding
    both kinds of key (git-ai's transition: docs/migrations/sessions-v2-note-format.md, change 4)."""
    old = commit_files(repo, {"docs/reference.mdx": 60, "tests/stats.rs": 210}, "old")
    add_note(repo, old, (NOTES / f"{OLD_CURSOR}.note.txt").read_text(encoding="utf-8"))
    new = commit_files(
        repo, {"agent-support/opencode/git-ai.ts": 410, "src/mdm/agents/opencode.rs": 220}, "v2"
    )
    add_note(repo, new, (NOTES / f"{V2_CODEX}.note.txt").read_text(encoding="utf-8"))
    mixed = commit_files(repo, {"src/main.rs": 30}, "mixed")
    add_note(
        repo,
        mixed,
        "src/main.rs\n  c9883b05a2487d6d 1-10\n  s_c9883b05a2487d::t_9f8e7d6c5b4a32 15-20\n"
        "  h_a1b2c3d4e5f678 21\n---\n"
        + json.dumps(
            {
                "schema_version": "authorship/3.0.0",
                "base_commit_sha": mixed,
                "prompts": {
                    "c9883b05a2487d6d": {
                        "agent_id": {"tool": "cursor", "id": "session_123", "model": "gpt-4"},
                        "human_author": "alice",
                    }
                },
                "humans": {"h_a1b2c3d4e5f678": {"author": "alice"}},
                "sessions": {
                    "s_c9883b05a2487d": {
                        "agent_id": {"tool": "junie", "id": "session_456", "model": "claude-sonnet-4"},
                        "human_author": "alice",
                    }
                },
            },
            indent=2,
        ),
    )
    result = import_json(repo)
    assert (result["commits"], result["lines_attributed"]) == (3, 82 + 148 + 16)
    assert credited(repo, old) == {
        ("cursor", "", "git-ai", "gpt-5.1"): {
            "docs/reference.mdx": lines("43-48,52,57"),
            "tests/stats.rs": lines("67,131-148,150,152-193,195,197-207"),
        }
    }
    assert credited(repo, new) == {
        ("codex", "", "git-ai", "gpt-5.5"): {
            "agent-support/opencode/git-ai.ts": lines("20,165-171,267-400,402-406"),
            "src/mdm/agents/opencode.rs": [215],
        }
    }
    assert credited(repo, mixed) == {
        ("cursor", "", "git-ai", "gpt-4"): {"src/main.rs": lines("1-10")},
        ("junie", "", "git-ai", "claude-sonnet-4"): {"src/main.rs": lines("15-20")},
    }


MALFORMED_V2 = """\
src/app.py
  s_aaaaaaaaaaaaaa::t_11111111111111 1-10
  s_bbbbbbbbbbbbbb::t_22222222222222 4-6
  h_cccccccccccccc 9
  s_dddddddddddddd::t_33333333333333 2
  s_aaaaaaaaaaaaaa::t_44444444444444 x-2,12
  s_aaaaaaaaaaaaaa::t_55555555555555 14-4000000000
  h_eeeeeeeeeeeeee 3
src/gone.py
  s_aaaaaaaaaaaaaa::t_66666666666666 1-5
---
{
  "schema_version": "authorship/3.0.0",
  "git_ai_version": "1.6.24",
  "base_commit_sha": "",
  "prompts": {},
  "humans": {"h_cccccccccccccc": {"author": "Ann <ann@example.com>"}},
  "sessions": {
    "s_aaaaaaaaaaaaaa": {"agent_id": {"tool": "github-copilot", "id": "copilot-1", "model": "gpt-4.1"},
                         "human_author": null},
    "s_bbbbbbbbbbbbbb": {"agent_id": {"tool": "claude", "id": "gone-session", "model": "claude-sonnet-4"},
                         "human_author": null},
    "s_noagent": {"human_author": "x"}
  }
}
"""


def test_malformed_v2_pieces_are_skipped_and_counted(repo: Path) -> None:
    """Later entries win a line (git-ai reads them last first); a person's entry holds its line for nobody;
    an entry whose key the note does not define (`s_ddd…`, `h_eee…`) is passed over; a range past the
    file's end is cut there; a file the commit does not have gives nothing. Counted: the `x-2` line, the
    record without `agent_id`, and the two undefined keys."""
    commit = commit_files(repo, {"src/app.py": 15}, "app")
    add_note(repo, commit, MALFORMED_V2)
    result = import_json(repo)
    assert result["skipped"] == [
        f"{commit[:12]}: the copilot-chat session copilot-1 is not on this machine",
        f"{commit[:12]}: the claude-code session gone-session is not on this machine",
        f"{commit[:12]}: 4 piece(s) of its git-ai note could not be read or name no record in it",
    ]
    assert credited(repo, commit) == {
        ("copilot-chat", "", "git-ai", "gpt-4.1"): {"src/app.py": lines("1-3,7-8,10,12,14-15")},
        ("claude-code", "", "git-ai", "claude-sonnet-4"): {"src/app.py": lines("4-6")},
    }
    assert result["lines_attributed"] == 12


def test_importing_twice_writes_the_same_notes(repo: Path) -> None:
    commit = commit_files(repo, {"src/app.py": 15}, "app")
    add_note(repo, commit, MALFORMED_V2)
    v2 = commit_files(
        repo, {"agent-support/opencode/git-ai.ts": 410, "src/mdm/agents/opencode.rs": 220}, "v2"
    )
    add_note(repo, v2, (NOTES / f"{V2_CODEX}.note.txt").read_text(encoding="utf-8"))
    first = import_json(repo)
    notes = {c: note_text(repo, c) for c in (commit, v2)}
    assert all(notes.values())
    second = import_json(repo)
    assert {c: note_text(repo, c) for c in (commit, v2)} == notes
    assert [r["note_written"] for r in second["results"]] == [False, False]
    assert second["lines_attributed"] == first["lines_attributed"] == 12 + 148


def test_overlapping_entries_are_resolved_in_linear_time() -> None:
    """20,000 entries each naming every line of a 50,000-line file: each line is assigned once (checking every
    entry's every line would be 10^9 steps)."""
    head = "big.py\n" + "".join(f"  s_aaaaaaaaaaaaaa::t_{n:014x} 1-50000\n" for n in range(20_000))
    note = parse_gitai_note(
        head + '---\n{"sessions": {"s_aaaaaaaaaaaaaa": {"agent_id": {"tool": "codex", '
        '"id": "c", "model": "m"}}}}\n'
    )
    started = time.perf_counter()
    spans, passed = attested_spans(note, {"big.py": 50_000})
    assert time.perf_counter() - started < 2.0
    found = [(s.path, s.start, s.end, s.session.session_id) for s in spans]
    assert (found, passed) == ([("big.py", 1, 50_000, "c")], 0)


def test_a_prompt_key_defined_in_another_note_is_found_there(repo: Path) -> None:
    """A cherry-picked commit's note keeps the attestation but not always the record: git-ai then looks for
    the prompt in other notes (a session key it looks up in the note only). The real 1.0.25 note defines
    d8027690cedbf0e0 (cursor, composer-1)."""
    first = commit_files(
        repo,
        {"src/authorship/post_commit.rs": 340, "src/commands/checkpoint_agent/agent_presets.rs": 1201},
        "presets",
    )
    add_note(
        repo, first, (NOTES / "b2d4363c7ce85417e3b8bacbc4246b5189064d20.note.txt").read_text(encoding="utf-8")
    )
    picked = commit_files(repo, {"src/picked.rs": 10}, "picked")
    add_note(
        repo,
        picked,
        "src/picked.rs\n  d8027690cedbf0e0 1-3\n  0123456789abcdef 4\n  s_d8027690cedbf0 5\n---\n"
        '{"schema_version": "authorship/3.0.0", "base_commit_sha": "", "prompts": {}}',
    )
    result = import_json(repo)
    assert credited(repo, picked) == {("cursor", "", "git-ai", "composer-1"): {"src/picked.rs": [1, 2, 3]}}
    assert (
        f"{picked[:12]}: 2 piece(s) of its git-ai note could not be read or name no record in it"
        in (result["skipped"])
    )
    assert (
        result["skipped"].count(
            f"{picked[:12]}: the cursor session 3337b68c-081c-47c8-b5d6-19839cc0bb84 is not on this machine"
        )
        == 1
    )
