"""git-ai authorship notes (refs/notes/ai): the four real notes in fixtures/linked/git-ai-notes, malformed
notes, and notes written with `git notes` into a real repository and read back.

Figures were computed with the parser, then checked against the files with an independent script (awk over the
attestation section for files, entries and covered lines; json.loads of the part after `---` for records and
message types).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import corpus, git

from git_intent.git.repo import Repository
from git_intent.peers.git_ai import NOTES_REF, agent_for_tool, parse_gitai_note, read_gitai_notes

NOTES = ("linked", "git-ai-notes")
CURSOR_B4EE = "b4eed478a6af67ba0cbe0e843e83d7b527987cca"


def note_text(commit: str) -> str:
    return corpus(*NOTES, f"{commit}.note.txt").read_text(encoding="utf-8")


def covered(commit: str) -> tuple[int, int, int]:
    """(files, attestation entries, covered lines) of a parsed corpus note."""
    note = parse_gitai_note(note_text(commit))
    entries = [a for attestations in note.files.values() for a in attestations]
    return len(note.files), len(entries), sum(len(list(a.lines())) for a in entries)


@pytest.mark.parametrize(
    ("commit", "figures"),
    [
        ("00309900d71f8da788cde3006b058627ec0841a7", (2, 3, 85)),
        ("01a5453803e2452430fa2bde9a3cd6f7dfa95ccf", (2, 2, 148)),
        ("b2d4363c7ce85417e3b8bacbc4246b5189064d20", (2, 2, 91)),
        (CURSOR_B4EE, (16, 21, 620)),
    ],
)
def test_corpus_note_figures(commit: str, figures: tuple[int, int, int]) -> None:
    note = parse_gitai_note(note_text(commit))
    assert covered(commit) == figures
    assert note.unreadable == 0 and note.stats.unknown_types == {}
    assert note.schema_version == "authorship/3.0.0"
    assert note.base_commit_sha == commit


def test_cursor_prompt_note_with_a_human_line() -> None:
    """Older note: a `prompts` record with its normalized transcript, and the literal `human` key."""
    note = parse_gitai_note(note_text("00309900d71f8da788cde3006b058627ec0841a7"))
    assert note.git_ai_version == "development:1.0.22"
    assert [(path, [(a.key, a.ranges) for a in entries]) for path, entries in note.files.items()] == [
        ("docs/reference.mdx", [("e61c0a4", ((43, 48), (52, 52), (57, 57)))]),
        (
            "tests/stats.rs",
            [
                ("e61c0a4", ((67, 67), (131, 148), (150, 150), (152, 193), (195, 195), (197, 207))),
                ("human", ((68, 68), (151, 151), (196, 196))),
            ],
        ),
    ]
    human = note.files["tests/stats.rs"][1]
    assert human.is_human and note.session_for(human.key) is None
    session = note.session_for("e61c0a4")
    assert session is not None
    assert (
        session.key,
        session.tool,
        session.agent,
        session.supported,
        session.session_id,
        session.model,
    ) == ("e61c0a4", "cursor", "cursor", True, "d13537e7-a8cd-49ba-82f3-3b4c2eeb0f71", "gpt-5.1")
    assert session.human_author == "Sasha Varlamov <sasha@sashavarlamov.com>"
    assert session.from_prompts
    assert (
        session.total_additions,
        session.total_deletions,
        session.accepted_lines,
        session.overriden_lines,
    ) == (108, 25, 83, 3)
    assert [m.message_id for m in session.messages] == [f"e61c0a4.{n}" for n in range(1, 8)]
    assert [m.role for m in session.messages] == ["user", *["assistant"] * 6]
    assert [p.tool for m in session.messages for p in m.parts if p.kind == "tool_call"] == [
        "grep",
        "grep",
        "grep",
        "read_file",
        "read_file",
    ]
    prompt = session.messages[0]
    assert prompt.is_prompt and prompt.text.startswith(
        "Update @docs/reference.mdx to document that stats supports"
    )
    assert prompt.timestamp is not None and prompt.timestamp.isoformat() == "2025-11-30T16:44:19.844000+00:00"
    assert sum(m.timestamp is not None for m in session.messages) == 2
    assert '"pattern": "stats_command"' in session.messages[1].parts[0].text


def test_cursor_prompt_note_with_sixteen_hex_key() -> None:
    note = parse_gitai_note(note_text("b2d4363c7ce85417e3b8bacbc4246b5189064d20"))
    assert note.git_ai_version == "development:1.0.25"
    assert {path: [(a.key, a.ranges) for a in entries] for path, entries in note.files.items()} == {
        "src/authorship/post_commit.rs": [
            ("d8027690cedbf0e0", ((13, 14), (185, 196), (212, 223), (252, 263), (292, 303), (329, 340)))
        ],
        "src/commands/checkpoint_agent/agent_presets.rs": [
            ("d8027690cedbf0e0", ((7, 7), (84, 90), (274, 280), (486, 492), (1195, 1201)))
        ],
    }
    session = note.sessions["d8027690cedbf0e0"]
    assert (session.tool, session.agent, session.session_id, session.model) == (
        "cursor",
        "cursor",
        "3337b68c-081c-47c8-b5d6-19839cc0bb84",
        "composer-1",
    )
    assert len(session.messages) == 10
    assert sum(m.is_prompt for m in session.messages) == 1
    assert [p.tool for m in session.messages for p in m.parts if p.kind == "tool_call"] == [
        "read_file",
        "grep",
        "grep",
        "grep",
        "read_file",
        "codebase_search",
        "codebase_search",
    ]
    assert (
        sum(1 for m in session.messages for p in m.parts if p.kind == "text" and m.role == "assistant") == 2
    )


def test_codex_sessions_note_with_trace_keys() -> None:
    """Newer note: `sessions` only, attestation keys `s_<14 hex>::t_<14 hex>` resolved by the part before
    `::`."""
    note = parse_gitai_note(note_text("01a5453803e2452430fa2bde9a3cd6f7dfa95ccf"))
    assert note.git_ai_version == "development:1.5.3"
    assert {path: [(a.key, a.ranges) for a in entries] for path, entries in note.files.items()} == {
        "src/mdm/agents/opencode.rs": [("s_48e9fed71298c0::t_9514e3978c87e3", ((215, 215),))],
        "agent-support/opencode/git-ai.ts": [
            ("s_48e9fed71298c0::t_5be822b7702756", ((20, 20), (165, 171), (267, 400), (402, 406)))
        ],
    }
    assert list(note.sessions) == ["s_48e9fed71298c0"]
    attestation = note.files["src/mdm/agents/opencode.rs"][0]
    assert attestation.session_key == "s_48e9fed71298c0" and not attestation.is_human
    session = note.session_for(attestation.key)
    assert session is not None
    assert (session.tool, session.agent, session.supported, session.session_id, session.model) == (
        "codex",
        "codex",
        True,
        "019e8e27-0a8c-7eb2-b677-5719a3a20122",
        "gpt-5.5",
    )
    assert session.messages == () and not session.from_prompts
    assert session.total_additions is None


def test_cursor_sessions_note_many_traces() -> None:
    note = parse_gitai_note(note_text(CURSOR_B4EE))
    assert note.git_ai_version == "1.5.6"
    assert [(a.key, a.ranges) for a in note.files["agent-support/visualstudio/GitAiVS.sln"]] == [
        ("s_61bbcfe4478210::t_b9a205cc4bfbb4", ((6, 6), (16, 19), (24, 26))),
        ("s_61bbcfe4478210::t_5d80d8621b9341", ((1, 5), (7, 7), (10, 15), (27, 28))),
        ("s_61bbcfe4478210::t_7e1d9b0edcf3bd", ((20, 23),)),
        ("s_61bbcfe4478210::t_848896e8fa1fd0", ((8, 9),)),
    ]
    assert list(note.files)[0] == "agent-support/visualstudio/src/GitAiVS/source.extension.vsixmanifest"
    assert list(note.files)[-1] == "agent-support/visualstudio/src/GitAiVS/Listeners/TextBufferListener.cs"
    keys = {a.key for entries in note.files.values() for a in entries}
    assert len(keys) == 21 and {k.split("::")[0] for k in keys} == {"s_61bbcfe4478210"}
    sessions = {note.session_for(k) for k in keys}
    assert len(sessions) == 1
    session = sessions.pop()
    assert session is not None
    assert (session.tool, session.agent, session.session_id, session.model, session.human_author) == (
        "cursor",
        "cursor",
        "1fd1858d-9497-4a83-b6c4-aebbc8661cbb",
        "claude-opus-4-6",
        "Sanjog Gururaj <sanjog@workweave.ai>",
    )


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        ("claude", ("claude-code", True)),
        ("codex", ("codex", True)),
        ("cursor", ("cursor", True)),
        ("opencode", ("opencode", True)),
        ("gemini", ("gemini-cli", True)),
        ("Claude", ("claude-code", True)),
        ("github-copilot", ("copilot-chat", True)),
        ("amp", ("amp", True)),
        ("droid", ("droid", True)),
        ("pi", ("pi", True)),
        ("junie", ("junie", False)),
        ("devin", ("devin", False)),
    ],
)
def test_tool_names(tool: str, expected: tuple[str, bool]) -> None:
    assert agent_for_tool(tool) == expected


MALFORMED = """\
  s_0000000000000a 1-3
