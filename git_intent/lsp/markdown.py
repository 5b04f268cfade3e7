"""Hover text and code lens titles made from blame answers, as markdown in which transcript text stays text.

Transcript and note text is untrusted (a session can hold any markdown or HTML): it only ever appears inside a
fenced code block whose fence is longer than any backtick run in it, or in code spans, so no link, image, raw
tag or emphasis from a transcript can become live in the editor. git-intent's own words are plain markdown
without backslash escapes, which Neovim 0.7 shows as written. Terminal controls are made visible as in every
other output (`terminal_safe`).
"""

from __future__ import annotations

import re
import textwrap

from ..core.terminal import terminal_safe
from ..explain.blame import BlameAnswer, LineAnswer
from ..explain.render import blame_text, names_message, short, trailer_credit

# A word of prose that CommonMark (or a renderer that links bare URLs) could turn into markup: a backslash, a
# backtick, emphasis, brackets, a tag or autolink, an entity, a table cell, strikethrough, a URL or an
# address.
_LIVE = re.compile(r"[\\`*_\[\]<>&!|~]|://|^www\.|@")
# A block a line could open: a heading, a quote, a list item, a thematic break, a table, a setext underline.
_BLOCK_START = re.compile(r"^(?:[#>+=|-]|\d+[.)])")
# A code span written by git-intent into its own sentences (`git intent install`), between spaces: kept as it
# is.
_SPAN = re.compile(r"(?:(?<=\s)|^)(`[^`<>\n]+`)(?=\s|$)")
LENS_REQUEST = 60  # characters of the request in a code lens title


def fenced(text: str, info: str = "text") -> str:
    """`text` as a fenced code block whose backtick fence is longer than any run of backticks inside it
    (CommonMark: such a block ends only at a fence at least as long), with terminal controls made visible."""
    text = terminal_safe(text).rstrip("\n")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def prose(text: str) -> str:
    """`text` on one line as markdown prose that reads as written in every editor tested: plain words stay
    plain, and each word that markup could act on (a path with `_`, a URL, a tag, brackets) becomes a code
    span; a code span already in the text stays one. No backslash escapes: Neovim 0.7's hover shows them
    (`git\\-intent`), and CommonMark needs none around plain words."""
    text = terminal_safe(" ".join(text.split()))
    out: list[str] = []
    for n, piece in enumerate(_SPAN.split(text)):
        if n % 2:  # a code span the split captured
            out.append(piece)
            continue
        out.append(
            " ".join(code_span(word) if word and _LIVE.search(word) else word for word in piece.split(" "))
        )
    joined = "".join(out)
    first, _, rest = joined.partition(" ")
    if _BLOCK_START.match(first):  # a sentence never opens a heading, a list or a quote
        return f"{code_span(first)} {rest}".rstrip()
    return joined


def code_span(text: str) -> str:
    """`text` on one line as an inline code span (delimited by more backticks than any run inside, padded
    with spaces when it starts or ends with one): never a link, not even for a linkifying renderer."""
    text = terminal_safe(" ".join(text.split()))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{tick}{pad}{text}{pad}{tick}"


_HEADS = {
    "unrecorded": "**Unrecorded**: git-intent does not know who wrote this line.",
    "uncommitted": "**Not committed yet**.",
    "unreadable": "**Unreadable note**: the record of this line's commit cannot be read.",
}


def hover_markdown(answer: LineAnswer) -> str:
    """The hover for one line: a summary of who wrote it, then `git intent blame`'s own text for the line
    (request, reasoning, edit, commit, the command to read more, or why nothing is known) in a code block.
    The summary is git-intent's own words; ids and authors are code spans, the agent's name is plain
    (`AGENT_NAME`: lowercase letters, digits, `.`, `_`, `-`)."""
    attribution = answer.attribution
    body = blame_text(BlameAnswer(lines=[answer]))
    if answer.status == "agent" and attribution is not None and not names_message(attribution):
        credit = trailer_credit([answer.commit] if answer.commit else [])
        head = f"**{prose(attribution.agent)}** wrote this line, {prose(credit)}."
    elif answer.status == "agent" and attribution is not None:
        head = (
            f"**{prose(attribution.agent)}** wrote this line · session {code_span(attribution.session_id)} "
            f"· message {code_span(short(attribution.message_id))}"
        )
    elif answer.status == "human":
        head = (
            "**No agent wrote this line**: a person did"
            + (f" ({code_span(answer.author)})" if answer.author else "")
            + "."
        )
    else:
        head = _HEADS.get(answer.status, f"**{prose(answer.status)}**")
        if answer.status == "unreadable" and answer.reason:  # blame keeps this sentence for stderr
            body = f"{body.rstrip()}\n{answer.reason}\n"
    return f"{head}\n\n{fenced(body)}\n"


def sentence_markdown(sentence: str) -> str:
    """A one-sentence answer (not committed, not installed, a file git-intent cannot blame) as prose."""
    return prose(sentence) + "\n"


def lens_title(answer: LineAnswer) -> str:
    """`claude-code · 0a0314fb · asked: Handle single lines exceeding…` (plain text: clients do not render
    markdown in code lenses; controls made visible); for a credit without a readable message, what is known:
    `claude-code · named by a trailer of commit be54402997b4 · no transcript`."""
    attribution = answer.attribution
    if attribution is None:
        return answer.status
    if not names_message(attribution):  # a trailer's credit: the agent and the commit are all that is known
        commit = f" of commit {answer.commit[:12]}" if answer.commit else ""
        return terminal_safe(f"{attribution.agent} · named by a trailer{commit} · no transcript")
    title = f"{attribution.agent} · {short(attribution.message_id)}"
    if not answer.evidence:
        return terminal_safe(f"{title} · transcript not on this machine")
    request = next((e.text for e in answer.evidence if e.kind == "request"), None)
    if request is not None:
        title += " · asked: " + textwrap.shorten(" ".join(request.split()), LENS_REQUEST, placeholder="…")
    return terminal_safe(title)
