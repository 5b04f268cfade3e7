"""Lexing bash for `shell`: words (as literal pieces and unknown pieces), redirections with heredoc bodies,
and operators, by a small quote-aware lexer (what `shlex` cannot see; see the package docstring)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

Piece = str | None  # None: text only the running shell knows (an expansion, a glob, a substitution)
_BLANKS = " \t\r"
_OPERATORS = (
    "&&",
    "||",
    ";;",
    "|&",
    "&>>",
    "&>",
    ">>",
    ">|",
    ">&",
    "<<<",
    "<<-",
    "<<",
    "<&",
    "<>",
    ";",
    "&",
    "|",
    "(",
    ")",
    "<",
    ">",
)
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|0[0-7]{0,3}|[1-7][0-7]{0,2}|.)", re.S)
_CHARS = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_ANSI_C = re.compile(r"((?:[^'\\]|\\.)*)'?", re.S)
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|.")
_BACKTICK = re.compile(r"`(?:[^`\\]|\\.)*`?", re.S)


@dataclass
class Word:
    """A word as literal pieces and unknown ones (None); `quoted` when any part of it was quoted."""

    start: int
    parts: list[Piece] = field(default_factory=list)
    quoted: bool = False
    raw: str = ""

    def add(self, piece: Piece) -> None:
        self.parts.append(piece)  # joined only when read: appending char by char stays linear

    @property
    def pieces(self) -> list[Piece]:
        """Literal runs joined, with None for each unknown piece."""
        merged: list[Piece] = []
        run: list[str] = []
        for part in [*self.parts, None]:
            if part is not None:
                run.append(part)
                continue
            if run:
                merged.append("".join(run))
                run = []
            merged.append(None)
        return merged[:-1]

    @property
    def text(self) -> str | None:
        """The word's value when every piece of it is literal."""
        return None if None in self.parts else "".join(p for p in self.parts if p is not None)


@dataclass
class Heredoc:
    """A heredoc opened by `<<`/`<<-`: its delimiter, and its body once the line has ended."""

    delimiter: str
    strip_tabs: bool
    literal: bool
    body: list[Piece] | None = None  # None: never read (no newline followed the operator)


@dataclass
class Redirect:
    """A redirection operator with its file descriptor, its target word and, for `<<`, its heredoc."""

    fd: int | None
    op: str
    target: Word | None = None
    heredoc: Heredoc | None = None


Token = Word | Redirect | str


