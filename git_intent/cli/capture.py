"""Commands that capture links: install, hooks, record, backfill, import, carry, status, doctor, path."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._base import cli, echo, open_repo, print_json
from .agents import agent_options, register_agents


@cli.command()
@click.option("--shared-hooks-path", is_flag=True,
              help="Install even into a core.hooksPath in the work tree (husky) or shared by other repositories.")
@click.option("--push-notes", is_flag=True, help="Also install a pre-push hook: every `git push` pushes the notes too.")
@agent_options(install=True)
def install(shared_hooks_path: bool, push_notes: bool, agents: tuple[str, ...], project: bool, rules: bool) -> None:
    """Install the post-commit and post-rewrite hooks and git config here; say what changed.

    All or nothing: what install refuses (a foreign hook with a `.legacy` beside it) changes nothing,
    and a step that fails undoes the ones before it. An earlier hook is kept as `<hook>.legacy` and runs
    first; a symlinked hook is moved aside as the link itself, never written through.

    With --agent NAME, register git-intent's MCP server in that agent's own configuration instead
    (user-level; --project for this repository's), showing the diff.
    """
    if agents or project or rules:
        register_agents(agents, project=project, rules=rules, install=True)
        return
    from ..capture.install import install as run

    changes = run(open_repo(), shared_hooks_path=shared_hooks_path, push_notes=push_notes)
    echo("\n".join(changes) if changes else "git-intent is already installed here; nothing changed.")
    if changes and not push_notes:  # said once: a later install that changes nothing stays quiet
        echo("Notes stay on this machine until `git intent push`; `git intent install --push-notes` makes "
             "every `git push` carry them.")


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

    from ..capture.hook import run_shim

    kind = list(args) or ([os.environ["PRE_COMMIT_REWRITE_COMMAND"]]
                          if hook == "post-rewrite" and "PRE_COMMIT_REWRITE_COMMAND" in os.environ else [])
    stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    run_shim(hook, kind, stdin)


@cli.command()
@agent_options(install=False)
def uninstall(agents: tuple[str, ...], project: bool, rules: bool) -> None:
    """Remove git-intent's hook and config (your earlier hook is restored; notes and backup stay).

    Only the config values install added are removed: a notes.rewriteRef you had set before stays.

    With --agent NAME, take the MCP server out of that agent's configuration instead: the files come
    back byte for byte when nothing else changed them since install.
    """
    if agents or project or rules:
        register_agents(agents, project=project, rules=rules, install=False)
        return
    from ..capture.install import uninstall as run

    changes = run(open_repo())
    echo("\n".join(changes) if changes else "git-intent was not installed here; nothing changed.")


@cli.command()
@click.argument("rev", required=False)
@click.option("--transcript", "transcripts", multiple=True, type=click.Path(path_type=Path),
              help="Also consider this transcript file (any agent). Repeatable.")
@click.option("--pending", is_flag=True, help="Process the commits and rewrites the hooks queued, now.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def record(rev: str | None, transcripts: tuple[Path, ...], pending: bool, as_json: bool) -> None:
    """Link commit REV (default HEAD) to the agent sessions that wrote its lines. Idempotent.

    Lines no agent edit explains stay human. With --pending, drain the queue the hooks fill instead
    (what the background worker does after each commit and rewrite).
    """
    from ..capture.record import record_commit

    if pending:
        if rev or transcripts:
            raise click.UsageError("--pending takes no REV or --transcript.")
        from ..capture.worker import drain

        done = drain(open_repo(), wait=True)
        if as_json:
            print_json({**done.__dict__, "results": [r.__dict__ for r in done.results]})
        else:
            echo("".join(r.text() for r in done.results)
                 + f"{done.processed} queued job(s) processed, {done.retry} to retry, "
                         f"{done.failed} failed." + (" Another worker is running." if done.busy else ""))
            if done.notes_ref_damage:
                echo(f"refs/notes/intent {done.notes_ref_damage}: the jobs stay queued; run `git intent doctor`.",
                     err=True)
        if done.retry or done.failed or done.notes_ref_damage:
            sys.exit(1)  # scripts must see that some work was not recorded, --json or not
        return
    result = record_commit(open_repo(), rev or "HEAD", transcripts=transcripts)
    if as_json:
        print_json(result.__dict__)
    else:
        echo(result.text(), nl=False)


@cli.command()
@click.argument("revision_range", default="HEAD")
@click.option("--transcript", "transcripts", multiple=True, type=click.Path(path_type=Path),
              help="Also consider this transcript file (any agent), or every transcript below this folder "
                   "(other files are skipped): transcripts recorded on another machine. Repeatable.")
@click.option("--force", is_flag=True, help="Recompute commits that already have a record.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def backfill(revision_range: str, transcripts: tuple[Path, ...], force: bool, as_json: bool) -> None:
    """Link the past commits of REVISION_RANGE (default HEAD) from the transcripts still on disk.

    No hooks needed. Commits already recorded are skipped, so it resumes where it stopped and a second
    run changes nothing. Notes are written in batches through git fast-import.
    """
    from ..capture.backfill import backfill as run

    repo = open_repo()
    total = int(repo.git("rev-list", "--count", "--end-of-options", revision_range, check=False).strip() or 0)
    with click.progressbar(length=total, label="Backfilling", file=sys.stderr,
                           hidden=as_json or not sys.stderr.isatty()) as bar:
        result = run(repo, revision_range, transcripts=transcripts, force=force, progress=bar.update)
    if as_json:
        print_json(result.__dict__)
        return
    rate = result.recorded / result.seconds if result.seconds else 0.0
    echo(f"{result.commits} commits: {result.recorded} recorded, {result.skipped} already recorded; "
         f"{result.lines_attributed} of {result.lines_added} added lines credited to agent sessions "
         f"({rate:.0f} commits/s).")
    if result.transcripts_skipped:
        echo(f"{result.transcripts_skipped} files below the --transcript folders are no transcript; skipped.")
    for key, lines in sorted(result.sessions.items(), key=lambda kv: -kv[1]):
        echo(f"  {key}  {lines} line{'' if lines == 1 else 's'}")
    if result.recorded and not result.sessions and not transcripts:
        # Discovery keeps only transcripts that name this work tree: another machine's name their own paths.
        echo("No transcript on this machine credits a line of these commits. Transcripts recorded elsewhere (another "
             "checkout, a teammate's) come in with: git intent backfill --transcript DIR")


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
    from ..interop.importers import import_records, work_size

    repo = open_repo()
    with click.progressbar(length=work_size(repo, source), label=f"Importing from {source}", file=sys.stderr,
                           hidden=as_json or not sys.stderr.isatty()) as bar:
        result = import_records(repo, source, progress=bar.update)
    if as_json:
        print_json({**result.__dict__, "results": [r.__dict__ for r in result.results]})
        return
    echo(f"{source}: {result.sessions} session(s), {result.commits} commit(s) recorded; "
         f"{result.lines_attributed} of {result.lines_added} added lines credited to agent sessions.")
    for problem in result.skipped[:20]:
        echo(f"  skipped {problem}")
    if len(result.skipped) > 20:
        echo(f"  … and {len(result.skipped) - 20} more skipped")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status(as_json: bool) -> None:
    """Show queued and failed capture work, whether a worker runs, and the last errors."""
    from ..capture.status import capture_status, status_text

    report = capture_status(open_repo())
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        echo(status_text(report), nl=False)


@cli.command()
@click.option("--check", "check_only", is_flag=True, help="Only report; repair nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def doctor(check_only: bool, as_json: bool) -> None:
    """Check capture and repair it: a damaged refs/notes/intent, failed jobs, a stale worker.pid.

    A damaged notes ref (pointing at a blob or a missing object) is kept as refs/notes/intent-damaged-<UTC
    time> and rebuilt from its reflog and the local journal in .opencode/intent/; failed jobs are queued
    again and recorded. Hooks and an unwritable state folder are reported with the command that fixes
    them. Exits 1 when something still needs attention.
    """
    from ..capture.doctor import doctor_text, run_doctor

    report = run_doctor(open_repo(), repair=not check_only)
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        echo(doctor_text(report), nl=False)
    if not report.ok:
        sys.exit(1)


@cli.command()
@click.argument("revision_range")
@click.option("--onto", "target", required=True, help="The commit that received those changes.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def carry(revision_range: str, target: str, as_json: bool) -> None:
    """Copy the records of REVISION_RANGE onto a commit no hook saw (a squash-merge made on a forge).

    Each line of the target that a commit of the range credited keeps its session and message, with a
    `derived_from` pointer to that commit. Example: git intent carry main..feature --onto 1a2b3c4
    """
    from ..capture.carry import commits_in
    from ..capture.record import record_commit

    repo = open_repo()
    result = record_commit(repo, target, sources=commits_in(repo, revision_range), live=False)
    if as_json:
        print_json(result.__dict__)
    else:
        echo(result.text(), nl=False)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the paths as JSON.")
def path(as_json: bool) -> None:
    """Print where git-intent keeps its state for this repository."""
    from ..capture.install import hooks_dir
    from ..capture.queue import fallback_queue_dir
    from ..notes import NOTES_REF
    from ..outputs import StatePaths
    from ..sessions.parse_cache import cache_folder

    repo = open_repo()
    fallback = fallback_queue_dir(repo.state_dir)
    paths = StatePaths(notes=NOTES_REF, backup=str(repo.backup_dir), state=str(repo.state_dir),
                       hooks=str(hooks_dir(repo)), hook_log=str(repo.state_dir / "hook.log"),
                       fallback_queue=str(fallback) if fallback else None, session_cache=str(cache_folder()))
    if as_json:
        print_json(paths.model_dump(mode="json"))
        return
    echo(f"notes      {paths.notes}\nbackup     {paths.backup}\nstate      {paths.state}\n"
         f"hooks      {paths.hooks}\nhook log   {paths.hook_log}\n"
         f"fallback   {paths.fallback_queue or '(none: HOME is unset)'}  (the hooks' queue when "
         "the state folder is not writable)\n"
         f"sessions   {paths.session_cache}  (parsed transcripts, every repository's; safe to delete)")
