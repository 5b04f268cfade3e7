"""The `git intent` command line: parses arguments, calls one library function, prints.

Exit codes: 0 success, 1 a known error (one sentence on stderr), 2 bad usage (click), 3 an unexpected
error (a paste-ready report in `<git common dir>/intent/error.log`), 130 interrupted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import IntentError
from ..core.state_files import LinkedFileError
from .printing import echo, is_plain_blame, open_repo, show_blame

if TYPE_CHECKING:
    from ._base import cli

__all__ = ["cli", "main"]


def __getattr__(name: str) -> Any:
    if name == "cli":  # the click group, imported when asked for: `blame LOCATION` runs without click
        from ._base import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _fail(exc: IntentError) -> None:
    echo(f"error: {exc}", err=True)
    if exc.hint:
        echo(f"hint: {exc.hint}", err=True)
    sys.exit(1)


def main() -> None:
    """Console-script entry point with the one top-level error handler. `blame LOCATION` is answered without
    click (`printing.py`); every other call is parsed by it (the command modules load when their command is
    looked up)."""
    try:
        if is_plain_blame(sys.argv[1:]):
            try:
                show_blame(sys.argv[2])
            except BrokenPipeError:  # the reader went away (`| head`): exit 1 and say nothing, as click does
                _quiet_stdout()
                sys.exit(1)
        else:
            _click_main()
    except KeyboardInterrupt:
        echo("Interrupted.", err=True)
        sys.exit(130)
    except IntentError as exc:
        _fail(exc)
    except LinkedFileError as exc:  # a state file planted as a link: refused, one sentence
        _fail(IntentError(str(exc)))
    except BrokenPipeError:
        sys.exit(0)
    except Exception:
        import traceback

        where = _write_error_log(traceback.format_exc())
        echo("error: git-intent hit an unexpected problem; this is a bug.", err=True)
        echo(
            f"hint: a report to paste into an issue is in {where}." if where else traceback.format_exc(),
            err=True,
        )
        sys.exit(3)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of a closed pipe raises nothing."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _click_main() -> None:
    import click

    from ._base import cli

    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        echo("Interrupted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)


def _write_error_log(report: str) -> Path | None:
    """Append a paste-ready report to `<git common dir>/intent/error.log`; None outside a repository."""
    import platform

    from ..core.state_files import append_error_report

    try:
        state = open_repo().state_dir
    except Exception:
        return None
    return append_error_report(
        state, f"(Python {platform.python_version()}, {platform.platform()})\nargv: {sys.argv!r}", report
    )