src/ok.py
  s_aaaaaaaaaaaaaa 1-3,5,9-12
  s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb 7,x-2,20
  s_aaaaaaaaaaaaaa 5-3
  s_aaaaaaaaaaaaaa 0
  s_aaaaaaaaaaaaaa
"src/with space.py"
  h_cccccccccccccc 4
src/no-entries.py
---
{
  "schema_version": "authorship/3.0.0",
  "base_commit_sha": "abc",
  "prompts": {"bad": "not a record", "p1": {"agent_id": {"tool": "claude", "id": "claude-session",
              "model": "m"},
              "human_author": null, "messages": [{"type": "user", "text": "do it"}, 7, {"type": "weird"},
              {"type": "thinking", "text": "hmm"}, {"type": "tool_use", "name": "Edit", "input": {"a": 1}}]}},
  "sessions": {"s_aaaaaaaaaaaaaa": {"agent_id": {"tool": "github-copilot", "id": "copilot-1",
               "model": "gpt"}},
               "s_noagent": {"human_author": "x"}, "s_p1": {"agent_id": {"tool": 3, "id": "y"}}},
  "humans": {"h_cccccccccccccc": {"author": "Ann <ann@example.com>"}, "h_bad": 4}
}
"""


def test_malformed_note_reads_what_it_can() -> None:
    note = parse_gitai_note(MALFORMED)
    # Unreadable: the entry before any file, the line with `x-2`, `5-3`, `0`, the entry without ranges,
    # the "bad" prompt, two session records without a usable agent_id, the message 7, and humans.h_bad.
    assert note.unreadable == 10
    assert note.stats.unknown_types == {"weird": 1}
    assert {path: [(a.key, a.ranges) for a in entries] for path, entries in note.files.items()} == {
        "src/ok.py": [
            ("s_aaaaaaaaaaaaaa", ((1, 3), (5, 5), (9, 12))),
            ("s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb", ((7, 7), (20, 20))),
        ],
        "src/with space.py": [("h_cccccccccccccc", ((4, 4),))],
    }
    assert note.files["src/with space.py"][0].is_human
    assert note.humans == {"h_cccccccccccccc": "Ann <ann@example.com>"}
    copilot = note.session_for("s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb")
    assert copilot is not None and (copilot.agent, copilot.supported, copilot.session_id) == (
        "copilot-chat",
        True,
        "copilot-1",
    )
    claude = note.sessions["p1"]
    assert (claude.agent, claude.supported, claude.session_id, claude.human_author) == (
        "claude-code",
        True,
        "claude-session",
        None,
    )
    assert [(m.message_id, m.role, m.parts[0].kind) for m in claude.messages] == [
        ("p1.1", "user", "text"),
        ("p1.4", "assistant", "reasoning"),
        ("p1.5", "assistant", "tool_call"),
    ]
    assert claude.messages[2].parts[0].text == '{"a": 1}'
    assert set(note.sessions) == {"p1", "s_aaaaaaaaaaaaaa"}


@pytest.mark.parametrize(
    ("text", "files", "unreadable"),
    [
        ("", 0, 0),
        ("src/a.py\n  k 1-2\n", 1, 0),  # no divider: attestations only
        ("src/a.py\n  k 1-2\n---\n{not json\n}\n", 1, 2),
        ("src/a.py\n  k 1-2\n---\n[1, 2]\n", 1, 1),
        ("\x00\x01\ufffd\n  \x00 \x00\n---\n\x00", 0, 2),  # a file whose only entry is unreadable is dropped
        ("---\n---\n---\n", 0, 2),
    ],
)
def test_never_raises(text: str, files: int, unreadable: int) -> None:
    note = parse_gitai_note(text)
    assert (len(note.files), note.unreadable) == (files, unreadable)


def test_line_separators_inside_json_strings() -> None:
    """serde_json writes U+2028 and U+0085 unescaped; they must not split the JSON document."""
    text = (
        'src/a.py\n  p1 1\n---\n{"prompts": {"p1": {"agent_id": {"tool": "codex", "id": "c", "model": '
        '"m"}, "messages": [{"type": "user", "text": "one\u2028two\u0085three"}]}}}\n'
    )
    note = parse_gitai_note(text)
    assert note.unreadable == 0
    assert note.sessions["p1"].messages[0].text == "one\u2028two\u0085three"


def test_concatenated_notes_are_read_block_by_block() -> None:
    """`git notes merge -s cat_sort_uniq` or `git notes append` may glue two notes together."""
    first = note_text("01a5453803e2452430fa2bde9a3cd6f7dfa95ccf")
    second = note_text("b2d4363c7ce85417e3b8bacbc4246b5189064d20")
    note = parse_gitai_note(first + "\n\n" + second)
    assert note.unreadable == 0
    assert list(note.sessions) == ["s_48e9fed71298c0", "d8027690cedbf0e0"]
    assert len(note.files) == 4
    assert note.base_commit_sha == "01a5453803e2452430fa2bde9a3cd6f7dfa95ccf"


def test_notes_round_trip_through_git(repo: Path, tmp_path: Path) -> None:
    """Notes written with `git notes --ref refs/notes/ai add -F` read back exactly as the files parse."""
    files = sorted(corpus(*NOTES).glob("*.note.txt"))
    assert len(files) == 4
    expected = {}
    for n, path in enumerate(files):
        (repo / f"f{n}.txt").write_text(f"{n}\n")
        git(repo, "add", f"f{n}.txt")
        git(repo, "commit", "-q", "-m", f"commit {n}")
        commit = git(repo, "rev-parse", "HEAD").strip()
        git(repo, "notes", "--ref", NOTES_REF, "add", "-F", str(path), commit)
        expected[commit] = parse_gitai_note(path.read_text(encoding="utf-8"))
    (tmp_path / "garbage").write_bytes(b"not a note\n\xff\xfe\n---\n{")
    root = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    git(repo, "notes", "--ref", NOTES_REF, "add", "-F", str(tmp_path / "garbage"), root)

    # The same note on two commits is one blob in the notes tree: both commits must still be listed.
    twin = git(repo, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "twin").strip()
    git(repo, "notes", "--ref", NOTES_REF, "add", "-F", str(files[0]), twin)
    expected[twin] = parse_gitai_note(files[0].read_text(encoding="utf-8"))

    found = dict(read_gitai_notes(Repository(repo)))
    assert set(found) == {*expected, root}
    for commit, note in expected.items():
        assert found[commit] == note
    # Two path lines with no entries (dropped, as git-ai does) and a torn JSON document (counted).
    assert found[root].files == {} and found[root].unreadable == 1
    assert list(read_gitai_notes(Repository(repo), ref="refs/notes/missing")) == []


def test_git_ai_names_of_the_newer_adapters_map_to_them() -> None:
    assert [
        agent_for_tool(t) for t in ("github-copilot", "github-copilot-cli", "continue-cli", "copilot")
    ] == [
        ("copilot-chat", True),
        ("copilot-cli", True),
        ("continue", True),
        ("copilot", False),  # tab completion keeps no session
    ]
