"""Test support: rebuilding the files of a real session straight from its transcript, independently of the
adapters, to build the repositories the corpus tests record and blame.

Claude Code edits carry `originalFile`, so the pre-image is exact; Codex patches do not, so the pre-image
holds the lines the patches show at their real line numbers and unique filler lines elsewhere. This reads the
formats a second time on purpose: a test that rebuilt its repository through the adapters could not catch an
adapter that misreads the edits. The product replays through `git_intent.sessions.replay` (Session.edits).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from git_intent.sessions.replay import Rebuild, commit_replayed, write_replayed
from git_intent.transcripts.jsonl import iter_records
from git_intent.transcripts.patches import HUNK_HEADER

__all__ = [
    "Rebuild",
    "RebuildError",
    "commit_replayed",
    "linked_history",
    "rebuild_claude",
    "rebuild_codex",
    "write_replayed",
]

_CLAUDE_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit"})


class RebuildError(ValueError):
    """An edit in the transcript does not apply to the text rebuilt so far (the file changed outside it)."""


def _blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict)]


def _replace(text: str, old: str, new: str, replace_all: bool, where: str) -> str:
    if old == "":
        if text != "":
            raise RebuildError(f"{where}: empty old_string on a non-empty file")
        return new
    if old not in text:
        raise RebuildError(f"{where}: old_string not found in the rebuilt text")
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def _finish(pre: dict[str, str], post: dict[str, str], stamps: list[str]) -> Rebuild:
    if not stamps:
        return Rebuild(pre=pre, post=post, first_edit_at="", last_edit_at="", edits_applied=0)
    return Rebuild(
        pre=pre, post=post, first_edit_at=stamps[0], last_edit_at=stamps[-1], edits_applied=len(stamps)
    )


def rebuild_claude(transcript: Path) -> Rebuild:
    """Replay the successful Edit, MultiEdit and Write calls of a Claude Code transcript in result order.

    The pre-image of a file is the `toolUseResult.originalFile` of its first successful edit ("" when the
    file did not exist). Calls whose tool_result is an error, or whose toolUseResult is not a dict (error
    text, or absent), are skipped. Timestamps are those of the tool_result records, i.e. when each edit was
    applied. Raises RebuildError when an edit's old_string is not in the text rebuilt so far.
    """
    calls: dict[str, tuple[str, dict[str, Any], str]] = {}
    done: set[str] = set()
    pre: dict[str, str] = {}
    post: dict[str, str] = {}
    stamps: list[str] = []
    for record in iter_records(transcript):
        stamp = str(record.get("timestamp") or "")
        if record.get("type") == "assistant":
            for block in _blocks(record):
                name, inp = block.get("name"), block.get("input")
                if block.get("type") == "tool_use" and name in _CLAUDE_EDIT_TOOLS and isinstance(inp, dict):
                    calls[str(block.get("id"))] = (str(name), inp, stamp)
            continue
        if record.get("type") != "user":
            continue
        result = record.get("toolUseResult")
        for block in _blocks(record):
            use_id = str(block.get("tool_use_id"))
            if block.get("type") != "tool_result" or use_id not in calls or use_id in done:
                continue
            if block.get("is_error") is True or not isinstance(result, dict):
                continue
            done.add(use_id)
            name, inp, use_stamp = calls[use_id]
            path = str(inp.get("file_path") or result.get("filePath") or "")
            if path not in post:
                original = result.get("originalFile")
                pre[path] = original if isinstance(original, str) else ""
                post[path] = pre[path]
            where = f"{transcript.name} {name} {use_id} {path}"
            if name == "Write":
                post[path] = str(inp.get("content", ""))
            else:
                edits = inp.get("edits") if name == "MultiEdit" else [inp]
                for edit in edits if isinstance(edits, list) else []:
                    post[path] = _replace(
                        post[path],
                        str(edit.get("old_string", "")),
                        str(edit.get("new_string", "")),
                        edit.get("replace_all") is True,
                        where,
                    )
            stamps.append(stamp or use_stamp)
    return _finish(pre, post, stamps)


@dataclass
class _CodexFile:
    """One file under Codex replay: known pre-image lines and the current text as references into them."""

    known: dict[int, str] = field(default_factory=dict)  # 1-based pre-image line -> text, where known
    size: int = 0  # pre-image lines allocated so far (unknown ones render as filler)
    cur: list[int | str] = field(default_factory=list)  # int = pre-image line number, str = written line
    exact_pre: str | None = None  # whole pre-image when a change gave it (add -> "", delete -> content)

    def line(self, entry: int | str, filler: str) -> str:
        if isinstance(entry, str):
            return entry
        return self.known.get(entry, f"{filler} {entry}")

    def apply(self, unified_diff: str, where: str) -> None:
        delta = 0
        lines = unified_diff.split("\n")
        i = 0
        while i < len(lines):
            header = HUNK_HEADER.match(lines[i])
            i += 1
            if header is None:
                continue
            old_start, old_count = int(header.group(1)), int(header.group(2) or "1")
            body: list[str] = []
            while i < len(lines) and not lines[i].startswith("@@"):
                if lines[i][:1] in (" ", "-", "+"):
                    body.append(lines[i])
                i += 1
            at = (old_start - 1 if old_count else old_start) + delta
            while len(self.cur) < at + old_count:
                self.size += 1
                self.cur.append(self.size)
            replacement: list[int | str] = []
            pos = at
            for row in body:
                tag, text = row[0], row[1:]
                if tag == "+":
                    replacement.append(text)
                    continue
                if pos >= at + old_count:
                    raise RebuildError(f"{where}: hunk -{old_start} has more old lines than its header says")
                entry = self.cur[pos]
                pos += 1
                if isinstance(entry, int) and entry not in self.known:
                    self.known[entry] = text
                elif self.line(entry, "") != text:
                    found = self.line(entry, "")
                    raise RebuildError(f"{where}: line {pos} is {found!r}, the patch expects {text!r}")
                if tag == " ":
                    replacement.append(entry)
            if pos - at != old_count:
                raise RebuildError(f"{where}: hunk -{old_start} has {pos - at} old lines, header {old_count}")
            self.cur[at:pos] = replacement
            delta += len(replacement) - old_count

    def pre_text(self, filler: str) -> str:
        if self.exact_pre is not None:
            return self.exact_pre
        return "".join(self.line(k, filler) + "\n" for k in range(1, self.size + 1))

    def post_text(self, filler: str) -> str:
        return "".join(self.line(entry, filler) + "\n" for entry in self.cur)


def _split_lines(text: str) -> list[str]:
    """Split file text into lines on "\\n" only; a final newline does not start another line."""
    return text[:-1].split("\n") if text.endswith("\n") else (text.split("\n") if text else [])


def _filler_prefix(texts: Iterable[str]) -> str:
    """A filler prefix that is a substring of no patch text, so no filler line can equal a real line."""
    corpus = "\n".join(texts)
    prefix = "// pre-image filler line"
    while prefix in corpus:
        prefix += "~"
    return prefix


def rebuild_codex(transcript: Path) -> Rebuild:
    """Replay the successful apply_patch calls of a Codex rollout, building a minimal pre-image as it goes.

    Each `patch_apply_end` event with success true is applied once (by call_id) through its `changes`:
    update hunks are placed by their real line numbers, and every old-side line a hunk names that is still
    unknown becomes known in both the pre-image and the current text; all other lines are filler. Timestamps
    are those of the patch_apply_end events. Raises RebuildError when a hunk contradicts known text.
    """
    files: dict[str, _CodexFile] = {}  # current path -> state; a move re-keys the same state
    states: list[tuple[str, _CodexFile]] = []  # (path before the session, state), in first-touch order
    seen: set[str] = set()
    stamps: list[str] = []
    texts: list[str] = []
    for record in iter_records(transcript):
        payload = record.get("payload")
        if record.get("type") != "event_msg" or not isinstance(payload, dict):
            continue
        if payload.get("type") != "patch_apply_end" or payload.get("success") is not True:
            continue
        call_id = str(payload.get("call_id"))
        changes = payload.get("changes")
        if call_id in seen or not isinstance(changes, dict):
            continue
        seen.add(call_id)
        for path, change in changes.items():
            if not isinstance(change, dict):
                continue
            kind = change.get("type")
            state = files.get(path)
            if state is None:
                state = files[path] = _CodexFile()
                states.append((path, state))
                if kind in ("add", "delete"):
                    state.exact_pre = "" if kind == "add" else str(change.get("content", ""))
            if kind == "add":
                content = str(change.get("content", ""))
                texts.append(content)
                state.cur = list[int | str](_split_lines(content))
            elif kind == "delete":
                texts.append(str(change.get("content", "")))
                del files[path]
            elif kind == "update":
                diff = str(change.get("unified_diff", ""))
                texts.append(diff)
                state.apply(diff, f"{transcript.name} apply_patch {call_id} {path}")
                target = change.get("move_path")
                if isinstance(target, str) and target and target != path:
                    files[target] = files.pop(path)
        stamps.append(str(record.get("timestamp") or ""))
    filler = _filler_prefix(texts)
    pre: dict[str, str] = {}
    for path, state in states:
        pre.setdefault(path, state.pre_text(filler))
    post = {path: state.post_text(filler) for path, state in files.items()}
    for path in post:
        pre.setdefault(path, "")  # a move target did not exist before the session
    return _finish(pre, post, stamps)


def linked_history(repo: Path) -> list[str]:
    """The linked corpus's real commits rebuilt in `repo` (an empty repository) in the order their sessions
    ran, each after a person's baseline and with its `Entire-Checkpoint` trailer, and the corpus's
    checkpoints on `entire/checkpoints/v1`; returns the trailer commits, oldest first."""
    from datetime import timedelta

    from support import (
        ENTIRE_8ECE,
        ENTIRE_AC3F_S0,
        ENTIRE_AC3F_S2,
        GITSYNC_8FEA,
        at,
        corpus,
        corpus_files,
        session_cwd,
        set_ref,
        write_tree,
    )

    cases = [
        (ENTIRE_8ECE, "8ece5fc12e98", rebuild_claude, "fix test"),
        (ENTIRE_AC3F_S2, "ac3f02a3c337", rebuild_claude, "log error when marshalling fails"),
        (
            ENTIRE_AC3F_S0,
            "ac3f02a3c337",
            rebuild_claude,
            "handle if a single jsonl line is bigger then chunk size",
        ),
        (GITSYNC_8FEA, "8feaf84a600f", rebuild_codex, "even more general url validation"),
    ]
    steps = sorted(
        ((corpus("linked", *t), cp, build(corpus("linked", *t)), subject) for t, cp, build, subject in cases),
        key=lambda s: at(s[2].first_edit_at),
    )
    commits = []
    for transcript, checkpoint, rebuild, subject in steps:
        cwd = session_cwd(transcript).rstrip("/")
        write_replayed(
            repo, {p: t for p, t in rebuild.pre.items() if not (repo / p[len(cwd) + 1 :]).exists()}, cwd
        )
        commit_replayed(repo, f"baseline for {subject}", at(rebuild.first_edit_at) - timedelta(minutes=30))
        write_replayed(repo, rebuild.post, cwd)
        commits.append(
            commit_replayed(
                repo,
                f"{subject}\n\nEntire-Checkpoint: {checkpoint}\n",
                at(rebuild.last_edit_at) + timedelta(minutes=1),
            )
        )
    set_ref(repo, "refs/heads/entire/checkpoints/v1", write_tree(repo, corpus_files()), "Checkpoints")
    return commits
