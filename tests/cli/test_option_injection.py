"""A user's range, revision, path or name never becomes an option of git: every command that takes one
(found by walking the click group, so a new command is covered the day it is added) runs with
`--output=FILE`-style values, and FILE, a file of the repository, keeps its bytes; a `git` on PATH records
every call git-intent makes, and none carries the value where git would parse an option (before
`--end-of-options` or `--`)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import click
import pytest
from conftest import PYTHON_BIN, git

from git_intent.cli import cli

VICTIM = "victim.txt"
HOSTILE = f"--output={VICTIM}"  # git diff, log and show truncate the file an `--output=` option names
KEPT = "keep\n"
DEMO_SESSION = "0a0314fb-b206-450f-b895-cd5181a28ae5"

# Commands not run here, and why: each takes no value of a user's that could reach git.
NOT_RUN = {
    "hook": "its arguments are the ones git passes to a hook (SHAs and flags), not a user's",
    "mcp": "a stdio server; its --repo only opens a repository",
}
# Commands that run no git at all (the recording git must see every other command's calls).
NO_GIT = {
    "redact": "redacts a file it reads",
    "schema": "prints a JSON Schema",
    "org search": "asks the org store",
    # a source shaped like an option is refused unread; a --db that is not a store fails before any fetch
    "org sync": "refuses these values before it runs git",
}
# Options whose value never reaches git.
NOT_GIT = {
    "model": "a litellm model name",
    "output": "the file export writes, as asked",
    "db": "the org store's file or URL",
    "org_db": "the org store's file or URL (serve --org runs no git)",
}
# A value for each parameter that is not the one under test, so the command gets as far as it can (by the
# parameter's name, or `command.name` where commands use one name differently).
BENIGN = {
    "carry.target": "HEAD",
    "question": "why does the chunker split lines",
    "revision_range": "HEAD~1..HEAD",
    "arguments": f"{HOSTILE}:1",
    "location": f"{HOSTILE}:1",
    "rev": "HEAD",
    "session": DEMO_SESSION,
    "reference": DEMO_SESSION,
    "target": "1",
    "remote": "origin",
    "records": "records.jsonl",
    "file": VICTIM,
    "name": "blame",
    "query": "chunk",
    "keep": "demo-copy",
    "sync.sources": ".",  # org sync: the repository itself, as a local source
}
# A value that names a revision is also tried inside a range, on either side.
REVISION_LIKE = {"revision_range", "rev", "carry.target"}
VALUE_OPTIONS = {"-e", "-S", "-G", "-m", "-C", "-c"}  # git options whose value is the next argument


def command_paths(group: click.Group = cli, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += command_paths(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


def command_of(words: tuple[str, ...]) -> click.Command:
    command: click.Command = cli
    for word in words:
        assert isinstance(command, click.Group)
        command = command.commands[word]
    return command


def user_text(param: click.Parameter) -> bool:
    """Whether `param` takes free text or a path from the user (not a flag, a choice or a number)."""
    if isinstance(param, click.Option) and (param.is_flag or param.name in NOT_GIT):
        return False
    return isinstance(param.type, click.Path) or param.type in (click.STRING, click.UNPROCESSED)


def invocations(words: tuple[str, ...]) -> list[list[str]]:
    """Every way to put a hostile value into one of the command's text parameters, the others benign."""
    command = command_of(words)
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    options = [p for p in command.params if isinstance(p, click.Option) and not p.is_flag]
    runs: list[list[str]] = []
    for target in (p for p in command.params if user_text(p)):
        assert target.name is not None
        shapes = [HOSTILE]
        if {target.name, f"{words[-1]}.{target.name}"} & REVISION_LIKE:
            shapes += [f"HEAD~1..{HOSTILE}", f"{HOSTILE}...HEAD", f"{HOSTILE}..HEAD"]
        elif target.name in ("location", "arguments"):
            shapes += [f"{HOSTILE}:1"]
        elif isinstance(target.type, click.Path):
            shapes += [
                f"{HOSTILE}.d"
            ]  # a path that does not exist yet (the repository has a file named HOSTILE)
        for choices in _required_choices(options):
            for shape in shapes:
                argv = [*words, *choices]
                for option in options:
                    if option is target:
                        argv.append(
                            f"{option.opts[0]}={shape}"
                            if option.opts[0].startswith("--")
                            else f"{option.opts[0]}{shape}"
                        )
                    elif option.required and user_text(option):
                        argv += [option.opts[0], benign(words, option)]
                argv.append("--")
                for argument in arguments:
                    if argument is target:
                        argv.append(shape)
                    elif argument.required and isinstance(argument.type, click.Choice):
                        argv.append(str(argument.type.choices[0]))
                    elif argument.required:
                        argv.append(benign(words, argument))
                runs.append(argv)
    return runs


