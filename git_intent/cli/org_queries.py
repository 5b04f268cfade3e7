"""The questions `git intent org` asks of the organisation store: `stats`, `search` and `sessions` (the `org`
group in `cli/org.py` adds these commands; each prints a table or, with --json, the rows of
docs/schemas/org-*.json)."""

from __future__ import annotations

import datetime as dt
import importlib
from typing import TYPE_CHECKING

import click

from .printing import echo, print_json

if TYPE_CHECKING:
    from ..org.store import OrgStore

__all__ = ["search", "sessions", "stats"]

DB_OPTION_HELP = "The org store: a SQLite file (default: the one `org sync` writes) or a postgresql://… URL."


def _open(db: str | None) -> OrgStore:
    from ..org.store import open_store

    if db is None:
        # The default store belongs to the group (`cli/org.py`, shared with `org sync`); looked up when run,
        # since the group imports this module to add its commands.
        group = importlib.import_module(".org", __package__)
        db = str(group.store_target(None))
    return open_store(db)


def _when(seconds: int | None) -> str:
    if seconds is None:
        return "-"
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%d %H:%M")


@click.command("stats")
@click.option(
    "--by",
    type=click.Choice(["repo", "agent", "model", "week"]),
    default="repo",
    show_default=True,
    help="Group the lines by repository, agent, model or week (UTC, weeks start on Monday).",
)
@click.option("--since", type=click.DateTime(), help="Only commits at or after this date (UTC).")
@click.option("--db", help=DB_OPTION_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON (schema: org-stats).")
def stats(by: str, since: dt.datetime | None, db: str | None, as_json: bool) -> None:
    """Credited lines across every repository in the store, grouped by repository, agent, model or week.

    Per group: repositories, commits, sessions, credited lines, the agent share (lines of the agent
    classes) and the evidence share (agent lines whose session's redacted evidence was shared).
    """
    from ..explain.render import safe

    seconds = int(since.replace(tzinfo=dt.timezone.utc).timestamp()) if since else None
    with _open(db) as store:
        rows = store.stats_rows(by, seconds)
    if as_json:
        print_json([row.model_dump(mode="json") for row in rows])
        return
    if not rows:
        echo("No credited lines in the store" + (" since then." if since else "; run `git intent org sync`."))
        return
    label = {"repo": "repository", "week": "week of"}.get(by, by)
    lines = [
        f"{label:32} {'repos':>5} {'commits':>8} {'sessions':>8} {'lines':>9} {'agent':>7} {'evidence':>8}"
    ]
    for row in rows:
        key = safe(row.key) if row.key is not None else "(none)"
        lines.append(
            f"{key[:32]:32} {row.repositories:>5} {row.commits:>8} {row.sessions:>8} {row.lines:>9} "
            f"{row.agent_share:>7.1%} {row.evidence_share:>8.1%}"
        )
    echo("\n".join(lines))


@click.command("search")
@click.argument("query")
@click.option(
    "-n", "--limit", default=20, show_default=True, type=click.IntRange(1, 1000), help="How many hits."
)
@click.option("--db", help=DB_OPTION_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON (schema: org-search).")
def search(query: str, limit: int, db: str | None, as_json: bool) -> None:
    """Full-text search over every shared session of every repository in the store, newest first.

    A message matches when it holds every word of QUERY (case does not matter, accents do; no stemming);
    `word*` matches words starting with `word`.
    """
    from ..explain.render import safe

    with _open(db) as store:
        hits = store.search_hits(query, limit)
    if as_json:
        print_json([hit.model_dump(mode="json") for hit in hits])
        return
    if not hits:
        echo(f"No shared message holds every word of {query!r}.")
        return
    for hit in hits:
        where = f"{safe(hit.session_id)}:{safe(hit.message_id)}"
        echo(f"{safe(hit.repository)}  {_when(hit.at)}  {safe(hit.agent)} {where}")
        echo(f"  {safe(hit.snippet)}")


@click.command("sessions")
@click.option("--db", help=DB_OPTION_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as JSON (schema: org-sessions).")
def sessions(db: str | None, as_json: bool) -> None:
    """Sessions whose commits span repositories: one session id credited in commits of two or more
    repositories (a coordinated change), most repositories first."""
    from ..explain.render import safe

    with _open(db) as store:
        rows = store.spanning_session_rows()
    if as_json:
        print_json([row.model_dump(mode="json") for row in rows])
        return
    if not rows:
        echo("No session has commits in more than one repository of the store.")
        return
    for row in rows:
        evidence = "evidence shared" if row.has_evidence else "no evidence shared"
        echo(
            f"{row.agent or '-'} {safe(row.session_id)}: {row.commits} commits, {row.lines} lines in "
            f"{len(row.repositories)} repositories ({', '.join(safe(r) for r in row.repositories)}), "
            f"{_when(row.first_at)} to {_when(row.last_at)}, {evidence}"
        )
