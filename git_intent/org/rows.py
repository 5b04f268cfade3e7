"""The rows one repository contributes to the organisation store: the only thing sync hands to the store.

Plain frozen dataclasses (no storage identity): a `RepoSnapshot` is everything read from one repository at one
state of its git-intent refs, and the store replaces that repository's rows with it whole.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CommitRow:
    """One commit that has a git-intent note.

    `committed_at` is the committer time in unix seconds; `author` is "name <email>" as git prints it;
    `lines_added` counts the lines the commit added (from the note's ranges or the diffstat).
    """

    sha: str
    committed_at: int
    author: str
    lines_added: int


@dataclass(frozen=True)
class CreditRow:
    """One credited range summed per (commit, session/agent/model, class).

    `agent`, `model` and `session_id` are None for human or unrecorded lines; `line_class` uses the class
    names blame, review, audit and stats use (agent, mixed, human, unrecorded...); `has_evidence` is true when
    the session's redacted evidence is on the shared evidence ref.
    """

    sha: str
    agent: str | None
    model: str | None
    session_id: str | None
    line_class: str
    lines: int
    has_evidence: bool


@dataclass(frozen=True)
class MessageRow:
    """One message of a shared session (from evidence or a whole shared session blob).

    `role` is user, assistant or tool; `at` is unix seconds or None when the transcript has no time; `text` is
    the redacted text as stored in the shared blob.
    """

    agent: str
    session_id: str
    message_id: str
    role: str
    at: int | None
    text: str


@dataclass(frozen=True)
class RepoSnapshot:
    """Everything one repository contributes, read at one state of its refs.

    `key` is the stable repository key (a normalised remote URL or an absolute path), `name` a short display
    name, `head` the notes-ref commit (or a digest of the refs) the snapshot was read at, so an unchanged
    repository can be skipped.
    """

    key: str
    name: str
    head: str | None
    commits: tuple[CommitRow, ...]
    credits: tuple[CreditRow, ...]
    messages: tuple[MessageRow, ...]
