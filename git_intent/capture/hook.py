"""After the hook shims: start the single background worker. Standard library only; never fails.

The shims (hooks/post-commit, hooks/post-rewrite) have already queued the job in
`<git common dir>/intent/queue/` in the foreground. This module runs in the background and starts
`python -P -m git_intent.capture.worker` detached (not the CLI), unless a worker already holds
`worker.lock` (that worker looks at the queue again before it exits, so the job is not stranded).
Importing pydantic or pygit2 here would cost ~100-190 ms per commit (docs/design.md), so it imports neither.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import traceback
from pathlib import Path

from ..core.state_files import (
    append_text,
    private_dir,
    replace_file,
)  # standard library only, like this module
from . import SHIMS
from .queue import log, worker_busy

_HOOK_ENV = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_REFLOG_ACTION", "GIT_EDITOR")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout.strip()


def drain() -> None:
    """Start the worker for the queued jobs, detached (in the foreground with GIT_INTENT_HOOK_SYNC=1)."""
    common, top = _git("rev-parse", "--git-common-dir", "--show-toplevel").splitlines()[:2]
    state = Path(common if os.path.isabs(common) else os.path.join(os.getcwd(), common)) / "intent"
    sync = os.environ.get("GIT_INTENT_HOOK_SYNC") == "1"
    if not sync:
        # A worker holding the lock looks at the queue again before it exits. A brief hold by someone
        # else (`git intent status` testing the lock) must not make this job wait for the next commit.
        for _ in range(20):
            if not worker_busy(state):
                break
            time.sleep(0.1)
        else:
            return
    env = {k: v for k, v in os.environ.items() if k not in _HOOK_ENV}
    # -P: the work tree's own files must never shadow the standard library or git_intent.
    command = [sys.executable, "-P", "-m", "git_intent.capture.worker"]
    # hook.log holds the worker's reports, transcript text among them: 0600.
    try:
        out = append_text(private_dir(state) / "hook.log")
    except OSError:  # a link (refused) or unwritable: the worker still runs, its reports are lost
        out = open(os.devnull, "a")
    with out:
        if sync:
            subprocess.run(
                [*command, "--wait"], cwd=top, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out
            )
        else:
            subprocess.Popen(
                command,
                cwd=top,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
                close_fds=True,
            )


def render_shim(hook: str, python: str | None = None) -> str:
    """The shell shim for `hook` (hooks/<hook>, shipped as hook_shims/<hook>), calling the absolute path of
    this Python."""
    from importlib import resources  # ~8 ms: only install and the shims' repair need it, not a drain

    template = resources.files("git_intent").joinpath("hook_shims", hook).read_text(encoding="utf-8")
    return template.replace("@PYTHON@", shlex.quote(python or sys.executable))


def run_shim(hook: str, args: list[str], stdin: bytes) -> int:
    """Run git-intent's `hook` shim as git would, for other hook managers (husky, pre-commit, a shared
    hooks folder): rendered into `<state>/shims/` and run with `sh`, so they get exactly the fast path
    the installed hook has. Standard library only (~40 ms); never fails; returns 0."""
    if hook not in SHIMS or os.environ.get("GIT_INTENT") == "0":
        return 0
    try:
        common, top = _git("rev-parse", "--git-common-dir", "--show-toplevel").splitlines()[:2]
        state = Path(common if os.path.isabs(common) else os.path.join(os.getcwd(), common)) / "intent"
        shims = private_dir(state, "shims")
        shim, text = shims / hook, render_shim(hook)
        if not shim.exists() or shim.read_text(encoding="utf-8") != text:
            replace_file(shim, text.encode("utf-8"))  # whole: another hook may be running the old one
        subprocess.run(["sh", str(shim), *args], cwd=top, input=stdin, check=False)
    except Exception:
        pass
    return 0


def shim_main() -> None:
    """Console script `git-intent-hook HOOK [ARGS]` for hook managers; post-rewrite reads git's pairs on
    stdin and takes the rewrite kind as its argument, or from PRE_COMMIT_REWRITE_COMMAND; post-checkout
    takes git's three arguments, or pre-commit's PRE_COMMIT_FROM_REF, _TO_REF and _CHECKOUT_TYPE."""
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(
            "usage: git-intent-hook post-commit | post-rewrite [amend|rebase] (reads pairs on stdin) | "
            "post-merge | post-checkout OLD NEW FLAG"
        )
        sys.exit(0 if args else 2)
    hook, rest = args[0], args[1:]
    if hook == "post-rewrite" and not rest and "PRE_COMMIT_REWRITE_COMMAND" in os.environ:
        rest = [os.environ["PRE_COMMIT_REWRITE_COMMAND"]]
    if hook == "post-checkout" and not rest and "PRE_COMMIT_CHECKOUT_TYPE" in os.environ:
        rest = [
            os.environ.get("PRE_COMMIT_FROM_REF", ""),
            os.environ.get("PRE_COMMIT_TO_REF", ""),
            os.environ["PRE_COMMIT_CHECKOUT_TYPE"],
        ]
    stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    sys.exit(run_shim(hook, rest, stdin))


def main(argv: list[str]) -> int:
    """Entry point of the hook shims; always returns 0."""
    if os.environ.get("GIT_INTENT") == "0":
        return 0
    try:
        if argv[:1] == ["drain"]:
            drain()
    except Exception:  # the hook never fails a commit: log a paste-ready report instead
        try:
            common = _git("rev-parse", "--git-common-dir")
            log(Path(common).resolve() / "intent", "hook error:\n" + traceback.format_exc())
        except Exception:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
