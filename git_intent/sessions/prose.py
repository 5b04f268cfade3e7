"""The words of a message as a reader takes them: sentences and whole list items, prompts that only confirm,
counts of things ("3 lines") and the token estimate of a text.

One splitter, one confirmation test, one counter and one estimate for every caller: the reason picker (what
blame, why, review and the web view quote), the topic segmentation and key facts, budgets, `ask` and the
renderers.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from ..core import linear
from ..core.values import Message

CONFIRMATION_CHARS = 60  # a longer prompt says more than "yes"
CHARS_PER_TOKEN = 4  # token estimates are characters / 4, the usual rule of thumb for English and code

# A list item (`- `, `* `, `+ `, `• `, `1. `, `2) `) is one unit whatever it holds: a quote cut inside one
# read "The session created/modified the file 2." (the next item's number glued to a cut item).
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+\S")
# A sentence ends at `.`, `!` or `?` and a space: after a letter, a closing bracket, quote or backtick (not
# after the usual abbreviations), or after a number when a capital follows ("lines 99-101. The comment"), but
# never after a lone short number ("### 1. Fix", "**2. Alias**", "step 2. then", "the file 2. The next"): a
# list marker is not a sentence.
_SENTENCE_END = re.compile(
    r"(?:(?<=[A-Za-z)\]`'\"”’][.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bcf\.)"
    r"|(?<=\d[.!?])(?<![\s:(#*_]\d\.)(?<![\s:(#*_]\d\d\.)(?<!^\d\.)(?<!^\d\d\.)(?=\s+[A-Z]))\s+"
)
# RE2 (`linear`): under `re` the overlapping alternatives ("y" is both `y` and `[a-z]`) backtracked
# exponentially: "y " * 24 + "zzz" took 21 s. Unicode classes as `re` had them (`linear.WORD`,
# `linear.SPACE`); RE2's `\b` is ASCII, so a word ends at a separator, an ASCII boundary or the end ("all
# café").
_CONFIRM = linear.compile(
    rf"(?i)^[^{linear.WORD}]*(?:(?:yes|yep|yeah|yup|ya|y|ok(?:ay)?|k|sure|fine|great|perfect|cool|nice|good|correct|"
    r"right|agreed?|approved?|lgtm|go(?: ahead| for it| on)?|proceed|continue|please(?: do| proceed| "
    r"continue)?|"
    rf"sounds? good|makes sense|ship it|(?:for )?(?:both|all(?: of them| [{linear.WORD}]+)?)|"
    r"(?:or )?(?:no,? )?(?:do |go with |take |pick )?(?:option |number |#)?(?:\p{Nd}{1,2}|[a-z])|let'?s "
    r"(?:do|go|proceed)(?: (?:it|this|that|with it))?|(?:do|fix|address|implement|apply|handle|make) "
    r"(?:it|them|that|this|these|those|so|both|all(?: of them)?)|"
    rf"thanks?(?: you)?|hi|hello|hey)(?:[{linear.SPACE},.!]+|\b|$))+[^{linear.WORD}]*$"
)
# Agent and IDE wrapper blocks (`<ide_opened_file>`, `<system-reminder>`, `<command-name>`) always have `_` or
# `-` in their names; HTML a person typed (`<script>`, `<div>`) is part of the request and stays. One pass
# finds the tags; `_without_tag_blocks` pairs each opening tag with the first closing tag of its name after
# it. (`<(name)>.*?</\1>` scanned to the end from every unclosed opening tag: "<a_b>" * 20000 took 5 s.)
# Linear under `re`: a match starts only at `<`, and no class it repeats holds `<`.
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*[_-][\w-]*)>")
_COMMAND_ARGS = linear.compile(r"(?s)<command-args>(.*?)</command-args>")


def split_sentences(text: str) -> list[str]:
    """`text` cut into lines, lines into sentences, each stripped and otherwise verbatim (a key fact is quoted
    as written), empty ones left out; a list item, with the indented lines that continue it, stays one unit,
    never cut inside.

    "Fix two things:\\n1. The session created the file\\n2. Its branch. Then stop." gives ["Fix two things:",
    "1. The session created the file", "2. Its branch. Then stop."]."""
    units: list[str] = []
    item = False  # whether the last unit is a list item that an indented line continues
    for line in text.splitlines():
        if not line.strip():
            item = False
            continue
        if _ITEM.match(line):
            units.append(line)
            item = True
        elif item and line[:1].isspace() and not line.lstrip().startswith("```"):
            units[-1] = f"{units[-1]}\n{line}"
        else:
            units += _SENTENCE_END.split(line)
            item = False
    return [s for s in (u.strip() for u in units) if s]


def is_list_item(unit: str) -> bool:
    """Whether a unit of `split_sentences` is a list item (`- …`, `1. …`)."""
    return bool(_ITEM.match(unit))


def one_line(text: str) -> str:
    """`text` with every run of whitespace made one space, stripped."""
    return " ".join(text.split())


def units(text: str) -> list[str]:
    """The sentences and list items of `text` (`split_sentences`), each on one line."""
    return [one_line(s) for s in split_sentences(text)]


def is_confirmation(text: str) -> bool:
    """Whether a prompt only confirms, acknowledges or greets: "yes", "go ahead", "all four", "ok, do it",
    "2", "yeah, address all of them", "thanks" — short, and nothing else in it."""
    text = text.strip()
    return bool(text) and len(text) <= CONFIRMATION_CHARS and bool(_CONFIRM.match(text))


def request_text(message: Message) -> str:
    """What a prompt asks: without IDE and command wrapper blocks (`<ide_opened_file>…`) or a `/ask`
    prefix; a slash command typed with arguments (`/goal simplify this repo`, recorded as `<command-args>`
    by Claude Code) as its arguments."""
    raw = message.text
    args = _COMMAND_ARGS.search(raw)
    if args and args.group(1).strip() and raw.lstrip().startswith("<command-"):
        return args.group(1).strip()
    text = _without_tag_blocks(raw).strip()
    text = re.sub(r"^/(?:ask|code|architect|context)\s+", "", text)
    return text or raw.strip()


def _without_tag_blocks(text: str) -> str:
    """`text` with each wrapper block replaced by a space: an opening tag (`<ide_opened_file>`, a name with
    `_` or `-`) up to the first closing tag of its name after it, left to right; an opening tag never
    closed stays."""
    if "<" not in text:
        return text
    opening: list[re.Match[str]] = []
    closing: dict[str, list[tuple[int, int]]] = {}
    for tag in _TAG.finditer(text):
        if tag[1]:
            closing.setdefault(tag[2], []).append(tag.span())
        else:
            opening.append(tag)
    out: list[str] = []
    at = 0
    for tag in opening:
        spans = closing.get(tag[2], [])
        after = bisect_left(spans, (tag.end(), 0))
        if tag.start() < at or after == len(spans):
            continue
        out += [text[at : tag.start()], " "]
        at = spans[after][1]
    return "".join(out) + text[at:] if out else text


def clip_units(units: list[str], limit: int) -> str:
    """Whole units (sentences, list items) joined while they fit in `limit` characters; a first unit longer
    than that is cut at a word, ending " …" (a quote checker reads the ellipsis as an elision)."""
    out = ""
    for unit in units:
        joined = f"{out} {unit}".strip()
        if len(joined) > limit:
            break
        out = joined
    if out or not units:
        return out
    cut = units[0][: limit - 2]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + " …"


def estimate_tokens(text: str) -> int:
    """Tokens in `text`, estimated as characters / 4 rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def plural(count: int, noun: str) -> str:
    """`noun` as it reads after `count`: "line" after 1, "lines" after any other number."""
    return noun if count == 1 else f"{noun}s"


def counted(count: int, noun: str) -> str:
    """`count` and `noun`, singular for one, thousands separated: "1 line", "1,204 lines"."""
    return f"{count:,} {plural(count, noun)}"
