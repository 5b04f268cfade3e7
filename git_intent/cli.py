"""The `git intent` command line: parses arguments, calls one library function, prints.

Exit codes: 0 success, 1 a known error (one sentence on stderr), 2 bad usage (click), 3 an unexpected
error (a paste-ready report in `<git common dir>/intent/error.log`), 130 interrupted.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from . import __version__
from .errors import IntentError

F = TypeVar("F", bound=Callable[..., Any])


def _print_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def _fail(exc: IntentError) -> None:
    click.echo(f"error: {exc}", err=True)
    if exc.hint:
        click.echo(f"hint: {exc.hint}", err=True)
    sys.exit(1)


def _repo() -> Any:
    from .repo import Repository

    return Repository()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="git-intent")
def cli() -> None:
    """Why is this line here? Links commits to the coding-agent sessions and messages that wrote them.

    \b
    Start with:  git intent install          (in your repository)
    Then:        git intent blame src/app.py:42
    Try it:      git intent demo
    """


@cli.command()
@click.option("--shared-hooks-path", is_flag=True,
              help="Install even into a core.hooksPath in the work tree (husky) or shared by other repositories.")
def install(shared_hooks_path: bool) -> None:
    """Install the post-commit and post-rewrite hooks and git config here; say what changed."""
    from .install import install as run

    changes = run(_repo(), shared_hooks_path=shared_hooks_path)
    click.echo("\n".join(changes) if changes else "git-intent is already installed here; nothing changed.")


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("hook", type=click.Choice(["post-commit", "post-rewrite"]))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hook(hook: str, args: tuple[str, ...]) -> None:
    """Run git-intent's HOOK from another hook manager (husky, pre-commit, a shared hooks folder).

    Same fast path as the installed hook; never fails. `git-intent-hook HOOK` does the same without
    loading the CLI (faster in a hook). post-rewrite reads git's old/new pairs on stdin
    and takes the rewrite kind (amend or rebase) as its argument, or from PRE_COMMIT_REWRITE_COMMAND.
    """
    import os

    from .hook import run_shim

    kind = list(args) or ([os.environ["PRE_COMMIT_REWRITE_COMMAND"]]
                          if hook == "post-rewrite" and "PRE_COMMIT_REWRITE_COMMAND" in os.environ else [])
    stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    run_shim(hook, kind, stdin)


@cli.command()
def uninstall() -> None:
    """Remove git-intent's hook and config (your earlier hook is restored; notes and backup stay)."""
    from .install import uninstall as run

    changes = run(_repo())
    click.echo("\n".join(changes) if changes else "git-intent was not installed here; nothing changed.")


@cli.command()
@click.argument("rev", required=False)
@click.option("--transcript", "transcripts", multiple=True, type=click.Path(path_type=Path),
              help="Also consider this transcript file (any agent). Repeatable.")
@click.option("--pending", is_flag=True, help="Process the commits and rewrites the hooks queued, now.")
@click.option("--wait", is_flag=True, hidden=True, help="With --pending: wait for a running worker.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--hook", is_flag=True, hidden=True, help="Run as the hooks' worker: log errors, exit 0.")
def record(rev: str | None, transcripts: tuple[Path, ...], pending: bool, wait: bool, as_json: bool,
           hook: bool) -> None:
    """Link commit REV (default HEAD) to the agent sessions that wrote its lines. Idempotent.

    Lines no agent edit explains stay human. With --pending, drain the queue the hooks fill instead
    (what the background worker does after each commit and rewrite).
    """
    from .record import record_commit
    from .render import record_text

    try:
        if pending:
            if rev or transcripts:
                raise click.UsageError("--pending takes no REV or --transcript.")
            from .worker import drain

            done = drain(_repo(), wait=wait or not hook, say=(lambda t: click.echo(t, err=True)) if hook else None)
            if as_json:
                _print_json({**done.__dict__, "results": [r.__dict__ for r in done.results]})
            elif hook:
                click.echo("".join(record_text(r) for r in done.results), nl=False)
            else:
                click.echo("".join(record_text(r) for r in done.results)
                           + f"{done.processed} queued job(s) processed, {done.retry} to retry, "
                             f"{done.failed} failed." + (" Another worker is running." if done.busy else ""))
                if done.retry or done.failed:
                    sys.exit(1)  # scripts must see that some work was not recorded
            return
        result = record_commit(_repo(), rev or "HEAD", transcripts=transcripts)
    except Exception:
        if not hook:
            raise
        click.echo(f"record failed:\n{traceback.format_exc()}", err=True)
        return
    if as_json:
        _print_json(result.__dict__)
    else:
        click.echo(record_text(result), nl=False)


