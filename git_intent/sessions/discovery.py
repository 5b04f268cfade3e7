"""Finding the sessions of a repository: discovered transcripts, explicit files, and backup copies."""

from __future__ import annotations

import json
import mmap
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..adapters import FILE_SCOPED, Registered, all_adapters, sniff
from ..adapters import adapter as named_adapter
from ..core.errors import DamagedTranscriptError, IntentError, SessionNotFoundError, TranscriptError
from ..core.values import Message, Session
from ..git.repo import Repository
from ..transcripts.jsonl import head_records, written_since
from .backup import session_copies, session_copy_path
from .brought_in import BroughtIn
from .merge import merge_copies
from .parse_cache import cached_sessions


def read_transcript(path: Path, agent: str | None = None, *, keep: bool = False) -> list[Session]:
    """Sessions in one transcript file of any known agent, or of `agent` when it is known (a backup copy is
    filed under its agent's name, and need not look like the original to a plug-in's `sniff`). With `keep`,
    the parse is kept for the next call while the file is unchanged (`parse_cache`: what `find_session`
    and blame's content fallback read again and again; capture, backfill and the index read many files
    once and do not keep them). Treat the sessions as read-only.

    Raises TranscriptError when the file cannot be opened or is in no known format.
    """
    if keep and agent in FILE_SCOPED:  # known without importing the adapter: a cache hit imports none
        return cached_sessions(path, agent, lambda: read_transcript(path, agent))
    if not path.is_file():
        raise TranscriptError(f"The transcript {path} does not exist or is not a file.")
    adapter = named_adapter(agent) if agent is not None else sniff(path)
    if adapter is None:
        raise TranscriptError(f"{path} is not a transcript of a known agent ({', '.join(all_adapters())}).")

    def parse() -> list[Session]:
        try:
            return adapter.read(path)
        except OSError as exc:
            raise TranscriptError(f"The transcript {path} cannot be read: {exc.strerror}.") from exc

    # Only a parse that depends on the file alone is kept: OpenCode's stores read other files too.
    return cached_sessions(path, adapter.NAME, parse) if keep and adapter.file_scoped else parse()


def transcript_files(paths: Iterable[Path]) -> tuple[list[Path], list[SkippedFile]]:
    """The transcript files `paths` name, in the order given, and the files passed over with the reason: a
    file stands for itself (`read_transcript` checks it); a folder for every file below it that some adapter
    sniffs, in sorted path order, the others passed over (`skip_reason`). A folder is how transcripts
    recorded on another machine come in (discovery drops them: their cwd names the author's paths).

    Raises TranscriptError for a path that does not exist."""
    files: list[Path] = []
    passed_over: list[SkippedFile] = []
    for path in paths:
        if not path.exists():
            raise TranscriptError(
                f"The transcript file or folder {path} does not exist.",
                hint="Give a transcript file, or a folder holding transcripts.",
            )
        if not path.is_dir():
            files.append(path)
            continue
        for below in sorted(p for p in path.rglob("*") if p.is_file()):
            if sniff(below) is not None:
                files.append(below)
            else:
                passed_over.append(SkippedFile(str(below), skip_reason(below)))
    return files, passed_over


@dataclass(frozen=True)
class SkippedFile:
    """A file below a `--transcript` folder that no adapter reads, and why."""

    path: str
    reason: str


def skip_reason(path: Path) -> str:
    """Why no adapter reads `path` (it was sniffed by none): one phrase from its name and first records."""
    try:
        if path.stat().st_size == 0:
            return "empty file"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if path.suffix not in (".jsonl", ".json", ".md", ".db", ".sqlite"):
        return f"not a transcript format ({path.suffix or 'no extension'})"
    heads = head_records(path, limit=5) if path.suffix in (".jsonl", ".json") else []
    if (
        heads
        and isinstance(heads[0].get("v"), int)
        and isinstance(heads[0].get("agent"), str)
        and ("cli_version" in heads[0])
    ):
        # entireio/git-sync keeps one beside the native `full.jsonl` of the same session, which is read.
        return f"Entire's condensed copy of a {heads[0]['agent']} session, not the agent's own transcript"
    label = {".json": "JSON", ".jsonl": "JSON Lines"}.get(path.suffix, "text")
    kinds = sorted({str(r.get("type")) for r in heads if "type" in r})
    return f"{label} in no known agent's format" + (f" (record types: {', '.join(kinds)})" if kinds else "")


