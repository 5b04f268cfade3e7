"""`git intent lsp` through pygls's own client on the demo repository (a real Claude Code session recorded by
the real hook): hover, code lenses resolved lazily, the showMessage command, `git-intent:` documents, and
unsaved edits mapped back through the buffer's diff."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.lsp_client import Session, run_server, uri

from git_intent.demo import run_demo

SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"
MESSAGE = "b2f3c599-0740-40d5-9f43-d4f2332d829c"
FILE = "cmd/entire/cli/agent/chunking.go"
REQUEST = "handle if a single jsonl line is bigger then chunk size"


@pytest.fixture(scope="module")
def demo_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lsp") / "demo"
    run_demo(folder)
    return folder


def test_hover_shows_the_request_on_an_agent_line_and_no_agent_on_a_human_line(demo_repo: Path) -> None:
    path = demo_repo / FILE

    async def conversation(server: Session) -> None:
        document = server.open(path)
        agent = await server.hover(document, 85)
        assert agent is not None
        assert agent.startswith(
            f"**claude-code** wrote this line · session `{SESSION}` · message `b2f3c599`\n"
        )
        assert (
            "asked     2026-01-22 19:57 UTC [00696767]\n"
            "            Handle single lines exceeding MaxChunkSize"
        ) in agent
        assert f"  more      git intent show {SESSION}:b2f3c599\n" in agent
        assert "  commit    7131aa3fef5b  Soph  authored 2026-01-22 20:00 UTC\n" in agent
        # the reasoning quotes a ```go block: the fence around blame's text is longer than any run inside
        fence = re.search(r"\n(`{3,})text\n", agent)  # longer than any backtick run in the quoted text
        assert (
            fence is not None
            and agent.count(fence.group(0)) == 1
            and agent.rstrip().endswith("\n" + fence.group(1))
        )
        human = await server.hover(document, 10)
        assert human is not None
        assert human.startswith("**No agent wrote this line**: a person did (`A Person`).\n")
        assert "  written   by a person: No agent edit recorded for this commit wrote this line." in human

    assert run_server(demo_repo, conversation) == 0


def test_code_lenses_cover_the_agent_ranges_and_are_resolved_lazily(demo_repo: Path) -> None:
    async def conversation(server: Session) -> None:
        assert server.capabilities.code_lens_provider is not None
        assert server.capabilities.code_lens_provider.resolve_provider is True
        document = server.open(demo_repo / FILE)
        lenses = await server.lenses(document)
        assert [(lens.range.start.line + 1, lens.range.end.line + 1) for lens in lenses] == [
            (81, 81),
            (84, 89),
        ]
        assert all(lens.command is None for lens in lenses)  # titles come with codeLens/resolve
        resolved = await server.resolve(lenses[1])
        assert resolved.command is not None
        assert resolved.command.title == (
            "claude-code · b2f3c599 · asked: Handle single lines exceeding MaxChunkSize (error or split)…"
        )
        assert resolved.command.command == "git-intent.showMessage"
        assert list(resolved.command.arguments or []) == [document, f"{SESSION}:{MESSAGE}"]

    assert run_server(demo_repo, conversation) == 0


def test_show_message_returns_the_exact_message_and_its_document_reads_the_session(demo_repo: Path) -> None:
    from git_intent.explain.render import message_text, session_text
    from git_intent.git.repo import Repository
    from git_intent.sessions.discovery import resolve_reference

    session, message = resolve_reference(Repository(demo_repo), f"{SESSION}:{MESSAGE}")
    assert message is not None

    async def conversation(server: Session) -> None:
        assert "git-intent.showMessage" in (
            server.capabilities.execute_command_provider.commands  # type: ignore[union-attr]
            or []
        )
        assert server.capabilities.workspace is not None
        assert server.capabilities.workspace.text_document_content is not None
        assert list(server.capabilities.workspace.text_document_content.schemes) == ["git-intent"]
        shown = await server.command(
            "git-intent.showMessage", uri(demo_repo / FILE), f"{SESSION}:{MESSAGE[:8]}"
        )
        assert shown["text"] == message_text(message, session)
        encoded = str(demo_repo).replace("/", "%2F")
        assert shown["uri"] == f"git-intent:/{SESSION}:{MESSAGE[:8]}?repo={encoded}&fidelity=full"
        shown_text = message_text(message, session)
        assert await server.content(shown["uri"]) == f"session   claude-code {SESSION}\n{shown_text}\n"
        whole = f"git-intent:/{SESSION}?repo={demo_repo}&fidelity=brief"
        assert await server.content(whole) == session_text(session, full=False)
        context = await server.content(f"git-intent:/{SESSION}?repo={demo_repo}&fidelity=context")
        assert context.startswith(f"topics of claude-code {SESSION}: ")
        missing = await server.command("git-intent.showMessage", uri(demo_repo / FILE), "nosuchsession")
        assert "nosuchsession" in missing["text"] and "\n" not in missing["text"].strip()
        bad = await server.content(f"git-intent:/{SESSION}?repo={demo_repo}&fidelity=loud")
        assert bad == "Unknown fidelity 'loud'; use one of full, brief, context.\n"

    assert run_server(demo_repo, conversation) == 0


def test_unsaved_edits_map_back_to_head_through_the_buffers_diff(demo_repo: Path) -> None:
    path = demo_repo / FILE
    before = path.read_text(encoding="utf-8")

    async def conversation(server: Session) -> None:
        document = server.open(path)
        assert (await server.hover(document, 85) or "").startswith("**claude-code**")
        # Incremental sync: three lines typed above, one agent line (86) replaced; nothing saved.
        server.change(document, 2, 0, "// one\n// two\n// three\n")
        server.change(document, 3, 88, "\t\t// rewritten by hand\n", end_line=89)
        shifted = await server.hover(document, 88)
        assert shifted is not None and "     85 │ \t\t// Check if a single line exceeds maxSize" in shifted
        assert await server.hover(document, 2) == (
            "This line is not committed yet: the buffer added or changed it since the file was last saved "
            "or committed.\n"
        )
        assert (await server.hover(document, 89) or "").startswith("This line is not committed yet")
        assert (await server.hover(document, 13) or "").startswith("**No agent wrote this line**")
        lenses = await server.lenses(document)
        assert [(lens.range.start.line + 1, lens.range.end.line + 1) for lens in lenses] == [
            (84, 84),
            (87, 88),
            (90, 92),
        ]
        assert await server.hover(document, 10_000) is None  # past the end of the buffer

    assert run_server(demo_repo, conversation) == 0
    assert path.read_text(encoding="utf-8") == before


def test_a_lens_whose_transcript_is_gone_opens_nothing(tmp_path: Path) -> None:
    """The note names the session and message, but no transcript of it is here: the lens says so and
    carries no command that would open a "not found" document."""
    import shutil

    folder = tmp_path / "demo"
    run_demo(folder)
    (folder / ".git" / "claude-code-chunking.jsonl").unlink()
    shutil.rmtree(folder / ".opencode" / "intent" / "sessions")

    async def conversation(server: Session) -> None:
        document = server.open(folder / FILE)
        lenses = await server.lenses(document)
        resolved = await server.resolve(lenses[1])
        assert resolved.command is not None
        assert (resolved.command.title, resolved.command.command) == (
            "claude-code · b2f3c599 · transcript not on this machine",
            "",
        )
        hover = await server.hover(document, 85)
        assert hover is not None and hover.startswith(
            f"**claude-code** wrote this line · session `{SESSION}` · message `b2f3c599`\n"
        )

    assert run_server(folder, conversation) == 0