@cli.command()
@click.argument("revision_range", default="HEAD")
@click.option("--transcript", "transcripts", multiple=True, type=click.Path(path_type=Path),
              help="Also consider this transcript file (any agent). Repeatable.")
@click.option("--force", is_flag=True, help="Recompute commits that already have a record.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def backfill(revision_range: str, transcripts: tuple[Path, ...], force: bool, as_json: bool) -> None:
    """Link the past commits of REVISION_RANGE (default HEAD) from the transcripts still on disk.

    No hooks needed. Commits already recorded are skipped, so it resumes where it stopped and a second
    run changes nothing. Notes are written in batches through git fast-import.
    """
    from .backfill import backfill as run

    repo = _repo()
    total = int(repo.git("rev-list", "--count", "--end-of-options", revision_range, check=False).strip() or 0)
    with click.progressbar(length=total, label="Backfilling", file=sys.stderr,
                           hidden=as_json or not sys.stderr.isatty()) as bar:
        result = run(repo, revision_range, transcripts=transcripts, force=force, progress=bar.update)
    if as_json:
        _print_json(result.__dict__)
        return
    rate = result.recorded / result.seconds if result.seconds else 0.0
    click.echo(f"{result.commits} commits: {result.recorded} recorded, {result.skipped} already recorded; "
               f"{result.lines_attributed} of {result.lines_added} added lines credited to agent sessions "
               f"({rate:.0f} commits/s).")
    for key, lines in sorted(result.sessions.items(), key=lambda kv: -kv[1]):
        click.echo(f"  {key}  {lines} lines")


@cli.command("import")
@click.option("--from", "source", required=True, type=click.Choice(["entire", "git-ai", "aider"]),
              help="The tool whose records to build on.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def import_(source: str, as_json: bool) -> None:
    """Import the records another tool keeps: Entire checkpoints, git-ai notes, or Aider's chat history.

    Entire's stored transcripts become backup copies and its trailer commits are recorded against them;
    git-ai's notes name sessions whose local transcripts record those commits; Aider's `> Commit` lines
    link commits directly. Idempotent.
    """
    from .importers import import_records, work_size

    repo = _repo()
    with click.progressbar(length=work_size(repo, source), label=f"Importing from {source}", file=sys.stderr,
                           hidden=as_json or not sys.stderr.isatty()) as bar:
        result = import_records(repo, source, progress=bar.update)
    if as_json:
        _print_json({**result.__dict__, "results": [r.__dict__ for r in result.results]})
        return
    click.echo(f"{source}: {result.sessions} session(s), {result.commits} commit(s) recorded; "
               f"{result.lines_attributed} of {result.lines_added} added lines credited to agent sessions.")
    for problem in result.skipped[:20]:
        click.echo(f"  skipped {problem}")
    if len(result.skipped) > 20:
        click.echo(f"  … and {len(result.skipped) - 20} more skipped")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status(as_json: bool) -> None:
    """Show queued and failed capture work, whether a worker runs, and the last errors."""
    from .status import capture_status, status_text

    report = capture_status(_repo())
    if as_json:
        _print_json(report.model_dump(mode="json"))
    else:
        click.echo(status_text(report), nl=False)


@cli.command()
@click.argument("revision_range")
@click.option("--onto", "target", required=True, help="The commit that received those changes.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def carry(revision_range: str, target: str, as_json: bool) -> None:
    """Copy the records of REVISION_RANGE onto a commit no hook saw (a squash-merge made on a forge).

    Each line of the target that a commit of the range credited keeps its session and message, with a
    `derived_from` pointer to that commit. Example: git intent carry main..feature --onto 1a2b3c4
    """
    from .carry import commits_in
    from .record import record_commit
    from .render import record_text

    repo = _repo()
    result = record_commit(repo, target, sources=commits_in(repo, revision_range), live=False)
    if as_json:
        _print_json(result.__dict__)
    else:
        click.echo(record_text(result), nl=False)


@cli.command()
@click.argument("location")
@click.option("--json", "as_json", is_flag=True, help="Print the DESIGN.md JSON contract.")
def blame(location: str, as_json: bool) -> None:
    """Explain who wrote LOCATION (PATH:LINE or PATH:START-END) and why.

    Walks git blame to the commit, its note, the agent session and the message whose edit wrote each
    line, and quotes the request, the assistant's reasoning and the edit.
    """
    from .blame import blame_lines
    from .render import blame_text

    answer = blame_lines(_repo(), location)
    if as_json:
        _print_json(answer.model_dump(mode="json", exclude={"problems"}))
    else:
        click.echo(blame_text(answer), nl=False)
    for problem in answer.problems:
        click.echo(f"warning: {problem}", err=True)
    if answer.problems:
        sys.exit(1)


@cli.command()
@click.argument("reference")
@click.option("--json", "as_json", is_flag=True, help="Print the session or message as JSON.")
@click.option("--brief", is_flag=True, help="One line per message instead of full text.")
def show(reference: str, as_json: bool, brief: bool) -> None:
    """Print SESSION or SESSION:MESSAGE at full fidelity (ids or unique prefixes)."""
    from .catalog import resolve_reference
    from .render import message_text, session_text

    session, message = resolve_reference(_repo(), reference)
    if as_json:
        _print_json((message or session).model_dump(mode="json"))
    elif message is not None:
        click.echo(f"session   {session.agent} {session.session_id}\n{message_text(message)}")
    else:
        from .digest import session_digest
        from .render import digest_text
        from .topics import segment_topics

        click.echo(digest_text(session_digest(session, segment_topics(session))), nl=False)
        click.echo(session_text(session, full=not brief), nl=False)


@cli.command()
@click.option("--agent", help="Only this agent's sessions (claude-code, codex, opencode, gemini-cli, cursor, aider).")
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as JSON.")
def sessions(agent: str | None, as_json: bool) -> None:
    """List every session found for this repository: agent, time span, messages, and linked commits."""
    from .inventory import list_sessions
    from .render import sessions_text

    found = list_sessions(_repo(), agent)
    if as_json:
        _print_json([s.model_dump(mode="json") for s in found])
    else:
        click.echo(sessions_text(found), nl=False)


@cli.command()
@click.option("--rebuild", is_flag=True, help="Drop the index and build it again from the transcripts.")
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def index(rebuild: bool, as_json: bool) -> None:
    """Bring the session index (.git/intent/index.db) up to date with every session of this repository.

    Incremental: unchanged transcripts are skipped and only changed rows are written. The index is a
    cache: notes and the backup stay the truth, and deleting index.db loses nothing.
    """
    result = _ingest(_repo(), rebuild=rebuild, quiet=as_json)
    if as_json:
        _print_json(result.model_dump(mode="json"))
    else:
        click.echo(f"Indexed {result.sessions} session(s) ({result.sessions_skipped} unchanged, "
                   f"{result.sessions_removed} removed): {result.messages_added} messages and "
                   f"{result.edits_added} edits written in {result.seconds:.1f} s.")


def _ingest(repo: Any, *, rebuild: bool = False, quiet: bool = False) -> Any:
    from .index import ingest

    bar_state: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        if quiet or not sys.stderr.isatty():
            return
        if "bar" not in bar_state:
            bar_state["bar"] = click.progressbar(length=total, label="Indexing sessions", file=sys.stderr)
            bar_state["bar"].__enter__()
        bar_state["bar"].update(done - bar_state.get("done", 0))
        bar_state["done"] = done

    try:
        return ingest(repo, rebuild=rebuild, progress=progress)
    finally:
        if "bar" in bar_state:
            bar_state["bar"].__exit__(None, None, None)


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
    from .render import hits_text
    from .search import search as run

    repo = _repo()
    _ingest(repo, quiet=as_json)
    hits = run(repo, query, agent=agent, since=since, file=path, limit=limit)
    if as_json:
        _print_json([h.model_dump(mode="json") for h in hits])
    else:
        click.echo(hits_text(hits), nl=False)


@cli.command()
@click.argument("session")
@click.option("--budget", default=8000, show_default=True, type=click.IntRange(min=100),
              help="Tokens (characters / 4) the rendering may use.")
@click.option("--json", "as_json", is_flag=True, help="Print the topic map and rendering as JSON.")
def context(session: str, budget: int, as_json: bool) -> None:
    """Show SESSION's topic map and render it within a token budget.

    User turns that state tasks, facts or constraints stay verbatim; finished work shrinks to message
    and topic summaries; large outputs become `git intent show S:M` pointers. Nothing is deleted:
    raise any topic or message back with `git intent fidelity`.
    """
    from .context import session_context
    from .render import context_text

    rendered, commits = session_context(_repo(), session, budget)
    if as_json:
        _print_json({**rendered.model_dump(mode="json"), "topic_commits": commits})
    else:
        click.echo(context_text(rendered, commits), nl=False)


@cli.command()
@click.argument("session")
@click.argument("target")
@click.argument("level", type=click.Choice(["full", "summary", "compressed", "placeholder", "hidden", "auto"]))
def fidelity(session: str, target: str, level: str) -> None:
    """Set the fidelity of a topic (t3) or a message (:MESSAGE_ID) of SESSION; `auto` removes the choice.

    Stored per session and reversible: the transcript itself is never changed.
    """
    from .context import change_fidelity

    change_fidelity(_repo(), session, target, level)
    click.echo(f"{target} of {session} is now {level}; `git intent context {session}` shows the result.")


@cli.command()
@click.argument("revision_range", default="HEAD")
@click.option("-n", "--max-count", default=20, show_default=True, help="How many commits to list.")
@click.option("--json", "as_json", is_flag=True, help="Print the commits as JSON.")
def log(revision_range: str, max_count: int, as_json: bool) -> None:
    """List recent commits of REVISION_RANGE with the agent sessions that wrote them."""
    from .history import log_commits
    from .render import log_text

    entries = log_commits(_repo(), revision_range, max_count)
    if as_json:
        _print_json([e.model_dump(mode="json") for e in entries])
    else:
        click.echo(log_text(entries), nl=False)


@cli.command()
@click.option("--keep", type=click.Path(path_type=Path, file_okay=False),
              help="Build the demo repository here and keep it (default: a temporary folder).")
@click.option("--json", "as_json", is_flag=True, help="Print the blame answer as JSON.")
def demo(keep: Path | None, as_json: bool) -> None:
    """Replay a bundled real Claude Code session into a new repository, record it, and explain a line.

    No network and no configuration: the transcript ships with git-intent (see its README).
    """
    from .demo import run_demo
    from .render import blame_text

    result = run_demo(keep, echo=None if as_json else click.echo)
    if as_json:
        _print_json(result.answer.model_dump(mode="json", exclude={"problems"}))
    else:
        click.echo(blame_text(result.answer), nl=False)
        click.echo(result.epilogue)


@cli.command()
def path() -> None:
    """Print where git-intent keeps its state for this repository."""
    from .install import hooks_dir
    from .notes import NOTES_REF

    repo = _repo()
    click.echo(f"notes      {NOTES_REF}\nbackup     {repo.backup_dir}\nstate      {repo.state_dir}\n"
               f"hooks      {hooks_dir(repo)}\nhook log   {repo.state_dir / 'hook.log'}")


def main() -> None:
    """Console-script entry point with the one top-level error handler."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except IntentError as exc:
        _fail(exc)
    except BrokenPipeError:
        sys.exit(0)
    except Exception:
        where = _write_error_log(traceback.format_exc())
        click.echo("error: git-intent hit an unexpected problem; this is a bug.", err=True)
        click.echo(f"hint: a report to paste into an issue is in {where}." if where else traceback.format_exc(),
                   err=True)
        sys.exit(3)


def _write_error_log(report: str) -> Path | None:
    """Append a paste-ready report to `<git common dir>/intent/error.log`; None outside a repository."""
    import platform
    from datetime import datetime, timezone

    try:
        path: Path = _repo().state_dir / "error.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"### {datetime.now(timezone.utc).isoformat(timespec='seconds')}\n"
                         f"git-intent {__version__}, Python {platform.python_version()}, {platform.platform()}\n"
                         f"argv: {sys.argv!r}\n\n{report}\n")
        return path
    except Exception:
        return None
