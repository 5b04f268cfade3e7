"""Does the offline answer quote the reason that made the edit and the question that asked for it?

On a real history with its authors' Entire checkpoints (bench/real_history.py's sandbox: main cloned alone,
the Claude Code and Codex transcripts written into the agents' folders, `git intent backfill HEAD --transcript
DIR`), agent lines at HEAD whose ground truth names one edit call are sampled (one line per edit call: a line
of a trailer commit that exactly one edit call of its checkpoint's sessions introduced into that file). The
ground truth is read from the raw transcripts here with a plain JSON reader, not the product's adapters:

- request: the last genuine user prompt before the call (not a tool result nor a prompt typed into one's
  record, a command wrapper `<…>`, an interruption marker or a compaction summary "This session is being
  continued…"); a slash command typed with arguments (`/goal simplify this repo…`) is a prompt, its arguments
  the text (the figure without them is printed too);
- reasons: the 3 nearest assistant texts, thinking blocks or Codex reasoning summaries before the call,
  after the request;
- turn: the records from the request to the next genuine prompt.

Each quote of an answer (`"…" [S:M]`) is located by text: whitespace collapsed, typographic quotes folded,
split at its elisions ("…"), every piece of 4 characters or more found in the truth text.

Figures per history: `why PATH:LINE --offline` quotes the request; quotes one of the 3 nearest reasons (of the
lines that have one); `ask "Why does PATH have the line `…`?" --path PATH --offline` cites the edit's turn
among its first 2 citations (also over the lines whose text occurs once in the file: a line quoted from many
places names no one edit); `ask` median seconds; `why` minus `blame` median milliseconds on the same line (in
process, warm). The why figures are also given over the lines blame credits to the session that wrote them
(the rest are attribution misses, which no reason picker can mend).

Rules counted on every sampled line (goal 0 for the first four): quotes given as why
(request, confirmed, reasoning) later than the edit in blame's evidence, and in `review COMMIT`'s group for
the line (asked, confirmed, because); quotes out of time order; passages ending with a list item's number (cut
inside a list); review text that leaves out a `confirmed` blame shows. Bare confirmations and those shown with
what they confirmed are counted too. Then `--questions N` (default 40) user questions of the sandbox's
sessions, reworded (first and last words left out), go to `ask` and to `search` alike: how often `ask` cites
search's first hit, and both the best question and the best answer of that hit's session.

Run (setup and backfill take ~1-2 min a history; `--keep DIR` keeps the sandbox and `--reuse DIR` measures
again in it without redoing them):

    .venv/bin/python bench/reason_picker.py --repo /work/.mirror/entireio+cli/repo --limit 150 --keep
    /tmp/rp-cli .venv/bin/python bench/reason_picker.py --reuse /tmp/rp-cli
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from _common import isolate
from _entire_truth import git, locate, same_file
from real_history import prepare, run_cli
from why_answers import records

DEFAULT_LINES = 40
_FOLD = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
_QUOTE = re.compile(r'(?:"([^"]+)"|“([^”]+)”) \[([^\]:]+):([^\]]+)\]')
_CITE = re.compile(r"\[([0-9A-Za-z_.-]{6,}):([^\]\s]+)\]")
SUMMARY = "This session is being continued from a previous conversation"
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_LIST_MARKER_END = re.compile(r"(?:^|\s)(\d{1,2})\.$")  # a passage ending with a number and a full stop


def norm(text: str) -> str:
    return " ".join(text.translate(_FOLD).split())


def located(quote: str, truth: str) -> bool:
    """Whether every elided piece of `quote` (4+ characters) occurs in `truth` (both normalised)."""
    pieces = [p.strip(" .,;:") for p in norm(quote).split("…")]
    pieces = [p for p in pieces if len(p) >= 4] or [p for p in pieces if p]  # "2", "Yes": the whole prompt
    target = norm(truth)
    return bool(pieces) and all(p in target for p in pieces)


# -- the raw transcripts, read plainly
# -------------------------------------------------------------------------


def objects(path: Path) -> Iterator[dict[str, Any]]:
    """Every JSON object of a JSON Lines file, glued objects included (why_answers.py's plain reader)."""
    return (value for _, value in records(path))


def steps(path: Path, agent: str) -> list[dict[str, Any]]:
    """The transcript as steps: {"kind": prompt|reason|edit, "id", "text", "path", "added"}."""
    out: list[dict[str, Any]] = []
    records = list(objects(path))
    typed = agent == "codex" and any(
        r.get("type") == "event_msg"
        and isinstance(r.get("payload"), dict)
        and r["payload"].get("type") == "user_message"
        for r in records
    )
    for n, record in enumerate(records, 1):
        if agent == "claude-code":
            message = record.get("message") if isinstance(record.get("message"), dict) else {}
            content = message.get("content")
            blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
            rid = str(record.get("uuid", ""))
            if (
                record.get("type") == "user"
                and not record.get("isMeta")
                and not record.get("isCompactSummary")
            ):
                text = (
                    content
                    if isinstance(content, str)
                    else "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
                )
                args = _COMMAND_ARGS.search(text) if text.lstrip().startswith("<command-") else None
                if args and args.group(1).strip() and not any(b.get("type") == "tool_result" for b in blocks):
                    out.append({"kind": "prompt", "id": rid, "text": args.group(1), "command": True})
                elif (
                    text.strip()
                    and not any(b.get("type") == "tool_result" for b in blocks)
                    and not text.lstrip().startswith(("<", "[Request interrupted", SUMMARY))
                ):
                    out.append({"kind": "prompt", "id": rid, "text": text})
            if record.get("type") == "assistant":
                for block in blocks:
                    text = (
                        block.get("text")
                        if block.get("type") == "text"
                        else block.get("thinking")
                        if block.get("type") == "thinking"
                        else None
                    )
                    if isinstance(text, str) and text.strip():
                        out.append({"kind": "reason", "id": rid, "text": text})
                    if block.get("type") == "tool_use" and block.get("name") in (
                        "Edit",
                        "MultiEdit",
                        "Write",
                    ):
                        args = block.get("input") or {}
                        pairs = (
                            [
                                (e.get("old_string", ""), e.get("new_string", ""))
                                for e in args.get("edits", [])
                            ]
                            if block["name"] == "MultiEdit"
                            else [("", args.get("content", ""))]
                            if block["name"] == "Write"
                            else [(args.get("old_string", ""), args.get("new_string", ""))]
                        )
                        added = {
                            x.strip()
                            for old, new in pairs
                            for x in str(new).splitlines()
                            if x.strip() not in {o.strip() for o in str(old).splitlines()}
                        }
                        out.append(
                            {
                                "kind": "edit",
                                "id": rid,
                                "path": str(args.get("file_path", "")),
                                "added": added,
                            }
                        )
            continue
        payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
        rid, kind, ptype = f"r{n}", record.get("type"), payload.get("type")
        if kind == "event_msg" and ptype == "user_message" and typed:
            text = str(payload.get("message", ""))
            if text.strip() and not text.lstrip().startswith("<"):
                out.append({"kind": "prompt", "id": rid, "text": text})
        elif kind == "response_item" and ptype == "message":
            parts = payload.get("content") if isinstance(payload.get("content"), list) else []
            text = "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
            if (
                payload.get("role") == "user"
                and not typed
                and text.strip()
                and not text.lstrip().startswith("<")
            ):
                out.append({"kind": "prompt", "id": rid, "text": text})
            elif payload.get("role") == "assistant" and text.strip():
                out.append({"kind": "reason", "id": rid, "text": text})
        elif kind == "response_item" and ptype == "reasoning":
            summary = payload.get("summary") if isinstance(payload.get("summary"), list) else []
            text = "\n".join(str(s.get("text", "")) for s in summary if isinstance(s, dict))
            if text.strip():
                out.append({"kind": "reason", "id": rid, "text": text})
        elif kind == "response_item":
            raw = payload.get("input") or payload.get("arguments") or ""
            if isinstance(raw, str) and "*** Begin Patch" in raw:
                for file_part in re.split(r"^\*\*\* (?:Add|Update) File: ", raw, flags=re.M)[1:]:
                    name, _, body = file_part.partition("\n")
                    # A "+" line that also is a "-" line (a block moved or rewritten as it was) still counts:
                    # two calls that both write a line leave it out of the sample as ambiguous.
                    added = {x[1:].strip() for x in body.split("\n") if x.startswith("+")}
                    out.append({"kind": "edit", "id": rid, "path": name.strip(), "added": added})
    return out


def truth_at(flow: list[dict[str, Any]], at: int) -> dict[str, Any]:
    """The request, the 3 nearest reasons and the turn's record ids around the edit step `at`;
    `typed_request`, the request when slash commands never count as prompts (this measure's first
    reading)."""
    start = next((i for i in range(at, -1, -1) if flow[i]["kind"] == "prompt"), None)
    end = next((i for i in range(at, len(flow)) if flow[i]["kind"] == "prompt"), len(flow))
    reasons = [s["text"] for s in flow[(start or 0) : at] if s["kind"] == "reason"][-3:]
    typed = next(
        (
            flow[i]["text"]
            for i in range(at, -1, -1)
            if flow[i]["kind"] == "prompt" and not flow[i].get("command")
        ),
        None,
    )
    return {
        "request": flow[start]["text"] if start is not None else None,
        "reasons": reasons,
        "typed_request": typed,
        "turn": sorted({s["id"] for s in flow[(start or 0) : end]}),
    }


# -- sampling
# ----------------------------------------------------------------------------------------------------


def sample(work: Path, truth: Any, count: int) -> list[dict[str, Any]]:
    """One line at HEAD per edit call: its blame commit is a trailer commit, and exactly one edit call of that
    checkpoint's sessions introduced its (stripped) text into this file."""
    flows: dict[str, list[dict[str, Any]]] = {}
    for item in {id(e): e for e in truth.extracted.values()}.values():
        flows[item.session_id] = steps(item.path, item.agent)
    chosen: dict[tuple[str, str], dict[str, Any]] = {}
    files: dict[str, set[str]] = defaultdict(set)
    for commit in truth.trailers:
        for path in git(
            work, "diff-tree", "--no-commit-id", "--name-only", "-r", "--diff-filter=AM", f"{commit}^", commit
        ).split("\n"):
            if path and (work / path).is_file():
                files[path].add(commit)
    for path in sorted(files):
        out = subprocess.run(
            ["git", "blame", "--porcelain", "--", path],
            cwd=work,
            capture_output=True,
            text=True,
            errors="replace",
        ).stdout
        current: tuple[str, int] | None = None
        for row in out.split("\n"):
            head = re.match(r"^([0-9a-f]{40}) \d+ (\d+)", row)
            if head:
                current = (head.group(1), int(head.group(2)))
                continue
            if not row.startswith("\t") or current is None or current[0] not in truth.trailers:
                continue
            text = row[1:].strip()
            if len(text) < 25 or text.startswith(("//", "#")):
                continue
            sessions = {
                s.agent_session_id
                for i in truth.trailers[current[0]]
                if i in truth.checkpoints
                for s in truth.checkpoints[i].sessions
                if s.agent_session_id in truth.extracted
            }
            own = {truth.extracted[s].session_id for s in sessions}
            makers = [
                (sid, i)
                for sid in own
                for i, step in enumerate(flows.get(sid, []))
                if step["kind"] == "edit" and text in step["added"] and same_file(step["path"], path)
            ]
            if len(makers) != 1 or makers[0] in chosen:
                continue
            sid, at = makers[0]
            chosen[makers[0]] = {
                "path": path,
                "line": current[1],
                "text": text,
                "session_id": sid,
                "edit_id": flows[sid][at]["id"],
                **truth_at(flows[sid], at),
            }
    picked = sorted(chosen.values(), key=lambda c: (c["path"], c["line"]))
    if len(picked) > count:  # spread over the files rather than the first ones
        stride = len(picked) / count
        picked = [picked[int(i * stride)] for i in range(count)]
    return picked


# -- measuring
# ---------------------------------------------------------------------------------------------------


def measure(work: Path, cases: list[dict[str, Any]]) -> dict[str, Any]:
    from git_intent.answer import ask, why
    from git_intent.explain.blame import blame_lines
    from git_intent.git.repo import Repository

    repo = Repository(work)
    rows = []
    for case in cases:
        location = f"{case['path']}:{case['line']}"
        blame_lines(repo, location, work)  # warm the caches both share
        started = time.perf_counter()
        blame = blame_lines(repo, location, work)
        blame_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        answer = why(repo, location, offline=True, cwd=work)
        why_ms = (time.perf_counter() - started) * 1000
        quotes = [(a or b, s, m) for a, b, s, m in _QUOTE.findall(answer.answer)]
        request_ok = case["request"] is not None and any(located(q, case["request"]) for q, _, _ in quotes)
        reason_ok = (
            any(located(q, r) for q, _, _ in quotes for r in case["reasons"]) if case["reasons"] else None
        )
        question = f"Why does {case['path']} have the line `{case['text']}`?"
        started = time.perf_counter()
        asked = ask(repo, question, path=case["path"], offline=True, cwd=work)
        ask_s = time.perf_counter() - started
        cited = [(s, m) for s, m in _CITE.findall(asked.answer)]
        first_two = list(dict.fromkeys(cited))[:2]
        ask_ok = any(s == case["session_id"] and m in case["turn"] for s, m in first_two)
        line = blame.lines[0]
        unique = (work / case["path"]).read_text(encoding="utf-8", errors="replace").count(case["text"]) == 1
        typed = case.get("typed_request")
        typed_ok = typed is not None and any(located(q, typed) for q, _, _ in quotes)
        rows.append(
            {
                "location": location,
                "unique": unique,
                "request_ok": request_ok,
                "reason_ok": reason_ok,
                "ask_ok": ask_ok,
                "typed_request_ok": typed_ok,
                **quote_rules(line.evidence),
                "ask_s": ask_s,
                "why_ms": why_ms,
                "blame_ms": blame_ms,
                "status": line.status,
                "credited": line.attribution.session_id if line.attribution else None,
                "commit": line.commit,
                "expected": case["session_id"],
                "answer": answer.answer,
                "ask": asked.answer,
                "request": (case["request"] or "")[:120],
                "reasons": [r[:120] for r in case["reasons"]],
            }
        )
    review_rules(repo, rows)
    n = len(rows)
    with_reason = [r for r in rows if r["reason_ok"] is not None]
    right = [r for r in rows if r["credited"] == r["expected"]]
    right_reason = [r for r in right if r["reason_ok"] is not None]
    unique = [r for r in rows if r["unique"]]
    return {
        "lines": n,
        "credited_right_why_quotes_request": sum(r["request_ok"] for r in right) / len(right)
        if right
        else None,
        "credited_right_why_quotes_near_reason": (
            sum(bool(r["reason_ok"]) for r in right_reason) / len(right_reason) if right_reason else None
        ),
        "unique_lines": len(unique),
        "ask_turn_in_first_two_unique": sum(r["ask_ok"] for r in unique) / len(unique) if unique else None,
        "why_quotes_request": sum(r["request_ok"] for r in rows) / n if n else None,
        "why_quotes_near_reason": (
            sum(bool(r["reason_ok"]) for r in with_reason) / len(with_reason) if with_reason else None
        ),
        "lines_with_reason": len(with_reason),
        "ask_turn_in_first_two": sum(r["ask_ok"] for r in rows) / n if n else None,
        "ask_median_s": statistics.median(r["ask_s"] for r in rows) if n else None,
        "why_minus_blame_median_ms": statistics.median(r["why_ms"] - r["blame_ms"] for r in rows)
        if n
        else None,
        "credited_right": sum(r["credited"] == r["expected"] for r in rows),
        "why_quotes_typed_request": (
            sum(r["typed_request_ok"] for r in right) / len(right) if right else None
        ),
        **{rule: sum(r[rule] for r in rows) for rule in RULES},
        "rows": rows,
    }


RULES = (
    "later_than_edit",
    "out_of_time_order",
    "cut_list_items",
    "confirmations",
    "confirmed_shown",
    "review_later_than_edit",
    "review_confirmed_missing",
)


def quote_rules(evidence: list[Any]) -> dict[str, int]:
    """Counts over one blame answer's evidence: quotes given as why (request, confirmed,
    reasoning) later than the edit; quotes out of time order (a proposal a confirmation confirmed is shown
    with that confirmation, so it is left out of the order); passages ending with a list item's number (a cut
    inside a list); bare confirmations among the requests, and those shown with what they confirmed."""
    from git_intent.explain.reasons import is_confirmation  # where older builds have it too

    edit = next((e for e in evidence if e.kind == "edit"), None)
    why = [e for e in evidence if e.kind in ("request", "confirmed", "reasoning")]
    later = sum(
        1 for e in why if edit is not None and e.timestamp and edit.timestamp and e.timestamp > edit.timestamp
    )
    stamps = [e.timestamp for e in evidence if e.kind != "confirmed" and e.timestamp]
    disorder = sum(1 for a, b in zip(stamps, stamps[1:], strict=False) if b < a)
    cut = sum(1 for e in evidence if e.passage and _cut_list(e.passage, e.text))
    request = next((e for e in evidence if e.kind == "request"), None)
    confirming = request is not None and not request.passage and is_confirmation(request.text)
    shown = confirming and any(e.kind == "confirmed" for e in evidence)
    return {
        "later_than_edit": later,
        "out_of_time_order": disorder,
        "cut_list_items": cut,
        "confirmations": int(confirming),
        "confirmed_shown": int(shown),
    }


def ask_like_search(work: Path, count: int, seed: int = 5) -> dict[str, Any]:
    """`ask` against `git intent search` on the same words: `count` prompts of the sandbox's
    sessions that end with "?" (20-200 characters), asked with their first and last words left out as a
    reader would reword them; how often `ask` cites search's first user or assistant hit, and both the best
    user and the best assistant hit of that hit's session (the question and its answer)."""
    import random
    import sqlite3

    from git_intent.answer import ask
    from git_intent.git.repo import Repository
    from git_intent.index.search import search

    repo = Repository(work)
    db = sqlite3.connect(work / ".git" / "intent" / "index.db")
    prompts = [
        row[0]
        for row in db.execute(
            "SELECT text FROM messages WHERE is_prompt = 1 AND role = 'user' AND text LIKE '%?' AND "
            "length(text) BETWEEN 20 AND 200 ORDER BY agent, session_id, message_id"
        )
    ]
    db.close()
    first = both = 0
    chosen = random.Random(seed).sample(prompts, min(count, len(prompts)))
    for text in chosen:
        words = text.split()
        question = " ".join(words[1:-1]) if len(words) > 4 else text
        hits = [h for h in search(repo, question, limit=9) if h.role in ("user", "assistant")]
        answer = ask(repo, question, offline=True, cwd=work).answer
        top = hits[0] if hits else None
        wanted = [
            next((h for h in hits if h.role == role and top and h.session_id == top.session_id), None)
            for role in ("user", "assistant")
        ]
        first += bool(top) and f"[{top.session_id}:{top.message_id}]" in answer
        both += all(f"[{h.session_id}:{h.message_id}]" in answer for h in wanted if h is not None)
    return {"questions": len(chosen), "ask_cites_search_first": first, "ask_cites_question_and_answer": both}


def _cut_list(passage: str, text: str) -> bool:
    """Whether `passage` ends with the number of a list item of `text` ("… the file 2." where a line of the
    message starts "2. "): a sentence cut inside a list."""
    end = _LIST_MARKER_END.search(passage)
    return end is not None and re.search(rf"(?m)^\s*{end.group(1)}[.)]\s", text) is not None


def review_rules(repo: Any, rows: list[dict[str, Any]]) -> None:
    """`review COMMIT` of each sampled line's commit: the group holding the line quotes nothing as asked,
    confirmed or because that is later than its edit, and its text shows `confirmed` where blame does."""
    from git_intent.review import review_range
    from git_intent.review.text import cite, reason_of, review_text

    reviews: dict[str, Any] = {}
    for row in rows:
        row["review_later_than_edit"] = row["review_confirmed_missing"] = 0
        commit = row["commit"]
        path, line = row["location"].rsplit(":", 1)
        if commit is None:
            continue
        if commit not in reviews:
            answer = review_range(repo, commit)
            reviews[commit] = (answer, review_text(answer))
        answer, text = reviews[commit]
        for group in [
            g
            for f in answer.files
            if f.path == path
            for h in f.hunks
            for g in h.groups
            if g.start <= int(line) <= g.end and g.status == "agent"
        ]:
            edit = next((e for e in group.evidence if e.kind == "edit"), None)
            confirmed = next((e for e in group.evidence if e.kind == "confirmed"), None)
            shown = [e for e in group.evidence if e.kind == "request"] + [
                e for e in (confirmed, reason_of(group)) if e
            ]
            row["review_later_than_edit"] += sum(
                1
                for e in shown
                if edit is not None and e.timestamp and edit.timestamp and e.timestamp > edit.timestamp
            )
            missing = row["confirmed_shown"] and (
                confirmed is None
                or f"confirmed {chr(0x201C)}" not in text
                or cite(confirmed.session_id, confirmed.message_id) not in text
            )
            row["review_confirmed_missing"] += int(bool(missing))


def build(root: Path, gitdir: Path, limit: int | None, count: int) -> None:
    truth = prepare(root, gitdir, limit, {}, print)
    folders = sorted({str(e.path.parent) for e in {id(e): e for e in truth.extracted.values()}.values()})
    run = run_cli(
        ["backfill", truth.revision_range, "--json", *(a for p in folders for a in ("--transcript", p))],
        truth.work,
        root,
    )
    if run["code"] != 0:
        sys.exit(f"backfill failed: {run['stderr'][-2000:]}")
    cases = sample(truth.work, truth, count)
    (root / "cases.json").write_text(json.dumps({"work": str(truth.work), "cases": cases}, indent=1))
    print(f"sampled {len(cases)} lines, one per edit call")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path("/work/.mirror/entireio+cli/repo"))
    parser.add_argument("--limit", type=int, default=None, help="only the newest ~N commits of main")
    parser.add_argument(
        "--lines", type=int, default=DEFAULT_LINES, help=f"lines sampled (default {DEFAULT_LINES})"
    )
    parser.add_argument(
        "--keep", type=Path, default=None, help="build the sandbox in this new folder and keep it"
    )
    parser.add_argument(
        "--reuse", type=Path, default=None, help="measure again in a sandbox kept with --keep"
    )
    parser.add_argument(
        "--questions",
        type=int,
        default=40,
        help="user questions asked of `ask` and `search` alike (default 40; 0 skips)",
    )
    parser.add_argument("--json", action="store_true", help="print every row as JSON")
    parser.add_argument(
        "--show", action="store_true", help="print the lines answered wrongly, with their truth"
    )
    args = parser.parse_args()
    if args.reuse:
        root = args.reuse.resolve()
        isolate(root)
    else:
        root = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="git-intent-reasons-"))
        root.mkdir(parents=True, exist_ok=True)
        isolate(root)
        build(root, locate(args.repo), args.limit, args.lines)
    os.environ.pop("GIT_INTENT_MODEL", None)
    saved = json.loads((root / "cases.json").read_text())
    figures = measure(Path(saved["work"]), saved["cases"])
    figures["ask_like_search"] = (
        ask_like_search(Path(saved["work"]), args.questions) if args.questions else None
    )
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    if args.show:
        for r in figures["rows"]:
            if not (r["request_ok"] and r["reason_ok"] is not False and r["ask_ok"]):
                print(
                    f"--- {r['location']} request {r['request_ok']} reason {r['reason_ok']} ask {r['ask_ok']}"
                    f"\n  truth request: {r['request']!r}\n  truth reasons: {r['reasons']}\n{r['answer']}\n"
                    f"  ask: {r['ask'][:600]}\n"
                )
    f = figures
    print(f"{root}: {f['lines']} lines ({f['credited_right']} credited to the right session)")
    print(f"  why quotes the request that opened the edit's turn      {f['why_quotes_request']:.2f}")
    print(
        f"  why quotes one of the 3 nearest reasons ({f['lines_with_reason']} lines)    "
        f"{f['why_quotes_near_reason']:.2f}"
    )
    print(f"  ask: the edit's turn among its first 2 citations         {f['ask_turn_in_first_two']:.2f}")
    print(
        f"    of the {f['unique_lines']} lines whose text occurs once in the file            "
        f"{f['ask_turn_in_first_two_unique']:.2f}"
    )
    print(f"  ask median time                                          {f['ask_median_s']:.2f} s")
    print(
        f"  why minus blame, median                                  {f['why_minus_blame_median_ms']:.0f} ms"
    )
    print(
        f"  of the {f['credited_right']} lines blame credits to the session that wrote them: why quotes "
        f"the request {f['credited_right_why_quotes_request']:.2f}, one of the 3 nearest reasons "
        f"{f['credited_right_why_quotes_near_reason']:.2f}"
    )
    if f["why_quotes_typed_request"] is not None:
        print(
            f"    the request when a slash command never counts as a prompt (this measure's first reading) "
            f"{f['why_quotes_typed_request']:.2f}"
        )
    print(
        f"  quotes given as why later than the edit (goal 0): blame {f['later_than_edit']}, review "
        f"{f['review_later_than_edit']}; quotes out of time order {f['out_of_time_order']}; passages cut "
        f"inside a list {f['cut_list_items']}"
    )
    print(
        f"  bare confirmations {f['confirmations']}, shown with what they confirmed "
        f"{f['confirmed_shown']}; review's text without that `confirmed` {f['review_confirmed_missing']}"
    )
    if f["ask_like_search"]:
        a = f["ask_like_search"]
        print(
            f"  {a['questions']} user questions reworded: ask cites search's first hit "
            f"{a['ask_cites_search_first']}, its session's best question and answer "
            f"{a['ask_cites_question_and_answer']}"
        )


if __name__ == "__main__":
    main()
