"""The one error hierarchy of git-intent; the CLI turns it into exit codes."""

from __future__ import annotations


class IntentError(Exception):
    """A known failure with a full-sentence message meant for the user (exit code 1)."""

    hint: str | None = None

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint


class NotARepositoryError(IntentError):
    """The current directory is not inside a git work tree."""


class BadLocationError(IntentError):
    """A PATH:LINE argument names a path or line that does not exist."""


class UnreadableFileError(BadLocationError):
    """A work tree path git-intent will not read (`git.worktree.read_worktree_file`): a FIFO, device or
    socket, a link out of the work tree or into `.git`, or a file over the size read whole."""


class NoteError(IntentError):
    """A note on refs/notes/git-intent is missing, corrupt, or written by another tool."""


class NotesRefDamagedError(NoteError):
    """refs/notes/git-intent points at something that is not a readable notes commit: no note can be
    written until `git intent doctor` sets it aside."""


class TranscriptError(IntentError):
    """A transcript cannot be found or read."""


class DamagedTranscriptError(TranscriptError):
    """A transcript in a known format is damaged beyond reading (say, a corrupt OpenCode SQLite store)."""


class SessionNotFoundError(IntentError):
    """No session or message matches the id the user gave."""


class GitError(IntentError):
    """A git command failed."""


class RedactionError(IntentError):
    """Redaction could not run or failed; nothing was written (redaction fails closed)."""


class ShareError(IntentError):
    """Pushing, fetching or sharing git-intent's refs failed."""


class AuditThresholdError(IntentError):
    """An audit found coverage below a threshold the caller set (`--min-coverage`, `--min-evidence`)."""


class AttestationError(IntentError):
    """An attestation cannot be made or checked: a missing key, ssh-keygen refused, no allowed signers."""
