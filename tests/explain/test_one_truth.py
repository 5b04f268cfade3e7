"""One truth on generated histories: every surface classifies each added line alike (blame of a line, of a
file, review, audit, stats, export), and no cache changes an answer (the session index, the record cache, the
parse and symbol caches, a commit answered alone or with others).

Histories are drawn by Hypothesis: commits that add lines of a small vocabulary (so texts repeat and trivial
lines occur), written before each commit by one or two Claude Code sessions or by nobody, some commits
recorded, some carrying an agent's trailer.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import ClaudeSession, Clock, commit_at, git, make_repo

from git_intent.capture.record import record_commit
from git_intent.core.values import to_json
from git_intent.explain.blame import blame_lines
from git_intent.explain.classify import LineResolver
from git_intent.explain.stats import range_stats
from git_intent.git.repo import Repository
from git_intent.index.load import ingest
from git_intent.interop.agent_trace import export_records
from git_intent.review import review_range
from git_intent.share.audit import audit

pytestmark = pytest.mark.slow

VOCABULARY = [
    "def order_total(items):",
    "    return sum(item.price for item in items)",
    "}",
    "",
    "CheckpointTime time.Time",
    "rate = compute_rate_limit(settings)",
    "    pass",
    "logger = logging.getLogger(__name__)",
]


@dataclass(frozen=True)
class Step:
    """One commit: the lines it appends to `path`, the sessions that wrote them first, whether it is
    recorded and whether a trailer names Claude."""

    path: str
    lines: tuple[str, ...]
    writers: tuple[str, ...]
    recorded: bool
    trailer: bool


steps = st.builds(
    Step,
    path=st.sampled_from(["app.py", "lib/util.py"]),
    lines=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=5).map(tuple),
    writers=st.lists(st.sampled_from(["A", "B"]), max_size=2, unique=True).map(tuple),
    recorded=st.booleans(),
    trailer=st.booleans(),
)


def build(root: Path, history: list[Step]) -> list[str]:
    """The history as commits of `root` (an empty repository); the sessions' transcripts where Claude Code
    keeps them; the commits marked recorded recorded. Returns the commits, oldest first."""
    start = datetime.now(timezone.utc) - timedelta(hours=5)
    sessions = {
        name: ClaudeSession(
            cwd=root,
            clock=Clock(start),
            session_id=f"{name.lower() * 8}-0000-4000-8000-{'0' * 11}{ord(name) - 64}",
        )
        for name in ("A", "B")
    }
    for agent in sessions.values():
        agent.prompt("Build the order module")
    (root / "README").write_text("base\n", encoding="utf-8")
    commits = [commit_at(root, "base", start, "README")]
    for n, step in enumerate(history, 1):
        at = start + timedelta(minutes=20 * n)
        path = root / step.path
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        new = old + "".join(f"{line}\n" for line in step.lines)
        for offset, name in enumerate(step.writers):
            agent = sessions[name]
            agent.clock.now = at - timedelta(minutes=10 - offset)
            agent.write(f"Writing {step.path}.", path, new)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(new, encoding="utf-8")
        trailer = "\n\nCo-Authored-By: Claude <noreply@anthropic.com>" if step.trailer else ""
        commits.append(commit_at(root, f"step {n}{trailer}", at, step.path))
    for agent in sessions.values():
        agent.save()
    repo = Repository(root)
    for commit, step in zip(commits[1:], history, strict=True):
        if step.recorded:
            record_commit(repo, commit)
    return commits


def answers(root: Path, base: str) -> dict[str, Any]:
    """Every surface's answer, as JSON-ready data."""
    repo = Repository(root)
    files = sorted(p for p in ("app.py", "lib/util.py") if (root / p).exists())
    found: dict[str, Any] = {}
    for path in files:
        whole = blame_lines(repo, path, root)
        found[f"file {path}"] = [
            (a.line, a.status, to_json(a.attribution), a.line_class) for a in whole.lines
        ]
        found[f"lines {path}"] = [
            (a.line, a.status, to_json(a.attribution), a.line_class)
            for n in range(1, len(whole.lines) + 1)
            for a in blame_lines(repo, f"{path}:{n}", root).lines
        ]
    found["review"] = review_range(repo, f"{base}..HEAD").model_dump(mode="json")
    found["audit"] = audit(repo, f"{base}..HEAD", listed=True).model_dump(mode="json")
    found["stats"] = range_stats(repo, f"{base}..HEAD").model_dump(mode="json")
    found["export"] = [r.dump() for r in export_records(repo, f"{base}..HEAD")]
    return found


