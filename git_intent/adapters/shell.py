"""File writes an agent made through its shell tool, credited only where the command text shows what was written.

Agents sometimes write files from a shell instead of an edit tool: `cat > F <<'EOF'`, `cat >> F <<EOF`,
`tee F <<EOF`, `printf '…' > F`, `echo -e '…' >> F`, `sed -i 's/^.*$/text/' F`. `shell_edits` reads one
bash command string and returns those writes as `Edit`s whose `added` lines are exactly what the text
shows. A line that depends on the running shell (a `$VAR`, `$(…)`, a glob, the file's current content, a
partial-line `sed`) is left out, so attribution leaves it human (DESIGN.md: never guess); after such a
piece the line numbers of a created file are unknown too.

`shlex` splits words but cannot see bash's structure: it reads heredoc bodies as words, treats newlines
as blanks, splits `2>` into a word and an operator, starts comments inside words (`a#b`) and forgets
which words were quoted (so which ones expand). A small quote-aware lexer does that part; `shlex.join`
renders Codex argv calls back into one command. Pure functions, no I/O.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ..jsonl import loads
from ..models import AddedLine, Edit

CLAUDE_TOOL = "Bash"
CODEX_TOOLS = frozenset({"exec_command", "shell", "shell_command", "local_shell_call", "container.exec"})

Piece = str | None  # None: text only the running shell knows (an expansion, a glob, a substitution)
_BLANKS = " \t\r"
_OPERATORS = ("&&", "||", ";;", "|&", "&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>",
              ";", "&", "|", "(", ")", "<", ">")
_STDOUT = frozenset({">", ">|", ">>", "&>", "&>>"})
_PREFIXES = frozenset({"!", "{", "if", "then", "elif", "else", "while", "until", "do", "time", "command", "builtin"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|0[0-7]{0,3}|[1-7][0-7]{0,2}|.)", re.S)
_CHARS = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_CONVERSION = re.compile(r"%([-+ #0]*\d*(?:\.\d*)?)([a-zA-Z%])")
_EXIT = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$", re.M)
_ANSI_C = re.compile(r"((?:[^'\\]|\\.)*)'?", re.S)
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|.")
_BACKTICK = re.compile(r"`(?:[^`\\]|\\.)*`?", re.S)
_SUFFIX = re.compile(r"(\.[\w.~-]*)?")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_REGEX_ADDRESS = r"/(?:[^/\\\n]|\\.)*/[IM]*"
_ADDRESS = re.compile(rf"(?:(\d+)|\$|{_REGEX_ADDRESS})?((?:,\s*|~)(?:\d+|\$|\+\d+|~\d+|{_REGEX_ADDRESS}))?\s*(!)?\s*")


def shell_edits(command: str, cwd: str | None, *, tool: str, message_id: str, call_id: str | None = None,
                timestamp: datetime | None = None) -> list[Edit]:
    """The file writes of one bash `command` run in `cwd`, in command order; [] when none is visible.

    `>`/`>|`/`&>` and `tee` make `create` edits numbered 1..n; `>>`, `tee -a` and `sed -i` make `update`
    edits (no line numbers, except `sed -i 'Ns/^.*$/x/'`-style single commands on line N). Relative
    paths are resolved against `cwd` and any `cd DIR` earlier in the chain (kept relative when `cwd` is
    None); writes after a `cd` whose target is unknown, and to dynamic paths or `/dev/*`, are skipped.
    Commands holding an apply_patch envelope yield nothing: the adapters parse those already.
    """
    if "*** Begin Patch" in command:
        return []
    try:
        tokens = _Lexer(command).tokens()
    except RecursionError:
        return []
    writes = _Run(cwd).run(tokens)
    return [Edit(path=path, tool=tool, message_id=message_id, call_id=call_id, timestamp=timestamp, kind=kind,
                 new_text="\n".join(a.text for a in added), added=tuple(added)) for path, kind, added in writes]


def codex_edits(name: str, arguments: Any, *, message_id: str, call_id: str | None = None,
                timestamp: datetime | None = None) -> list[Edit]:
    """`shell_edits` of a Codex shell call (`exec_command`, `shell`, `local_shell_call`, …), tool = `name`."""
    found = codex_command(arguments)
    if found is None:
        return []
    return shell_edits(found[0], found[1], tool=name, message_id=message_id, call_id=call_id, timestamp=timestamp)


def codex_command(arguments: Any) -> tuple[str, str | None] | None:
    """The bash script and working directory of a Codex shell call's arguments, or None.

    Arguments are JSON text or an object: `{"cmd": "…", "workdir": …}` (exec_command),
    `{"command": ["bash", "-lc", "…"], "workdir": …}` (shell), `{"command": [...], "working_directory": …}`
    (local_shell_call action). An argv that is not `SHELL -c SCRIPT` is quoted back with `shlex.join`.
    """
    value = arguments
    if isinstance(value, str):
        try:
            value = loads(value)
        except ValueError:
            return None
    if not isinstance(value, dict):
        return None
    workdir = value.get("workdir") or value.get("working_directory")
    command = value.get("cmd", value.get("command"))
    if isinstance(command, list) and command and all(isinstance(a, str) for a in command):
        command = _argv_script(command)
    if not isinstance(command, str):
        return None
    return command, workdir if isinstance(workdir, str) and workdir else None


def exit_code(output: str) -> int | None:
    """The exit code a Codex shell call's output reports, or None when it reports none (still running).

    Forms: the JSON older rollouts wrap outputs in (`{"output": …, "metadata": {"exit_code": N}}`), or a
    header line before `Output:`: `Process exited with code N` (exec_command in the corpus rollouts, codex
    0.118-0.139) or `Exit code: N` (the formatted shell output).
    """
    try:
        value = loads(output)
    except ValueError:
        value = None
    if isinstance(value, dict):
        meta = value.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        return code if isinstance(code, int) else None
    match = _EXIT.search(output.split("\nOutput:", 1)[0])
    return int(match.group(1)) if match else None


def _argv_script(argv: list[str]) -> str:
    if posixpath.basename(argv[0]) in _SHELLS:
        for index, arg in enumerate(argv[1:-1], start=1):
            if re.fullmatch(r"-[a-z]*c[a-z]*", arg):
                return argv[index + 1]
    return shlex.join(argv)


# --------------------------------------------------------------------------------------------------
# Lexing: words (as literal pieces and unknown pieces), redirections with heredoc bodies, operators
# --------------------------------------------------------------------------------------------------


@dataclass
class _Word:
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
class _Heredoc:
    delimiter: str
    strip_tabs: bool
    literal: bool
    body: list[Piece] | None = None  # None: never read (no newline followed the operator)


@dataclass
class _Redirect:
    fd: int | None
    op: str
    target: _Word | None = None
    heredoc: _Heredoc | None = None


_Token = _Word | _Redirect | str


class _Lexer:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.pending: list[_Heredoc] = []

    def tokens(self, closing: bool = False) -> list[_Token]:
        """Tokens up to the end, or up to the `)` closing a `$(` when `closing`."""
        s, depth = self.s, 0
        out: list[_Token] = []
        word: _Word | None = None
        while self.i < len(s):
            c = s[self.i]
            if c in "<>" and s.startswith("(", self.i + 1):  # process substitution: a word only the shell knows
                word = word or _Word(self.i)
                self.i += 2
                self.tokens(closing=True)
                word.add(None)
                continue
            if c in _BLANKS or c == "\n" or c in ";&|()<>":
                fd = None
                if word is not None:
                    if c in "<>" and s[word.start:self.i].isdigit():
                        fd = int(s[word.start:self.i])
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
                    out.append(_Redirect(fd, op) if op[0] in "<>" or op in ("&>", "&>>") else op)
                continue
            if c == "#" and word is None:
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
                continue
            word = word or _Word(self.i)
            self._word_char(word, c)
        if word is not None:
            self._flush(word, out)
        return out

    def _word_char(self, word: _Word, c: str) -> None:
        s = self.s
        if c == "\\":
            if s.startswith("\n", self.i + 1):
                self.i += 2  # line continuation
            else:
                word.add(s[self.i + 1:self.i + 2] or "\\")
                word.quoted = True  # `<<\EOF` quotes the delimiter like `<<'EOF'`
                self.i += 2
        elif c == "'":
            end = s.find("'", self.i + 1)
            end = len(s) if end < 0 else end
            word.add(s[self.i + 1:end])
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
        elif c in "*?[" or (c == "~" and self.i == word.start) or (
                c == "{" and not (self.i == word.start and s[self.i + 1:self.i + 2] in ("", " ", "\t", "\n"))):
            word.add(None)  # globs, tilde and brace expansion
            self.i += 1
        else:
            word.add(c)
            self.i += 1

    def _quoted(self, word: _Word, heredoc: bool) -> None:
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

    def _dollar(self, word: _Word, in_quotes: bool) -> None:
        s, nxt = self.s, self.s[self.i + 1:self.i + 2]
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
            word.add(_unescape(match.group(1))[0])
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

    def _backtick(self, word: _Word) -> None:
        match = _BACKTICK.match(self.s, self.i)
        assert match is not None
        self.i = match.end()
        word.add(None)

    def _flush(self, word: _Word, out: list[_Token]) -> None:
        word.raw = self.s[word.start:self.i]
        last = out[-1] if out else None
        if isinstance(last, _Redirect) and last.target is None:
            last.target = word
            if last.op in ("<<", "<<-"):
                delimiter = "".join(p for p in word.pieces if p is not None)
                last.heredoc = _Heredoc(delimiter, last.op == "<<-", word.quoted)
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
                line = s[self.i:end]
                self.i = end + 1
                line = line.lstrip("\t") if doc.strip_tabs else line
                if line == doc.delimiter:
                    break
                lines.append(line)
            text = "".join(line + "\n" for line in lines)
            if doc.literal:
                doc.body = [text]
            else:
                body = _Lexer(text)
                word = _Word(0)
                body._quoted(word, heredoc=True)
                doc.body = word.pieces
        self.pending = []


def _unescape(text: str) -> tuple[str, bool]:
    """Backslash escapes as `echo -e`, `printf` and `$'…'` read them; True when `\\c` ends the output."""
    out: list[str] = []
    position = 0
    for match in _ESCAPE.finditer(text):
        out.append(text[position:match.start()])
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


# --------------------------------------------------------------------------------------------------
# Running: pipelines of echo/printf/cat/tee/sed, stdout redirections, cd
# --------------------------------------------------------------------------------------------------

_Write = tuple[str, Literal["create", "update"], list[AddedLine]]


@dataclass
class _Command:
    words: list[_Word] = field(default_factory=list)
    redirects: list[_Redirect] = field(default_factory=list)


class _Run:
    def __init__(self, cwd: str | None) -> None:
        self.directory: str | None = posixpath.normpath(cwd) if cwd else ""  # None: unknown after a `cd`
        self.writes: list[_Write] = []

    def run(self, tokens: list[_Token]) -> list[_Write]:
        stack: list[str | None] = []
        pipeline: list[_Command] = []
        current = _Command()
        for token in [*tokens, ";"]:
            if isinstance(token, _Word):
                current.words.append(token)
            elif isinstance(token, _Redirect):
                current.redirects.append(token)
            elif token in ("|", "|&"):
                pipeline.append(current)
                current = _Command()
            else:
                self._pipeline([*pipeline, current])
                pipeline, current = [], _Command()
                if token == "(":
                    stack.append(self.directory)
                elif token == ")" and stack:
                    self.directory = stack.pop()
        return self.writes

    def _pipeline(self, pipeline: list[_Command]) -> None:
        stdin: list[Piece] | None = None
        for index, command in enumerate(pipeline):
            words = command.words
            while words and (words[0].raw in _PREFIXES or _ASSIGNMENT.match(words[0].raw)):
                words = words[1:]
            feed = stdin if index else None
            for redirect in command.redirects:
                if redirect.heredoc is not None:
                    feed = redirect.heredoc.body
                elif redirect.op == "<<<" and redirect.target is not None:
                    feed = [*redirect.target.pieces, "\n"]
                elif redirect.op in ("<", "<&", "<>"):
                    feed = None
            name = words[0].text if words else None
            if name in ("cd", "pushd", "popd") and len(pipeline) == 1:
                self._cd(name, words[1:])
            stdout = self._output(posixpath.basename(name or ""), words[1:], feed)
            targets = [r for r in command.redirects if r.op in _STDOUT and r.fd in (None, 1)]
            if targets and targets[-1].target is not None:
                if stdout is not None:
                    self._write(targets[-1].target, stdout, append=targets[-1].op.endswith(">>"))
                stdout = None
            stdin = stdout

    def _output(self, name: str, args: list[_Word], stdin: list[Piece] | None) -> list[Piece] | None:
        """What the command prints, when the command text shows it; runs its own writes (tee, sed -i)."""
        if name == "echo":
            return _echo(args)
        if name == "printf":
            return _printf(args)
        if name == "cat":
            return stdin if all(a.text == "-" for a in args) else None
        if name == "tee":
            options = [a.text for a in args if a.text is not None and a.text.startswith("-") and a.text != "-"]
            if stdin is None or set(options) - {"-a", "--append", "-i", "-p"}:
                return None
            for arg in args:
                if arg.text not in options:
                    self._write(arg, stdin, append=bool({"-a", "--append"} & set(options)))
            return stdin
        if name in ("sed", "gsed"):
            self._sed(args)
        return None

    def _cd(self, name: str, args: list[_Word]) -> None:
        args = [a for a in args if a.text not in ("-L", "-P", "--")]
        target = args[0].text if args and name != "popd" else None
        if not target or target == "-":
            self.directory = None
        elif target.startswith("/"):
            self.directory = posixpath.normpath(target)
        elif self.directory is not None:
            self.directory = posixpath.normpath(posixpath.join(self.directory, target))

    def _path(self, word: _Word) -> str | None:
        path = word.text
        if not path or path.startswith("/dev/") or path == "-":
            return None
        if path.startswith("/"):
            return posixpath.normpath(path)
        return None if self.directory is None else posixpath.normpath(posixpath.join(self.directory, path))

    def _write(self, target: _Word, pieces: list[Piece], append: bool) -> None:
        path = self._path(target)
        added = _added(pieces, numbered=not append)
        if path is not None and added:
            self.writes.append((path, "update" if append else "create", added))

    def _sed(self, args: list[_Word]) -> None:
        """`sed -i SCRIPT FILE…` (GNU and BSD spellings) whose script writes whole lines."""
        texts = [a.text for a in args]
        with_e = any(re.fullmatch(r"-[Ersu]*e.*|--expression(=.*)?", t or "") for t in texts)
        in_place, options, scripts, files = False, True, list[str](), list[str]()
        while texts:
            arg = texts.pop(0)
            if arg is None:
                return
            if arg == "--" and options:
                options = False
            elif not options or arg == "-" or not arg.startswith("-"):
                (files if scripts or with_e else scripts).append(arg)
            elif arg.startswith("--"):
                name, equals, value = arg.partition("=")
                if name == "--in-place":
                    in_place = True
                elif name == "--expression" and (equals or texts):
                    script = value if equals else texts.pop(0)
                    if script is None:
                        return
                    scripts.append(script)
                elif name not in ("--regexp-extended", "--separate", "--unbuffered", "--posix"):
                    return  # --quiet, --file, --null-data, …: change what is written or hide the script
            else:
                for index, flag in enumerate(arg[1:], start=1):
                    if flag == "i":
                        in_place = True
                        # BSD sed takes the backup suffix as the next argument (`-i ''`, `-i .bak`); GNU
                        # sed reads the rest of `-iSUFFIX` (so `-ie` means suffix "e", not -e).
                        if index == len(arg) - 1 and texts and texts[0] is not None and _SUFFIX.fullmatch(texts[0]):
                            texts.pop(0)
                        break
                    if flag == "e":
                        script = arg[index + 1:] or (texts.pop(0) if texts else None)
                        if script is None:
                            return
                        scripts.append(script)
                        break
                    if flag not in "Ersu":
                        return  # -n, -f, -z, …
        added = _sed_script("\n".join(scripts)) if in_place and scripts else None
        if added is None:
            return
        for file in files:
            path = self._path(_Word(0, [file]))
            if path is not None:
                self.writes.append((path, "update", added))


def _echo(args: list[_Word]) -> list[Piece]:
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
                text, stop = _unescape(piece)
                pieces.append(text)
                if stop:
                    return pieces
    return [*pieces, "\n"] if newline else pieces


def _printf(args: list[_Word]) -> list[Piece] | None:
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
            literal = form[position:match.start() if match else len(form)]
            pieces.append(_unescape(literal)[0])
            if match is None:
                break
            position = match.end()
            flags, kind = match.groups()
            if kind == "%":
                pieces.append("%")
                continue
            value = values[used] if used < len(values) else _Word(0, [""])
            used += 1
            text = value.text
            if kind == "s" and not flags:
                pieces += value.pieces
            elif kind == "b" and not flags and text is not None:
                text, stop = _unescape(text)
                pieces.append(text)
                if stop:
                    return pieces
            elif kind in "di" and not flags and re.fullmatch(r"[-+]?\d+", text or "0"):
                pieces.append(str(int(text or "0")))
            else:
                pieces.append(None)
        if not specs or used >= len(values) or all(m.group(2) == "%" for m in specs):
            return pieces


def _added(pieces: list[Piece], numbered: bool) -> list[AddedLine]:
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


# --------------------------------------------------------------------------------------------------
# sed scripts: only whole-line results (s/^…$/R/, s/.*/R/, a/i/c text) show the line they produce
# --------------------------------------------------------------------------------------------------


def _sed_script(script: str) -> list[AddedLine] | None:
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
        command = script[i:i + 1]
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
        added += [AddedLine(text=t, line=None if first is None else first + k) for k, t in enumerate(text.split("\n"))]
    return added or None


def _substitution(script: str, i: int) -> tuple[str | None, int]:
    """The replacement of `s/PATTERN/REPLACEMENT/FLAGS` starting after the `s`, when it is a whole line."""
    delimiter = script[i:i + 1]
    if not delimiter or delimiter in "\\\n":
        return None, len(script)
    parts = re.compile(rf"((?:[^{re.escape(delimiter)}\\]|\\.)*){re.escape(delimiter)}"
                       rf"((?:[^{re.escape(delimiter)}\\]|\\.)*){re.escape(delimiter)}([^;\n}}]*)", re.S
                       ).match(script, i + 1)
    if parts is None:
        return None, len(script)
    pattern, replacement, flags = parts.groups()
    whole = pattern in (".*", "^.*", ".*$") or (
        pattern.startswith("^") and pattern.endswith("$") and not pattern.endswith("\\$"))
    if not whole or "|" in pattern or set(flags.strip()) - set("gIip0123456789"):
        return None, parts.end()
    out: list[str] = []
    k = 0
    while k < len(replacement):
        c = replacement[k]
        if c == "&" or (c == "\\" and replacement[k + 1:k + 2] in tuple("0123456789LUluE")):
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