def candidate_sessions(
    repo: Repository,
    since: datetime | None,
    extra: Iterable[Path] = (),
    *,
    containing: Sequence[bytes] = (),
    problems: list[str] | None = None,
    keep: bool = False,
    read: list[tuple[str, Path]] | None = None,
) -> list[Session]:
    """Sessions that may have written lines of this work tree since `since`.

    Unions the agents' own transcripts (discovered, written at or after `since`), the `extra` files
    given explicitly, and the backup copies; copies of one session are merged into one (`merge.merge_copies`).
    With `containing`, only discovered files and copies whose bytes hold one of those strings are read
    (a byte search costs far less than parsing: blame's content fallback).
    Unreadable discovered files are skipped, and a sentence for each damaged one (say, a corrupt OpenCode
    store) is appended to `problems` when given; unreadable `extra` files raise TranscriptError. `keep`
    keeps the parses of files read whole (`read_transcript`): for a caller that asks again (blame's content
    fallback), not for one that reads many files once (capture, backfill, the index). `read`, when given,
    gets (agent, path) of every discovered file and copy read: the index records them all, so it can tell
    that nothing changed although copies of one session merge into one (`index.load.unchanged`).
    """
    found: dict[tuple[str, str], Session] = {}
    for path in extra:
        merge_copies(found, read_transcript(path))
    needles = repository_needles(repo)
    root_commit = root_commit_of(repo)
    for source in session_sources(repo, since):
        if containing and not mentions_repository(source.path, list(containing)):
            continue
        if source.copy or source.adapter is None:  # a copy: the backup is never tracked (`trusted_backup`)
            merge_copies(found, read_readable([(source.agent, source.path)], problems, keep=keep))
            if read is not None:
                read.append((source.agent, source.path))
            continue
        if not mentions_repository(source.path, needles):
            continue
        if read is not None:
            read.append((source.agent, source.path))
        try:  # a store of many projects' sessions (OpenCode) parses only this repository's
            merge_copies(
                found,
                source.keep(
                    read_transcript(source.path, source.agent, keep=True)
                    if keep and source.adapter.file_scoped
                    else source.adapter.read_project(
                        source.path, project_id=root_commit, root=repo.root, since=since
                    )
                ),
            )
        except Exception as exc:  # one odd file must not stop the others
            _report(problems, source.path, exc)
    return list(found.values())


@dataclass(frozen=True)
class SessionSource:
    """A file that may hold sessions of this repository: discovered in an agent's folder (it must still
    mention the work tree, `mentions_repository`), or a backup copy (`copy`: filed for this repository).
    `adapter` is None for a copy of an agent no adapter reads any more. `brought` is set for a file inside the
    work tree that git tracks: only the sessions its committed form lacks are this user's (`local`)."""

    agent: str
    path: Path
    adapter: Registered | None
    copy: bool
    brought: BroughtIn | None = None

    def local(self, agent: str, session_id: str) -> bool:
        """Whether a session read from this file may be evidence (`BroughtIn.local`)."""
        return self.brought is None or self.brought.local(self.path, agent, session_id)

    def keep(self, sessions: Iterable[Session]) -> list[Session]:
        """`sessions` read from this file, less those the clone brought in."""
        return [s for s in sessions if self.local(s.agent, s.session_id)]


def session_sources(repo: Repository, since: datetime | None) -> Iterator[SessionSource]:
    """Every agent's transcripts discovered for the work tree and touched at or after `since`, then the
    backup copies written since then, in the order `candidate_sessions` reads them (of two equal copies of a
    session, the first met is kept). A discovered file git tracks unchanged came with the clone and is
    left out (`BroughtIn`); the backup is never tracked (`backup.trusted_backup`)."""
    brought = BroughtIn(repo)
    for adapter in all_adapters().values():
        for path in adapter.discover(repo.root, since):
            if not brought.whole(path):
                yield SessionSource(
                    adapter.NAME,
                    path,
                    adapter,
                    copy=False,
                    brought=brought if brought.tracked(path) else None,
                )
    for agent, path in session_copies(repo):
        if any(written_since([path], since)):
            yield SessionSource(agent, path, named_adapter(agent), copy=True)


