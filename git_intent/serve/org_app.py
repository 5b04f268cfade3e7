"""`git intent serve --org DB`: the organisation dashboard over the org store (starlette, the `serve` extra),
behind the same guard as the repository view (security.py: local Host, this run's key).

Pages: `/` (the agent share by week as inline SVG, the stats tables by repository, agent and model, the
sessions that span repositories, the repositories loaded) and `/search?q=Q` (full text over every shared
session). Each request opens the store, asks it, and closes it: the store may be a PostgreSQL server that
`org sync` jobs write to meanwhile.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from ..core.errors import IntentError
from .app import visible
from .org_chart import WeekShare, share_chart
from .security import ASGIApp, Guard

STATIC = Path(__file__).with_name("static")
SEARCH_LIMIT = 50
STATS_TABLES = (("repo", "By repository"), ("agent", "By agent"), ("model", "By model"))


class OrgQueries(Protocol):
    """What the dashboard asks of the org store (`org.store.OrgStore`)."""

    def stats(self, by: str, since: int | None) -> list[dict[str, Any]]: ...

    def search(self, query: str, limit: int) -> list[dict[str, Any]]: ...

    def spanning_sessions(self) -> list[dict[str, Any]]: ...

    def repositories(self) -> list[dict[str, Any]]: ...


StoreOpener = Callable[[], AbstractContextManager[OrgQueries]]


@dataclass(frozen=True)
class Table:
    """Rows of the store shown as a table: `columns` in the store's order, `rows` of display strings."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


# The columns each table shows, in order, and their headings (the store's rows hold more: the JSON has all).
STATS_COLUMNS = (
    ("repositories", "repositories"),
    ("commits", "commits"),
    ("sessions", "sessions"),
    ("lines", "lines"),
    ("agent_lines", "agent lines"),
    ("agent_share", "agent share"),
    ("evidence_share", "with evidence"),
)
SPANNING_COLUMNS = (
    ("session_id", "session"),
    ("agent", "agent"),
    ("repositories", "repositories"),
    ("commits", "commits"),
    ("lines", "lines"),
    ("has_evidence", "evidence shared"),
    ("first_at", "first commit"),
    ("last_at", "last commit"),
)
HIT_COLUMNS = (
    ("repository", "repository"),
    ("agent", "agent"),
    ("session_id", "session"),
    ("role", "role"),
    ("at", "when"),
    ("snippet", "message"),
)
REPOSITORY_COLUMNS = (
    ("name", "name"),
    ("key", "source"),
    ("commits", "commits"),
    ("credits", "credit rows"),
    ("messages", "shared messages"),
    ("synced_at", "synced"),
)


def table(
    title: str, rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]] | None = None
) -> Table:
    """The table of `rows` (dicts as the store gives them): `columns` (field, heading) in order, or every
    field of the first row; each value shown as text by `cell`."""
    chosen = tuple(columns) if columns is not None else tuple((c, c) for c in (rows[0] if rows else ()))
    return Table(
        title,
        tuple(heading for _, heading in chosen),
        tuple(tuple(cell(row.get(field), field) for field, _ in chosen) for row in rows),
    )


def cell(value: Any, column: str) -> str:
    """One value as the tables show it: shares as percentages, unix times (`…_at`) as UTC minutes, counts
    with thousands separators, lists joined by ", ", None as "—" for a key and empty elsewhere."""
    if value is None:
        return "(none)" if column == "key" else ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1%}" if "share" in column else f"{value:,.2f}"
    if isinstance(value, int) and (column == "at" or column.endswith("_at")):
        return dt.datetime.fromtimestamp(value, dt.timezone.utc).strftime("%Y-%m-%d %H:%M")
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list | tuple):
        return ", ".join(cell(v, column) for v in value)
    return str(value)


def stats_table(title: str, by: str, rows: Sequence[Mapping[str, Any]]) -> Table:
    """A stats table: the group's key under the grouping's name (lines no agent wrote, keyed null by agent
    and model, as "(no agent)"), then `STATS_COLUMNS` (by repository, without the count of repositories)."""
    keyed = [{**row, "key": "(no agent)"} if row.get("key") is None else row for row in rows]
    columns = [c for c in STATS_COLUMNS if not (by == "repo" and c[0] == "repositories")]
    return table(title, keyed, (("key", by), *columns))


def week_shares(rows: Sequence[Mapping[str, Any]]) -> list[WeekShare]:
    """The chart's weeks from `stats(by="week")` rows (`key`: the Monday starting the week; oldest
    first): each week's lines, and its agents' with and without evidence (`lines_by_class`)."""
    weeks = []
    for row in rows:
        if row.get("key") is None:  # commits without a time: no week to draw them in
            continue
        classes = row.get("lines_by_class") or {}
        weeks.append(
            WeekShare(
                week=str(row["key"]),
                agent_with_evidence=_count(classes, "agent_with_evidence"),
                agent_without_evidence=_count(classes, "agent_without_evidence"),
                lines=_count(row, "lines"),
            )
        )
    return sorted(weeks, key=lambda w: w.week)


def _count(row: Mapping[str, Any], name: str) -> int:
    value = row.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def create_org_app(opener: StoreOpener, title: str, token: str, key: str) -> ASGIApp:
    """The dashboard of the store `opener` opens (a new connection per request), titled `title` (the store's
    file name or database), behind the guard."""
    env = Environment(
        loader=PackageLoader("git_intent.serve", "templates"),
        autoescape=True,
        finalize=visible,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(store_title=title)
    templates = Jinja2Templates(env=env)

    def page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        return templates.TemplateResponse(request, name, context, status_code=status)

    def dashboard(request: Request) -> Response:
        with opener() as opened:
            return page(
                request,
                "org.html",
                chart=share_chart(week_shares(opened.stats("week", None))),
                tables=[stats_table(heading, by, opened.stats(by, None)) for by, heading in STATS_TABLES],
                spanning=table("Sessions across repositories", opened.spanning_sessions(), SPANNING_COLUMNS),
                repositories=table("Repositories", opened.repositories(), REPOSITORY_COLUMNS),
            )

    def search(request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        with opener() as opened:
            hits = table("Messages", opened.search(query, SEARCH_LIMIT), HIT_COLUMNS) if query else None
        return page(request, "org_search.html", query=query, hits=hits)

    async def known_error(request: Request, exc: Exception) -> Response:
        return page(request, "org_error.html", 400, message=str(exc), hint=getattr(exc, "hint", None))

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "Unexpected error."
        return page(request, "org_error.html", status, message=detail, hint=None)

    routes = [
        Route("/", dashboard),
        Route("/search", search),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={IntentError: known_error, HTTPException: http_error})
    return Guard(app, token, key)
