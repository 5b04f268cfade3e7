"""Tool calls written as XML in an assistant's text, as Cline and Roo Code asked models to before native tool
calls:

    <write_to_file>
    <path>src/app.py</path>
    <content>
    print("hi")
    </content>
    </write_to_file>

Cline's parser (apps/vscode/src/core/assistant-message/parse-assistant-message.ts, v3.89) takes a parameter's
value up to its first closing tag, except a file's `content` (and a `diff`), which runs to the last one: the
text may itself hold the closing tag. A value loses its white space at both ends, a file body only the line
breaks the tags add. Pure functions; time linear in the text per tool name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["XmlCall", "xml_calls"]

# Parameters whose value is a file body: it runs to the last closing tag, and keeps its own white space.
BODIES = frozenset({"content", "diff"})


@dataclass(frozen=True)
class XmlCall:
    """One tool call found in a text: its tool `name`, the string value of each parameter it gave, and
    where it stands in the text (`text[start:end]`, its tags included)."""

    name: str
    args: dict[str, str] = field(default_factory=dict)
    start: int = 0
    end: int = 0


def xml_calls(text: str, tools: frozenset[str], params: frozenset[str]) -> list[XmlCall]:
    """The complete calls of `tools` in `text`, in the order they appear, with the values of `params`; a call
    without its closing tag (the model stopped) is left out, as the agent runs none of it."""
    found: list[tuple[int, XmlCall]] = []
    for name in tools:
        opening, closing = f"<{name}>", f"</{name}>"
        at = text.find(opening)
        while at >= 0:
            end = text.find(closing, at + len(opening))
            if end < 0:
                break
            body = text[at + len(opening) : end]
            found.append((at, XmlCall(name, _args(body, params), at, end + len(closing))))
            at = text.find(opening, end + len(closing))
    return [call for _, call in sorted(found, key=lambda item: item[0])]


def _args(body: str, params: frozenset[str]) -> dict[str, str]:
    args: dict[str, str] = {}
    for name in params:
        opening, closing = f"<{name}>", f"</{name}>"
        start = body.find(opening)
        if start < 0:
            continue
        start += len(opening)
        end = body.rfind(closing) if name in BODIES else body.find(closing, start)
        if end < start:
            continue
        value = body[start:end]
        args[name] = value.removeprefix("\n").removesuffix("\n") if name in BODIES else value.strip()
    return args
