"""The SpecStory adapter against real histories (SpecStory CLI Markdown v2.1.0 of Claude Code and Codex,
the editor extension's Cursor history and its older April 2025 form) and hand-built tool blocks of the
other providers."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import corpus

from git_intent.adapters import ADAPTERS, sniff, specstory
from git_intent.core.values import AddedLine

CLAUDE = corpus("transcripts/specstory/getspecstory__claude-code__2026-01-28_13-10-29Z-take-a-look-at.md")
CODEX = corpus("transcripts/specstory/getspecstory__codex__2026-02-20_16-33-05Z-start-with-docs-git.md")
CURSOR = corpus("transcripts/specstory/better-agents__cursor__check-and-fix-tag-format__excerpt.md")
OLDER = corpus(
    "transcripts/specstory/minsky__2025-04-27_20-11-enhancing-session-commands-for-directory-management.md"
)
UTC = timezone.utc


def fenced_after(text: str, marker: str, opening: str) -> str:
    """The text of the first fence opening with `opening` after `marker`, by plain string search (no
    adapter code)."""
    start = text.index(opening, text.index(marker)) + len(opening)
    return text[start : text.index("\n```", start)]


def test_claude_code_history_write_is_message_level_and_edits_session_level() -> None:
    history = specstory.read_history(CLAUDE)
    session = history.session
    assert (session.agent, session.session_id, session.agent_version, history.provider) == (
        "specstory",
        "3c887384-88d4-4b43-b3de-b109170c7946",
        "2.1.0",
        "Claude Code",
    )
    text = CLAUDE.read_text(encoding="utf-8")
    # Independent figures: one message per role header line, one edit per writing tool block but the Edit that
    # failed ("<tool_use_error>"), the Write's text is its fence's.
    assert len(session.messages) == sum(
        1 for line in text.splitlines() if line.startswith(("_**User", "_**Agent"))
    )
    assert len(session.messages) == 84
    write, *edits = session.edits
    content = fenced_after(text, 'data-tool-name="Write"', "```yaml\n")
    assert (write.tool, write.kind, write.message_id, write.timestamp) == (
        "Write",
        "create",
        "m33",
        datetime(2026, 1, 28, 13, 16, 45, tzinfo=UTC),
    )
    assert write.path == "/Users/sean/Source/SpecStory/getspecstory/.github/workflows/ci.yml"
    assert write.added == tuple(
        AddedLine(text=t, line=n) for n, t in enumerate(content.splitlines(), start=1)
    )
    assert len(write.added) == 37 and write.added[0].text == "name: CI"
    # 10 Edit blocks, two refused by the user; two replace_all results quote both texts
    assert text.count('data-tool-name="Edit"') == 10 and text.count("All occurrences of") == 2
    assert [(e.message_id, e.path.rsplit("/", 1)[-1], [a.text for a in e.added]) for e in edits] == [
        ("m39", "release.yml", []),
        ("m40", ".golangci.yml", []),
        ("m41", "go.mod", []),
        ("m42", "ci.yml", ["          go-version: '1.25.6'"]),
        ("m51", "go.mod", []),
        ("m68", "ci.yml", []),
        ("m76", "ci.yml", ["          cache-dependency-path: specstory-cli/go.sum"]),
        ("m82", "release.yml", []),
    ]
    assert history.textless == 6
    message = session.message("m33")
    assert message is not None and message.model == "claude-opus-4-5-20251101" and message.role == "assistant"
    prompt = session.message("m30")
    assert prompt is not None and prompt.is_prompt and "2 version issues" in prompt.text


def test_codex_history_apply_patch_is_message_level() -> None:
    session = specstory.read(CODEX)[0]
    assert (session.session_id, session.started_at) == (
        "019c7be4-e46e-7930-a7cb-7c6dfc4882c2",
        datetime(2026, 2, 20, 16, 33, 5, tzinfo=UTC),
    )
    [edit] = session.edits
    diff = fenced_after(
        CODEX.read_text(encoding="utf-8"), "**Add: `docs/git-provenance/RECOMMENDATIONS.md`**", "```diff\n"
    )
    assert (edit.path, edit.tool, edit.kind, edit.message_id) == (
        "docs/git-provenance/RECOMMENDATIONS.md",
        "apply_patch",
        "create",
        "m40",
    )
    assert [a.text for a in edit.added] == [line[1:] for line in diff.splitlines()]
    assert [a.line for a in edit.added] == list(range(1, 308))


def test_cursor_extension_chunks_are_unescaped_numbered_diffs() -> None:
    history = specstory.read_history(CURSOR)
    session = history.session
    assert (session.session_id, history.provider, len(session.messages)) == (
        "80f30514-fcad-482a-8822-0444aaaba3db",
        "cursor",
        2,
    )
    assert [(e.path, e.tool, e.message_id, e.added) for e in session.edits] == [
        (
            ".github/workflows/release.yml",
            "search_replace",
            "m2",
            (
                AddedLine(
                    text="      (github.event_name == 'release' && startsWith(github.event.release.tag_name, "
                    "'@langwatch/better-agents/')) ||",
                    line=12,
                ),
            ),
        ),
        (
            ".github/workflows/release.yml",
            "search_replace",
            "m2",
            (AddedLine(text='          VERSION="${TAG_NAME#@langwatch/better-agents/v}"', line=45),),
        ),
    ]
    agent = session.messages[1]
    assert agent.model == "grok-code-fast-1"
    assert [p.kind for p in agent.parts].count("reasoning") == 6  # thinking closed at the end of a text line
    assert [p.tool for p in agent.parts if p.kind == "tool_call"] == [
        "read_file",
        "read_file",
        "search_replace",
        "search_replace",
        "read_lints",
    ]


def test_older_extension_history_takes_its_id_and_time_from_the_file_name() -> None:
    session = specstory.read(OLDER)[0]
    # No Session comment; the title's 16:11:20 has no zone (the writer's local time), the name's 20-11 is UTC.
    assert session.session_id == OLDER.stem
    assert [(m.message_id, m.role, m.is_prompt) for m in session.messages] == [
        ("m1", "user", True),
        ("m2", "assistant", False),
        ("m3", "user", True),
        ("m4", "assistant", False),
    ]
    assert {m.timestamp for m in session.messages} == {datetime(2025, 4, 27, 20, 11, tzinfo=UTC)}
    assert session.edits == [] and session.agent_version is None
    assert [p.kind for p in session.messages[3].parts] == ["tool_call"]


def test_sniff_knows_histories_and_nothing_discovers_them(tmp_path: Path) -> None:
    assert all(sniff(path) is ADAPTERS["specstory"] for path in (CLAUDE, CODEX, CURSOR, OLDER))
    assert not specstory.sniff(corpus("transcripts/aider/aider__chat-history__excerpt.md"))
    assert not specstory.sniff(corpus("transcripts/specstory/README.md"))
    history = tmp_path / ".specstory" / "history"
    history.mkdir(parents=True)
    (history / CLAUDE.name).write_bytes(CLAUDE.read_bytes())
    assert list(specstory.discover(tmp_path)) == []  # read only on purpose, by `import --from specstory`


def history(tmp_path: Path, *body: str) -> Path:
    path = tmp_path / "2026-03-01_10-00-00Z-hand-built.md"
    path.write_text(
        "\n".join(
            [
                "<!-- Generated by SpecStory, Markdown v2.1.0 -->",
                "",
                "<!-- Test Agent Session s-1 (2026-03-01 10:00:00Z) -->",
                "",
                "_**User (2026-03-01 10:00:00Z)**_",
                "",
                "make it so",
                "",
                "---",
                "",
                "_**Agent (model-x 2026-03-01 10:01:00Z)**_",
                "",
                *body,
                "",
            ]
        ),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # Cursor CLI: Write (summary holds the path), StrReplace (a diff without hunks)
        (
            [
                '<tool-use data-tool-type="write" data-tool-name="Write"><details>',
                "<summary>`src/a.py`</summary>",
                "```python",
                "x = 1",
                "y = 2",
                "```",
                "</details></tool-use>",
            ],
            [("src/a.py", "create", [("x = 1", 1), ("y = 2", 2)])],
        ),
        (
            [
                '<tool-use data-tool-type="write" data-tool-name="StrReplace"><details>',
                "<summary>Tool use: **StrReplace**</summary>",
                "```diff",
                "--- src/a.py",
                "+++ src/a.py",
                "-x = 1",
                "+x = 10",
                "```",
                "</details></tool-use>",
            ],
            [("src/a.py", "update", [("x = 10", None)])],
        ),
        # Gemini CLI: write_file (Path: line), replace (the fence holds new_string itself, cut at 2,000
        # characters)
        (
            [
                '<tool-use data-tool-type="write" data-tool-name="write_file"><details>',
                "<summary>Tool use: **write_file**</summary>",
                "",
                "Path: `/w/b.go`",
                "",
                "```go",
                "package b",
                "```",
                "",
                "Result: ok",
                "</details></tool-use>",
            ],
            [("/w/b.go", "create", [("package b", 1)])],
        ),
        (
            [
                '<tool-use data-tool-type="write" data-tool-name="replace"><details>',
                "<summary>Tool use: **replace**</summary>",
                "",
                "Path: `b.go`",
                "",
                "```diff",
                "func B() {}",
                "func C() { ca",
                "... (truncated)",
                "```",
                "</details></tool-use>",
            ],
            [("b.go", "update", [("func B() {}", None)])],
        ),
        # Copilot: an edit group names the file's name and the text that replaced a range
        (
            [
                '<tool-use data-tool-type="write" data-tool-name="textEditGroup"><details>',
                "<summary>Edit: **c.ts**</summary>",
                "",
                "@@ lines 3-4 @@",
                "",
                "```",
                "const c = 3;",
                "```",
                "</details></tool-use>",
            ],
            [("c.ts", "update", [("const c = 3;", None)])],
        ),
        # Claude Code: a failed Edit made no edit; a MultiEdit names its file only
        (
            [
                '<tool-use data-tool-type="write" data-tool-name="Edit"><details>',
                "<summary>Tool use: **Edit**</summary>",
                "",
                "```text",
                "<tool_use_error>String to replace not found in file.",
                "```",
                "</details></tool-use>",
            ],
            [],
        ),
        (
            [
                '<tool-use data-tool-type="write" data-tool-name="MultiEdit"><details>',
                "<summary>Tool use: **MultiEdit**</summary>",
                " `./pkg/d.go`",
                "</details></tool-use>",
            ],
            [("./pkg/d.go", "update", [])],
        ),
        # a Write whose content quotes SpecStory markdown: no role header, no closing tag inside its fence
        # counts
        (
            [
                '<tool-use data-tool-type="write" data-tool-name="Write"><details>',
                "<summary>Tool use: **Write**</summary>",
                "",
                "````markdown",
                "_**User**_",
                "</details></tool-use>",
                "```",
                "inner",
                "```",
                "````",
                "",
                "```text",
                "File created successfully at: /w/notes.md",
                "```",
                "</details></tool-use>",
            ],
            [
                (
                    "/w/notes.md",
                    "create",
                    [("_**User**_", 1), ("</details></tool-use>", 2), ("```", 3), ("inner", 4), ("```", 5)],
                )
            ],
        ),
        # the extension's older code block naming its file, its placeholders left out
        (
            [
                "Here is the change:",
                "",
                "```typescript:src/e.ts",
                "// ... existing code ...",
                "export const e = 5;",
                "```",
            ],
            [("src/e.ts", "update", [("export const e = 5;", None)])],
        ),
    ],
)
def test_tool_blocks_of_each_provider(
    tmp_path: Path, body: list[str], expected: list[tuple[str, str, list[tuple[str, int | None]]]]
) -> None:
    session = specstory.read(history(tmp_path, *body))[0]
    assert [(e.path, e.kind, [(a.text, a.line) for a in e.added]) for e in session.edits] == expected
    assert len(session.messages) == 2 and {e.message_id for e in session.edits} <= {"m2"}
    assert all(e.timestamp == datetime(2026, 3, 1, 10, 1, tzinfo=UTC) for e in session.edits)


def test_role_headers_inside_fences_are_text_and_message_ids_are_kept(tmp_path: Path) -> None:
    path = history(
        tmp_path,
        "<!-- message-id: msg-7 -->",
        "",
        "The format looks like this:",
        "",
        "```markdown",
        "_**User**_",
        "hello",
        "```",
        "",
        "_**Agent - sidechain (model-y 2026-03-01 10:02:00Z)**_",
        "",
        "done",
    )
    session = specstory.read(path)[0]
    assert [(m.message_id, m.role, m.model) for m in session.messages] == [
        ("m1", "user", None),
        ("msg-7", "assistant", "model-x"),
        ("m3", "assistant", "model-y"),
    ]
    assert "_**User**_" in session.messages[1].text
