"""`git intent backfill`: recall on the real linked corpus, idempotence, resuming, and a bad range."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from conftest import corpus, git, run_cli
from support import ENTIRE_8ECE, ENTIRE_AC3F_S0, ENTIRE_AC3F_S2, GITSYNC_8FEA, at, make_repo, session_cwd
from transcript_replay import commit_replayed, rebuild_claude, rebuild_codex, write_replayed


def backfill(repo: Path, *args: str) -> dict[str, object]:
    proc = run_cli("backfill", *args, "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_backfill_recall_on_the_linked_corpus(tmp_path: Path) -> None:
    """One history holding all four linked commits, recorded by backfill alone (no hooks ran)."""
    t8, t0, t2, tg = (corpus("linked", *ENTIRE_8ECE), corpus("linked", *ENTIRE_AC3F_S0),
                      corpus("linked", *ENTIRE_AC3F_S2), corpus("linked", *GITSYNC_8FEA))
    repo = make_repo(tmp_path / "repo")
    steps = [(t8, rebuild_claude(t8), "fix test"), (t2, rebuild_claude(t2), "log error when marshalling fails"),
             (t0, rebuild_claude(t0), "handle if a single jsonl line is bigger then chunk size"),
             (tg, rebuild_codex(tg), "even more general url validation")]
    steps.sort(key=lambda s: at(s[1].first_edit_at))
    for transcript, rebuild, subject in steps:
        cwd = session_cwd(transcript)
        fresh = {p: t for p, t in rebuild.pre.items()
                 if not (repo / p[len(cwd.rstrip('/')) + 1:]).exists()}
        write_replayed(repo, fresh, cwd)
        commit_replayed(repo, f"baseline for {subject}", at(rebuild.first_edit_at) - timedelta(minutes=30))
        write_replayed(repo, rebuild.post, cwd)
        commit_replayed(repo, subject, at(rebuild.last_edit_at) + timedelta(minutes=1))
    args = [a for s in steps for a in ("--transcript", str(s[0]))]
    result = backfill(repo, *args)
    print(f"backfill recall on the linked corpus: {result['lines_attributed']}/{result['lines_added']} "
          f"(including the baselines' lines, which no agent wrote); sessions {result['sessions']}")
    assert result["commits"] == 8 and result["recorded"] == 8
    assert result["sessions"] == {
        "claude-code:cc432c40-914a-4c1a-a972-0103199a736a": 54,
        "claude-code:1ed1f046-f456-4f14-9c74-bb83179cf809": 8,
        "claude-code:0a0314fb-b206-450f-b895-cd5181a28ae5": 32,
        "codex:019ddd6f-3680-7fb3-8f93-e567af97d303": 45,
    }
    again = backfill(repo, *args)
    assert (again["recorded"], again["skipped"]) == (0, 8)
    assert git(repo, "fsck", "--no-dangling") is not None


def test_backfill_resumes_and_changes_nothing_twice(repo: Path) -> None:
    for i in range(6):
        (repo / f"f{i}.txt").write_text(f"line {i}\n")
        git(repo, "add", f"f{i}.txt")
        git(repo, "commit", "-q", "-m", f"c{i}")
    first = backfill(repo, "HEAD~3")
    assert (first["commits"], first["recorded"]) == (4, 4)
    notes_ref = git(repo, "rev-parse", "refs/notes/intent")
    rest = backfill(repo)
    assert (rest["commits"], rest["recorded"], rest["skipped"]) == (7, 3, 4)
    moved = git(repo, "rev-parse", "refs/notes/intent")
    assert moved != notes_ref
    assert backfill(repo)["recorded"] == 0
    assert git(repo, "rev-parse", "refs/notes/intent") == moved
    listed = git(repo, "notes", "--ref", "refs/notes/intent", "list").splitlines()
    assert len(listed) == 7


def test_backfill_of_a_bad_range_is_one_sentence(repo: Path) -> None:
    proc = run_cli("backfill", "no-such-branch..HEAD", cwd=repo)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: 'no-such-branch..HEAD' is not a revision or range")
