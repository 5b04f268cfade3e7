"""A small organisation written by hand, whose every count the store tests assert exactly.

Three repositories: `api` and `web` share the session `s-shared` (a coordinated change), `docs` has only a
person's commit. Times are fixed unix seconds: 1,700,000,000 is Tuesday 2023-11-14 22:13:20 UTC.
"""

from __future__ import annotations

from git_intent.org.rows import CommitRow, CreditRow, MessageRow, RepoSnapshot

T0 = 1_700_000_000
WEEK = 7 * 86400
CLAUDE = "claude-code"
CODEX = "codex"


def api(head: str = "api-1") -> RepoSnapshot:
    return RepoSnapshot(
        key="https://example.com/org/api.git",
        name="api",
        head=head,
        commits=(
            CommitRow("a1", T0, "Ada <ada@example.com>", 30),
            CommitRow("a2", T0 + WEEK, "Ada <ada@example.com>", 12),
        ),
        credits=(
            CreditRow("a1", CLAUDE, "claude-opus-4", "s-shared", "agent_with_evidence", 20, True),
            CreditRow("a1", None, None, None, "human", 10, False),
            CreditRow("a2", CODEX, "gpt-5", "s-api", "agent_without_evidence", 12, False),
        ),
        messages=(
            MessageRow(CLAUDE, "s-shared", "m1", "user", T0 - 60, "Rename the retry budget in the client"),
            MessageRow(CLAUDE, "s-shared", "m2", "assistant", T0 - 30, "The retry budget moves to config."),
            MessageRow(CODEX, "s-api", "m1", "user", T0 + WEEK - 60, "Add pagination to the Café listing"),
        ),
    )


def web() -> RepoSnapshot:
    return RepoSnapshot(
        key="https://example.com/org/web.git",
        name="web",
        head="web-1",
        commits=(CommitRow("w1", T0 + 3600, "Bo <bo@example.com>", 8),),
        credits=(CreditRow("w1", CLAUDE, "claude-opus-4", "s-shared", "agent_with_evidence", 8, True),),
        messages=(
            MessageRow(CLAUDE, "s-shared", "m3", "user", T0 + 3000, "Now the web client: retry budget"),
        ),
    )


def docs() -> RepoSnapshot:
    return RepoSnapshot(
        key="/srv/git/docs",
        name="docs",
        head=None,
        commits=(CommitRow("d1", T0 + 2 * WEEK, "Cy <cy@example.com>", 5),),
        credits=(CreditRow("d1", None, None, None, "human", 5, False),),
        messages=(),
    )


ALL = (api, web, docs)
