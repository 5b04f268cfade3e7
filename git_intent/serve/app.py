"""The routes of `git intent serve` (starlette): each reads through the library and renders a Jinja2
template with autoescape on, so every transcript, path and author string reaches the page escaped, and
with every control, bidi and invisible character shown as `\\uNNNN` (`visible`).

Pages (all reachable by links from `/`): `/files/…` (the tree at HEAD), `/file/PATH` (intent gutter and
evidence panels; `?line=N` selects a line without JavaScript), `/sessions`, `/session/ID` (topic bar,
fidelity controls, digest, budgeted rendering), `/message/ID/MESSAGE`, `/review?range=R`, `/search?q=Q`.
Every request passes the guard first (security.py): this run's key, and on the one POST,
`/session/ID/fidelity`, the form token.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from ..core.errors import BadLocationError, IntentError, SessionNotFoundError
from ..core.terminal import terminal_safe
from ..explain.render import names_message, short, trailer_credit, when
from ..git.repo import Repository
from ..review.text import confirmed_of, reason_of, requests_of
from ..review.values import ReviewAnswer
from .pages import LEVELS, file_view, list_folder, message_parts, topic_bar
from .security import TOKEN_FIELD, ASGIApp, Guard

STATIC = Path(__file__).with_name("static")


def visible(value: Any) -> Any:
    """Jinja's `finalize`: every string a template prints, with controls, bidi and invisible characters shown
    (`terminal_safe`); markup stays markup (the escapes are plain ASCII)."""
    if isinstance(value, Markup):
        return Markup(terminal_safe(str(value)))
    return terminal_safe(value) if isinstance(value, str) else value


def readable_sessions(repo: Repository, named: dict[str, tuple[str, bool]]) -> set[str]:
    """Of the sessions `named` (id -> (agent, whether its words were quoted: readable for sure)), the ids
    that can be read on this machine: only they are linked, so no link opens a page that says "not found"
    (an imported note's session whose transcript is not here)."""
    from ..sessions.discovery import find_session

    readable = set()
    for session_id, (agent, quoted) in named.items():
        try:
            if not quoted:
                find_session(repo, session_id, agent, exact=True)
            readable.add(session_id)
        except IntentError:
            pass
    return readable


def review_sessions(answer: ReviewAnswer) -> dict[str, tuple[str, bool]]:
    """The sessions a review names (its groups', and those of the agents' lines people changed): id -> (agent,
    whether the review quotes its words)."""
    named: dict[str, tuple[str, bool]] = {}
    for review_file in answer.files:
        for hunk in review_file.hunks:
            for group in hunk.groups:
                if group.attribution is not None and group.attribution.session_id:
                    quoted = named.get(group.attribution.session_id, ("", False))[1] or bool(group.evidence)
                    named[group.attribution.session_id] = (group.attribution.agent, quoted)
                for line in group.changed:
                    if line.previous is not None:
                        named.setdefault(
                            line.previous.attribution.session_id, (line.previous.attribution.agent, False)
                        )
    return named


def create_app(repo: Repository, token: str, key: str) -> ASGIApp:
    """The whole application for `repo`, behind the guard (local Host, `key` on every request, `token` on
    every POST)."""
    env = Environment(
        loader=PackageLoader("git_intent.serve", "templates"),
        autoescape=True,
        finalize=visible,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(token=token, token_field=TOKEN_FIELD, repo_name=repo.root.name, levels=LEVELS)
    env.filters.update(short=short, when=when, url=lambda text: quote(str(text), safe="/"))
    env.globals.update(
        requests_of=requests_of,
        confirmed_of=confirmed_of,
        reason_of=reason_of,
        names_message=names_message,
        trailer_credit=trailer_credit,
    )
    templates = Jinja2Templates(env=env)

    def page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        return templates.TemplateResponse(request, name, context, status_code=status)

    def head_files() -> frozenset[str]:
        return (
            repo.tree_files("HEAD") if repo.succeeds("rev-parse", "-q", "--verify", "HEAD") else frozenset()
        )

    def index(request: Request) -> Response:
        from ..explain.log import log_commits

        commits = log_commits(repo, "HEAD", 15) if head_files() else []
        named = {s.session_id: (s.agent, False) for c in commits for s in c.sessions}
        return page(request, "index.html", commits=commits, readable=readable_sessions(repo, named))

    def files(request: Request) -> Response:
        folder = request.path_params.get("path", "").strip("/")
        entries = list_folder(head_files(), folder)
        if entries is None:
            raise HTTPException(404, f"{folder or 'The repository'} has no files at HEAD.")
        parts = folder.split("/") if folder else []
        crumbs = [("/".join(parts[: i + 1]), name) for i, name in enumerate(parts)]
        return page(request, "files.html", folder=folder, entries=entries, crumbs=crumbs)

    def file(request: Request) -> Response:
        path = request.path_params["path"]
        if (
            path not in head_files()
        ):  # only files of the tree: no path from the URL reaches the disk otherwise
            raise HTTPException(404, f"{path} is not a file of HEAD.")
        view = file_view(repo, path)
        line = request.query_params.get("line", "")
        selected = int(line) if line.isdigit() and 1 <= int(line) <= len(view.lines) else None
        shown = view.lines[selected - 1].panel_id if selected else None
        return page(request, "file.html", view=view, selected=selected, shown=shown)

    def sessions(request: Request) -> Response:
        from ..explain.session_list import list_sessions

        return page(request, "sessions.html", sessions=list_sessions(repo))

    def session(request: Request) -> Response:
        from ..fidelity.context import DEFAULT_BUDGET, session_context
        from ..index.annotations import stored_for

        budget_text = request.query_params.get("budget", "")
        budget = max(int(budget_text), 100) if budget_text.isdigit() else DEFAULT_BUDGET
        rendered, commits = session_context(repo, request.path_params["session_id"], budget, stored_for(repo))
        return page(
            request,
            "session.html",
            rendered=rendered,
            commits=commits,
            bar=topic_bar(rendered),
            digest=rendered.digest,
            budget=budget,
        )

    async def fidelity(request: Request) -> Response:
        from ..fidelity.context import change_fidelity
        from ..index.annotations import stored_for

        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        target, level = (form.get(k, [""])[0] for k in ("target", "level"))
        session_id = request.path_params["session_id"]
        await run_in_threadpool(change_fidelity, repo, session_id, target, level, stored_for(repo))
        anchor = f"#topic-{quote(target)}" if not target.startswith(":") else ""
        return RedirectResponse(f"/session/{quote(session_id, safe='')}{anchor}", status_code=303)

    def message(request: Request) -> Response:
        from ..sessions.discovery import resolve_reference

        found, text = resolve_reference(
            repo, f"{request.path_params['session_id']}:{request.path_params['message_id']}"
        )
        if text is None:  # the route always names a message; resolve_reference raises for a missing one
            raise HTTPException(404, "No message is named.")
        return page(request, "message.html", session=found, message=text, parts=message_parts(found, text))

    def review(request: Request) -> Response:
        from ..review import review_range

        spec = request.query_params.get("range", "").strip()
        answer = review_range(repo, spec) if spec else None
        from ..explain.log import log_commits

        commits = log_commits(repo, "HEAD", 10) if head_files() else []
        return page(
            request,
            "review.html",
            spec=spec,
            answer=answer,
            commits=commits,
            head_files=head_files(),
            readable=readable_sessions(repo, review_sessions(answer)) if answer else set(),
        )

    def search(request: Request) -> Response:
        from ..index import ingest
        from ..index.search import search as run

        query = request.query_params.get("q", "").strip()
        hits = []
        if query:
            ingest(repo)
            hits = run(repo, query, limit=30)
        return page(request, "search.html", query=query, hits=hits)

    async def known_error(request: Request, exc: Exception) -> Response:
        status = 404 if isinstance(exc, SessionNotFoundError | BadLocationError) else 400
        return page(request, "error.html", status, message=str(exc), hint=getattr(exc, "hint", None))

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "Unexpected error."
        return page(request, "error.html", status, message=detail, hint=None)

    routes = [
        Route("/", index),
        Route("/files/", files),
        Route("/files/{path:path}", files),
        Route("/file/{path:path}", file),
        Route("/sessions", sessions),
        Route("/session/{session_id}", session),
        Route("/session/{session_id}/fidelity", fidelity, methods=["POST"]),
        Route("/message/{session_id}/{message_id}", message),
        Route("/review", review),
        Route("/search", search),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={IntentError: known_error, HTTPException: http_error})
    return Guard(app, token, key)