def root_commit_of(repo: Repository) -> str | None:
    """The repository's root commit (the oldest, when there are several): OpenCode's project id."""
    roots = repo.git("rev-list", "--max-parents=0", "HEAD", check=False).split()
    return roots[-1] if roots else None


def find_session(
    repo: Repository, session_id: str, agent: str | None = None, *, exact: bool = False, shared: bool = True
) -> Session:
    """The session with this id (or unique id prefix, unless `exact`), from the backup first, then the
    agents' folders, then (when `shared`) the redacted evidence on refs/intent/evidence, as a
    `sessions/shared.py`.SharedSession`. Ids read from notes are looked up `exact`: a short or empty id in a
    shared note must not pick some local session.

    Raises SessionNotFoundError when no transcript holds it, or the prefix is ambiguous.
    """
    if not session_id:
        raise SessionNotFoundError("An empty session id names no session.")
    # Only the named agent's adapter is imported when the caller knows it (a note always does), and only
    # once the backup copy is not found: a kept parse of the copy is read without any.
    names = [agent] if agent else list(all_adapters())
    for name in names:
        copy = session_copy_path(repo, name, session_id)
        if copy is not None and copy.is_file():
            for session in read_readable([(name, copy)], keep=True):
                if session.session_id == session_id:
                    return session
    known = named_adapter(agent) if agent else None
    adapters = {agent: known} if agent and known is not None else {} if agent else all_adapters()
    matches: dict[tuple[str, str], Session] = {}
    copies: list[tuple[str | None, Path]] = [
        (a, p) for a, p in session_copies(repo) if p.stem.startswith(session_id)
    ]
    # Most agents name a transcript, or its folder (Copilot CLI's `<id>/events.jsonl`, Cline's `tasks/<id>/`),
    # after its session; a file holding many sessions (Aider's history, OpenCode's database, Gemini's chats)
    # is read whole.
    discovered = [
        (n, p)
        for n in names
        if n in adapters
        for p in adapters[n].discover(repo.root)
        if session_id in p.name or session_id in p.parent.name or adapters[n].MULTI_SESSION
    ]
    brought = BroughtIn(repo)  # the backup is never tracked (`trusted_backup`); a discovered file may be
    readable = [
        *read_readable(copies, keep=True),
        *(
            s
            for agent_name, path in discovered
            if not brought.whole(path)
            for s in read_readable([(agent_name, path)], keep=True)
            if brought.local(path, s.agent, s.session_id)
        ),
    ]
    merge_copies(
        matches,
        (
            s
            for s in readable
            if s.session_id == session_id
            or (not exact and s.session_id.startswith(session_id))
            or session_id in s.aliases
        ),
    )
    if len(matches) == 1:
        return next(iter(matches.values()))
    if not matches and shared:
        from .shared import shared_session  # only when no transcript is here: keeps re2 off other paths

        found = shared_session(repo, session_id, agent, exact=exact)
        if found is not None:
            return found
    if not matches:
        # What is known first: the id matches nothing here; why that may be comes after, as a hint.
        raise SessionNotFoundError(
            f"No session matches {session_id}: no transcript of it is in the backup or the agents' "
            f"folders, and none is shared on refs/intent/evidence.",
            hint="Check the id: `git intent sessions` lists this repository's sessions. If a note names it, "
            "its transcript was deleted or made on another machine: `git intent fetch` brings what its "
            "author shared (`git config intent.share evidence` there).",
        )
    listed = ", ".join(sorted(f"{a}:{s}" for a, s in matches))
    raise SessionNotFoundError(f"The session id {session_id} is ambiguous: {listed}.")


