"""Agent transcript adapters: one module per format, all satisfying `Adapter`, listed in `ADAPTERS`.

An adapter discovers an agent's transcripts for a work tree, sniffs whether a file is its format, and
reads a file into sessions. Adapters do no git and no SQLite writes. Third-party adapters register a
module (or any object with the same members) under the entry-point group `git_intent.adapters`, named
after its `NAME`; docs/adapters.md says how. Built-in and plug-in adapters come out of the registry
alike, as `Registered` adapters with every optional member filled in.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from ..core.errors import TranscriptError
from ..core.values import AGENT_NAME, Session

__all__ = [
    "ADAPTERS",
    "ENTRY_POINT_GROUP",
    "FILE_SCOPED",
    "Adapter",
    "Registered",
    "adapter",
    "all_adapters",
    "sniff",
]

ENTRY_POINT_GROUP = "git_intent.adapters"


class Adapter(Protocol):
    """What every transcript format provides.

    `NAME`, `discover`, `sniff` and `read` are required. `MULTI_SESSION` (default False) says that one
    file holds many sessions, so a file name does not tell which (`find_session` then reads every file);
    `read_project` (default: `read`) reads only the sessions of one repository from a store that holds
    many projects' (OpenCode's database), to save parsing the rest. `NEWEST_TESTED` (default None) is the
    newest agent version (`Session.agent_version`) its fixtures cover: `doctor` says when transcripts on disk
    are newer. `locations(root)` (default: none said) gives the path patterns `discover` looks in on this
    machine, for `git intent agents`. A record of a type it does not know is skipped and counted
    (`ParseStats.unknown`), never a reason to refuse the file: `sniff` goes by the records' structure.
    """

    NAME: str
    MULTI_SESSION: bool

    def discover(self, root: Path, since: datetime | None = None) -> Iterator[Path]:
        """Transcript files that may hold sessions of the work tree `root`, touched at or after `since`."""
        ...

    def sniff(self, path: Path) -> bool:
        """Whether `path` looks like a transcript of this agent (reads at most a few KB)."""
        ...

    def read(self, path: Path) -> list[Session]:
        """Every session in the file; unreadable records are skipped and counted in `Session.stats`.

        Raises OSError when the file cannot be opened, TranscriptError (DamagedTranscriptError) when it
        is damaged beyond reading; never anything else for what the file holds.
        """
        ...

    def read_project(
        self,
        path: Path,
        project_id: str | None = None,
        root: Path | None = None,
        since: datetime | None = None,
    ) -> list[Session]:
        """The sessions of `path` that belong to the repository whose root commit is `project_id` or whose
        work tree is `root`, updated at or after `since` (a superset is fine: the catalog checks)."""
        ...


class Registered:
    """An adapter as the registry hands it out: the given module or object, with the optional members of
    `Adapter` it leaves out filled in by their defaults."""

    def __init__(self, given: Any, *, plugin: bool = False) -> None:
        name = getattr(given, "NAME", None)
        if not isinstance(name, str) or not re.fullmatch(AGENT_NAME, name):
            raise TypeError(f"an adapter needs a NAME matching {AGENT_NAME}, not {name!r}")
        for member in ("discover", "sniff", "read"):
            if not callable(getattr(given, member, None)):
                raise TypeError(f"the adapter {name} has no {member}()")
        self.given = given
        self.plugin = plugin
        self.NAME: str = name
        self.MULTI_SESSION: bool = bool(getattr(given, "MULTI_SESSION", False))
        newest = getattr(given, "NEWEST_TESTED", None)
        # The newest agent version its fixtures cover, for agents whose transcripts carry one.
        self.NEWEST_TESTED: str | None = newest if isinstance(newest, str) else None

    def __repr__(self) -> str:
        return f"<adapter {self.NAME}: {getattr(self.given, '__name__', type(self.given).__name__)}>"

    @property
    def file_scoped(self) -> bool:
        """Whether what it reads from a file depends on the file alone: no `read_project` of its own (which
        reads a many-project store for one repository and time: OpenCode's database)."""
        return getattr(self.given, "read_project", None) is None

    def discover(self, root: Path, since: datetime | None = None) -> Iterator[Path]:
        """The given adapter's `discover`."""
        return iter(self.given.discover(root, since))

    def locations(self, root: Path) -> list[str]:
        """Where the adapter looks for the transcripts of the work tree `root` on this machine, as path
        patterns (`git intent agents`); empty for a plug-in that does not say (a plug-in's that raises says
        nothing)."""
        given = getattr(self.given, "locations", None)
        if not callable(given):
            return []
        try:
            return [str(place) for place in given(root)]
        except Exception:
            if not self.plugin:
                raise
            return []

    def sniff(self, path: Path) -> bool:
        """The given adapter's `sniff`; a plug-in's that raises says no (built-ins never raise)."""
        if not self.plugin:
            return bool(self.given.sniff(path))
        try:
            return bool(self.given.sniff(path))
        except Exception:
            return False

    def read(self, path: Path) -> list[Session]:
        """The given adapter's `read`. Raises TranscriptError when it returns a session of another agent
        (an adapter names its sessions after itself: the name is how the registry finds it again)."""
        return self._own(list(self.given.read(path)), path)

    def read_project(
        self,
        path: Path,
        project_id: str | None = None,
        root: Path | None = None,
        since: datetime | None = None,
    ) -> list[Session]:
        """The given adapter's `read_project`, else `read` (membership is then decided by the catalog)."""
        own = getattr(self.given, "read_project", None)
        if own is None:
            return self.read(path)
        return self._own(list(own(path, project_id=project_id, root=root, since=since)), path)

    def _own(self, sessions: list[Session], path: Path) -> list[Session]:
        for session in sessions:
            if session.agent != self.NAME:
                raise TranscriptError(
                    f"The adapter {self.NAME} read {path} as a session of {session.agent}; "
                    "an adapter names its sessions after itself."
                )
        return [self._checked(s, path) for s in sessions] if self.plugin else sessions

    def _checked(self, session: Session, path: Path) -> Session:
        """A plug-in's session validated by pydantic (the value types are dataclasses, which check nothing
        when built), its lists made the tuples the types declare. Raises TranscriptError."""
        from dataclasses import asdict

        from ..core.values import validate

        try:
            return validate(type(session), asdict(session))
        except ValueError as exc:  # pydantic's ValidationError
            raise TranscriptError(
                f"The adapter {self.NAME} read {path} into a malformed session: {str(exc).splitlines()[0]}."
            ) from None


class _BuiltIn(Mapping[str, Registered]):
    """The built-in adapters by agent name, each module imported on first use: a blame of a Claude Code
    line imports the Claude Code adapter alone (importing all six cost ~60 ms of its start-up)."""

    _MODULES = {
        "claude-code": "claude_code",
        "codex": "codex",
        "opencode": "opencode",
        "gemini-cli": "gemini_cli",
        "cursor": "cursor",
        "aider": "aider",
        "qwen-code": "qwen_code",
        "amp": "amp",
        "droid": "droid",
        "pi": "pi",
        "crush": "crush",
        "goose": "goose",
        "specstory": "specstory",
        "copilot-cli": "copilot_cli",
        "copilot-chat": "copilot_chat",
        "cline": "cline",
        "roo-code": "roo_code",
        "continue": "continue_dev",
    }

    def __init__(self) -> None:
        self._loaded: dict[str, Registered] = {}

    def __getitem__(self, name: str) -> Registered:
        if name not in self._loaded:
            module = importlib.import_module(f"{__name__}.{self._MODULES[name]}")
            self._loaded[name] = Registered(module)
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._MODULES)

    def __len__(self) -> int:
        return len(self._MODULES)


