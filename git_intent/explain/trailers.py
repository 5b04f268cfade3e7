"""The agents a commit's trailers name: the evidence blame and stats fall back on when no transcript credits a
line.

A trailer says an agent took part in a commit, not which of its lines it wrote, and names no session or
message: a line credited by it gets `method: "trailer"`, `TRAILER_CONFIDENCE` and empty `session_id` and
`message_id`. A transcript-based attribution (a note's, or one found by content) always wins.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core import linear
from ..core.values import Attribution
from ..git.repo import Repository

__all__ = [
    "TRAILER_CONFIDENCE",
    "TRAILER_REASON",
    "TRAILER_TOOL",
    "trailer_agent",
    "trailer_agents",
    "trailer_attribution",
]

# A trailer says an agent helped with the commit, not which of its lines it wrote: below a content match's
# (one line's exact text in a session's edit), and not measured against a ground truth yet.
TRAILER_CONFIDENCE = 0.5
TRAILER_REASON = "agent-assisted by the commit's trailer; no transcript here"
TRAILER_TOOL = "trailer"
# Key, then a pattern of the value, then the agent (None: an agent the trailer does not name). The co-author
# forms the agents write: Claude Code `Claude <noreply@anthropic.com>` (any Claude model name), Codex `Codex
# <…codex…@openai.com>` or `… <noreply@openai.com>`, Cursor `Cursor Agent <cursoragent@cursor.com>`, GitHub
# Copilot `Copilot <…+Copilot@users.noreply.github.com>`; a person's address at those companies is not one.
# RE2 (`linear`): a commit message is anyone's text, and under `re` `<[^@>]*codex[^@>]*@` backtracked
# quadratically in a long value without `@`.
_RULES: tuple[tuple[str, linear.Pattern, str | None], ...] = (
    ("co-authored-by", linear.compile(r"(?i)^claude\b.*<noreply@anthropic\.com>$"), "claude-code"),
    (
        "co-authored-by",
        linear.compile(r"(?i)^codex\b|<[^@>]*codex[^@>]*@openai\.com>$|<noreply@openai\.com>$"),
        "codex",
    ),
    ("co-authored-by", linear.compile(r"(?i)<cursoragent@cursor\.com>$|^cursor agent\b"), "cursor"),
    ("co-authored-by", linear.compile(r"(?i)\+copilot@users\.noreply\.github\.com>$"), "copilot"),
    ("claude-session", linear.compile(rf"[^{linear.SPACE}]"), "claude-code"),
    ("entire-checkpoint", linear.compile(r"(?i)^[0-9a-f]{12}$"), None),
)
# An agent the trailer does not name (Entire records a checkpoint for any agent): the agent field says so.
UNNAMED_AGENT = "agent"


def trailer_agent(trailers: Iterable[str]) -> str | None:
    """The agent that `Key: value` trailer lines name, or None when none names one. A trailer naming the agent
    beats `Entire-Checkpoint`, which names none (`UNNAMED_AGENT` then)."""
    unnamed = False
    for line in trailers:
        key, _, value = line.partition(":")
        key, value = key.strip().lower(), value.strip()
        for rule_key, pattern, agent in _RULES:
            if key == rule_key and pattern.search(value):
                if agent is not None:
                    return agent
                unnamed = True
    return UNNAMED_AGENT if unnamed else None


def trailer_agents(repo: Repository, commits: Iterable[str]) -> dict[str, str]:
    """commit -> the agent its trailers name, for those of `commits` whose trailers name one; one `git
    log`."""
    wanted = list(dict.fromkeys(commits))
    if not wanted:
        return {}
    out = repo.git(
        "log",
        "--no-walk=unsorted",
        "--format=%x00%H%x00%(trailers:unfold,only)",
        "--end-of-options",
        *wanted,
        check=False,
    )
    found: dict[str, str] = {}
    parts = out.split("\0")[1:]
    for commit, body in zip(parts[0::2], parts[1::2], strict=False):
        agent = trailer_agent(body.splitlines())
        if agent is not None:
            found[commit] = agent
    return found


def trailer_attribution(agent: str) -> Attribution:
    """The attribution of a line that only a trailer credits: no session, no message."""
    return Attribution(
        agent=agent,
        session_id="",
        message_id="",
        tool=TRAILER_TOOL,
        method="trailer",
        confidence=TRAILER_CONFIDENCE,
    )