class Lexer:
    """The tokens of one bash command string (words, redirections, operators; a newline is `;`)."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.pending: list[Heredoc] = []

    def tokens(self, closing: bool = False) -> list[Token]:
        """Tokens up to the end, or up to the `)` closing a `$(` when `closing`."""
        s, depth = self.s, 0
        out: list[Token] = []
        word: Word | None = None
        while self.i < len(s):
            c = s[self.i]
            if c in "<>" and s.startswith(
                "(", self.i + 1
            ):  # process substitution: a word only the shell knows
                word = word or Word(self.i)
                self.i += 2
                self.tokens(closing=True)
                word.add(None)
                continue
            if c in _BLANKS or c == "\n" or c in ";&|()<>":
                fd = None
                if word is not None:
                    if c in "<>" and s[word.start : self.i].isdigit():
                        fd = int(s[word.start : self.i])
                    else:
                        self._flush(word, out)
                    word = None
                if c == "\n":
                    out.append(";")
                    self.i += 1
                    self._bodies()
                elif c in _BLANKS:
                    self.i += 1
                else:
                    op = next(o for o in _OPERATORS if s.startswith(o, self.i))
                    self.i += len(op)
                    if op == ")" and depth == 0 and closing:
                        return out
                    depth += {"(": 1, ")": -1 if depth else 0}.get(op, 0)
                    out.append(Redirect(fd, op) if op[0] in "<>" or op in ("&>", "&>>") else op)
                continue
            if c == "#" and word is None:
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
                continue
            word = word or Word(self.i)
            self._word_char(word, c)
        if word is not None:
            self._flush(word, out)
        return out

    def _word_char(self, word: Word, c: str) -> None:
        s = self.s
        if c == "\\":
            if s.startswith("\n", self.i + 1):
                self.i += 2  # line continuation
            else:
                word.add(s[self.i + 1 : self.i + 2] or "\\")
                word.quoted = True  # `<<\EOF` quotes the delimiter like `<<'EOF'`
                self.i += 2
        elif c == "'":
            end = s.find("'", self.i + 1)
            end = len(s) if end < 0 else end
            word.add(s[self.i + 1 : end])
            word.quoted = True
            self.i = end + 1
        elif c == '"':
            self.i += 1
            self._quoted(word, heredoc=False)
            word.quoted = True
        elif c == "$":
            self._dollar(word, in_quotes=False)
        elif c == "`":
            self._backtick(word)
        elif (
            c in "*?["
            or (c == "~" and self.i == word.start)
            or (
                c == "{"
                and not (self.i == word.start and s[self.i + 1 : self.i + 2] in ("", " ", "\t", "\n"))
            )
        ):
            word.add(None)  # globs, tilde and brace expansion
            self.i += 1
        else:
            word.add(c)
            self.i += 1

    def _quoted(self, word: Word, heredoc: bool) -> None:
        """Double-quoted text (or an unquoted heredoc body): `$` and backticks expand, `\\` quotes few."""
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c == '"' and not heredoc:
                self.i += 1
                return
            if c == "\\" and self.i + 1 < len(s):
                nxt = s[self.i + 1]
                if nxt == "\n":
                    self.i += 2
                    continue
                if nxt in "$`\\" or (nxt == '"' and not heredoc):
                    word.add(nxt)
                    self.i += 2
                    continue
            if c == "$":
                self._dollar(word, in_quotes=True)
            elif c == "`":
                self._backtick(word)
            else:
                word.add(c)
                self.i += 1

    def _dollar(self, word: Word, in_quotes: bool) -> None:
        s, nxt = self.s, self.s[self.i + 1 : self.i + 2]
        if nxt == "(":
            self.i += 2
            self.tokens(closing=True)
            word.add(None)
        elif nxt == "{":
            depth, self.i = 0, self.i + 1
            while self.i < len(s):
                depth += {"{": 1, "}": -1}.get(s[self.i], 0)
                self.i += 1
                if depth == 0:
                    break
            word.add(None)
        elif nxt == "'" and not in_quotes:  # $'…' ANSI-C quoting
            match = _ANSI_C.match(s, self.i + 2)
            assert match is not None  # the pattern matches the empty string
            word.add(unescape(match.group(1))[0])
            word.quoted = True
            self.i = match.end()
        elif nxt == '"' and not in_quotes:  # $"…" locale translation: read as "…"
            self.i += 2
            self._quoted(word, heredoc=False)
            word.quoted = True
        elif nxt.isalnum() or nxt == "_" or (nxt and nxt in "@*#?$!-"):
            match = _PARAMETER.match(s, self.i + 1)
            assert match is not None
            self.i = match.end()
            word.add(None)
        else:
            word.add("$")
            self.i += 1

    def _backtick(self, word: Word) -> None:
        match = _BACKTICK.match(self.s, self.i)
        assert match is not None
        self.i = match.end()
        word.add(None)

    def _flush(self, word: Word, out: list[Token]) -> None:
        word.raw = self.s[word.start : self.i]
        last = out[-1] if out else None
        if isinstance(last, Redirect) and last.target is None:
            last.target = word
            if last.op in ("<<", "<<-"):
                delimiter = "".join(p for p in word.pieces if p is not None)
                last.heredoc = Heredoc(delimiter, last.op == "<<-", word.quoted)
                self.pending.append(last.heredoc)
        else:
            out.append(word)

    def _bodies(self) -> None:
        """Read the bodies of the heredocs opened on the line that just ended."""
        s = self.s
        for doc in self.pending:
            lines: list[str] = []
            while self.i < len(s):
                end = s.find("\n", self.i)
                end = len(s) if end < 0 else end
                line = s[self.i : end]
                self.i = end + 1
                line = line.lstrip("\t") if doc.strip_tabs else line
                if line == doc.delimiter:
                    break
                lines.append(line)
            text = "".join(line + "\n" for line in lines)
            if doc.literal:
                doc.body = [text]
            else:
                body = Lexer(text)
                word = Word(0)
                body._quoted(word, heredoc=True)
                doc.body = word.pieces
        self.pending = []


def unescape(text: str) -> tuple[str, bool]:
    """Backslash escapes as `echo -e`, `printf` and `$'…'` read them; True when `\\c` ends the output."""

    out: list[str] = []
    position = 0
    for match in _ESCAPE.finditer(text):
        out.append(text[position : match.start()])
        position, code = match.end(), match.group(1)
        if code == "c":
            return "".join(out), True
        if code[0] == "x":
            out.append(chr(int(code[1:], 16)))
        elif code[0].isdigit():
            out.append(chr(int(code, 8) & 0xFF))
        else:
            out.append(_CHARS.get(code, code if code in "\\'\"?" else "\\" + code))
    out.append(text[position:])
    return "".join(out), False
