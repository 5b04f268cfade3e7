"""Commands that answer questions in prose with checked citations (why, ask), and annotate, which asks the
same model to annotate each turn of a session."""

from __future__ import annotations

import re
import textwrap
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from ..core.values import to_json
from ..sessions.prose import counted
from ._base import cli, echo, open_repo, print_json

_CITATION = re.compile(r"\[([A-Za-z0-9._-]+):([A-Za-z0-9._-]+)\]")


@cli.command()
@click.argument("location")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON (docs/json.md).")
@click.option("--offline", is_flag=True, help="Answer from the recorded evidence, without a model.")
@click.option("--model", help="A litellm model string for this answer (default: intent.model).")
def why(location: str, as_json: bool, offline: bool, model: str | None) -> None:
    """Answer why LOCATION (PATH:LINE or PATH:START-END) exists, citing the exact messages.

    Without a model (or with --offline) the answer quotes the request, the agent's reasons, the edit and
    what followed. With a model (git config intent.model …) a sub-agent reads the sessions through
    read-only tools. Every citation is checked: unread, unknown or misquoted ones are dropped.
    """
    from ..answer.why_line import why as answer_why

    _print(answer_why(open_repo(), location, model=model, offline=offline, cwd=Path.cwd()), as_json)


@cli.command()
@click.argument("question")
@click.option("--path", help="Only sessions that edited this file or folder (and the code in it).")
@click.option("--since", type=click.DateTime(), help="Only messages at or after this date (UTC).")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON (docs/json.md).")
@click.option("--offline", is_flag=True, help="Answer from the index and the evidence, without a model.")
@click.option("--model", help="A litellm model string for this answer (default: intent.model).")
def ask(
    question: str, path: str | None, since: datetime | None, as_json: bool, offline: bool, model: str | None
) -> None:
    """Answer a provenance QUESTION about this repository from its agent sessions, with citations.

    Finds the sessions that match the question (the session index, and the code it names through
    git grep, blame and git log -S), best match first, and answers from their exact messages.
    """
    from ..answer.ask_question import ask as answer_ask

    _print(
        answer_ask(
            open_repo(), question, path=path, since=since, model=model, offline=offline, cwd=Path.cwd()
        ),
        as_json,
    )


def _print(answer: Any, as_json: bool) -> None:
    if as_json:
        print_json(to_json(answer))
    else:
        echo(answer_text(answer), nl=False)
    if answer.model_error:
        echo(f"warning: {answer.model_error} Answered offline.", err=True)
    if answer.hint and not as_json:
        echo(f"hint: {answer.hint}", err=True)


def answer_text(answer: Any) -> str:
    """The answer wrapped for a terminal, its citations as numbered references listed under it."""
    from ..explain.render import safe

    numbers: dict[tuple[str, str], int] = {}

    def number(match: re.Match[str]) -> str:
        key = (match[1], match[2])
        numbers.setdefault(key, len(numbers) + 1)
        return f"[{numbers[key]}]"

    body = _CITATION.sub(number, answer.answer)
    out = [textwrap.fill(p, width=100) if not p.startswith(("```", "    ")) else p for p in body.split("\n")]
    if numbers:
        out += ["", "References"]
        out += [f"  [{n}] git intent show {s}:{m}" for (s, m), n in numbers.items()]
    for dropped in answer.dropped_citations:
        out.append(
            f"  dropped {dropped.marker or dropped.session_id + ':' + dropped.message_id}: {dropped.reason}"
        )
    usage = answer.usage
    mode = f"{answer.mode} ({answer.model})" if answer.model and answer.mode == "model" else answer.mode
    out += [
        "",
        f"{mode} · {model_calls(answer)} · read ~{usage.transcript_tokens_read:,} of "
        f"{usage.session_tokens_total:,} session tokens"
        + (
            f" · {usage.prompt_tokens:,} prompt + {usage.completion_tokens:,} completion tokens"
            if usage.prompt_tokens
            else ""
        ),
    ]
    return safe("\n".join(out).strip("\n") + "\n")


def model_calls(answer: Any) -> str:
    """ "0 model calls", "3 model calls", "1 model call failed", "3 model calls, the last failed": a call that
    failed is counted and named."""
    calls = answer.steps
    failed = (
        answer.mode == "offline"
        and answer.model_error is not None
        and answer.limits.reached is None
        and calls > 0
    )
    if failed:
        return "1 model call failed" if calls == 1 else f"{calls} model calls, the last failed"
    return counted(calls, "model call")


@cli.command()
@click.argument("sessions", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every session of this repository.")
@click.option("--since", type=click.DateTime(), help="The sessions active at or after this date (UTC).")
@click.option("--offline", is_flag=True, help="Store the offline annotations; ask no model.")
@click.option("--model", help="A litellm model string for this run (default: intent.model).")
@click.option("--background", is_flag=True, hidden=True, help="The capture worker's run: quiet, model only.")
@click.option("--json", "as_json", is_flag=True, help="Print what was done as JSON.")
def annotate(
    sessions: tuple[str, ...],
    every: bool,
    since: datetime | None,
    offline: bool,
    model: str | None,
    background: bool,
    as_json: bool,
) -> None:
    """Annotate each turn of SESSION(s), or of every session (--all, --since DATE), in Decant's schema.

    With a model (git config intent.model …) each turn gets a topic, a one-line summary, the topic's
    summary, a placeholder and its key facts, written once per turn content (a second run makes no model
    call) and stored in the index; `context`, `fidelity`, `why` and MCP render from them. Without a model the
    offline segmentation fills the same fields. Stops at intent.annotateBudget tokens a day, and says so.
    """
    from datetime import timezone

    from ..answer.annotate import annotate_sessions, select_sessions
    from .progress import Bars

    if bool(sessions) + every + (since is not None) != 1:
        raise click.UsageError("Name SESSION(s), or give --all or --since DATE (one of them).")
    repo = open_repo()
    since = since.replace(tzinfo=timezone.utc) if since is not None and since.tzinfo is None else since
    if background:
        from ..answer.annotate import background_run

        background_run(repo, sessions)
        return
    chosen = select_sessions(repo, sessions, every=every, since=since)
    with Bars(hidden=as_json) as bars:
        bars.stage("annotating turns", _turns(chosen))
        result = annotate_sessions(repo, chosen, model=model, offline=offline, progress=bars.advance)
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    echo(_annotate_text(result))


def _turns(sessions: Any) -> int:
    from ..fidelity.annotations import session_turns

    return sum(len(session_turns(s)) for s in sessions)


def _annotate_text(result: Any) -> str:
    turns = sum(s.turns for s in result.sessions)
    done = {
        "by the model": sum(s.model for s in result.sessions),
        "from the agent's own blocks": sum(s.agent_blocks for s in result.sessions),
        "already annotated": sum(s.stored for s in result.sessions),
        "offline": sum(s.offline for s in result.sessions),
        "left for a later run": sum(s.left for s in result.sessions),
    }
    parts = ", ".join(f"{n} {what}" for what, n in done.items() if n)
    lines = [
        f"{counted(len(result.sessions), 'session')}, {counted(turns, 'turn')}: {parts or 'nothing to do'}."
    ]
    if result.model:
        lines.append(
            f"{result.model}: {counted(result.calls, 'call')} ({result.retries} retried), "
            f"{result.prompt_tokens + result.completion_tokens:,} tokens; {result.spent_today:,} of "
            f"{result.budget:,} spent today (intent.annotateBudget)."
        )
    if result.stopped:
        lines.append(result.stopped)
    return "\n".join(lines)
