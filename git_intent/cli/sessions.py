"""Commands over sessions: sessions, agents, index, search, context, fidelity."""

from __future__ import annotations

from typing import Any

import click

from ._base import cli, echo, open_repo, print_json


@cli.command()
@click.option(
    "--agent",
    help="Only this agent's sessions (claude-code, codex, opencode, gemini-cli, cursor, aider, "
    "qwen-code, amp, droid, pi, crush, goose, copilot-cli, copilot-chat, cline, roo-code, continue, "
    "specstory, or a plug-in's name; `git intent agents` lists them).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as JSON.")
def sessions(agent: str | None, as_json: bool) -> None:
    """List every session found for this repository: agent, time span, messages, and linked commits."""
    from ..explain.render import sessions_text
    from ..explain.session_list import list_sessions

    found = list_sessions(open_repo(), agent)
    if as_json:
        print_json([s.model_dump(mode="json") for s in found])
    else:
        echo(sessions_text(found), nl=False)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the agents as JSON.")
def agents(as_json: bool) -> None:
    """List every agent whose transcripts git-intent reads: where it looks for them on this machine, the
    newest agent version its fixtures cover, and how many transcripts and sessions of this repository it
    found (with the newest version among them)."""
    from ..sessions.agent_list import agent_reports, agents_text

    reports = agent_reports(open_repo())
    if as_json:
        print_json([r.model_dump(mode="json") for r in reports])
    else:
        echo(agents_text(reports), nl=False)


@cli.command()
@click.option("--rebuild", is_flag=True, help="Drop the index and build it again from the transcripts.")
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def index(rebuild: bool, as_json: bool) -> None:
    """Bring the session index (.git/intent/index.db) up to date with every session of this repository.

    Incremental: unchanged transcripts are skipped and only changed rows are written. The index is a
    cache: notes and the backup stay the truth, and deleting index.db loses nothing.
    """
    result = _ingest(open_repo(), rebuild=rebuild, quiet=as_json)
    if as_json:
        print_json(result.model_dump(mode="json"))
    else:
        echo(
            f"Indexed {result.sessions} session(s) ({result.sessions_skipped} unchanged, "
            f"{result.sessions_removed} removed): {result.messages_added} messages and "
            f"{result.edits_added} edits written in {result.seconds:.1f} s."
        )


def _ingest(repo: Any, *, rebuild: bool = False, quiet: bool = False) -> Any:
    from ..index import ingest
    from .progress import Bars

    seen: list[int] = []  # sessions counted so far (ingest reports done and total); empty before the first

    def progress(done: int, total: int) -> None:
        if not seen:
            bars.stage("Indexing sessions", total)
            seen.append(0)
        bars.advance(done - seen[0])
        seen[0] = done

    with Bars(hidden=quiet) as bars:
        result = ingest(repo, rebuild=rebuild, progress=progress)
    for warning in result.warnings:
        echo(f"warning: {warning}", err=True)
    return result


@cli.command()
@click.argument("query")
@click.option("--agent", help="Only this agent's sessions.")
@click.option("--since", type=click.DateTime(), help="Only messages at or after this date (UTC).")
@click.option("--file", "path", help="Only messages that edited or named this path (a suffix).")
@click.option("-n", "--limit", default=20, show_default=True, help="How many hits.")
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
def search(query: str, agent: str | None, since: Any, path: str | None, limit: int, as_json: bool) -> None:
    """Search every session of this repository (full-text, then fuzzy re-ranked).

    The index is brought up to date first. Each hit names the message: `git intent show SESSION:MESSAGE`.
    """
    from ..explain.render import hits_text
    from ..index.search import search as run

    repo = open_repo()
    _ingest(repo, quiet=as_json)
    problems: list[str] = []
    hits = run(repo, query, agent=agent, since=since, file=path, limit=limit, problems=problems)
    for problem in problems:
        echo(f"warning: {problem}", err=True)
    if as_json:
        print_json([h.model_dump(mode="json") for h in hits])
    else:
        echo(hits_text(hits), nl=False)


@cli.command()
@click.argument("session")
@click.option(
    "--budget",
    default=8000,
    show_default=True,
    type=click.IntRange(min=100),
    help="Tokens (characters / 4) the rendering may use.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the topic map and rendering as JSON.")
def context(session: str, budget: int, as_json: bool) -> None:
    """Show SESSION's topic map and render it within a token budget.

    User turns that state tasks, facts or constraints stay verbatim; finished work shrinks to message
    and topic summaries; large outputs become `git intent show S:M` pointers. Nothing is deleted:
    raise any topic or message back with `git intent fidelity`.
    """
    from ..command_outputs import ContextOutput
    from ..explain.render import context_text
    from ..fidelity.context import session_context
    from ..index.annotations import stored_for

    rendered, commits = session_context(repo := open_repo(), session, budget, stored_for(repo))
    if as_json:
        print_json(ContextOutput(**dict(rendered), topic_commits=commits).model_dump(mode="json"))
    else:
        echo(context_text(rendered, commits), nl=False)


@cli.command()
@click.argument("session")
@click.argument("target")
@click.argument(
    "level", type=click.Choice(["full", "summary", "compressed", "placeholder", "hidden", "auto"])
)
@click.option("--json", "as_json", is_flag=True, help="Print the session's fidelity choices as JSON.")
def fidelity(session: str, target: str, level: str, as_json: bool) -> None:
    """Set the fidelity of a topic (t3) or a message (:MESSAGE_ID) of SESSION; `auto` removes the choice.

    Stored per session and reversible: the transcript itself is never changed.
    """
    from ..fidelity.context import change_fidelity
    from ..index.annotations import stored_for

    state = change_fidelity(repo := open_repo(), session, target, level, stored_for(repo))
    if as_json:
        from ..command_outputs import FidelityChange, topic_annotation
        from ..fidelity.context import find_topic

        topic = topic_annotation(find_topic(repo, session, target, stored_for(repo)))
        print_json(
            FidelityChange(
                session=session,
                target=target,
                level=level,
                topics=state.topics,
                messages=state.messages,
                topic=topic,
            ).model_dump(mode="json")
        )
        return
    echo(f"{target} of {session} is now {level}; `git intent context {session}` shows the result.")
