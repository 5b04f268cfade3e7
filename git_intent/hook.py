"""The post-commit path after the shim: standard library only, never fails, never blocks the commit.

The shell shim captures the new commit's SHA and reflog subject in the foreground and starts this module
in the background with them (a Python start costs 40-110 ms here, too much to wait for). It appends them
to `<git common dir>/intent/queue.jsonl` and starts a detached worker
(`python -m git_intent record SHA --hook`) that receives the SHA and never reads HEAD (DESIGN.md:
back-to-back commits moved HEAD under detached workers and lost notes). Importing pydantic or pygit2 here
would add ~100-190 ms, so this module imports neither.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

# Reflog subjects of commits a person (or agent) made now; rebases, cherry-picks and reverts replay
# older work and are left to the post-rewrite path, so no live session is stamped onto them.
RECORDED_SUBJECTS = ("commit:", "commit (initial):", "commit (amend):", "commit (merge):")
REPLAY_STATE = ("rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "REVERT_HEAD")
_HOOK_ENV = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_REFLOG_ACTION", "GIT_EDITOR")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout.strip()


def log(state_dir: Path, message: str) -> None:
    """Append one timestamped line to `<state dir>/hook.log`; never raises."""
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        with open(state_dir / "hook.log", "a", encoding="utf-8") as handle:
            handle.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {message}\n")
    except OSError:
        pass


def post_commit(sha: str = "", subject: str = "") -> None:
    """Queue the commit `sha` (read from HEAD when not given) and hand it to a detached worker."""
    common, top = _git("rev-parse", "--git-common-dir", "--show-toplevel").splitlines()[:2]
    state = Path(common if os.path.isabs(common) else os.path.join(os.getcwd(), common)) / "intent"
    if not sha:
        sha = _git("rev-parse", "HEAD")
        subject = subprocess.run(["git", "log", "-g", "-1", "--format=%gs", "HEAD"], capture_output=True,
                                 text=True).stdout.strip()
    if not subject:
        # No reflog (core.logAllRefUpdates=false): tell a replay from the state files git keeps.
        replaying = [name for name in REPLAY_STATE if Path(_git("rev-parse", "--git-path", name)).exists()]
        subject = f"{replaying[0]}: in progress" if replaying else "commit: (no reflog)"
    if not subject.startswith(RECORDED_SUBJECTS):
        log(state, f"skip {sha[:12]} ({subject.split(':', 1)[0]}): not a new commit")
        return
    state.mkdir(parents=True, exist_ok=True)
    with open(state / "queue.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"commit": sha, "subject": subject, "queued_at": time.time()}) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in _HOOK_ENV}
    command = [sys.executable, "-m", "git_intent", "record", sha, "--hook"]
    with open(state / "hook.log", "a", encoding="utf-8") as out:
        if os.environ.get("GIT_INTENT_HOOK_SYNC") == "1":
            subprocess.run(command, cwd=top, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        else:
            subprocess.Popen(command, cwd=top, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                             start_new_session=True, close_fds=True)


def main(argv: list[str]) -> int:
    """Entry point of the hook shim; always returns 0."""
    if os.environ.get("GIT_INTENT") == "0":
        return 0
    try:
        if argv[:1] == ["post-commit"]:
            post_commit(*argv[1:3])
    except Exception:  # the hook never fails a commit: log a paste-ready report instead
        try:
            common = _git("rev-parse", "--git-common-dir")
            log(Path(common).resolve() / "intent", "hook error:\n" + traceback.format_exc())
        except Exception:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
