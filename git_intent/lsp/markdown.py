"""Hover text and code lens titles made from blame answers, as markdown in which transcript text stays text.

Transcript and note text is untrusted (a session can hold any markdown or HTML): it only ever appears inside a
fenced code block whose fence is longer than any backtick run in it, or escaped, so no link, image, raw tag
or emphasis from a transcript can become live in the editor (issue 23, item 1). Terminal controls are made
visible as in every other output (`terminal_safe`).
"""

from __future__ import annotations

import re
import textwrap

from ..explain.blame import BlameAnswer, LineAnswer
from ..explain.render import blame_text, short
from ..terminal import terminal_safe

_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~&:\"'=^$%@;,/?])")
LENS_REQUEST = 60  # characters of the request in a code lens title


def fenced(text: str, info: str = "text") -> str:
    """`text` as a fenced code block whose backtick fence is longer than any run of backticks inside it
    (CommonMark: such a block ends only at a fence at least as long), with terminal controls made visible."""
    text = terminal_safe(text).rstrip("\n")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def escaped(text: str) -> str:
    """`text` on one line with every markdown punctuation character backslash-escaped (CommonMark: any ASCII
    punctuation may be escaped), so it renders as the same characters and nothing else."""
    return _PUNCTUATION.sub(r"\\\1", terminal_safe(" ".join(text.split())))


def code_span(text: str) -> str:
    """`text` on one line as an inline code span (delimited by more backticks than any run inside, padded
    with spaces when it starts or ends with one): never a link, not even for a linkifying renderer."""
    text = terminal_safe(" ".join(text.split()))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{tick}{pad}{text}{pad}{tick}"


def hover_markdown(answer: LineAnswer) -> str:
    """The hover for one line: a summary of who wrote it (ids as code spans), then `git intent blame`'s own
    text for the line (request, reasoning, edit, commit, the command to read more) in a code block."""
    attribution = answer.attribution
    if answer.status == "agent" and attribution is not None:
        head = (f"**{escaped(attribution.agent)}** wrote this line · session {code_span(attribution.session_id)}"
                f" · message {code_span(short(attribution.message_id))}")
    elif answer.status == "human":
        head = "**No agent wrote this line**: a person did" + (
            f" ({code_span(answer.author)})" if answer.author else "") + "."
    else:
        # blame's text keeps an unreadable note's sentence for stderr: the hover is the only place to say it
        head = f"**{escaped(answer.status)}**" + (f": {escaped(answer.reason)}" if answer.reason else "")
    body = blame_text(BlameAnswer(lines=[answer]))
    return f"{head}\n\n{fenced(body)}\n"


def sentence_markdown(sentence: str) -> str:
    """A one-sentence answer (not committed, not installed, unreadable) as escaped markdown."""
    return escaped(sentence) + "\n"


def lens_title(answer: LineAnswer) -> str:
    """`claude-code · 0a0314fb · asked: Handle single lines exceeding…` (plain text: clients do not render
    markdown in code lenses; controls made visible)."""
    attribution = answer.attribution
    if attribution is None:
        return answer.status
    title = f"{attribution.agent} · {short(attribution.message_id)}"
    request = next((e.text for e in answer.evidence if e.kind == "request"), None)
    if request is not None:
        title += " · asked: " + textwrap.shorten(" ".join(request.split()), LENS_REQUEST, placeholder="…")
    return terminal_safe(title)
