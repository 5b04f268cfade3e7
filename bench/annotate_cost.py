"""Annotation cost: `annotate_sessions` on one long real session against a scripted OpenAI-compatible server.

The session is the longest fixture transcript (the compacted Codex git-sync session, 527 messages, 22 turns)
repeated until it holds at least `--turns` turns (default 500); each copy's prompts get a suffix ("(pass
N)") so every turn's content, and so its digest, is new (a repeated turn would be annotated once). The
server (tests/scripted_model.py, on 127.0.0.1, through the real litellm client) answers every batch with
valid records and reports usage as prompt = request characters / 4 and completion = reply characters / 4,
so the token figures are those a provider counting ~4 characters a token would bill.

Printed: turns, model calls, calls per session, prompt and completion tokens per turn, wall seconds, and
the cost at `--price-in`/`--price-out` dollars per million tokens; then a second run (no model call) and a
run with malformed replies (retries, then offline). HOME and git config are isolated in a temporary folder.

    .venv/bin/python bench/annotate_cost.py             # table
    .venv/bin/python bench/annotate_cost.py --json      # figures as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.scripted_model import Reply, scripted  # noqa: E402

from git_intent.core.values import Message, Session  # noqa: E402

FIXTURE = ROOT / "fixtures" / "transcripts" / "codex" / "git-sync__4cea5c699ef8-2__compacted.jsonl"
_ORDER = "Annotate these "


def long_session(turns: int) -> Session:
    from git_intent.fidelity.annotations import session_turns
    from git_intent.sessions.discovery import read_transcript

    base = read_transcript(FIXTURE)[0]
    per_copy = len(session_turns(base))
    copies = -(-turns // per_copy)
    messages: list[Message] = []
    for n in range(copies):
        for message in base.messages:
            parts = message.parts
            if message.is_prompt:
                parts = tuple(
                    replace(p, text=f"{p.text} (pass {n})") if p.kind == "text" else p for p in parts
                )
            messages.append(replace(message, message_id=f"{message.message_id}-{n}", parts=parts))
    return replace(base, session_id=f"{base.session_id}-x{copies}", messages=messages, edits=[])


def _ids(body: dict[str, Any]) -> list[str]:
    first = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return first.rsplit("in order: ", 1)[1].rstrip(".").split(", ")


def _usage(body: dict[str, Any], text: str) -> Reply:
    chars = sum(len(str(m.get("content") or "")) for m in body["messages"])
    return Reply(text=text, prompt_tokens=-(-chars // 4), completion_tokens=-(-len(text) // 4))


def good(body: dict[str, Any]) -> Reply:
    records = [
        {
            "turn": turn,
            "topic": "relay_planner_review",
            "is_new_topic": n == 0,
            "message_summary": "Reviewed the relay planner's decision functions and added tests for them.",
            "topic_summary": "Reviewed the git-sync relay planner against main, tracked the findings in a "
            "checklist, and added tests for the relay decisions.",
            "placeholder": "relay planner review with direct tests",
            "key_facts": ["Relay mode must never be chosen when the target lacks the source's history."],
        }
        for n, turn in enumerate(_ids(body))
    ]
    return _usage(body, json.dumps({"annotations": records}))


def malformed(body: dict[str, Any]) -> Reply:
    return _usage(body, "Here is what each turn did: the agent reviewed the code.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--price-in", type=float, default=0.15, help="$ per million prompt tokens")
    parser.add_argument("--price-out", type=float, default=0.60, help="$ per million completion tokens")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ.update(
            {
                "HOME": str(home),
                "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
                "GIT_CONFIG_NOSYSTEM": "1",
                "CLAUDE_CONFIG_DIR": str(home / ".claude"),
                "CODEX_HOME": str(home / ".codex"),
                "GIT_INTENT_MODEL": "openai/scripted",
                "GIT_INTENT_ANNOTATE_BUDGET": "100000000",
            }
        )
        os.environ.pop("OPENAI_API_KEY", None)
        repo_dir = Path(tmp) / "repo"
        subprocess.run(["git", "init", "-q", str(repo_dir)], check=True)
        from git_intent.answer.annotate import annotate_sessions
        from git_intent.fidelity.annotations import session_turns
        from git_intent.git.repo import Repository

        repo = Repository(repo_dir)
        session = long_session(args.turns)
        turns = len(session_turns(session))
        figures: dict[str, Any] = {"session_messages": len(session.messages), "turns": turns}
        with scripted([good]) as server:
            os.environ["GIT_INTENT_API_BASE"] = server.url
            started = time.perf_counter()
            first = annotate_sessions(repo, [session])
            figures["seconds"] = round(time.perf_counter() - started, 2)
            started = time.perf_counter()
            second = annotate_sessions(repo, [session])
            figures["second_run_seconds"] = round(time.perf_counter() - started, 2)
            figures["second_run_calls"] = second.calls
        figures |= {
            "calls": first.calls,
            "calls_per_session": first.calls,
            "turns_annotated_by_model": first.sessions[0].model,
            "prompt_tokens": first.prompt_tokens,
            "completion_tokens": first.completion_tokens,
            "prompt_tokens_per_turn": round(first.prompt_tokens / turns, 1),
            "completion_tokens_per_turn": round(first.completion_tokens / turns, 1),
            "tokens_per_turn": round((first.prompt_tokens + first.completion_tokens) / turns, 1),
            "ms_per_call": round(1000 * figures["seconds"] / max(1, first.calls), 1),
            "cost_usd": round(
                first.prompt_tokens * args.price_in / 1e6 + first.completion_tokens * args.price_out / 1e6, 4
            ),
        }
        small = long_session(60)
        small = replace(small, session_id=small.session_id + "-malformed")
        with scripted([malformed]) as server:
            os.environ["GIT_INTENT_API_BASE"] = server.url
            bad = annotate_sessions(repo, [small])
        figures["malformed"] = {
            "turns": bad.sessions[0].turns,
            "calls": bad.calls,
            "retries": bad.retries,
            "recorded_offline": bad.sessions[0].offline,
        }
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    print(
        f"One session of {figures['session_messages']:,} messages = {turns} turns (the compacted Codex "
        f"fixture repeated), scripted server on 127.0.0.1, real litellm client:\n"
        f"  model calls: {figures['calls']} for the session ({figures['turns_annotated_by_model']} turns "
        f"annotated by the model)\n"
        f"  tokens per turn: {figures['prompt_tokens_per_turn']} prompt + "
        f"{figures['completion_tokens_per_turn']} completion = {figures['tokens_per_turn']}\n"
        f"  total: {figures['prompt_tokens']:,} prompt + {figures['completion_tokens']:,} completion tokens; "
        f"${figures['cost_usd']} at ${args.price_in}/${args.price_out} per million\n"
        f"  time: {figures['seconds']} s ({figures['ms_per_call']} ms a call, the server answering at once)\n"
        f"  second run: {figures['second_run_calls']} model calls, {figures['second_run_seconds']} s\n"
        f"  malformed replies ({figures['malformed']['turns']} turns): {figures['malformed']['calls']} calls "
        f"({figures['malformed']['retries']} retries), {figures['malformed']['recorded_offline']} turns "
        "recorded offline"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
