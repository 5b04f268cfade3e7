"""What the benchmarks share: an isolated HOME, git config and agent folders, so no run touches yours."""

from __future__ import annotations

import os
import re
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path


def isolate(root: Path) -> Path:
    """Point HOME, git's global config and the agents' folders into `root`; returns the fake HOME."""
    home = root / "home"
    home.mkdir(exist_ok=True)
    os.environ.update(
        {
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "XDG_CONFIG_HOME": str(home / ".config"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CODEX_HOME": str(home / ".codex"),
            # With no global config, `git notes add` (inside record_commit) needs an identity from somewhere;
            # run_demo sets its own only for its two commits.
            "GIT_AUTHOR_NAME": "Bench Person",
            "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "Bench Person",
            "GIT_COMMITTER_EMAIL": "bench@example.com",
        }
    )
    # PYTHONDONTWRITEBYTECODE (set in some sandboxes) makes every child compile the package from source: ~40
    # ms a command that no installed copy pays (pip writes the bytecode). The warm-up rounds write it here.
    for name in (
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_INTENT",
        "GIT_INTENT_HOOK_SYNC",
        "PYTHONDONTWRITEBYTECODE",
    ):
        os.environ.pop(name, None)
    return home


# The Claude Code fixtures copied by `claude_transcripts` (the 288 KB one first: the figures used it).
CLAUDE_FIXTURES = (
    "entire-cli__a6e4c2a0fbd1__compaction.jsonl",
    "entire-cli__37995ebed6e4-2__torn-line__two-cwds.jsonl",
    "git-ai__example-claude-code.jsonl",
    "entire-cli__8cfa910f8ef9-5__two-sessionids.jsonl",
)
_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts" / "claude-code"
_STAMP = re.compile(r'"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)Z"')
_SESSION = re.compile(r'"sessionId":"([0-9a-f-]{36})"')
_CWD = re.compile(r'"cwd":"([^"]+)"')


def claude_transcripts(
    repo: Path,
    count: int,
    *,
    end: datetime | None = None,
    days: float = 6.0,
    fixtures: tuple[str, ...] = CLAUDE_FIXTURES[:1],
    same_files: bool = False,
) -> list[Path]:
    """Write `count` Claude Code transcripts for the work tree `repo` under `$CLAUDE_CONFIG_DIR/projects/`,
    each a copy of one of `fixtures` (taken in turn) with a new session id, its cwd (and so every path
    below it) moved to `repo`, and its timestamps shifted so that the copies end evenly spread over the
    `days` before `end` (default now); each file's mtime is its last timestamp. Torn and glued lines are
    copied as they are (a regex rewrite, not a JSON round trip). The files a copy edited move below
    `repo/s<n>/` (each session worked on its own files), or, with `same_files`, below `repo` itself (every
    session edited the same files). Returns the paths written, oldest first."""
    end = end or datetime.now(timezone.utc)
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(repo))
    folder.mkdir(parents=True, exist_ok=True)
    texts = [(_FIXTURES / name).read_text(encoding="utf-8") for name in fixtures]
    written: list[Path] = []
    for i in range(count):
        text = texts[i % len(texts)]
        session_id = str(uuid.uuid4())
        for old in set(_SESSION.findall(text)):
            text = text.replace(old, session_id)
        for cwd in sorted(set(_CWD.findall(text)), key=len, reverse=True):
            text = text.replace(f'"cwd":"{cwd}"', f'"cwd":"{repo}"')
            text = text.replace(cwd + "/", f"{repo}/" if same_files else f"{repo}/s{i:04d}/")
            text = text.replace(cwd, str(repo))
        stamps = [datetime.fromisoformat(s + "+00:00") for s in _STAMP.findall(text)]
        last = end - timedelta(days=days) * (count - 1 - i) / max(count, 1) - timedelta(minutes=1)
        shift = last - max(stamps) if stamps else timedelta(0)
        text = _STAMP.sub(
            lambda m, by=shift: (
                '"timestamp":"' + iso(datetime.fromisoformat(m.group(1) + "+00:00") + by) + '"'
            ),
            text,
        )
        path = folder / f"{session_id}.jsonl"
        path.write_text(text, encoding="utf-8")
        os.utime(path, (last.timestamp(), last.timestamp()))
        written.append(path)
    return written


def iso(when: datetime) -> str:
    """An ISO-8601 UTC time with milliseconds and a Z, as Claude Code and Codex write them."""
    return when.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# Python source for a child process: counts the `git` processes it starts in `started[0]` (the
# figures of git processes per run), by wrapping subprocess.Popen.__init__.
COUNT_GIT = """
started = [0]
_init = subprocess.Popen.__init__


def counting(self, args, *rest, **options):
    if isinstance(args, (list, tuple)) and args and args[0] == "git":
        started[0] += 1
    _init(self, args, *rest, **options)
subprocess.Popen.__init__ = counting
"""
