"""one_truth.py's phases 3 and 4: every surface's class of each added line, and the answers without and
with the caches. Each surface runs as the user runs it (the CLI, `--json`); lines are keyed by (commit,
path, line as that commit added it): blame and review answer lines of the range's end, which `git blame
--porcelain` maps back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from one_truth import git, intent

Key = tuple[str, str, int]
AGENT = ("agent_with_evidence", "agent_without_evidence")


def origins(work: Path, end: str, path: str) -> dict[int, Key]:
    """final line -> (commit, path at that commit, line there), from `git blame --porcelain END -- PATH`."""
    out = subprocess.run(
        ["git", "blame", "--porcelain", end, "--", path],
        cwd=work,
        capture_output=True,
        text=True,
        errors="replace",
    ).stdout
    found: dict[int, Key] = {}
    names: dict[str, str] = {}
    current: tuple[str, int, int] | None = None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and len(parts[0]) == 40 and all(c in "0123456789abcdef" for c in parts[0]):
            current = (parts[0], int(parts[1]), int(parts[2]))
        elif line.startswith("filename ") and current is not None:
            names[current[0]] = line[len("filename ") :]
        elif line.startswith("\t") and current is not None:
            found[current[2]] = (current[0], names.get(current[0], path), current[1])
    return found


def range_files(work: Path, rng: str) -> list[str]:
    base, _, end = rng.partition("..")
    out = git(work, "diff", "--name-only", "--diff-filter=AM", "--no-renames", base, end or "HEAD")
    return [p for p in out.splitlines() if p]


def classes(work: Path, rng: str) -> dict[str, dict[Key, str]]:
    """surface -> (commit, path, line) -> class, for the lines each surface answers about."""
    end = rng.partition("..")[2] or "HEAD"
    found: dict[str, dict[Key, str]] = {}
    audit = json.loads(intent(work, "audit", rng, "--json", "--lines").stdout)
    found["audit"] = {(r["commit"], r["path"], r["line"]): r["line_class"] for r in audit["listed"]}
    review = json.loads(intent(work, "review", rng, "--json").stdout)
    found["review"] = {}
    for file in review["files"]:
        back = origins(work, end, file["path"])
        for hunk in file["hunks"]:
            for group in hunk["groups"]:
                for line in group["lines"]:
                    if line["content"].strip() and line["line"] in back:
                        found["review"][back[line["line"]]] = group["line_class"] or "unrecorded"
    found["blame"] = {}
    for path in range_files(work, rng):
        if not (work / path).is_file():
            continue
        back = origins(work, "HEAD", path)
        answer = json.loads(intent(work, "blame", path, "--json").stdout)
        for line in answer["lines"]:
            if line["content"].strip() and line["line"] in back and line.get("line_class"):
                found["blame"][back[line["line"]]] = line["line_class"]
    found["export"] = {}
    for text in intent(work, "export", "--format", "agent-trace", rng).stdout.splitlines():
        record = json.loads(text)
        for file in record["files"]:
            for conversation in file["conversations"]:
                for r in conversation["ranges"]:
                    for n in range(r["start_line"], r["end_line"] + 1):
                        found["export"][(record["vcs"]["revision"], file["path"], n)] = "agent"
    return found


def surfaces(work: Path, rng: str, figures: dict[str, Any], say: Callable[[str], None]) -> None:
    found = classes(work, rng)
    in_range = set(git(work, "rev-list", rng).split())
    audited = found["audit"]
    differ: dict[str, int] = {}
    examples: list[str] = []
    for name in ("review", "blame", "export"):
        count = 0
        for key, value in found[name].items():
            if key[0] not in in_range:
                continue  # a line older than the range: audit does not count it
            if name == "export":
                if key not in audited:
                    continue  # a blank line
                mine, theirs = "agent", "agent" if audited[key] in AGENT else audited[key]
            else:
                mine, theirs = value, audited.get(key, "absent")
            if mine != theirs:
                count += 1
                if len(examples) < 8:
                    examples.append(f"{name} {key[0][:8]} {key[1]}:{key[2]} {mine} / audit {theirs}")
        differ[name] = count
    exported = {k for k, v in audited.items() if v in AGENT and k[0] in in_range}
    differ["export_missing"] = len(exported - set(found["export"]))
    stats = json.loads(intent(work, "stats", rng, "--json").stdout)
    audit = json.loads(intent(work, "audit", rng, "--json").stdout)
    by_class = {
        k: audit["lines"][k] for k in ("agent_with_evidence", "agent_without_evidence", "human", "unrecorded")
    }
    figures["surfaces"] = {
        "range": rng,
        "lines": {name: len(v) for name, v in found.items()},
        "differ_from_audit": differ,
        "lines_differing": sum(differ.values()),
        "stats_by_class": stats["by_class"],
        "audit_by_class": by_class,
        "stats_equals_audit": stats["by_class"] == by_class,
        "commits": {"stats": stats["commits"], "audit": audit["commits"]},
        "examples": examples,
    }
    say(f"surfaces: {figures['surfaces']}")


def answers(work: Path, rng: str) -> dict[str, str]:
    """Every answer the cache phase compares: blame of the range's files, review, audit, stats, export."""
    found = {
        f"blame {p}": intent(work, "blame", p, "--json").stdout
        for p in range_files(work, rng)
        if (work / p).is_file()
    }
    found["review"] = intent(work, "review", rng, "--json").stdout
    found["audit"] = intent(work, "audit", rng, "--json", "--lines").stdout
    found["stats"] = intent(work, "stats", rng, "--json").stdout
    found["export"] = intent(work, "export", "--format", "agent-trace", rng).stdout
    return found


def drop_caches(work: Path) -> None:
    """The session index, the record cache and the user's parse and symbol caches."""
    state = work / ".git" / "intent"
    for name in ("index.db", "record-cache.db"):
        for suffix in ("", "-wal", "-shm", "-journal"):
            (state / f"{name}{suffix}").unlink(missing_ok=True)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path(os.environ["HOME"]) / ".cache") / "git-intent"
    shutil.rmtree(cache, ignore_errors=True)


def caches(work: Path, rng: str, figures: dict[str, Any], say: Callable[[str], None]) -> None:
    drop_caches(work)
    cold = answers(work, rng)
    intent(work, "index")
    warm = answers(work, rng)
    differ = sorted(name for name in cold if cold[name] != warm.get(name))
    figures["caches"] = {"answers": len(cold), "differ": len(differ), "which": differ[:10]}
    say(f"caches: {figures['caches']}")
