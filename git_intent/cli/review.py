"""Commands for reviewers: review (a range explained hunk by hunk) and serve (the local web view)."""

from __future__ import annotations

import click

from ._base import cli, echo, open_repo, print_json


@cli.command()
@click.argument("revision_range", metavar="RANGE")
@click.option(
    "--format",
    "output",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="Terminal text, or a paste-ready pull-request comment (collapsible, within 65,536 characters).",
)
@click.option("--json", "as_json", is_flag=True, help="Print files → hunks → groups as JSON (docs/json.md).")
@click.option("--offline", is_flag=True, help="No model summaries, even when a model is configured.")
@click.option(
    "--model", help="A litellm model string for the session summaries (default: git config intent.model)."
)
def review(revision_range: str, output: str, as_json: bool, offline: bool, model: str | None) -> None:
    """Explain every hunk of RANGE: who wrote each added line, what was asked, and why.

    RANGE is any `git diff` range (main..feature, HEAD~3.., A...B) or one commit; its end need not be checked
    out. Added lines are grouped by agent message, person or unrecorded commit; agent groups quote the request
    and the assistant's reason, cited [session:message]; a person's change to an agent's line is flagged. A
    summary table comes first. With a model configured, each session gets a one-paragraph summary whose
    citations are checked like `why`'s. Example: git intent review main..feature --format markdown
    """
    from ..review import review_markdown, review_range, review_text, summarise_sessions

    repo = open_repo()
    answer = review_range(repo, revision_range)
    if not offline:
        from ..review.model_summary import model_summariser

        answer = summarise_sessions(answer, model_summariser(repo, model))
    if as_json:
        print_json(answer.model_dump(mode="json"))
    elif output == "markdown":
        echo(review_markdown(answer), nl=False)
    else:
        echo(review_text(answer), nl=False)


@cli.command()
@click.option(
    "--port",
    default=8484,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port on 127.0.0.1 (0 picks a free one).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in your web browser.")
@click.option(
    "--org",
    "org_db",
    metavar="DB",
    help="Serve the organisation dashboard of an org store instead (a SQLite file, or a postgresql://… "
    "URL, as `org sync --db` takes it); needs no repository.",
)
def serve(port: int, open_browser: bool, org_db: str | None) -> None:
    """Serve a local web view of this repository's intent on 127.0.0.1 (Ctrl-C stops it).

    Files with an intent gutter and the evidence behind each line, sessions with their topic map and
    fidelity controls, reviews of a range, and search. The address it prints carries a key made for this
    run (?token=...): the browser that opens it keeps the key in a cookie, and any other request gets 401,
    so other accounts on this machine cannot read your transcripts. With --org DB it serves the
    organisation dashboard of an org store instead (agent share by week, stats by repository, agent and
    model, sessions across repositories, search). Needs the `serve` extra:
    pip install 'git-intent-provenance[serve]'.
    """
    if org_db is not None:
        from ..serve import run_org_server

        run_org_server(org_db, port, open_browser=open_browser, echo=click.echo)
        return
    from ..serve import run_server

    run_server(open_repo(), port, open_browser=open_browser, echo=click.echo)
