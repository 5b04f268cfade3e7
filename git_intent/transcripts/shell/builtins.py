"""What the shell builtins `shell` follows print: `echo`, `printf`, and the whole-line results of in-place
`sed` scripts (s/^…$/R/, s/.*/R/, a/i/c text); and output split into added lines."""

from __future__ import annotations

import re

from ...core.values import AddedLine
from .lexer import Piece, Word, unescape

# The width starts with 1-9 (a leading 0 is a flag): with `\d*` after the flags `[-+ #0]*`, each split of a
# run of zeros was tried, quadratic ("%" + "0" * 10000 without a conversion).
_CONVERSION = re.compile(r"%([-+ #0]*(?:[1-9]\d*)?(?:\.\d*)?)([a-zA-Z%])")
_REGEX_ADDRESS = r"/(?:[^/\\\n]|\\.)*/[IM]*"
_ADDRESS = re.compile(
    rf"(?:(\d+)|\$|{_REGEX_ADDRESS})?((?:,\s*|~)(?:\d+|\$|\+\d+|~\d+|{_REGEX_ADDRESS}))?\s*(!)?\s*"
)


def echo(args: list[Word]) -> list[Piece]:
    interpret: bool | None = None  # None: bash prints backslashes, zsh's echo reads them as escapes
    newline, index = True, 0
    while index < len(args) and re.fullmatch(r"-[neE]+", args[index].text or ""):
        for flag in (args[index].text or "")[1:]:
            newline = newline and flag != "n"
            interpret = True if flag == "e" else False if flag == "E" else interpret
        index += 1
    pieces: list[Piece] = []
    for position, arg in enumerate(args[index:]):
        pieces += [" "] if position else []
        for piece in arg.pieces:
            if piece is None or interpret is False or "\\" not in piece:
                pieces.append(piece)
            elif interpret is None:
                pieces.append(None)
            else:
                text, stop = unescape(piece)
                pieces.append(text)
                if stop:
                    return pieces
    return [*pieces, "\n"] if newline else pieces


def printf(args: list[Word]) -> list[Piece] | None:
    if args and args[0].text == "--":
        args = args[1:]
    form = args[0].text if args else None
    if form is None or form.startswith("-"):
        return None  # `printf -v VAR` prints nothing; a dynamic format shows nothing
    values, used, pieces = args[1:], 0, list[Piece]()
    specs = [*_CONVERSION.finditer(form)]
    while True:
        position = 0
        for match in [*specs, None]:
            literal = form[position : match.start() if match else len(form)]
            pieces.append(unescape(literal)[0])
            if match is None:
                break
            position = match.end()
            flags, kind = match.groups()
            if kind == "%":
                pieces.append("%")
                continue
            value = values[used] if used < len(values) else Word(0, [""])
            used += 1
            text = value.text
            if kind == "s" and not flags:
                pieces += value.pieces
            elif kind == "b" and not flags and text is not None:
                text, stop = unescape(text)
                pieces.append(text)
                if stop:
                    return pieces
            elif kind in "di" and not flags and re.fullmatch(r"[-+]?\d+", text or "0"):
                pieces.append(str(int(text or "0")))
            else:
                pieces.append(None)
        if not specs or used >= len(values) or all(m.group(2) == "%" for m in specs):
            return pieces


def added_lines(pieces: list[Piece], numbered: bool) -> list[AddedLine]:
    """The complete lines of some output; a line holding an unknown piece is dropped, and since that piece
    may hold newlines, later lines lose their numbers."""
    lines: list[AddedLine] = []
    text: list[str] = []
    known, number = True, 1
    for piece in pieces:
        if piece is None:
            known = numbered = False
            continue
        for index, part in enumerate(piece.split("\n")):
            if index:
                if known:
                    lines.append(AddedLine(text="".join(text), line=number if numbered else None))
                text, known, number = [], True, number + 1
            text.append(part)
    if known and "".join(text):
        lines.append(AddedLine(text="".join(text), line=number if numbered else None))
    return lines


def sed_script(script: str) -> list[AddedLine] | None:
    """The lines an in-place sed script writes, or None when any command's result depends on the file.

    A line number is known only for a script of one command on one numbered line (`3s/^.*$/x/`, `3a x`).
    """
    found: list[tuple[int | None, str, str]] = []
    i = 0
    while i < len(script):
        if script[i] in " \t\n;":
            i += 1
            continue
        address = _ADDRESS.match(script, i)
        assert address is not None  # every part of the pattern is optional
        number, more, negated = address.groups()
        i = address.end()
        command = script[i : i + 1]
        if command == "s":
            text, i = _substitution(script, i + 1)
        elif command and command in "aic":
            text, i = _text_argument(script, i + 1)
        else:
            return None  # d, y, {…}, \cREGEXc addresses, …: the file decides what remains
        if text is None:
            return None
        found.append((int(number) if number and not more and not negated else None, command, text))
    added: list[AddedLine] = []
    for line, command, text in found:
        first = None if line is None or len(found) > 1 else line + 1 if command == "a" else line
        added += [
            AddedLine(text=t, line=None if first is None else first + k)
            for k, t in enumerate(text.split("\n"))
        ]
    return added or None


def _substitution(script: str, i: int) -> tuple[str | None, int]:
    """The replacement of `s/PATTERN/REPLACEMENT/FLAGS` starting after the `s`, when it is a whole line."""
    delimiter = script[i : i + 1]
    if not delimiter or delimiter in "\\\n":
        return None, len(script)
    parts = re.compile(
        rf"((?:[^{re.escape(delimiter)}\\]|\\.)*){re.escape(delimiter)}"
        rf"((?:[^{re.escape(delimiter)}\\]|\\.)*){re.escape(delimiter)}([^;\n}}]*)",
        re.S,
    ).match(script, i + 1)
    if parts is None:
        return None, len(script)
    pattern, replacement, flags = parts.groups()
    whole = pattern in (".*", "^.*", ".*$") or (
        pattern.startswith("^") and pattern.endswith("$") and not pattern.endswith("\\$")
    )
    if not whole or "|" in pattern or set(flags.strip()) - set("gIip0123456789"):
        return None, parts.end()
    out: list[str] = []
    k = 0
    while k < len(replacement):
        c = replacement[k]
        if c == "&" or (c == "\\" and replacement[k + 1 : k + 2] in tuple("0123456789LUluE")):
            return None, parts.end()  # the matched text or a case change: depends on the file
        if c == "\\" and k + 1 < len(replacement):
            out.append({"n": "\n", "t": "\t"}.get(replacement[k + 1], replacement[k + 1]))
            k += 2
        else:
            out.append(c)
            k += 1
    return "".join(out), parts.end()


def _text_argument(script: str, i: int) -> tuple[str | None, int]:
    """The text of `a`, `i`, `c`: `a\\` + newline + lines (BSD and GNU) or `a text` (GNU one-liner)."""
    while i < len(script) and script[i] in " \t":
        i += 1
    if script.startswith("\\\n", i):
        i += 2
    elif script.startswith("\\", i):
        i += 1
    out: list[str] = []
    while i < len(script) and script[i] != "\n":
        if script[i] == "\\" and i + 1 < len(script):
            out.append(script[i + 1])
            i += 2
        else:
            out.append(script[i])
            i += 1
    return ("".join(out) or None), i
