"""The reason picker and the symbol around a line, end to end through the installed hook: blame's
evidence, the offline `why` built from it, review's reason, and tree-sitter's symbol."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support import claude_session as session
from support import commit_synced as commit
from support import install, run_cli

from git_intent.answer import why
from git_intent.core.values import Message, Part, Session
from git_intent.explain.reasons import pick
from git_intent.explain.symbols import enclosing, file_symbols
from git_intent.git.repo import Repository

BODY = "def price(amount):\n    total = amount * 1.19\n    return round(total, 2)\n"
SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. The "
    "conversation is summarized below: the user wants pricing."
)


def blame_json(repo: Path, *args: str) -> dict[str, Any]:
    proc = run_cli("blame", *args, "--json", cwd=repo)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    answer: dict[str, Any] = json.loads(proc.stdout)
    return answer


@pytest.fixture
def scenario(repo: Path) -> dict[str, Any]:
    """An agent asked a question, the user said "yes", a compaction summary came in, three assistant messages
    (the middle one names the file), the Write; then "exit". Committed through the hook."""
    root = repo.resolve()
    install(root)
    agent = session(root)
    ids: dict[str, Any] = {"session": agent.session_id}
    ids["task"] = agent.prompt("Add a pricing helper")
    ids["question"] = agent.say("I can add a VAT rate. Should I use the German rate of 19 percent?")
    ids["yes"] = agent.prompt("yes")
    record = agent._base("user")
    record["message"] = {"role": "user", "content": SUMMARY}
    record["isCompactSummary"] = True
    agent._add(record)
    agent.say("Let me look at the README first.")
    ids["reason"] = agent.say("I'll put the rate into pricing.py because `price` must return gross amounts.")
    agent.say("Done looking.")
    ids["write"] = agent.write("Writing it now.", root / "pricing.py", BODY)
    agent.prompt("exit")
    agent.save()
    ids["commit"] = commit(root, "pricing helper")
    ids["root"] = root
    return ids


def test_blame_quotes_the_prompt_that_opened_the_turn_what_it_confirmed_and_the_reason_naming_the_file(
    scenario: dict[str, Any],
) -> None:
    line = blame_json(scenario["root"], "pricing.py:2")["lines"][0]
    assert (line["status"], line["symbol"]) == ("agent", "def price")
    kinds = [(e["kind"], e["message_id"]) for e in line["evidence"]]
    assert kinds[:3] == [
        ("request", scenario["yes"]),
        ("confirmed", scenario["question"]),
        ("reasoning", scenario["reason"]),
    ]  # the nearest naming the file, not the nearest
    assert [k for k, _ in kinds].count("reasoning") == 3 and kinds[-1][0] == "edit"
    assert (
        line["evidence"][1]["passage"] == "I can add a VAT rate. Should I use the German rate of 19 percent?"
    )
    assert line["evidence"][2]["passage"] == (
        "I'll put the rate into pricing.py because `price` must return gross amounts."
    )
    assert all(SUMMARY[:40] not in e["text"] for e in line["evidence"])
    text = run_cli("blame", "pricing.py:2", cwd=scenario["root"]).stdout
    assert text.startswith("pricing.py:2  in def price\n")
    assert "  confirmed " in text
    assert "            I can add a VAT rate. Should I use the German rate of 19 percent?\n" in text


def test_offline_why_uses_the_same_picker_and_says_nothing_it_does_not_know(scenario: dict[str, Any]) -> None:
    root, sid = scenario["root"], scenario["session"]
    answer = why(Repository(root), "pricing.py:2", offline=True, cwd=root)
    lines = answer.answer.splitlines()
    assert lines[0].startswith("Line 2 of pricing.py (in def price) was written by claude-code in session ")
    assert lines[1] == (
        f'The user answered "yes" [{sid}:{scenario["yes"]}] to the agent\'s "I can add a VAT rate. Should '
        f'I use the German rate of 19 percent?" [{sid}:{scenario["question"]}].'
    )
    assert lines[2] == (
        f"The agent explained \"I'll put the rate into pricing.py because `price` must return gross "
        f'amounts." [{sid}:{scenario["reason"]}].'
    )
    assert "Next the user said" not in answer.answer and '"exit"' not in answer.answer
    assert answer.dropped_citations == []


def test_why_of_a_persons_line_keeps_what_the_agent_wrote_there(scenario: dict[str, Any]) -> None:
    root = scenario["root"]
    (root / "pricing.py").write_text(BODY.replace("amount * 1.19", "amount * 1.07"), encoding="utf-8")
    second = commit(root, "reduced rate")
    answer = why(Repository(root), "pricing.py:2", offline=True, cwd=root)
    assert answer.answer.splitlines()[1] == (
        f"It replaced a line claude-code wrote in commit {scenario['commit'][:12]} "
        f'[{scenario["session"]}:{scenario["write"]}], was: "total = amount * 1.19".'
    )
    assert second[:12] in answer.answer.splitlines()[0]


def test_review_gives_the_picked_reason(scenario: dict[str, Any]) -> None:
    proc = run_cli("review", f"{scenario['commit']}~1..{scenario['commit']}", cwd=scenario["root"])
    assert proc.returncode == 0, proc.stderr
    assert (
        "because   “I'll put the rate into pricing.py because `price` must return gross amounts.”"
        in proc.stdout
    )
    assert "· in def price" in proc.stdout


def test_symbols_name_the_enclosing_definition_and_a_language_without_grammar_has_none() -> None:
    python = file_symbols("a.py", b"class Cart:\n    def total(self):\n        return 1\n\nx = 1\n")
    assert [(s.label, s.start, s.end) for s in python] == [("class Cart", 1, 3), ("def Cart.total", 2, 3)]
    assert enclosing(python, 3).label == "def Cart.total"  # type: ignore[union-attr]
    assert enclosing(python, 5) is None
    go = file_symbols(
        "x.go", b"package x\n\nfunc (s *Syncer) Run() error {\n\treturn nil\n}\n\nfunc F() {}\n"
    )
    assert [s.label for s in go] == ["func (s *Syncer) Run", "func F"]
    assert file_symbols("notes.txt", b"def f():\n") == [] and file_symbols("a.py", b"") == []


def _message(message_id: str, role: str, text: str, **flags: bool) -> Message:
    return Message(message_id=message_id, role=role, parts=(Part(kind="text", text=text),), **flags)  # type: ignore[arg-type]


def test_a_compaction_summary_is_never_the_request_the_prompt_it_lists_is() -> None:
    summary = _message(
        "m1",
        "user",
        f'{SUMMARY}\n\n6. All user messages:\n   - "Fix the parser"\n'
        '   - "and add a test for empty input"\n\n7. Pending Tasks: none',
        is_summary=True,
    )
    said = _message("m2", "assistant", "Adding the empty-input test to parser_test.py now.")
    edit = Message(message_id="m3", role="assistant", parts=(Part(kind="tool_call", tool="Edit", text="{}"),))
    continued = Session(
        agent="claude-code", session_id="s", transcript=Path("s.jsonl"), messages=[summary, said, edit]
    )
    picked = pick(continued, "m3", path="parser_test.py")
    assert picked is not None and picked.request is summary
    assert picked.request_passage == "and add a test for empty input"
    assert [r.message.message_id for r in picked.reasons] == ["m2"]
    typed = _message("m0", "user", "Fix the parser", is_prompt=True)
    same_file = replace(continued, messages=[typed, summary, said, edit])
    picked = pick(same_file, "m3")
    assert picked is not None and picked.request is typed and picked.request_passage is None