def _required_choices(options: list[click.Option]) -> list[list[str]]:
    """Each combination of the required choice options' values (import --from: every format)."""
    combos: list[list[str]] = [[]]
    for option in options:
        if option.required and isinstance(option.type, click.Choice):
            combos = [
                [*combo, option.opts[0], str(choice)] for combo in combos for choice in option.type.choices
            ]
    return combos


def benign(words: tuple[str, ...], param: click.Parameter) -> str:
    key = f"{words[-1]}.{param.name}"
    value = BENIGN.get(key) or BENIGN.get(str(param.name))
    assert value is not None, f"give {key!r} a benign value in BENIGN so its command can be run"
    return value


def git_shim(folder: Path, log: Path) -> Path:
    """A `git` that writes each call's arguments (NUL-separated) to its own file in `log`, then runs git."""
    real = shutil.which("git")
    assert real is not None
    folder.mkdir()
    log.mkdir()
    shim = folder / "git"
    shim.write_text(f'#!/bin/sh\nprintf \'%s\\0\' "$@" > "$(mktemp "{log}/call.XXXXXX")"\nexec {real} "$@"\n')
    shim.chmod(0o755)
    return folder


def options_injected(log: Path) -> list[list[str]]:
    """The recorded git calls where the hostile value stands where git parses options."""
    bad = []
    for call in sorted(log.iterdir()):
        argv = call.read_bytes().decode("utf-8", "replace").split("\0")[:-1]
        if argv[:1] == ["intent"]:
            continue
        end = next((i for i, arg in enumerate(argv) if arg in ("--", "--end-of-options")), len(argv))
        if any(
            arg.startswith(HOSTILE) and (i == 0 or argv[i - 1] not in VALUE_OPTIONS)
            for i, arg in enumerate(argv[:end])
        ):
            bad.append(argv)
    return bad


@pytest.fixture(scope="module")
def hostile_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo repository (a recorded agent session), plus a committed file named like a git option and the
    file that option would truncate; built once, in a home and git config of its own."""
    home = tmp_path_factory.mktemp("template-home")
    env = {
        **os.environ,
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": f"{PYTHON_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "GIT_AUTHOR_NAME": "Test Person",
        "GIT_AUTHOR_EMAIL": "person@example.com",
        "GIT_COMMITTER_NAME": "Test Person",
        "GIT_COMMITTER_EMAIL": "person@example.com",
    }
    folder = tmp_path_factory.mktemp("template") / "demo"
    proc = subprocess.run(
        ["git-intent", "demo", "--keep", str(folder)], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    (folder / HOSTILE).write_text("one\ntwo\n")
    (folder / VICTIM).write_text(KEPT)
    git(folder, "add", "--", HOSTILE, VICTIM, env=env)
    git(folder, "commit", "-q", "-m", "a file named like an option", env=env)
    return folder


@pytest.fixture
def hostile_repo(hostile_template: Path, tmp_path: Path) -> Path:
    """A copy of the template for one test (commands may write notes, state and files)."""
    return Path(shutil.copytree(hostile_template, tmp_path / "demo", symlinks=True))


def test_every_command_taking_text_is_covered() -> None:
    runnable = {words[0] for words in command_paths()} - set(NOT_RUN)
    covered = {words[0] for words in command_paths() if words[0] in runnable and invocations(words)}
    assert set(NOT_RUN) <= {words[0] for words in command_paths()}
    assert {
        "audit",
        "backfill",
        "blame",
        "carry",
        "export",
        "import",
        "log",
        "record",
        "review",
        "stats",
        "why",
        "push",
        "fetch",
        "search",
        "ask",
    } <= covered


@pytest.mark.parametrize(
    "words",
    [w for w in command_paths() if w[0] not in NOT_RUN and invocations(w)],
    ids=lambda words: " ".join(words),
)
def test_no_user_value_reaches_git_as_an_option(
    words: tuple[str, ...], hostile_repo: Path, tmp_path: Path
) -> None:
    log = tmp_path / "git-calls"
    path = f"{git_shim(tmp_path / 'bin', log)}{os.pathsep}{os.environ['PATH']}"
    victim = hostile_repo / VICTIM
    calls = 0
    for argv in invocations(words):
        victim.write_text(KEPT)
        # git-intent itself, not `git intent`: git puts its own folder first on PATH for the commands it runs.
        proc = subprocess.run(
            ["git-intent", *argv],
            cwd=hostile_repo,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "PATH": path},
            timeout=120,
        )
        assert proc.returncode in (0, 1, 2), (argv, proc.stderr)
        assert victim.read_text() == KEPT, argv
        assert options_injected(log) == [], argv
        calls += len(list(log.iterdir()))
        shutil.rmtree(log)
        log.mkdir()
    ran_git = words[0] not in NO_GIT and " ".join(words) not in NO_GIT
    assert (calls > 0) is ran_git  # the recording git was the one git-intent ran
