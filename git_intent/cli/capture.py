"""Commands that capture links: install, hooks, record, backfill, import, export, carry, status, doctor,
path."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import click

from ..capture import SHIMS
from ._base import cli, echo, open_repo, print_json
from .agents import agent_options, register_agents
from .editors import configure_editor, editor_options


@cli.command()
@click.option(
    "--shared-hooks-path",
    is_flag=True,
    help="Install even into a core.hooksPath in the work tree (husky) or shared by other repositories.",
)
@click.option(
    "--push-notes", is_flag=True, help="Also install a pre-push hook: every `git push` pushes the notes too."
)
@agent_options(install=True)
@editor_options(install=True)
def install(
    shared_hooks_path: bool,
    push_notes: bool,
    agents: tuple[str, ...],
    project: bool,
    rules: bool,
    annotate: bool,
    guard: bool,
    editor: str | None,
    write: bool,
) -> None:
    """Install the post-commit and post-rewrite hooks and git config here; say what changed.

    All or nothing: what install refuses (a foreign hook with a `.legacy` beside it) changes nothing,
    and a step that fails undoes the ones before it. An earlier hook is kept as `<hook>.legacy` and runs
    first (beside pre-commit's script, ours is the `.legacy` it runs); a symlinked hook is moved aside as
    the link itself, never written through. With husky 9 (a `.husky` folder) the hooks are a guarded
    `git-intent-hook` call added to `.husky/<hook>`.

    With --agent NAME, register git-intent's MCP server in that agent's own configuration instead
    (user-level; --project for this repository's), showing the diff; --annotate also asks the agent to
    append its own annotation of each turn, read in place of git-intent's; --guard adds Claude Code's edit
    guard (a PreToolUse hook running `git intent memory --hook`). With --editor NAME, print the
    configuration that starts `git intent lsp` in that editor; --write adds it to the editor's user config.
    """
    if editor or write:
        if not editor:
            raise click.UsageError("--write goes with --editor NAME.")
        configure_editor(editor, write=write, install=True)
        return
    if agents or project or rules or annotate or guard:
        register_agents(agents, project=project, rules=rules, install=True, annotate=annotate, guard=guard)
        return
    from ..capture.install import install as run

    changes = run(open_repo(), shared_hooks_path=shared_hooks_path, push_notes=push_notes)
    echo("\n".join(changes) if changes else "git-intent is already installed here; nothing changed.")
    if changes and not push_notes:  # said once: a later install that changes nothing stays quiet
        echo(
            "Notes stay on this machine until `git intent push`; `git intent install --push-notes` makes "
            "every `git push` carry them."
        )


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("hook", type=click.Choice(SHIMS))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hook(hook: str, args: tuple[str, ...]) -> None:
    """Run git-intent's HOOK from another hook manager (husky, pre-commit, a shared hooks folder).

    Same fast path as the installed hook; never fails. `git-intent-hook HOOK` does the same without
    loading the CLI (faster in a hook). post-rewrite reads git's old/new pairs on stdin
    and takes the rewrite kind (amend or rebase) as its argument, or from PRE_COMMIT_REWRITE_COMMAND.
    post-merge and post-checkout (git's three arguments) look for commits a forge squashed or rebased.
    """
    import os

    from ..capture.hook import run_shim

    kind = list(args) or (
        [os.environ["PRE_COMMIT_REWRITE_COMMAND"]]
        if hook == "post-rewrite" and "PRE_COMMIT_REWRITE_COMMAND" in os.environ
        else []
    )
    if hook == "post-checkout" and not kind and "PRE_COMMIT_CHECKOUT_TYPE" in os.environ:
        kind = [
            os.environ.get("PRE_COMMIT_FROM_REF", ""),
            os.environ.get("PRE_COMMIT_TO_REF", ""),
            os.environ["PRE_COMMIT_CHECKOUT_TYPE"],
        ]
    stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    run_shim(hook, kind, stdin)


@cli.command()
@agent_options(install=False)
@editor_options(install=False)
def uninstall(
    agents: tuple[str, ...], project: bool, rules: bool, annotate: bool, guard: bool, editor: str | None
) -> None:
    """Remove git-intent's hook and config (your earlier hook is restored; notes and backup stay).

    Only the config values install added are removed: a notes.rewriteRef you had set before stays.

    With --agent NAME, take the MCP server out of that agent's configuration instead: the files come
    back byte for byte when nothing else changed them since install (the edit guard's hook goes with
    them). With --editor NAME, take the
    language server's configuration out of that editor's config the same way.
    """
    if editor:
        configure_editor(editor, write=False, install=False)
        return
    if agents or project or rules or annotate or guard:
        register_agents(agents, project=project, rules=rules, install=False)
        return
    from ..capture.install import uninstall as run

    changes = run(open_repo())
    echo("\n".join(changes) if changes else "git-intent was not installed here; nothing changed.")


@cli.command()
@click.argument("rev", required=False)
@click.option(
    "--transcript",
    "transcripts",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Also consider this transcript file (any agent). Repeatable.",
)
@click.option("--pending", is_flag=True, help="Process the commits and rewrites the hooks queued, now.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def record(rev: str | None, transcripts: tuple[Path, ...], pending: bool, as_json: bool) -> None:
    """Link commit REV (default HEAD) to the agent sessions that wrote its lines. Idempotent.

    Lines no agent edit explains stay human. With --pending, drain the queue the hooks fill instead
    (what the background worker does after each commit and rewrite). Either way, commits a forge
    squash-merged or rebase-merged from recorded ones get their records carried.
    """
    from ..capture.record import record_commit

    if pending:
        if rev or transcripts:
            raise click.UsageError("--pending takes no REV or --transcript.")
        from ..capture.worker import drain
        from ..config import lookback
        from ..sessions.drift import describe, drift_on_disk

        repo = open_repo()
        done = drain(repo, wait=True)
        # Which record types the transcripts behind these commits held and were not read: only
        # when jobs ran, as it parses the window's transcripts again.
        done.not_read = drift_on_disk(repo, lookback(repo)) if done.processed else []
        if as_json:
            print_json(dataclasses.asdict(done))
        else:
            echo(
                "".join(r.text() for r in done.results)
                + f"{done.processed} queued job(s) processed, {done.retry} to retry, "
                f"{done.failed} failed." + (" Another worker is running." if done.busy else "")
            )
            for line in describe(done.not_read, []):
                echo(line)
            if done.notes_ref_damage:
                echo(
                    f"refs/notes/git-intent {done.notes_ref_damage}: the jobs stay queued; run `git intent "
                    "doctor`.",
                    err=True,
                )
        if done.retry or done.failed or done.notes_ref_damage:
            sys.exit(1)  # scripts must see that some work was not recorded, --json or not
        return
    from ..capture.landed import carry_landed
    from ..core.errors import IntentError

    repo = open_repo()
    result = record_commit(repo, rev or "HEAD", transcripts=transcripts)
    try:
        landed = carry_landed(repo)  # commits a forge squashed or rebased since
    except IntentError as exc:  # REV is recorded; the next record or fetch carries them
        landed = []
        echo(f"warning: the records of forge merges were not carried: {exc}", err=True)
    if as_json:
        print_json(result.__dict__)
    else:
        echo(result.text() + "".join(done.text() for done in landed), nl=False)


@cli.command()
@click.argument("revision_range", default="HEAD")
@click.option(
    "--transcript",
    "transcripts",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Also consider this transcript file (any agent), or every transcript below this folder "
    "(other files are skipped): transcripts recorded on another machine. Repeatable.",
)
@click.option("--force", is_flag=True, help="Recompute commits that already have a record.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def backfill(revision_range: str, transcripts: tuple[Path, ...], force: bool, as_json: bool) -> None:
    """Link the past commits of REVISION_RANGE (default HEAD) from the transcripts still on disk.

    No hooks needed. Commits already recorded are skipped, so it resumes where it stopped and a second
    run changes nothing. Notes are written in batches through git fast-import.
    """
    from ..capture.backfill import backfill as run
    from ..sessions.drift import describe
    from .progress import Bars

    repo = open_repo()
    with Bars(hidden=as_json) as bars:
        result = run(repo, revision_range, transcripts=transcripts, force=force, progress=bars)
    if as_json:
        print_json(dataclasses.asdict(result))
        return
    rate = result.recorded / result.seconds if result.seconds else 0.0
    echo(
        f"{result.commits} commits: {result.recorded} recorded, {result.skipped} already recorded; "
        f"{result.lines_attributed} of {result.lines_added} added lines credited to agent sessions "
        f"({rate:.0f} commits/s)."
    )
    for line in describe(result.not_read, result.skipped_files):
        echo(line)
    for key, lines in sorted(result.sessions.items(), key=lambda kv: -kv[1]):
        echo(f"  {key}  {lines} line{'' if lines == 1 else 's'}")
    if result.recorded and not result.sessions and not transcripts:
        # Discovery keeps only transcripts that name this work tree: another machine's name their own paths.
        echo(
            "No transcript on this machine credits a line of these commits. Transcripts recorded elsewhere "
            "(another checkout, a teammate's) come in with: git intent backfill --transcript DIR"
        )


@cli.command("import")
@click.argument("records", required=False, type=click.Path(path_type=Path))
@click.option(
    "--from",
    "source",
    required=True,
    type=click.Choice(["entire", "git-ai", "aider", "agent-trace", "specstory"]),
    help="The tool whose records to build on.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def import_(records: Path | None, source: str, as_json: bool) -> None:
    """Import the records another tool keeps: Entire checkpoints, git-ai notes, Aider's chat history, Agent
    Trace records (RECORDS: a JSON Lines file, or a folder of them), or SpecStory histories (RECORDS: their
    folder, default .specstory/history of the work tree).

    Entire's stored transcripts become backup copies and its trailer commits are recorded against them;
    git-ai's notes (the older prompts format and git-ai 1.4's sessions-v2) and Agent Trace records name
    sessions whose local transcripts record those commits; the lines they give an agent that no transcript
    here wrote are credited to that agent and model, without a session. Aider's `> Commit` lines link commits
    directly. SpecStory's histories become backup copies, and the commits made while their edits were recent
    are credited where an edit's text wrote their lines (as "imported from SpecStory": the histories came with
    the clone). Idempotent.
    """
    from ..interop.importers import import_records
    from .progress import Bars

    if (records is None and source == "agent-trace") or (
        records is not None and source not in ("agent-trace", "specstory")
    ):
        raise click.UsageError(
            "RECORDS is the file or folder of `--from agent-trace` (which needs it) or the history folder "
            "of `--from specstory`, and only of them."
        )
    repo = open_repo()
    with Bars(hidden=as_json) as bars:
        result = import_records(repo, source, progress=bars, path=records)
    if as_json:
        print_json({**result.__dict__, "results": [r.__dict__ for r in result.results]})
        return
    elsewhere = result.commits - result.commits_in_head
    where = f" ({elsewhere} of them on other branches: `git intent stats` counts HEAD's)" if elsewhere else ""
    echo(
        f"{source}: {result.sessions} session(s), {result.commits} commit(s) recorded{where}; "
        f"{result.lines_attributed} of {result.lines_added} added lines credited to agent sessions."
    )
    for problem in result.skipped[:20]:
        echo(f"  skipped {problem}")
    if len(result.skipped) > 20:
        echo(f"  … and {len(result.skipped) - 20} more skipped")


@cli.command()
@click.argument("revision_range", default="HEAD")
@click.option(
    "--format",
    "fmt",
    required=True,
    type=click.Choice(["agent-trace", "in-toto"]),
    help="The record format: agent-trace (github cursor/agent-trace v0.1, JSON Lines), or in-toto (the "
    "signed attestations, an in-toto bundle of DSSE envelopes).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the records to this file instead of standard output.",
)
def export(revision_range: str, fmt: str, output: Path | None) -> None:
    """Write the links of REVISION_RANGE (default HEAD) in another tool's record format.

    Agent Trace: one trace record per commit whose note credits agent lines (JSON Lines: version, id, RFC 3339
    timestamp, vcs {git, revision}, tool, files[].conversations[] with contributor {type, model_id} and
    1-based ranges); each conversation's session is named under metadata["git-intent"]. `git intent import
    --from agent-trace FILE` reads them back. Schema: docs/schemas/agent-trace.json.

    in-toto: the attestations `git intent attest` made, one DSSE envelope per line (an in-toto bundle,
    `.intoto.jsonl`); each payload is an in-toto Statement v1 (docs/schemas/in-toto-statement.json). Commits
    with agent lines and no attestation are named on stderr.
    """
    import json

    if fmt == "in-toto":
        from ..attest.make import in_toto_bundle

        bundle, missing = in_toto_bundle(open_repo(), revision_range)
        lines = [line + "\n" for line in bundle]
        if missing:
            echo(
                f"warning: {len(missing)} commit(s) with agent lines have no attestation "
                f"({', '.join(c[:12] for c in missing[:5])}{', …' if len(missing) > 5 else ''}); "
                "`git intent attest RANGE` makes them.",
                err=True,
            )
    else:
        from ..interop.agent_trace import export_records

        # Whole before any output: a bad range must not leave -o FILE emptied.
        lines = [
            json.dumps(record.dump(), ensure_ascii=False) + "\n"
            for record in export_records(open_repo(), revision_range)
        ]
    if output is None:
        for line in lines:
            click.echo(line, nl=False)  # JSON: escapes keep terminal controls out
        return
    with output.open("w", encoding="utf-8") as handle:
        handle.writelines(lines)


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
    """Check capture and repair it: a damaged refs/notes/git-intent, failed jobs, a stale worker.pid.

    A damaged notes ref (pointing at a blob or a missing object) is kept as refs/notes/git-intent-damaged-<UTC
    time> and rebuilt from its reflog and the local journal in .opencode/intent/; failed jobs are queued
    again and recorded. Hooks, an unwritable state folder and shared evidence blobs no command can read
    (too large, too deep, the wrong shape) are reported with the command that fixes them. Exits 1 when
    something still needs attention.
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
    from ..command_outputs import StatePaths
    from ..notes import NOTES_REF
    from ..sessions.parse_cache import cache_folder

    repo = open_repo()
    fallback = fallback_queue_dir(repo.state_dir)
    paths = StatePaths(
        notes=NOTES_REF,
        backup=str(repo.backup_dir),
        state=str(repo.state_dir),
        hooks=str(hooks_dir(repo)),
        hook_log=str(repo.state_dir / "hook.log"),
        fallback_queue=str(fallback) if fallback else None,
        session_cache=str(cache_folder()),
    )
    if as_json:
        print_json(paths.model_dump(mode="json"))
        return
    echo(
        f"notes      {paths.notes}\nbackup     {paths.backup}\nstate      {paths.state}\n"
        f"hooks      {paths.hooks}\nhook log   {paths.hook_log}\n"
        f"fallback   {paths.fallback_queue or '(none: HOME is unset)'}  (the hooks' queue when "
        "the state folder is not writable)\n"
        f"sessions   {paths.session_cache}  (parsed transcripts, every repository's; safe to delete)"
    )
