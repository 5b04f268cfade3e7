"""File writes an agent made through its shell tool, credited only where the command text shows what was
written, and the files it moved or copied (`mv`, `cp`, `git mv`: `Edit`s of kind "move"/"copy", see
`capture.moves`).

Agents sometimes write files from a shell instead of an edit tool: `cat > F <<'EOF'`, `cat >> F <<EOF`,
`tee F <<EOF`, `printf '…' > F`, `echo -e '…' >> F`, `sed -i 's/^.*$/text/' F`. `shell_edits` reads one
bash command string and returns those writes as `Edit`s whose `added` lines are exactly what the text
shows. A line that depends on the running shell (a `$VAR`, `$(…)`, a glob, the file's current content, a
partial-line `sed`) is left out, so attribution leaves it human (git-intent never guesses); after such a
piece the line numbers of a created file are unknown too.

`shlex` splits words but cannot see bash's structure: it reads heredoc bodies as words, treats newlines
as blanks, splits `2>` into a word and an operator, starts comments inside words (`a#b`) and forgets
which words were quoted (so which ones expand). A small quote-aware lexer does that part; `shlex.join`
renders Codex argv calls back into one command. Pure functions, no I/O: `lexer` reads the command,
`run` follows its pipelines and redirections, `builtins` knows what echo, printf and sed print.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from datetime import datetime
from typing import Any

from ...core.values import Edit
from ..jsonl import loads
from .lexer import Lexer
from .run import Run

CLAUDE_TOOL = "Bash"
CODEX_TOOLS = frozenset({"exec_command", "shell", "shell_command", "local_shell_call", "container.exec"})

_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_EXIT = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$", re.M)


def shell_edits(
    command: str,
    cwd: str | None,
    *,
    tool: str,
    message_id: str,
    call_id: str | None = None,
    timestamp: datetime | None = None,
) -> list[Edit]:
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
        tokens = Lexer(command).tokens()
    except RecursionError:
        return []
    writes = Run(cwd).run(tokens)
    return [
        Edit(
            path=path,
            tool=tool,
            message_id=message_id,
            call_id=call_id,
            timestamp=timestamp,
            kind=kind,
            new_text="\n".join(a.text for a in added),
            added=tuple(added),
            source=source,
        )
        for path, kind, added, source in writes
    ]


def codex_edits(
    name: str,
    arguments: Any,
    *,
    message_id: str,
    call_id: str | None = None,
    timestamp: datetime | None = None,
) -> list[Edit]:
    """`shell_edits` of a Codex shell call (`exec_command`, `shell`, `local_shell_call`, …), tool = `name`."""
    found = codex_command(arguments)
    if found is None:
        return []
    return shell_edits(
        found[0], found[1], tool=name, message_id=message_id, call_id=call_id, timestamp=timestamp
    )


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
