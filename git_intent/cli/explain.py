"""Commands that explain lines and commits: blame, show, log, demo."""

from __future__ import annotations

from pathlib import Path

import click

from ._base import cli, echo, open_repo, print_json
from .printing import show_blame


@cli.command()
@click.argument("arguments", nargs=-1, required=True, metavar="[REV] [--] LOCATION")
@click.option(
    "-L",
    "line_ranges",
    multiple=True,
    metavar="START,END",
    help="Only these lines, as git blame takes them: START,END, START,+COUNT, START,-COUNT, START (to the "
    "end) or ,END. Repeatable. LOCATION is then a path.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the JSON contract of docs/json.md: one entry per line, plus `ranges`.",
)
@click.option(
    "--moves",
    is_flag=True,
    help="Also run git's move and copy detection (-M -C); its older commit is taken only where that "
    "commit's note credits an agent and the commit that added the line here does not.",
)
@click.option("--no-pager", is_flag=True, help="Never page the answer (as `git --no-pager intent blame`).")
def blame(
    arguments: tuple[str, ...], line_ranges: tuple[str, ...], as_json: bool, moves: bool, no_pager: bool
) -> None:
    """Explain who wrote LOCATION (PATH, PATH:LINE or PATH:START-END) and why.

    Walks git blame to the commit, its note, the agent session and the message whose edit wrote each
    line, and quotes the request, the assistant's reasoning and the edit. A bare PATH answers every
    line of the file as ranges in a compact gutter (agent session:message, person, or unrecorded).

    \b
    As git blame takes them:
      git intent blame HEAD~3 -- src/app.py      the file as it was at HEAD~3
      git intent blame -L 40,+10 src/app.py      ten lines from line 40
    On a terminal the answer goes through git's pager (pager.blame, core.pager, GIT_PAGER, PAGER; none with
    --no-pager, `git --no-pager intent`, or when standard output is not a terminal).

    Exits 0 whenever it answered, whatever the lines' statuses (agent, human, unrecorded, uncommitted);
    1 when it could not: a bad path, range or revision, or a note that cannot be read (warned once on stderr).
    """
    if len(arguments) > 2:
        raise click.UsageError("Give at most a revision and a location: [REV] [--] LOCATION.")
    revision, location = (None, arguments[0]) if len(arguments) == 1 else arguments
    show_blame(
        location, as_json=as_json, moves=moves, revision=revision, line_ranges=line_ranges, pager=not no_pager
    )


@cli.command()
@click.argument("reference")
@click.option("--json", "as_json", is_flag=True, help="Print the session or message as JSON.")
@click.option("--brief", is_flag=True, help="One line per message instead of full text.")
def show(reference: str, as_json: bool, brief: bool) -> None:
    """Print SESSION or SESSION:MESSAGE at full fidelity (ids or unique prefixes)."""
    from ..core.values import to_json
    from ..explain.render import message_text, session_text
    from ..sessions.discovery import resolve_reference

    repo = open_repo()
    session, message = resolve_reference(repo, reference)
    if as_json:
        print_json(to_json(message or session))
    elif message is not None:
        echo(f"session   {session.agent} {session.session_id}\n{message_text(message, session, repo.root)}")
    else:
        from ..explain.render import digest_text
        from ..fidelity.digest import session_digest
        from ..fidelity.topics import segment_topics

        echo(digest_text(session_digest(session, segment_topics(session))), nl=False)
        echo(session_text(session, full=not brief, root=repo.root), nl=False)


@cli.command()
@click.argument("revision_range", default="HEAD")
@click.option("-n", "--max-count", default=20, show_default=True, help="How many commits to list.")
@click.option("--json", "as_json", is_flag=True, help="Print the commits as JSON.")
def log(revision_range: str, max_count: int, as_json: bool) -> None:
    """List recent commits of REVISION_RANGE with the agent sessions that wrote them."""
    from ..explain.log import log_commits
    from ..explain.render import log_text

    entries = log_commits(open_repo(), revision_range, max_count)
    if as_json:
        print_json([e.model_dump(mode="json") for e in entries])
    else:
        echo(log_text(entries), nl=False)


@cli.command()
@click.option(
    "--keep",
    type=click.Path(path_type=Path, file_okay=False),
    help="Build the demo repository here and keep it (default: a temporary folder).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the blame answer as JSON.")
def demo(keep: Path | None, as_json: bool) -> None:
    """Replay a bundled real Claude Code session into a new repository, record it, and explain a line.

    No network and no configuration: the transcript ships with git-intent (see its README).
    """
    from ..demo import run_demo
    from ..explain.render import blame_text

    result = run_demo(keep, echo=None if as_json else click.echo)
    if as_json:
        print_json(result.answer.contract())
    else:
        echo(blame_text(result.answer), nl=False)
        echo(result.epilogue)
