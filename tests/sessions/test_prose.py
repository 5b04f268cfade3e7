"""The one sentence splitter and the one confirmation test every quote and topic uses (sessions/prose.py)."""

from __future__ import annotations

import pytest

from git_intent.core.values import Message, Part
from git_intent.sessions.prose import is_confirmation, request_text, split_sentences

# A real reasoning message (entireio/cli session 4a364c97, fixtures/transcripts/claude-code/
# entire-cli__d51bd3632c2d__numbered-list-excerpt.jsonl), its fenced code left out as the reason picker leaves
# it.
THINKING = """The issue is that if a file was in `filesTouched` but NOT in the HEAD tree, it means:
1. The session created/modified the file
2. The file was deleted before commit (not in HEAD tree)

This means the session's work on that file was NOT included in the commit."""


def test_a_list_item_is_one_unit_never_cut_and_never_glued_to_the_next_number() -> None:
    assert split_sentences(THINKING) == [
        "The issue is that if a file was in `filesTouched` but NOT in the HEAD tree, it means:",
        "1. The session created/modified the file",
        "2. The file was deleted before commit (not in HEAD tree)",
        "This means the session's work on that file was NOT included in the commit.",
    ]
    assert split_sentences("Two fixes:\n- **One.** Move it. Then test.\n  and keep it short\nDone.") == [
        "Two fixes:",
        "- **One.** Move it. Then test.\n  and keep it short",
        "Done.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Done. Next step 2. then stop", ["Done.", "Next step 2. then stop"]),
        (
            "Let me fix Critical 1 - the comment in content_overlap.go at lines 99-101. The comment says so.",
            [
                "Let me fix Critical 1 - the comment in content_overlap.go at lines 99-101.",
                "The comment says so.",
            ],
        ),
        ("Two options: 1. Foo 2. Bar", ["Two options: 1. Foo 2. Bar"]),
        ("**3. NormalizeAfterLoad one-way migration**", ["**3. NormalizeAfterLoad one-way migration**"]),
        ("### 1. Add the field", ["### 1. Add the field"]),
        ("Use e.g. this one. And that vs. the other.", ["Use e.g. this one.", "And that vs. the other."]),
        ("Fix ssh.go. Then `go test`! Why? Because.", ["Fix ssh.go.", "Then `go test`!", "Why?", "Because."]),
        ("keep  two  spaces. as written", ["keep  two  spaces.", "as written"]),
    ],
)
def test_sentences_end_after_a_word_or_a_number_but_not_after_a_list_marker(
    text: str, expected: list[str]
) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", True),
        ("Yes", True),
        ("go ahead", True),
        ("all four", True),
        ("ok, do it", True),
        ("2", True),
        ("yep do it", True),
        ("yes, fix it", True),
        ("yeah, address all of them", True),
        ("Do it.", True),
        ("yes, let's do this", True),
        ("yes please", True),
        ("option B", True),
        ("thanks!", True),
        ("hi", True),
        ("yes for both, go ahead", True),
        ("or no, do c", True),
        ("go with 2", True),
        ("no", False),
        ("nope", False),
        ("ok but use port 8080", False),
        ("why does this fail?", False),
        ("", False),
        ("yes, and also rename the helper to compute_price", False),
        ("yes, annotate the list, and keep going, do meaningful commits", False),
    ],
)
def test_a_bare_confirmation_is_short_and_says_nothing_else(text: str, expected: bool) -> None:
    assert is_confirmation(text) is expected


def _prompt(text: str) -> Message:
    return Message(message_id="m", role="user", is_prompt=True, parts=(Part(kind="text", text=text),))


def test_a_request_is_what_the_user_typed() -> None:
    # Claude Code's record of `/goal …` (entireio/git-sync session 1e0a84da, fixtures/transcripts/claude-code/
    # git-sync__f27edbb5033d__goal-command-excerpt.jsonl), shortened.
    command = (
        "<command-name>/goal</command-name>\n            <command-message>goal</command-message>\n"
        "            <command-args>simplify this repo, make sure to de-slop it</command-args>"
    )
    assert request_text(_prompt(command)) == "simplify this repo, make sure to de-slop it"
    assert (
        request_text(_prompt("<ide_opened_file>a.py</ide_opened_file> fix <b>this</b>")) == "fix <b>this</b>"
    )
    assert request_text(_prompt("/ask why does it retry?")) == "why does it retry?"
