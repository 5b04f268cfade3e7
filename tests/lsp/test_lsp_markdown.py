"""Transcript text in a hover can never become live markdown or HTML: rendered by a
CommonMark renderer with raw HTML allowed (the worst an editor does), no link, image or tag survives."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from git_intent.core.values import Attribution
from git_intent.explain.blame import LineAnswer
from git_intent.explain.evidence import Evidence
from git_intent.lsp.line_map import map_lines, split_lines
from git_intent.lsp.markdown import code_span, fenced, hover_markdown, lens_title, prose, sentence_markdown

HOSTILE = (
    "![pixel](https://evil.example/p.png) [click](https://evil.example) <img src=x onerror=alert(1)> "
    "<script>alert(1)</script> https://evil.example/bare *bold* ``` ```` `` \n```\n# heading\n"
    "<a href='https://evil.example'>x</a> \x1b]52;c;cGF3bmVk\x07 \u202e"
)
RENDER = MarkdownIt("commonmark", {"html": True})


def live(markdown: str) -> list[str]:
    """Tags in the rendering that a reader could click, load or run."""
    html = RENDER.render(markdown)
    return [tag for tag in ("<a ", "<img", "<script", "<h1", "<em>", "<strong>evil") if tag in html]


def answer(text: str) -> LineAnswer:
    stamp = datetime(2026, 1, 22, 19, 57, tzinfo=timezone.utc)
    evidence = [
        Evidence(
            session_id="s1",
            message_id=f"m{k}",
            role="user" if kind == "request" else "assistant",
            timestamp=stamp,
            text=text,
            kind=kind,
        )
        for k, kind in enumerate(("request", "reasoning"))
    ]
    attribution = Attribution(
        agent="claude-code", session_id="s`1<b>", message_id="m0", tool="Edit", method="note", confidence=1.0
    )
    return LineAnswer(
        path="a.py",
        line=1,
        content=text.splitlines()[0],
        commit="c" * 40,
        author="A <b>Person</b>",
        attribution=attribution,
        evidence=evidence,
        status="agent",
    )


def test_a_hostile_transcript_renders_as_text() -> None:
    hover = hover_markdown(answer(HOSTILE))
    assert live(hover) == []
    html = RENDER.render(hover)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown, as text
    assert "\x1b" not in hover and "\u202e" not in hover and "\\x1b]52" in hover
    assert "<code>s`1&lt;b&gt;</code>" in html
    human = hover_markdown(replace(answer(HOSTILE), status="human", attribution=None))
    assert live(human) == [] and "<code>A &lt;b&gt;Person&lt;/b&gt;</code>" in RENDER.render(human)
    assert "\x1b" not in lens_title(answer(HOSTILE))


@given(st.text(alphabet=st.sampled_from("`*_[]()!<>#\\:/ \nab-1.@w"), max_size=60))
def test_fences_spans_and_prose_hold_any_text(text: str) -> None:
    assert live(fenced(text)) == [] and live(code_span(text)) == [] and live(prose(text)) == []
    if prose(text).strip():  # one paragraph: never a heading, a list, a quote or a table
        assert [t.type for t in RENDER.parse(prose(text))] == ["paragraph_open", "inline", "paragraph_close"]
    block = RENDER.parse(fenced(text))
    assert [t.type for t in block] == ["fence"] and block[0].content == text.rstrip("\n") + "\n"


def test_the_buffer_maps_to_disk_lines_through_its_diff() -> None:
    disk = ["a", "b", "", "c", "d"]
    same = map_lines(disk, list(disk))
    assert same.identical and same.disk_line(5) == 5 and same.disk_line(6) is None
    moved = map_lines(disk, ["new", "a", "b", "", "C", "d"])
    assert moved.to_disk == (None, 1, 2, 3, None, 5) and moved.to_buffer == {1: 2, 2: 3, 3: 4, 5: 6}
    assert not moved.identical
    assert (
        split_lines("x\ny\n") == ["x", "y"]
        and split_lines("x\r\ny") == ["x\r", "y"]
        and split_lines("") == []
    )


def test_git_intents_own_sentences_render_without_visible_escapes() -> None:
    """Neovim 0.7 shows backslash escapes as typed (`git\\-intent`): plain prose carries none."""
    from git_intent.lsp.answers import NOT_COMMITTED, NOT_INSTALLED, READING

    for sentence in (NOT_COMMITTED, NOT_INSTALLED, READING):
        assert sentence_markdown(sentence) == sentence + "\n"
    assert prose("src/my_file.py is a binary file; see https://evil.example/x <b>") == (
        "`src/my_file.py` is a binary file; see `https://evil.example/x` `<b>`"
    )
    assert prose("# not a heading") == "`#` not a heading" and prose("1. not a list") == "`1.` not a list"
    reason = (
        "Commit 1a2b3c4d5e6f has no git-intent note and no session on this machine wrote this line in the "
        "session index (`git intent index` brings it up to date), so git-intent does not know who did."
    )
    line = LineAnswer(
        path="a.py",
        line=3,
        content="x = 1",
        commit="1a2b3c4d5e6f" + "0" * 28,
        author="A Person",
        attribution=None,
        evidence=[],
        status="unrecorded",
        reason=reason,
    )
    hover = hover_markdown(line)
    assert hover.startswith("**Unrecorded**: git-intent does not know who wrote this line.\n\n```text\n")
    assert "\\" not in hover and f"status    unrecorded: {reason}" in hover


def test_a_trailers_credit_says_what_is_known_and_nothing_more() -> None:
    from git_intent.explain.trailers import TRAILER_REASON, trailer_attribution

    sha = "be54402997b4" + "1" * 28
    line = LineAnswer(
        path="tool.py",
        line=1,
        content="def tool():",
        commit=sha,
        author="P Person",
        attribution=trailer_attribution("claude-code"),
        evidence=[],
        status="agent",
        reason=TRAILER_REASON,
    )
    hover = hover_markdown(line)
    assert hover.startswith(
        "**claude-code** wrote this line, named by a trailer of commit be54402997b4; no transcript here, "
        "so no session or message to show.\n\n```text\n"
    )
    assert "``" not in hover.split("\n\n")[0] and "session `" not in hover  # no empty ids
    assert lens_title(line) == "claude-code · named by a trailer of commit be54402997b4 · no transcript"
