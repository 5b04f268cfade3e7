"""Printing without click, and the call answered without it: `git intent blame LOCATION`, plain.

Agents and editors ask `blame PATH:LINE` more than anything else, and importing click cost that call ~30 ms
of its ~100. `main` in `cli/__init__.py` sends exactly `blame LOCATION` (one argument, not an option) here;
anything else, `--json`, `--moves` and `--help` included, goes through click, which runs the same
`show_blame`. tests/cli/test_printing.py holds both routes to byte-identical output and exit codes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from ..core.terminal import json_safe, terminal_safe


def echo(message: str, *, err: bool = False, nl: bool = True) -> None:
    """Print text output: every command's text goes through here, so nothing read from a transcript, a note
    or a shared store can drive the terminal (escape sequences, C1 controls, bidi overrides)."""
    _write(terminal_safe(message) + ("\n" if nl else ""), err=err)


def print_json(value: Any) -> None:
    """Print `value` as indented JSON (non-ASCII kept but for characters that could drive a terminal, which
    are `\\u` escapes; unknown types through str)."""
    _write(json_safe(json.dumps(value, indent=2, ensure_ascii=False, default=str)) + "\n")


def _write(text: str, *, err: bool = False) -> None:
    """Write to stdout or stderr as click.echo did: nothing when the stream is closed (`>&-`), and UTF-8 with
    replacements when the stream's own encoding cannot hold the text (an ASCII locale)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    try:
        stream.write(text)
    except UnicodeEncodeError:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            stream.write(text.encode("ascii", "replace").decode("ascii"))
        else:
            stream.flush()
            buffer.write(text.encode("utf-8", "replace"))
    stream.flush()


def open_repo() -> Any:
    """The repository of the current directory (raises NotARepositoryError outside one)."""
    from ..git.repo import Repository

    return Repository()


def is_plain_blame(argv: list[str]) -> bool:
    """Whether `argv` (after the program name) is `blame LOCATION` and nothing else."""
    return len(argv) == 2 and argv[0] == "blame" and not argv[1].startswith("-")


def show_blame(
    location: str,
    *,
    as_json: bool = False,
    moves: bool = False,
    revision: str | None = None,
    line_ranges: Sequence[str] = (),
    pager: bool = True,
) -> None:
    """`git intent blame`: the answer printed as text (a gutter for a whole file) or JSON, then one warning
    per note that could not be read; through git's pager on a terminal unless `pager` is False (pager.py).
    Raises SystemExit(1) after such warnings; IntentError for a bad path, range or revision."""
    from ..explain.blame import blame_lines
    from ..explain.render import blame_text

    answer = blame_lines(open_repo(), location, moves=moves, revision=revision, line_ranges=line_ranges)
    from .pager import paged

    with paged(pager):
        if as_json:
            print_json(answer.contract())
        elif answer.whole_file:
            from ..explain.render_file import gutter_text

            echo(gutter_text(answer), nl=False)
        else:
            echo(blame_text(answer), nl=False)
        for problem in answer.problems:
            echo(f"warning: {problem}", err=True)
    if answer.problems:
        sys.exit(1)  # a note could not be read: that part of the question has no answer