def drop_caches(root: Path) -> None:
    for name in ("index.db", "record-cache.db"):
        for suffix in ("", "-wal", "-shm"):
            (root / ".git" / "intent" / f"{name}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(Path.home() / ".cache" / "git-intent", ignore_errors=True)


def agree(root: Path, base: str, found: dict[str, Any]) -> None:
    """Every surface gives each line the class audit gives it."""
    repo = Repository(root)
    listed = {(r["commit"], r["path"], r["line"]): r["line_class"] for r in found["audit"]["listed"]}
    for path in ("app.py", "lib/util.py"):
        if not (root / path).exists():
            continue
        origin = {b.final_line: (b.commit, b.orig_path, b.orig_line) for b in repo.blame(path)}
        for number, _status, _attribution, line_class in found[f"file {path}"]:
            key = origin[number]
            if key in listed:
                assert line_class == listed[key], (path, number, key)
        assert found[f"lines {path}"] == found[f"file {path}"]
    for file in found["review"]["files"]:
        origin = {b.final_line: (b.commit, b.orig_path, b.orig_line) for b in repo.blame(file["path"])}
        for hunk in file["hunks"]:
            for group in hunk["groups"]:
                for line in group["lines"]:
                    if line["content"].strip():
                        assert group["line_class"] == listed[origin[line["line"]]], line
    exported = {
        (r["vcs"]["revision"], f["path"], n)
        for r in found["export"]
        for f in r["files"]
        for c in f["conversations"]
        for rng in c["ranges"]
        for n in range(rng["start_line"], rng["end_line"] + 1)
    }
    agents = {k for k, v in listed.items() if v.startswith("agent")}
    assert agents <= exported and not (exported & {k for k, v in listed.items() if not v.startswith("agent")})
    counts = found["audit"]["lines"]
    assert found["stats"]["by_class"] == {k: counts[k] for k in found["stats"]["by_class"]}


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=st.lists(steps, min_size=1, max_size=4))
def test_every_surface_agrees_and_no_cache_changes_an_answer(history: list[Step]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = make_repo(Path(folder) / "repo")
        commits = build(root, history)
        drop_caches(root)
        cold = answers(root, commits[0])
        agree(root, commits[0], cold)
        warm = answers(root, commits[0])  # the record, parse and symbol caches now hold all of it
        ingest(Repository(root))  # and the session index exists
        indexed = answers(root, commits[0])
        assert warm == cold
        assert indexed == cold


def test_a_commit_answered_alone_or_with_others_gets_the_same_credits(repo: Path) -> None:
    """`UnnotedLines` credits one commit through `attribute_commit` and several through backfill's bulk
    loop: the same credits either way."""
    history = [
        Step(
            "app.py",
            ("def order_total(items):", "    return sum(item.price for item in items)"),
            ("A",),
            False,
            False,
        ),
        Step("app.py", ("}", "rate = compute_rate_limit(settings)"), ("A", "B"), False, False),
        Step("lib/util.py", ("logger = logging.getLogger(__name__)", ""), ("B",), False, True),
    ]
    root = repo.resolve()
    commits = build(root, history)
    alone = {c: LineResolver(Repository(root)) for c in commits[1:]}
    together = LineResolver(Repository(root))
    together.prepare(commits[1:])
    for commit in commits[1:]:
        for hunk in Repository(root).added_hunks(commit):
            for offset in range(len(hunk.lines)):
                line = hunk.start + offset
                assert alone[commit].resolve(commit, hunk.path, line) == together.resolve(
                    commit, hunk.path, line
                )
    assert git(root, "notes", "--ref", "refs/notes/git-intent", "list") == ""


def test_forged_note_records_count_alike_everywhere(tmp_path: Path) -> None:
    """Notes a teammate could push by hand: a record whose digest does not match the lines, one reaching
    past the lines its commit added (over a person's lines of an earlier commit, its digest computed to
    match), one past the file's end, one over a blank line. Each line gets one class on every surface: the
    mismatching record's lines are unrecorded, and no surface credits a line its commit did not add."""
    from git_intent.notes import CommitRecord, LinesRecord, SessionRecord, range_digest, render_note

    root = make_repo(tmp_path / "repo")
    start = datetime.now(timezone.utc) - timedelta(hours=3)
    (root / "README").write_text("base\n", encoding="utf-8")
    base = commit_at(root, "base", start, "README")
    person = ["def mine():", "    return 1"]
    (root / "app.py").write_text("\n".join(person) + "\n", encoding="utf-8")
    commit_at(root, "a person's lines", start + timedelta(minutes=10), "app.py")
    added = ["", "def theirs():", "    return 2", "x = theirs()"]
    (root / "app.py").write_text("\n".join(person + added) + "\n", encoding="utf-8")
    forged = commit_at(root, "lines a note lies about", start + timedelta(minutes=20), "app.py")

    def record(first: int, last: int, digest: str, message: str) -> LinesRecord:
        return LinesRecord(
            agent="claude-code",
            session_id="forged-session",
            message_id=message,
            tool="Edit",
            path="app.py",
            start=first,
            end=last,
            match="exact",
            confidence=1.0,
            sha=digest,
        )

    every = person + added
    note = render_note(
        [
            CommitRecord(commit=forged, lines_added=3, lines_attributed=6, recorded_by="someone"),
            SessionRecord(agent="claude-code", session_id="forged-session", lines_attributed=6),
            record(1, 4, range_digest(every[0:4]), "m1"),  # reaches back over the person's two lines
            record(5, 5, "0123456789abcdef", "m2"),  # a digest that matches nothing
            record(6, 9, range_digest(every[5:6]), "m3"),
        ]
    )  # past the end of the file
    (root / ".git" / "forged-note").write_text(note, encoding="utf-8")
    git(
        root,
        "notes",
        "--ref",
        "refs/notes/git-intent",
        "add",
        "-F",
        str(root / ".git" / "forged-note"),
        forged,
    )
    found = answers(root, base)
    agree(root, base, found)
    classes = {(r["path"], r["line"]): r["line_class"] for r in found["audit"]["listed"]}
    # Lines 1-2 are the earlier commit's, which has no note: the record reaching over them credits nothing
    # there.
    assert classes == {
        ("app.py", 1): "unrecorded",
        ("app.py", 2): "unrecorded",
        ("app.py", 4): "agent_without_evidence",
        ("app.py", 5): "unrecorded",
        ("app.py", 6): "unrecorded",
    }
    assert found["stats"]["by_class"]["agent_without_evidence"] == 1
    blamed = {
        line: line_class for line, _s, _a, line_class in found["file app.py"] if every[line - 1].strip()
    }
    assert blamed == {
        1: "unrecorded",
        2: "unrecorded",
        4: "agent_without_evidence",
        5: "unrecorded",
        6: "unrecorded",
    }
