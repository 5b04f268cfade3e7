"""Commands for agents as users: mcp, schema, stats."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..core.errors import IntentError
from ..mcp import AGENTS
from ._base import cli, echo, open_repo, print_json

_F = TypeVar("_F", bound=Callable[..., Any])


def agent_options(*, install: bool) -> Callable[[_F], _F]:
    """`--agent NAME` (repeatable), `--project`, `--rules`, `--annotate` and `--guard`, shared by install
    and uninstall."""

    def add(command: _F) -> _F:
        verb = "Register git-intent's MCP server in" if install else "Take git-intent's MCP server out of"
        command = click.option(
            "--annotate",
            is_flag=True,
            hidden=not install,
            help="With --agent: also ask the agent to append its own annotation of each turn (an "
            "intent-annotation JSON block), which git-intent reads in place of its own.",
        )(command)
        command = click.option(
            "--guard",
            is_flag=True,
            hidden=not install,
            help="With --agent claude-code: also a PreToolUse hook that tells the agent, before it edits "
            "lines, what was asked and decided about them (`git intent memory --hook`); other agents get "
            "the instruction to call `intent_for` in their rules file.",
        )(command)
        command = click.option(
            "--rules",
            is_flag=True,
            hidden=not install,
            help="With --agent: also add a short instruction on when to call `why` "
            "(a skill, rule or AGENTS.md block).",
        )(command)
        command = click.option(
            "--project",
            is_flag=True,
            help="With --agent: this repository's agent config instead of the user's.",
        )(command)
        return click.option(
            "--agent",
            "agents",
            multiple=True,
            type=click.Choice(AGENTS),
            help=f"{verb} this agent's config. Repeatable.",
        )(command)

    return add


def register_agents(
    agents: tuple[str, ...],
    *,
    project: bool,
    rules: bool,
    install: bool,
    annotate: bool = False,
    guard: bool = False,
) -> None:
    """Run install_agent/uninstall_agent for each agent and print each file's diff and what happened."""
    from ..mcp.register import install_agent, uninstall_agent

    if not agents:
        raise click.UsageError("--project, --rules, --annotate and --guard go with --agent NAME.")
    repo = open_repo() if project else None
    for agent in agents:
        changes = (
            install_agent(agent, project=repo, rules=rules, annotate=annotate, guard=guard)
            if install
            else uninstall_agent(agent, project=repo)
        )
        for change in changes:
            if change.diff:
                echo(change.diff, nl=False)
            echo(change.sentence)
        if install:
            echo(
                f"Restart {agent} to load the git-intent MCP server; it answers for the repository it "
                f"starts in (`git intent install` there records new commits)."
            )
            if guard and agent == "claude-code":
                echo(
                    "The edit guard answers from the memory of each repository: run `git intent memory` "
                    "there once (and after new sessions) to bring it up to date."
                )
        elif not changes:
            echo(f"git-intent was not registered in {agent}'s configuration; nothing changed.")


@cli.command()
@click.option(
    "--repo",
    "repo_path",
    type=click.Path(path_type=Path, file_okay=False),
    help="The repository to serve (default: the current directory's).",
)
def mcp(repo_path: Path | None) -> None:
    """Serve git-intent's tools to a coding agent over MCP on stdin/stdout.

    \b
    Tools: blame, why, ask, intent_for, recall, show, search, view_context, set_fidelity, sessions, log;
    each answers with
    the JSON of the matching command's --json. Register it in an agent with
    `git intent install --agent NAME`. Needs the mcp extra: pip install 'git-intent-provenance[mcp]'.
    """
    import importlib.util

    from ..mcp.early import serve

    if importlib.util.find_spec("mcp") is None:
        raise IntentError(
            "The MCP server needs the mcp extra, which is not installed.",
            hint="pip install 'git-intent-provenance[mcp]'",
        )
    if repo_path is not None and not repo_path.exists():
        if "${" not in str(repo_path):
            raise IntentError(f"--repo {repo_path} does not exist.")
        repo_path = None  # an agent that did not expand ${workspaceFolder}: serve where it started us
    serve(repo_path or Path.cwd())


@cli.command()
@click.argument("name", required=False)
def schema(name: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of NAME's --json output; without NAME, list the names.

    NAME is the command (blame, log, stats, …); `record-pending` is `record --pending`. The same
    schemas are in docs/schemas/.
    """
    from ..schemas import SCHEMAS, available, json_schema

    if name is None:
        for known in available():
            echo(f"{known:15} {SCHEMAS[known].command}")
        return
    print_json(json_schema(name))


@cli.command()
@click.argument("revision_range", default="HEAD")
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def stats(revision_range: str, as_json: bool) -> None:
    """Count the lines REVISION_RANGE added (default: all of HEAD's history) by agent, model, session and
    person.

    Lines are non-blank added lines of non-merge commits: agent (a note credits a session), human (the
    note credits none), unrecorded (no note), or trailer (no transcript credits the commit's lines but its
    trailers name an agent). Evidence: how many agent lines' messages are still on
    this machine (backup copy or the agent's own transcript).
    """
    from ..explain.render import safe
    from ..explain.stats import range_stats

    report = range_stats(open_repo(), revision_range)
    if as_json:
        print_json(report.model_dump(mode="json"))
        return
    total = report.lines_added or 1
    status = report.by_status
    lines = [
        f"{report.commits} commits ({report.commits_recorded} recorded), {report.lines_added} added lines",
        f"  agent       {status.agent:>7}  {status.agent / total:6.1%}",
        f"  human       {status.human:>7}  {status.human / total:6.1%}",
        f"  unrecorded  {status.unrecorded:>7}  {status.unrecorded / total:6.1%}",
    ]
    if status.trailer:  # apart from recorded agent lines and from people
        lines.append(
            f"  trailer     {status.trailer:>7}  {status.trailer / total:6.1%}  (agent-assisted by the "
            "commit's trailer; no transcript here)"
        )
    if report.evidence_share is not None:
        lines.append(
            f"evidence on this machine for {report.agent_lines_with_evidence} of {status.agent} agent "
            f"lines ({report.evidence_share:.1%})"
        )
    for title, counts in (
        ("by agent", report.by_agent),
        ("by trailer", report.by_trailer_agent),
        ("by model", report.by_model),
        ("by person", report.by_person),
    ):
        if counts:
            lines.append(title)
            lines += [f"  {safe(key):40} {value:>7}" for key, value in counts.items()]
    if report.sessions:
        lines.append("by session")
        for s in report.sessions:
            missing = s.lines - s.lines_with_evidence
            lines.append(
                f"  {s.agent:12} {safe(s.session_id):38} {s.lines:>7}  {s.commits} commit(s)"
                + (f", {missing} without evidence here" if missing else "")
            )
    echo("\n".join(lines))
    for problem in report.problems:
        echo(f"warning: {problem}", err=True)