class SessionLookup:
    """`find_session` by exact id, each (agent, id) looked up once per instance: the session, or the
    IntentError saying why it is not here. One per command or answer (its transcripts do not change under
    it): blame's resolver, the answer reading the sessions blame found, and importers share one rather than
    each keeping a memo. `shared=False` looks in this machine's transcripts and backup only."""

    def __init__(self, repo: Repository, *, shared: bool = True) -> None:
        self.repo = repo
        self.shared = shared
        self.found: dict[tuple[str | None, str], Session | IntentError] = {}

    def get(self, session_id: str, agent: str | None = None) -> Session | IntentError:
        """The session, or the error `find_session` raised for it."""
        key = (agent, session_id)
        if key not in self.found:
            try:
                self.found[key] = find_session(self.repo, session_id, agent, exact=True, shared=self.shared)
            except IntentError as exc:
                self.found[key] = exc
        return self.found[key]

    def find(self, session_id: str, agent: str | None = None) -> Session:
        """The session; raises the IntentError (SessionNotFoundError) `find_session` raised."""
        found = self.get(session_id, agent)
        if isinstance(found, IntentError):
            raise found
        return found

    def local(self, session_id: str, agent: str | None = None) -> Session | None:
        """The session, or None when it is not here."""
        found = self.get(session_id, agent)
        return None if isinstance(found, IntentError) else found


def repository_needles(repo: Repository) -> list[bytes]:
    """The work tree paths as they appear inside transcripts (raw, and JSON-escaped)."""
    roots = {str(repo.root), *(str(w) for w in repo.worktrees)}
    return sorted({form.encode("utf-8") for root in roots for form in (root, json.dumps(root)[1:-1])})


def mentions_repository(path: Path, needles: list[bytes]) -> bool:
    """Whether a discovered transcript names this work tree at all: a byte search costs far less than
    parsing every rollout on disk (Codex files rollouts by date, not by project)."""
    # A SQLite store in WAL mode (OpenCode's, while it runs) holds its newest rows in `<name>-wal`.
    wal = path.with_name(path.name + "-wal")
    return _file_mentions(path, needles) or (wal.is_file() and _file_mentions(wal, needles))


def _file_mentions(path: Path, needles: list[bytes]) -> bool:
    try:
        with path.open("rb") as handle:
            if path.stat().st_size == 0:
                return False
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return any(data.find(needle) >= 0 for needle in needles)
    except (OSError, ValueError):
        return False


def read_readable(
    paths: Iterable[tuple[str | None, Path]], problems: list[str] | None = None, *, keep: bool = False
) -> Iterator[Session]:
    """Sessions of every (agent or None to sniff, path) that reads as a transcript; the others are skipped
    (discovery is best effort). `keep` as for `read_transcript`."""
    for agent, path in paths:
        try:
            sessions = read_transcript(path, agent, keep=keep)
        except Exception as exc:  # TranscriptError, or an adapter bug on one odd file: the others still count
            _report(problems, path, exc)
            continue
        yield from sessions


def _report(problems: list[str] | None, path: Path, exc: Exception) -> None:
    """Note why a discovered transcript was skipped: a damaged file says so; a file in no known format
    (discovery over-selects) and a vanished one are skipped silently."""
    if problems is None or isinstance(exc, OSError):
        return
    if isinstance(exc, DamagedTranscriptError):
        problems.append(str(exc))
    elif not isinstance(exc, TranscriptError):
        problems.append(
            f"The transcript {path} could not be read ({type(exc).__name__}: {exc}); it is skipped."
        )


def resolve_reference(repo: Repository, reference: str) -> tuple[Session, Message | None]:
    """`SESSION` or `SESSION:MESSAGE` (ids or unique prefixes) to the session and, if given, the message.

    Raises SessionNotFoundError when either is not found.
    """
    session_id, _, message_id = reference.partition(":")
    if not session_id:
        raise SessionNotFoundError("Give a session id, as SESSION or SESSION:MESSAGE.")
    session = find_session(repo, session_id)
    if not message_id:
        return session, None
    message = session.message(message_id)
    if message is None:
        raise SessionNotFoundError(
            f"Session {session.session_id} has no message {message_id} (or the prefix is ambiguous).",
            hint=f"`git intent show {session.session_id}` lists its messages.",
        )
    return session, message
