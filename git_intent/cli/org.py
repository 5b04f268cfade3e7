"""`git intent org`: one store of many repositories' intent (`org sync` loads it; the questions asked of it
come from `org_queries`)."""

from __future__ import annotations

import sys

import click

from ._base import cli, echo, print_json
from .progress import Bars

DB_HELP = (
    "The org store: a SQLite file (default: ${XDG_CACHE_HOME:-~/.cache}/git-intent/org/org.db) or a "
    "postgresql://… URL."
)


@cli.group()
def org() -> None:
    """Many repositories, one view: load their shared intent into one store and ask across them.

    `org sync` reads each repository's git-intent notes and shared sessions (refs/notes/git-intent,
    refs/intent/evidence) into a SQLite file or a PostgreSQL database; the other commands ask that store.
    """


def store_target(db: str | None) -> str:
    """The store `--db` names, or the default SQLite file (its folder created, private)."""
    if db:
        return db
    from ..core.state_files import private_dir
    from ..org.sources import default_store

    path = default_store()
    private_dir(path.parent)
    return str(path)


@org.command("sync")
@click.argument("sources", nargs=-1, required=True)
@click.option("--db", help=DB_HELP)
@click.option(
    "--jobs",
    default=4,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Sources fetched and read at once (the store is written one source at a time).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (schema: org-sync).")
def sync_command(sources: tuple[str, ...], db: str | None, jobs: int, as_json: bool) -> None:
    """Load SOURCES' shared intent into the org store.

    A SOURCE is a repository URL (https, ssh, git, file, or user@host:path), a local repository, or @FILE
    (a file listing sources, one a line; # starts a comment). Only git-intent's refs and the noted commits'
    metadata are fetched, into bare mirrors under ${XDG_CACHE_HOME:-~/.cache}/git-intent/org/ (no work tree,
    no file contents); a repository whose refs are as last loaded is skipped. A source that fails is
    reported on one line and the others go on; the exit code is then 1.
    """
    from ..org.sources import expand_sources
    from ..org.store import open_store
    from ..org.sync import sync

    with Bars(hidden=as_json) as bars, open_store(store_target(db)) as store:
        report = sync(expand_sources(sources), store, bars, jobs=jobs)
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        for result in report.sources:
            if result.status == "loaded":
                echo(
                    f"loaded {result.name} ({result.key}): {result.commits} commits, {result.credits} "
                    f"credit rows, {result.messages} shared messages"
                )
                for problem in result.problems:
                    echo(f"  warning: {problem}", err=True)
            elif result.status == "unchanged":
                echo(f"unchanged {result.name} ({result.key})")
        echo(
            f"{len(report.sources)} sources: {report.loaded} loaded, {report.unchanged} unchanged, "
            f"{report.failed} failed."
        )
    for result in report.sources:
        if result.status == "failed":
            echo(f"error: {result.source}: {result.problem}", err=True)
    if report.failed:
        sys.exit(1)


# The questions asked of the store are written apart (`org_queries`); the group carries them.
from .org_queries import search, sessions, stats  # noqa: E402 — after the group they join

for _command in (stats, search, sessions):
    org.add_command(_command)
