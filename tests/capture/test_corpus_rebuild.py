"""Check transcript rebuilds against the hunks of the real commits they produced, per links.json."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from conftest import CORPUS
from support.transcript_replay import Rebuild, rebuild_claude, rebuild_codex

LINKED = CORPUS / "linked"
ENTIRE = LINKED / "entire-cli"
GITSYNC = LINKED / "git-sync"


def relative_to_repo(recorded_path: str, repo_paths: Iterable[str]) -> str | None:
    """The repository path that is the longest whole-component suffix of a recorded path, or None
    (a test helper: the product maps paths with git_intent.sessions.path_mapping.PathMapper)."""
    recorded = PurePosixPath(recorded_path.replace("\\", "/")).parts
    best: str | None = None
    best_len = 0
    for repo_path in repo_paths:
        parts = PurePosixPath(repo_path.replace("\\", "/")).parts
        if parts and len(parts) > best_len and recorded[-len(parts) :] == parts:
            best, best_len = repo_path, len(parts)
    return best


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

DETACHED = "cmd/entire/cli/telemetry/detached.go"
DETACHED_TEST = "cmd/entire/cli/telemetry/detached_test.go"
GEMINI = "cmd/entire/cli/agent/geminicli/gemini.go"
CHUNKING = "cmd/entire/cli/agent/chunking.go"
CHUNKING_TEST = "cmd/entire/cli/agent/chunking_test.go"
VALIDATION = "internal/validation/validation.go"
VALIDATION_TEST = "internal/validation/validation_test.go"


def commit(links_dir: Path, sha_prefix: str) -> dict[str, Any]:
    """The links.json entry of the commit whose SHA starts with sha_prefix."""
    data = json.loads((links_dir / "links.json").read_text(encoding="utf-8"))
    found = [c for link in data["links"] for c in link["commits"] if c["sha"].startswith(sha_prefix)]
    assert len(found) == 1, f"{sha_prefix}: {len(found)} commits in {links_dir / 'links.json'}"
    entry: dict[str, Any] = found[0]
    return entry


def diff_stats(pre: str, post: str, tmp: Path) -> dict[str, Any]:
    """new_hunks, old_hunks, added and deleted of `git diff --no-index -U0 pre post`, as in links.json."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "pre").write_text(pre, encoding="utf-8", newline="")
    (tmp / "post").write_text(post, encoding="utf-8", newline="")
    proc = subprocess.run(
        [
            "git",
            "-c",
            "diff.algorithm=myers",
            "diff",
            "--no-index",
            "--no-color",
            "--no-ext-diff",
            "-U0",
            "--",
            str(tmp / "pre"),
            str(tmp / "post"),
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    stats: dict[str, Any] = {"new_hunks": [], "old_hunks": [], "added": 0, "deleted": 0}
    for line in proc.stdout.splitlines():
        match = _HUNK.match(line)
        if match:
            stats["old_hunks"].append([int(match.group(1)), int(match.group(2) or "1")])
            stats["new_hunks"].append([int(match.group(3)), int(match.group(4) or "1")])
        elif line.startswith("+") and not line.startswith("+++"):
            stats["added"] += 1
        elif line.startswith("-") and not line.startswith("---"):
            stats["deleted"] += 1
    return stats


def by_repo_path(texts: dict[str, str], repo_paths: list[str]) -> dict[str, str]:
    """Re-key recorded absolute paths by the repository path they end with; unmatched paths are dropped."""
    out: dict[str, str] = {}
    for recorded, text in texts.items():
        rel = relative_to_repo(recorded, repo_paths)
        if rel is not None:
            out[rel] = text
    return out


def check_commit(rebuild: Rebuild, entry: dict[str, Any], tmp: Path) -> dict[str, dict[str, Any]]:
    """Per commit file, rebuilt and real diff stats; asserts the session edited exactly the commit's files."""
    paths = list(entry["files"])
    pre, post = by_repo_path(rebuild.pre, paths), by_repo_path(rebuild.post, paths)
    assert sorted(post) == sorted(paths), f"session edited {sorted(post)}, commit changed {sorted(paths)}"
    result: dict[str, dict[str, Any]] = {}
    for i, path in enumerate(paths):
        got = diff_stats(pre[path], post[path], tmp / str(i))
        want = {key: entry["files"][path][key] for key in ("new_hunks", "old_hunks", "added", "deleted")}
        result[path] = {"got": got, "want": want}
    return result


def assert_matches(result: dict[str, dict[str, Any]]) -> None:
    for path, pair in result.items():
        got, want = pair["got"], pair["want"]
        assert got["new_hunks"] == want["new_hunks"], path
        assert (got["added"], got["deleted"]) == (want["added"], want["deleted"]), path
        assert got["old_hunks"] == want["old_hunks"], path


def assert_edits_before_commit(rebuild: Rebuild, entry: dict[str, Any]) -> None:
    first = datetime.fromisoformat(rebuild.first_edit_at)
    last = datetime.fromisoformat(rebuild.last_edit_at)
    assert first <= last < datetime.fromisoformat(entry["author_date"])


def merged(*rebuilds: Rebuild) -> Rebuild:
    """Chain sessions in first-edit order: a file's pre-image comes from the first session that edited it."""
    ordered = sorted(rebuilds, key=lambda r: datetime.fromisoformat(r.first_edit_at))
    pre: dict[str, str] = {}
    post: dict[str, str] = {}
    for rebuild in ordered:
        for path, text in rebuild.pre.items():
            if path in post:
                assert post[path] == text, f"{path} changed between sessions outside the transcripts"
            pre.setdefault(path, text)
        post.update(rebuild.post)
    return Rebuild(
        pre=pre,
        post=post,
        first_edit_at=ordered[0].first_edit_at,
        last_edit_at=max(r.last_edit_at for r in ordered),
        edits_applied=sum(r.edits_applied for r in ordered),
    )


# --- unit checks of the helpers -------------------------------------------------------------------------


def test_relative_to_repo_longest_suffix() -> None:
    repo = ["validation.go", "internal/validation/validation.go", "cmd/validation.go"]
    assert relative_to_repo("/Users/x/gitsync/internal/validation/validation.go", repo) == repo[1]
    assert relative_to_repo("/Users/x/gitsync/other/validation.go", repo) == "validation.go"
    assert relative_to_repo("/Users/x/gitsync/xvalidation.go", repo) is None
    assert relative_to_repo("C:\\w\\cmd\\validation.go", repo) == "cmd/validation.go"


def test_codex_synthetic_fills_pre_image_from_later_patches(tmp_path: Path) -> None:
    def end(call_id: str, diff: str, ts: str, success: bool = True) -> str:
        payload = {
            "type": "patch_apply_end",
            "call_id": call_id,
            "success": success,
            "changes": {"/r/a.txt": {"type": "update", "unified_diff": diff, "move_path": None}},
        }
        return json.dumps({"timestamp": ts, "type": "event_msg", "payload": payload})

    lines = [
        end("1", "@@ -3,2 +3,2 @@\n c\n-d\n+D\n", "2026-01-01T00:00:01Z"),
        end("x", "@@ -1,1 +1,1 @@\n-zzz\n+never\n", "2026-01-01T00:00:02Z", success=False),
        # refers to line 1 (still filler) and to line 6, past what is known: both become pre-image text
        end("2", "@@ -1,1 +1,2 @@\n a\n+a2\n@@ -6,1 +7,1 @@\n-f\n+F\n", "2026-01-01T00:00:03Z"),
    ]
    # the second record is glued to the first on one physical line
    text = lines[0] + lines[1] + "\nnot json\n" + lines[2] + "\n"
    (tmp_path / "r.jsonl").write_text(text, encoding="utf-8")
    rb = rebuild_codex(tmp_path / "r.jsonl")
    filler = rb.pre["/r/a.txt"].splitlines()[1]
    assert rb.pre["/r/a.txt"].splitlines() == ["a", filler, "c", "d", filler[:-1] + "5", "f"]
    assert rb.post["/r/a.txt"].splitlines() == ["a", "a2", filler, "c", "D", filler[:-1] + "5", "F"]
    assert rb.edits_applied == 2
    assert (rb.first_edit_at, rb.last_edit_at) == ("2026-01-01T00:00:01Z", "2026-01-01T00:00:03Z")


def test_claude_synthetic_skips_failed_edits(tmp_path: Path) -> None:
    def use(use_id: str, name: str, inp: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "assistant",
            "timestamp": "t0",
            "message": {"content": [{"type": "tool_use", "id": use_id, "name": name, "input": inp}]},
        }

    def res(use_id: str, ts: str, tur: Any, is_error: bool = False) -> dict[str, Any]:
        block = {"type": "tool_result", "tool_use_id": use_id, "is_error": is_error}
        return {"type": "user", "timestamp": ts, "message": {"content": [block]}, "toolUseResult": tur}

    records = [
        use("e1", "Edit", {"file_path": "/r/x", "old_string": "b", "new_string": "B"}),
        res("e1", "t1", {"originalFile": "a\nb\nb\n"}),
        use("e2", "Edit", {"file_path": "/r/x", "old_string": "q", "new_string": "Q"}),
        res("e2", "t2", "Error: String to replace not found in file.", is_error=True),
        use(
            "e3",
            "MultiEdit",
            {
                "file_path": "/r/x",
                "edits": [
                    {"old_string": "b", "new_string": "C", "replace_all": True},
                    {"old_string": "a", "new_string": "A"},
                ],
            },
        ),
        res("e3", "t3", {"originalFile": "a\nB\nb\n"}),
        use("w1", "Write", {"file_path": "/r/new", "content": "hello\n"}),
        res("w1", "t4", {"type": "create", "filePath": "/r/new", "content": "hello\n"}),
    ]
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    rb = rebuild_claude(tmp_path / "c.jsonl")
    assert rb.pre == {"/r/x": "a\nb\nb\n", "/r/new": ""}
    assert rb.post == {"/r/x": "A\nB\nC\n", "/r/new": "hello\n"}
    assert (rb.edits_applied, rb.first_edit_at, rb.last_edit_at) == (3, "t1", "t4")


# --- real commits ---------------------------------------------------------------------------------------


def test_entire_8ece5fc12e98_rebuilds_commit_3d0f9eede6(tmp_path: Path) -> None:
    rb = rebuild_claude(ENTIRE / "checkpoints/8e/ce5fc12e98/0/full.jsonl")
    entry = commit(ENTIRE, "3d0f9eede6")
    assert rb.edits_applied == 2
    assert_edits_before_commit(rb, entry)
    result = check_commit(rb, entry, tmp_path)
    assert sorted(result) == [DETACHED, DETACHED_TEST]
    if all(pair["got"] == pair["want"] for pair in result.values()):
        return
    # Every line the session added is rebuilt at the commit's position, but the parent commit holds 38 lines
    # that the working tree had already lost before the session's first Edit (its originalFile lacks them);
    # Entire's own metadata counts them as human_removed.
    for pair in result.values():
        assert pair["got"]["added"] == pair["want"]["added"]
    got, want = result[DETACHED]["got"], result[DETACHED]["want"]
    assert got["new_hunks"] == want["new_hunks"]
    assert (got["old_hunks"], want["old_hunks"]) == (
        [[41, 8], [50, 6], [61, 1], [89, 1], [96, 0]],
        [[41, 24], [66, 6], [77, 1], [105, 1], [112, 0]],
    )
    assert (got["deleted"], want["deleted"]) == (16, 32)
    got, want = result[DETACHED_TEST]["got"], result[DETACHED_TEST]["want"]
    assert want["new_hunks"][-1] == [133, 0] and want["old_hunks"][-1] == [107, 22]
    assert (got["new_hunks"], got["old_hunks"]) == (want["new_hunks"][:-1], want["old_hunks"][:-1])
    assert (got["deleted"], want["deleted"]) == (6, 28)
    meta = json.loads((ENTIRE / "checkpoints/8e/ce5fc12e98/0/metadata.json").read_text(encoding="utf-8"))
    assert meta["initial_attribution"]["human_removed"] == 16 + 22
    pytest.xfail(
        "3d0f9eede6 also deletes 38 parent lines that were already gone from the working tree before the "
        "session's first Edit (not in the transcript; Entire initial_attribution.human_removed=38): "
        "detached.go old hunk [41,24] vs rebuilt [41,8] (16 lines within parent lines 41-64, so later old "
        "hunks shift by +16), detached_test.go old [107,22] / new [133,0] (22 trailing parent lines) "
        "absent; every added line and all other hunks match exactly"
    )


def test_gitsync_8feaf84a600f_rebuilds_commit_5c60d93026(tmp_path: Path) -> None:
    rb = rebuild_codex(GITSYNC / "checkpoints/8f/eaf84a600f/0/full.jsonl")
    entry = commit(GITSYNC, "5c60d93026")
    assert rb.edits_applied == 4
    assert_edits_before_commit(rb, entry)
    result = check_commit(rb, entry, tmp_path)
    assert sorted(result) == [VALIDATION, VALIDATION_TEST]
    assert_matches(result)


def test_entire_ac3f02a3c337_sessions_edit_disjoint_files() -> None:
    s0 = rebuild_claude(ENTIRE / "checkpoints/ac/3f02a3c337/0/full.jsonl")
    s2 = rebuild_claude(ENTIRE / "checkpoints/ac/3f02a3c337/2/full.jsonl")
    repo = [GEMINI, CHUNKING, CHUNKING_TEST]
    assert sorted(relative_to_repo(p, repo) or p for p in s0.post) == [CHUNKING, CHUNKING_TEST]
    assert sorted(relative_to_repo(p, repo) or p for p in s2.post) == [GEMINI]
    # session 2 worked first, and its gemini.go commit is the parent of session 0's chunking commit
    assert datetime.fromisoformat(s2.last_edit_at) < datetime.fromisoformat(s0.first_edit_at)


@pytest.mark.parametrize(
    ("sha", "expected"),
    [
        ("fcf7ade45b", [GEMINI]),
        ("eb6269dd7a", [CHUNKING, CHUNKING_TEST]),
        ("4855ad5cd4", [GEMINI]),  # rebased copy of fcf7ade45b, not reachable from main
        ("7a2c1916ef", [CHUNKING, CHUNKING_TEST]),  # rebased copy of eb6269dd7a
    ],
)
def test_entire_ac3f02a3c337_sessions_rebuild_commits(sha: str, expected: list[str], tmp_path: Path) -> None:
    s0 = rebuild_claude(ENTIRE / "checkpoints/ac/3f02a3c337/0/full.jsonl")
    s2 = rebuild_claude(ENTIRE / "checkpoints/ac/3f02a3c337/2/full.jsonl")
    both = merged(s0, s2)
    entry = commit(ENTIRE, sha)
    session = s2 if expected == [GEMINI] else s0
    assert_edits_before_commit(session, entry)
    paths = list(entry["files"])
    only = Rebuild(
        pre={p: t for p, t in both.pre.items() if relative_to_repo(p, paths)},
        post={p: t for p, t in both.post.items() if relative_to_repo(p, paths)},
        first_edit_at=session.first_edit_at,
        last_edit_at=session.last_edit_at,
        edits_applied=session.edits_applied,
    )
    result = check_commit(only, entry, tmp_path)
    assert sorted(result) == expected
    assert_matches(result)
