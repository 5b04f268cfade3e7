"""The memory command: what sessions decided about this code, the project state, and the edit guard."""

from __future__ import annotations

import sys

import click

from ..core.values import to_json
from ..memory.values import MemoryAnswer, ProjectState
from ._base import cli, echo, open_repo, print_json


@cli.command()
@click.argument("location", required=False)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the answer as JSON (`git intent schema memory`)."
)
@click.option(
    "--budget",
    type=click.IntRange(min=50),
    default=1000,
    show_default=True,
    help="Tokens (characters / 4) to fill.",
)
@click.option("--state", is_flag=True, help="Print the project state derived from the log instead.")
@click.option(
    "--no-update", is_flag=True, help="Answer from the log as it is, without observing new sessions."
)
@click.option(
    "--offline", is_flag=True, help="Observe new sessions without the model, even when one is configured."
)
@click.option(
    "--hook",
    is_flag=True,
    help="Run as Claude Code's PreToolUse hook: read the hook's JSON on stdin (the guard).",
)
def memory(
    location: str | None, as_json: bool, budget: int, state: bool, no_update: bool, offline: bool, hook: bool
) -> None:
    """What the sessions that wrote LOCATION decided about it: constraints, decisions, conventions,
    rejected approaches, open questions and facts, newest first, within --budget tokens.

    \b
    LOCATION is PATH, PATH:LINE or PATH:START-END; without it, everything the memory holds. With lines,
    blame names the sessions that wrote them and the prompts that asked for them come first. Every
    observation cites SESSION:MESSAGE (`git intent show` opens it); a reversed decision is shown with
    what reversed it.

    \b
    First brings the observation log (.git/intent/memory/) up to date: every session is read offline
    (the user's own constraints, decisions and corrections), and, past intent.memoryThreshold unobserved
    characters, by intent.memoryModel (default intent.model) within intent.memoryMaxTokens. Past
    intent.memoryReflectAt live observations, older ones are folded into denser ones.
    `git intent install --agent claude-code --guard` runs `memory --hook` before every edit.
    """
    if hook:
        from ..memory.guard import main as guard

        sys.exit(guard())
    from ..memory.stored import project_state

    repo = open_repo()
    if not no_update:
        from ..memory.update import update_memory

        update_memory(repo, use_model=not offline)
    if state:
        snapshot = project_state(repo)
        if as_json:
            print_json(to_json(snapshot))
        else:
            echo(state_text(snapshot))
        return
    from ..memory.recall import memory_for

    answer = memory_for(repo, location, budget=budget)
    if as_json:
        print_json(to_json(answer))
    else:
        echo(answer_text(answer))


def answer_text(answer: MemoryAnswer) -> str:
    """The answer as a reader takes it: the requests, then one block per observation."""
    where = answer.path or "this repository"
    if answer.lines:
        where += f":{answer.lines[0]}" + (f"-{answer.lines[-1]}" if len(answer.lines) > 1 else "")
    if not answer.observations and not answer.requests:
        return f"The memory holds nothing about {where}."
    out = [f"What applies to {where}, newest first:"]
    for request in answer.requests:
        out.append(
            f"\nasked  {' '.join(request.text.split())}\n       [{request.session_id}:{request.message_id}]"
        )
    for o in answer.observations:
        status = f" (superseded by {o.superseded_by})" if o.superseded_by else ""
        when = o.observed_at.date().isoformat() if o.observed_at else "undated"
        out.append(
            f"\n{o.kind.replace('_', ' ')}{status} · {when}\n  {o.text}\n  "
            + " ".join(f"[{c}]" for c in o.citations)
        )
    if answer.left_out:
        out.append(f"\n… {answer.left_out} more left out by the budget (--budget).")
    return "\n".join(out)


def state_text(state: ProjectState) -> str:
    """The project state, one section per kind."""
    sections = [
        ("Constraints", state.constraints),
        ("Decisions", state.decisions),
        ("Conventions", state.conventions),
        ("Rejected approaches", state.rejected),
        ("Open questions", state.open_questions),
        ("Facts", state.facts),
        ("Superseded", state.superseded),
    ]
    out = [
        f"Project state derived {state.derived_at.isoformat(timespec='seconds')} from "
        f"{state.observations} observations."
    ]
    for title, items in sections:
        if not items:
            continue
        out.append(f"\n{title}")
        for item in items:
            cites = " ".join(f"[{c}]" for c in item.citations[:3])
            by = f" (superseded by {item.superseded_by})" if item.superseded_by else ""
            out.append(f"- {item.text}{by} {cites}")
    return "\n".join(out)
