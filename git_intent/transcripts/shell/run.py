"""Running lexed bash for `shell`: pipelines of echo/printf/cat/tee/sed, stdout redirections and `cd`,
collecting the writes whose content the command text shows, and the files `mv`, `cp` and `git mv` move or
copy."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Literal

from ...core.values import AddedLine
from .builtins import added_lines, echo, printf, sed_script
from .lexer import Piece, Redirect, Token, Word

_STDOUT = frozenset({">", ">|", ">>", "&>", "&>>"})
_PREFIXES = frozenset(
    {"!", "{", "if", "then", "elif", "else", "while", "until", "do", "time", "command", "builtin"}
)
_SUFFIX = re.compile(r"(\.[\w.~-]*)?")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")

_GIT_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
_TRANSFER_OPTIONS_WITH_VALUE = frozenset({"-S", "--suffix", "-t", "--target-directory"})

# (path, kind, lines written, source): a write has no source; a move or copy writes no line, and its
# path ends with '/' when it went into that folder for certain (`values.Edit`).
Write = tuple[str, Literal["create", "update", "move", "copy"], list[AddedLine], str | None]


@dataclass
class Command:
    """One simple command of a pipeline: its words and redirections."""

    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


class Run:
    """Follows a token stream through its pipelines and `cd`s, collecting the writes the text shows."""

    def __init__(self, cwd: str | None) -> None:
        self.directory: str | None = posixpath.normpath(cwd) if cwd else ""  # None: unknown after a `cd`
        self.writes: list[Write] = []

    def run(self, tokens: list[Token]) -> list[Write]:
        stack: list[str | None] = []
        pipeline: list[Command] = []
        current = Command()
        for token in [*tokens, ";"]:
            if isinstance(token, Word):
                current.words.append(token)
            elif isinstance(token, Redirect):
                current.redirects.append(token)
            elif token in ("|", "|&"):
                pipeline.append(current)
                current = Command()
            else:
                self._pipeline([*pipeline, current])
                pipeline, current = [], Command()
                if token == "(":
                    stack.append(self.directory)
                elif token == ")" and stack:
                    self.directory = stack.pop()
        return self.writes

    def _pipeline(self, pipeline: list[Command]) -> None:
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

    def _output(self, name: str, args: list[Word], stdin: list[Piece] | None) -> list[Piece] | None:
        """What the command prints, when the command text shows it; runs its own writes (tee, sed -i)."""
        if name == "echo":
            return echo(args)
        if name == "printf":
            return printf(args)
        if name == "cat":
            return stdin if all(a.text == "-" for a in args) else None
        if name == "tee":
            options = [
                a.text for a in args if a.text is not None and a.text.startswith("-") and a.text != "-"
            ]
            if stdin is None or set(options) - {"-a", "--append", "-i", "-p"}:
                return None
            for arg in args:
                if arg.text not in options:
                    self._write(arg, stdin, append=bool({"-a", "--append"} & set(options)))
            return stdin
        if name in ("sed", "gsed"):
            self._sed(args)
        elif name in ("mv", "cp"):
            self._transfer("copy" if name == "cp" else "move", [a.text for a in args])
        elif name == "git":
            self._git(args)
        return None

    def _cd(self, name: str, args: list[Word]) -> None:
        args = [a for a in args if a.text not in ("-L", "-P", "--")]
        target = args[0].text if args and name != "popd" else None
        if not target or target == "-":
            self.directory = None
        elif target.startswith("/"):
            self.directory = posixpath.normpath(target)
        elif self.directory is not None:
            self.directory = posixpath.normpath(posixpath.join(self.directory, target))

    def _path(self, word: Word) -> str | None:
        path = word.text
        if not path or path.startswith("/dev/") or path == "-":
            return None
        if path.startswith("/"):
            return posixpath.normpath(path)
        return None if self.directory is None else posixpath.normpath(posixpath.join(self.directory, path))

    def _write(self, target: Word, pieces: list[Piece], append: bool) -> None:
        path = self._path(target)
        added = added_lines(pieces, numbered=not append)
        if path is not None and added:
            self.writes.append((path, "update" if append else "create", added, None))

    def _sed(self, args: list[Word]) -> None:
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
                        if (
                            index == len(arg) - 1
                            and texts
                            and texts[0] is not None
                            and _SUFFIX.fullmatch(texts[0])
                        ):
                            texts.pop(0)
                        break
                    if flag == "e":
                        script = arg[index + 1 :] or (texts.pop(0) if texts else None)
                        if script is None:
                            return
                        scripts.append(script)
                        break
                    if flag not in "Ersu":
                        return  # -n, -f, -z, …
        added = sed_script("\n".join(scripts)) if in_place and scripts else None
        if added is None:
            return
        for file in files:
            path = self._path(Word(0, [file]))
            if path is not None:
                self.writes.append((path, "update", added, None))

    def _git(self, args: list[Word]) -> None:
        """`git [-C DIR]… mv [-f] [-k] [-v] SOURCE… DESTINATION` (a dry run, `-n`, moves nothing)."""
        texts = [a.text for a in args]
        directory = self.directory
        while texts and texts[0] is not None and texts[0].startswith("-"):
            option = texts.pop(0)
            value = texts.pop(0) if option in _GIT_OPTIONS_WITH_VALUE and texts else None
            if option == "-C":
                self._cd("cd", [Word(0, [value])])  # None (dynamic): the folder is unknown from here on
        if texts[:1] == ["mv"] and not {"-n", "--dry-run"} & set(texts):
            self._transfer("move", texts[1:])
        self.directory = directory

    def _transfer(self, kind: Literal["move", "copy"], texts: list[str | None]) -> None:
        """`mv`/`cp` (GNU and BSD spellings): `SOURCE DESTINATION`, `SOURCE… FOLDER`, `-t FOLDER SOURCE…`.
        Skipped whole when a word is dynamic (a glob, a variable: the shell decides what moved)."""
        if any(t is None for t in texts):
            return
        operands: list[str] = []
        folder: str | None = None
        into_file = False
        options = True
        words = iter(t for t in texts if t is not None)
        for text in words:
            if not options or text == "-" or not text.startswith("-"):
                operands.append(text)
            elif text == "--":
                options = False
            elif text.startswith("--"):
                name, equals, value = text.partition("=")
                if name in _TRANSFER_OPTIONS_WITH_VALUE and not equals:
                    value = next(words, "")
                if name == "--target-directory":
                    folder = value
                into_file = into_file or name == "--no-target-directory"
            else:
                for index, flag in enumerate(text[1:], start=1):
                    if flag in "tS":  # the rest of the word, or the next word, is the value
                        value = text[index + 1 :] or next(words, "")
                        folder = value if flag == "t" else folder
                        break
                    into_file = into_file or flag == "T"
        if folder is None and len(operands) < 2:
            return
        sources, target = (operands, folder) if folder is not None else (operands[:-1], operands[-1])
        into = folder is not None or (len(sources) > 1 and not into_file)
        destination = self._path(Word(0, [target]))
        if destination is None or not sources:
            return
        for source in sources:
            path = self._path(Word(0, [source]))
            if path is not None:
                self.writes.append((destination + "/" if into else destination, kind, [], path))
