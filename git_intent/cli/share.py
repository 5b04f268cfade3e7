"""Commands that share records with a team: push, fetch, share, redact, audit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ._base import cli, echo, open_repo, print_json


@cli.command()
@click.argument("remote", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print what was pushed as JSON.")
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait for the hooks' worker to record queued commits before pushing.",
)
@click.option(
    "--hook", is_flag=True, hidden=True, help="Run as the pre-push hook: read git's ref lines, never fail."
)
def push(remote: str | None, as_json: bool, wait: float, hook: bool) -> None:
    """Push git-intent's notes (and, when sharing is on, redacted evidence) to REMOTE.

    REMOTE defaults to the current branch's upstream remote, else origin. Only git-intent's refs are
    pushed, never branches. Commits the hooks queued are recorded first (waiting up to --wait seconds
    for a worker recording them), so a push right after `git commit` sends that commit's note; exit 1,
    after pushing the rest, when one could not be recorded. A rejected push fetches, merges and retries
    (up to 40 times, after a random pause). With `git config intent.share evidence` (or `sessions`), the
    redacted evidence of every recorded commit on REMOTE's branches is shared first; redaction fails
    closed. Where REMOTE still has refs/notes/intent (earlier versions' notes ref), it gets the same notes,
    for teammates who have not upgraded.
    """
    from ..share.remote import push as run

    if hook:
        _push_from_hook(remote)
        return
    repo = open_repo()
    _share_memory(repo)
    result = run(repo, remote, wait=wait, say=lambda text: echo(text, err=True))
    if as_json:
        print_json(result.model_dump(mode="json"))
    else:
        _push_text(result)
    if result.not_shared:
        sys.exit(1)  # scripts must see that a commit they made was not shared, --json or not


def _push_text(result: object) -> None:
    from ..share.remote import PushResult

    assert isinstance(result, PushResult)
    if result.recorded_first:
        echo(f"Recorded {result.recorded_first} queued commit(s) first.")
    if result.not_shared:
        echo(
            f"warning: {len(result.not_shared)} queued commit(s) could not be recorded, so their notes were "
            "not shared: "
            + "; ".join(f"{u.commit[:12]} ({u.state}: {u.reason})" for u in result.not_shared)
            + ". `git intent status` lists them; `git intent record --pending` retries.",
            err=True,
        )
    if not result.pushed:
        echo(f"Nothing to push to {result.remote}: there are no git-intent records here yet.")
        return
    echo(
        f"Pushed {', '.join(result.pushed)} to {result.remote}"
        + (
            f" after {result.retries} fetch-and-merge retr{'y' if result.retries == 1 else 'ies'}"
            if result.retries
            else ""
        )
        + f": the notes of {result.notes_shared} commit(s) new or changed there."
    )
    if result.level == "notes":
        echo("Sharing level: notes (ids, line ranges and hashes; no transcript text).")
        return
    redacted = sum(result.redactions.values())
    echo(
        f"Sharing level: {result.level}. Shared {result.commits_shared} commit(s) from "
        f"{len(result.sessions_shared)} session(s); {redacted} redaction(s)."
    )
    if result.sessions_missing:
        echo(
            f"warning: {len(result.sessions_missing)} session(s) have no transcript on this machine; their "
            f"commits are shared when one is found: {', '.join(result.sessions_missing)}",
            err=True,
        )


def _share_memory(repo: Any) -> None:
    """Put the memory's log on the evidence store first when the sharing level carries text (redacted)."""
    from ..memory.share import share_memory
    from ..share.collect import share_level

    if share_level(repo) != "notes":
        share_memory(repo)


def _push_from_hook(remote: str | None) -> None:
    """The pre-push hook: push git-intent's refs beside the user's push; warn, never block it."""
    from ..share.remote import push as run

    tips = []
    if sys.stdin is not None and not sys.stdin.isatty():
        for line in sys.stdin.read().splitlines():
            parts = line.split()
            if len(parts) == 4:
                tips.append(parts[1])
    try:
        repo = open_repo()
        _share_memory(repo)
        result = run(repo, remote, tips, say=lambda text: echo(f"git-intent: {text}", err=True))
        if result.pushed:
            echo(f"git-intent: pushed {', '.join(result.pushed)} to {result.remote}.", err=True)
        if result.not_shared:
            echo(
                f"git-intent: {len(result.not_shared)} queued commit(s) could not be recorded, so their "
                "notes were not pushed; `git intent status` lists them.",
                err=True,
            )
    except Exception as exc:  # the user's push goes on whatever happens to ours
        echo(f"git-intent: the notes were not pushed ({exc}); run `git intent push` later.", err=True)


@cli.command()
@click.argument("remote", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print what was fetched as JSON.")
def fetch(remote: str | None, as_json: bool) -> None:
    """Fetch git-intent's notes and shared evidence from REMOTE and merge them into yours.

    Notes land in refs/notes/remotes/REMOTE/git-intent and are merged with cat_sort_uniq: local records are
    never overwritten. A REMOTE's refs/notes/intent, where earlier versions kept the notes, is merged too.
    REMOTE's branches are fetched too, and commits a forge squash-merged or rebase-merged get the records
    of the recorded commits they copy (matched by patch id, never by message; lines the forge changed stay
    uncredited); `git intent push` shares them. Needs no `install`; works in shallow clones.

    REMOTE may also be a URL or path, such as a contributor's fork: its branches are kept in
    refs/intent/forks/NAME/, so a pull request from the fork that was squash-merged or rebase-merged is
    credited to the contributor's sessions.
    """
    from ..share.remote import fetch as run

    result = run(open_repo(), remote)
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    if result.carried:
        echo(
            f"Carried records onto {len(result.carried)} commit(s) a forge squashed or rebased: "
            f"{', '.join(c[:12] for c in result.carried)}; `git intent push` shares them."
        )
    if result.carry_problem:
        echo(f"warning: the records of forge merges were not carried: {result.carry_problem}", err=True)
    if not result.notes and not result.evidence:
        echo(f"{result.remote} has no git-intent records yet.")
        return
    parts = []
    if result.notes:
        parts.append("notes " + ("merged" if result.notes_changed else "already up to date"))
    if result.evidence:
        parts.append("shared evidence " + ("merged" if result.evidence_changed else "already up to date"))
    echo(f"Fetched from {result.remote}: {'; '.join(parts)}.")


@cli.command()
@click.argument("level", required=False, type=click.Choice(["notes", "evidence", "sessions"]))
@click.option(
    "--forget", "forget", metavar="SESSION", help="Remove a shared session from refs/intent/evidence."
)
@click.option("--json", "as_json", is_flag=True, help="Print the sharing state as JSON.")
def share(level: str | None, forget: str | None, as_json: bool) -> None:
    """Show or set what this repository shares (LEVEL: notes, evidence or sessions), or forget a session.

    \b
    notes     ids, line ranges and hashes only (the default)
    evidence  also the redacted messages that explain each committed agent line
    sessions  also the whole redacted session
    The level is `git config intent.share`; it takes effect at the next `git intent push`, for every
    commit pushed, including those recorded before. Lowering it stops future sharing.
    """
    from ..share.status import forget_session, set_level, sharing_status

    repo = open_repo()
    if forget:
        removed = forget_session(repo, forget)
        echo(
            f"Removed {', '.join(removed)} from refs/intent/evidence here; the next `git intent push` "
            "removes it from the remote too. It will not be shared again from this clone."
        )
        echo("warning: copies already fetched by others remain on their machines.", err=True)
        return
    if level:
        set_level(repo, level)
    status = sharing_status(repo)
    if as_json:
        print_json(status.model_dump(mode="json"))
        return
    echo(f"Sharing level: {status.level}" + (" (set now)" if level else "") + ".")
    echo(
        f"Shared here: {status.sessions} session(s) ({status.sessions_full} whole), {status.commits} "
        f"commit(s); {status.forgotten} forgotten."
    )


@cli.command()
@click.argument("file", type=click.Path(path_type=Path, allow_dash=True))
@click.option(
    "--check", is_flag=True, help="List what would be removed instead of printing the redacted text."
)
@click.option("--json", "as_json", is_flag=True, help="With --check: print the findings as JSON.")
def redact(file: Path, check: bool, as_json: bool) -> None:
    """Print FILE redacted as git-intent would share it (`-` reads standard input).

    With --check, list each finding instead (line, column, rule, length); exit 0 either way. The same
    detectors guard every shared text: gitleaks' rules, git-intent's own rules, an entropy backstop
    (SHAs, UUIDs and hashes are spared), and home folders reduced to ~.
    """
    from ..core.errors import IntentError
    from ..redaction.redact import check_text, redact_text

    try:
        data = sys.stdin.buffer.read() if str(file) == "-" else file.read_bytes()
    except OSError as exc:
        raise IntentError(f"{file} cannot be read: {exc.strerror}.") from exc
    text = data.decode("utf-8", errors="replace")
    if not check:
        # A filter: the file's own bytes, secrets masked, nothing else changed (pipe it; not escaped).
        click.echo(redact_text(text).text, nl=False)
        return
    findings = check_text(text)
    if as_json:
        print_json([f.__dict__ for f in findings])
        return
    for found in findings:
        echo(
            f"{file}:{found.line}:{found.column}  {found.rule}  ({found.length} chars → {found.replacement})"
        )
    echo(f"{len(findings)} finding(s).")


@cli.command()
@click.argument("revision_range")
@click.option(
    "--min-coverage", type=float, help="Exit 1 when coverage (agent + human lines / all) is below this."
)
@click.option(
    "--min-evidence", type=float, help="Exit 1 when the share of agent lines with evidence is below this."
)
@click.option(
    "--lines",
    "listed",
    is_flag=True,
    help="Also list the lines: every line with its class in --json; in text, the agent lines without "
    "evidence and the unrecorded ones.",
)
@click.option(
    "--annotate",
    type=click.Choice(["github"]),
    help="Also print a GitHub workflow annotation (::warning) for each run of agent lines without evidence "
    "and of unrecorded lines, where it stands at the range's end.",
)
@click.option(
    "--max-annotations",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="With --annotate: print at most this many, then one ::notice saying what was left out.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the audit as JSON.")
def audit(
    revision_range: str,
    min_coverage: float | None,
    min_evidence: float | None,
    listed: bool,
    annotate: str | None,
    max_annotations: int,
    as_json: bool,
) -> None:
    """Count the lines REVISION_RANGE added: agent (with or without evidence), human, unrecorded.

    Lines are classified as blame, review, stats and export classify them. For CI: `git intent fetch && git
    intent audit origin/main..HEAD --min-coverage 0.9`. With `--annotate github` (in a GitHub Actions
    step), the agent lines without evidence and the unrecorded lines show up beside the pull request's
    diff: one warning per run of consecutive lines.
    """
    from ..core.errors import AuditThresholdError
    from ..share.audit import audit as run
    from ..share.audit import unrecorded_hint

    if annotate and as_json:
        raise click.UsageError("--annotate prints workflow commands, not JSON: drop --json or --annotate.")
    repo = open_repo()
    report = run(repo, revision_range, listed=listed or bool(annotate))
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        echo(_audit_text(report, listed), nl=False)
    if annotate:
        from ..share.annotations import github_annotations

        echo(github_annotations(repo, report, max_annotations).text(), nl=False)
    if min_coverage is not None and report.coverage < min_coverage:
        raise AuditThresholdError(
            f"Coverage {report.coverage:.2%} is below the required {min_coverage:.2%}.",
            hint=unrecorded_hint(repo, report.unrecorded_commits),
        )
    if min_evidence is not None and report.evidence_coverage < min_evidence:
        raise AuditThresholdError(
            f"Evidence coverage {report.evidence_coverage:.2%} is below the required {min_evidence:.2%}.",
            hint="Fetch shared evidence: `git intent fetch`.",
        )


def _audit_text(report: object, listed: bool = True) -> str:
    from ..share.audit import AuditReport

    assert isinstance(report, AuditReport)
    lines = report.lines
    out = [
        f"{report.range}: {report.commits} commit(s), {lines.total} non-blank added line(s)",
        f"  agent, with evidence     {lines.agent_with_evidence}",
        f"  agent, without evidence  {lines.agent_without_evidence}",
        f"  human                    {lines.human}",
        f"  unrecorded               {lines.unrecorded}",
        f"  coverage {report.coverage:.1%} · evidence coverage {report.evidence_coverage:.1%}",
    ]
    for name, agent in report.agents.items():
        out.append(f"  {name:<12} {agent.lines} line(s), {agent.with_evidence} with evidence")
    for item in report.files:
        out.append(f"  {item.path}  {item.lines.total} line(s), coverage {item.coverage:.0%}")
    rows = report.listed if listed else None
    gaps = [row for row in rows or () if row.line_class in ("agent_without_evidence", "unrecorded")]
    if gaps:
        out.append("  lines without evidence or record:")
        for row in gaps:
            who = f"{row.agent} ({row.method})" if row.agent else "unrecorded"
            out.append(f"    {row.path}:{row.line}  {row.commit[:12]}  {who}")
    return "\n".join(out) + "\n"
