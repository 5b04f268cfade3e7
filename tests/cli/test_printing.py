"""`git intent blame LOCATION` is answered without click (cli/printing.py, for start-up time): it must answer
exactly as the click route does. `blame -- LOCATION` takes the click route with the same meaning, so each
pair is compared byte for byte, exit codes and stderr included, through the installed command."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli

from git_intent.demo import run_demo

FILE = "cmd/entire/cli/agent/chunking.go"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plain") / "demo"
    run_demo(folder)
    (folder / "notes.txt").write_text("not committed\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "location",
    [f"{FILE}:85", f"{FILE}:2-4", FILE, f"{FILE}:999", "notes.txt:1", "no/such/file.go:3", f"{FILE}:x"],
)
def test_the_plain_route_answers_as_click_does(demo: Path, location: str) -> None:
    plain = run_cli("blame", location, cwd=demo)
    through_click = run_cli("blame", "--", location, cwd=demo)
    assert (plain.returncode, plain.stdout, plain.stderr) == (
        through_click.returncode,
        through_click.stdout,
        through_click.stderr,
    )
    assert plain.stdout or plain.stderr


def test_only_the_plain_form_skips_click(demo: Path) -> None:
    from git_intent.cli.printing import is_plain_blame

    assert is_plain_blame(["blame", f"{FILE}:85"])
    for argv in (
        ["blame", f"{FILE}:85", "--json"],
        ["blame", "--help"],
        ["blame"],
        ["show", "x"],
        ["blame", "-h"],
        ["blame", "--moves", FILE],
    ):
        assert not is_plain_blame(argv)
    assert "Usage: git-intent blame" in run_cli("blame", "--help", cwd=demo).stdout


def test_outside_a_repository_the_plain_route_says_so(tmp_path: Path) -> None:
    proc = run_cli("blame", "x.py:1", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("error: ") and proc.stdout == ""
    assert proc.stderr == run_cli("blame", "--", "x.py:1", cwd=tmp_path).stderr


@pytest.mark.parametrize("route", [["blame"], ["blame", "--"]], ids=["plain", "click"])
def test_a_reader_that_leaves_an_ascii_terminal_or_no_stdout_end_alike(demo: Path, route: list[str]) -> None:
    """As click.echo and click's main did before the plain route: a closed pipe exits 1 in
    silence, an ASCII-configured stdout gets UTF-8 with replacements, a closed stdout gets nothing."""
    argv = ["git", "intent", *route, f"{FILE}:85"]
    gone = subprocess.Popen(argv, cwd=demo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert gone.stdout is not None and gone.stderr is not None
    gone.stdout.close()  # before the command starts writing
    assert (gone.wait(), gone.stderr.read()) == (1, b"")
    ascii_out = subprocess.run(
        argv, cwd=demo, capture_output=True, env={**os.environ, "PYTHONIOENCODING": "ascii"}
    )
    assert ascii_out.returncode == 0 and "│" in ascii_out.stdout.decode("utf-8")
    closed = subprocess.run(argv, cwd=demo, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert (closed.returncode, closed.stderr) == (0, b"")