ADAPTERS: Mapping[str, Registered] = _BuiltIn()
# The built-ins whose `read` depends on the file alone (`Registered.file_scoped`), known without importing
# them: a parse kept by `parse_cache` is then found before any adapter is loaded.
FILE_SCOPED = frozenset(
    {
        "claude-code",
        "codex",
        "gemini-cli",
        "cursor",
        "aider",
        "qwen-code",
        "amp",
        "droid",
        "pi",
        "crush",
        "specstory",
        "copilot-cli",
        "copilot-chat",
        "cline",
        "roo-code",
        "continue",
    }
)


def adapter(name: str) -> Registered | None:
    """The adapter whose sessions carry the agent name `name`: a built-in (only its module is imported),
    else a plug-in from the entry points, else None."""
    return ADAPTERS[name] if name in ADAPTERS else all_adapters().get(name)


@lru_cache(maxsize=1)
def all_adapters() -> dict[str, Registered]:
    """Built-in adapters plus those registered under the `git_intent.adapters` entry-point group.

    A plug-in is registered under its entry point's name, which must be its `NAME` (the agent name its
    sessions carry); one that fails to load, lacks a required member, or takes a built-in's name is left
    out: a broken plug-in must not break blame. Cached: scanning installed distributions for entry points
    costs ~2.5 ms a call.
    """
    from importlib.metadata import entry_points  # the scan (not the import) costs: only for other names

    found = dict(ADAPTERS)
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in found:
            continue
        try:
            adapter = Registered(point.load(), plugin=True)
        except Exception:  # an import error, a missing member: the plug-in is simply absent
            continue
        if adapter.NAME == point.name:
            found[point.name] = adapter
    return found


def sniff(path: Path) -> Registered | None:
    """The adapter whose format `path` is in, or None."""
    for adapter in all_adapters().values():
        if adapter.sniff(path):
            return adapter
    return None
