"""SEARCH/REPLACE blocks, the edit format Cline's `replace_in_file` and Roo Code's `apply_diff` send: the text
to find and the text to put in its place, one block after another. Pure functions, no I/O.

Cline (apps/vscode/src/core/assistant-message/diff.ts, v3.89) writes

    ------- SEARCH
    old lines
    =======
    new lines
    +++++++ REPLACE

and still accepts its legacy markers `<<<<<<< SEARCH` / `>>>>>>> REPLACE` (three or more of each character, an
optional `>` after the word). Roo Code (src/core/prompts/tools/native-tools/apply_diff.ts, v3.52) adds a
`:start_line:N` line (and optionally `:end_line:N`) and a `-------` line after the SEARCH marker.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Block", "blocks"]


@dataclass(frozen=True)
class Block:
    """One block: `old` text replaced by `new`, found from line `start_line` of the file when the block
    says."""

    old: str
    new: str
    start_line: int | None = None


def blocks(diff: str) -> list[Block]:
    """Every complete block of `diff`, in order; a block cut off before its REPLACE marker is left out (the
    tool applies none of it). Lines are compared with trailing white space (and a Windows `\\r`) removed."""
    found: list[Block] = []
    state = "outside"
    old: list[str] = []
    new: list[str] = []
    start: int | None = None
    for raw in diff.split("\n"):
        line = raw.rstrip()
        if state == "outside":
            if _marker(line, "-<", "SEARCH"):
                state, old, new, start = "meta", [], [], None
            continue
        if state in ("meta", "hinted"):  # Roo Code's line hints and their separator, after the SEARCH marker
            if line.startswith(":start_line:") and line[12:].strip().isdigit():
                start, state = int(line[12:].strip()), "hinted"
                continue
            if line.startswith(":end_line:"):
                state = "hinted"
                continue
            hinted, state = state == "hinted", "search"
            if hinted and len(line) >= 3 and set(line) == {"-"}:
                continue
        if state == "search":
            if len(line) >= 3 and set(line) == {"="}:
                state = "replace"
            else:
                old.append(raw.removesuffix("\r"))
            continue
        if _marker(line, "+>", "REPLACE"):
            found.append(Block("\n".join(old), "\n".join(new), start))
            state = "outside"
        else:
            new.append(raw.removesuffix("\r"))
    return found


def _marker(line: str, chars: str, word: str) -> bool:
    """Whether `line` is three or more of one of `chars`, a space and `word`, with an optional `>` after
    it."""
    head, _, tail = line.partition(" ")
    return len(head) >= 3 and len(set(head)) == 1 and head[0] in chars and tail in (word, word + ">")
