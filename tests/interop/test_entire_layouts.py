"""Entire's per-checkpoint refs (the `git-refs` store, Entire CLI 0.8.1 on, the default since 0.9.0) beside
the `entire/checkpoints/v1` branch: the linked corpus's real history rebuilt in tmp, its real checkpoints laid
out as refs the way `entire doctor migrate-checkpoints` writes them (support.migrate_to_refs, from Entire's
migrate.go at 002e36a8), then imported and compared with the same checkpoints imported from the branch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import corpus_files, git, make_repo, migrate_to_refs, run_cli, set_ref, write_tree
from support.transcript_replay import linked_history

from git_intent.core.values import ParseStats
from git_intent.git.repo import Repository
from git_intent.peers.entire import checkpoint_refs, checkpoint_session_ids, read_checkpoints
from git_intent.peers.entire_layout import checkpoint_ref_tips, is_checkpoint_shaped, parse_ref, ref_name

BRANCH_REF = "refs/heads/entire/checkpoints/v1"
IDS = ["8ece5fc12e98", "8feaf84a600f", "ab2b9748b105", "ac3f02a3c337"]
REFS = [
    "refs/entire/checkpoints/05/ab2b9748b105",
    "refs/entire/checkpoints/0f/8feaf84a600f",
    "refs/entire/checkpoints/37/ac3f02a3c337",
    "refs/entire/checkpoints/98/8ece5fc12e98",
]
# What importing the linked corpus credits (tests/interop/test_import.py), whichever layout holds it.
CREDITED = {
    "claude-code:cc432c40-914a-4c1a-a972-0103199a736a": 54,
    "claude-code:1ed1f046-f456-4f14-9c74-bb83179cf809": 8,
    "claude-code:0a0314fb-b206-450f-b895-cd5181a28ae5": 32,
    "codex:019ddd6f-3680-7fb3-8f93-e567af97d303": 45,
}


def import_json(repo: Path) -> dict[str, Any]:
    proc = run_cli("import", "--from", "entire", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def notes(repo: Path) -> dict[str, str]:
    """{commit: its note's text} on refs/notes/intent."""
    listed = git(repo, "notes", "--ref", "refs/notes/intent", "list").split()
    return {
        commit: git(repo, "cat-file", "blob", note)
        for note, commit in zip(listed[::2], listed[1::2], strict=True)
    }


def credited(result: dict[str, Any]) -> dict[str, int]:
    lines: dict[str, int] = {}
    for record in result["results"]:
        for key, count in record["sessions"].items():
            lines[key] = lines.get(key, 0) + count
    return lines


@pytest.fixture
def histories(tmp_path: Path) -> tuple[Path, Path]:
    """Two rebuilds of the linked history: the first with its checkpoints on the branch, the second with
    them only as per-checkpoint refs (migrated, then the branch deleted)."""
    branch = make_repo(tmp_path / "branch")
    linked_history(branch)
    refs = make_repo(tmp_path / "refs")
    linked_history(refs)
    assert migrate_to_refs(refs) == dict(zip(sorted(IDS), [ref_name(i) for i in sorted(IDS)], strict=True))
    git(refs, "update-ref", "-d", BRANCH_REF)
    return branch, refs


def test_the_migrated_layout_is_entires(histories: tuple[Path, Path]) -> None:
    """The refs hold what Entire's migration writes: the branch's folder at the tree root, the root metadata's
    session paths made relative, the other files the branch's own blobs."""
    branch, refs = histories
    assert git(refs, "for-each-ref", "--format=%(refname) %(objecttype)", "refs/entire/").split("\n")[
        :-1
    ] == [f"{ref} commit" for ref in REFS]
    ref = "refs/entire/checkpoints/37/ac3f02a3c337"
    assert git(refs, "log", "--format=%P|%s", ref).strip() == (
        "|Import checkpoint ac3f02a3c337 (migrated from git-branch)"
    )
    assert git(refs, "ls-tree", "-r", "--name-only", ref).split() == [
        "0/content_hash.txt",
        "0/context.md",
        "0/full.jsonl",
        "0/metadata.json",
        "0/prompt.txt",
        "2/content_hash.txt",
        "2/context.md",
        "2/full.jsonl",
        "2/metadata.json",
        "2/prompt.txt",
        "metadata.json",
    ]
    metadata = json.loads(git(refs, "cat-file", "blob", f"{ref}:metadata.json"))
    assert list(metadata) == sorted(metadata) and metadata["sessions"][1] == {
        "content_hash": "/2/content_hash.txt",
        "context": "/2/context.md",
        "metadata": "/2/metadata.json",
        "prompt": "/2/prompt.txt",
        "transcript": "/2/full.jsonl",
    }
    assert git(refs, "rev-parse", f"{ref}:2/full.jsonl") == git(
        branch, "rev-parse", f"{BRANCH_REF}:ac/3f02a3c337/2/full.jsonl"
    )


def test_refs_only_import_credits_what_the_branch_import_does(histories: tuple[Path, Path]) -> None:
    branch, refs = histories
    from_branch, from_refs = import_json(branch), import_json(refs)
    assert from_refs == from_branch
    assert credited(from_refs) == CREDITED and from_refs["skipped"] == []
    assert (from_refs["sessions"], from_refs["commits"], from_refs["lines_attributed"]) == (5, 4, 139)
    assert notes(refs) == notes(branch) and len(notes(refs)) == 4
    checkpoints = read_checkpoints(Repository(refs))
    assert sorted((c.checkpoint_id, c.ref, c.folder) for c in checkpoints) == [
        (i, ref_name(i), "") for i in sorted(IDS)
    ]


def test_importing_twice_writes_byte_identical_notes(histories: tuple[Path, Path]) -> None:
    _, refs = histories
    first = import_json(refs)
    written = notes(refs)
    again = import_json(refs)
    assert notes(refs) == written
    assert [r["note_written"] for r in first["results"]] == [True] * 4
    assert [r["note_written"] for r in again["results"]] == [False] * 4


def test_both_layouts_read_each_checkpoint_once_from_its_ref(histories: tuple[Path, Path]) -> None:
    """The branch holds an older state of ac3f02a3c337 (session 2 only, before session 0 was condensed) and
    the refs hold every checkpoint as it is now: each checkpoint is read once, from its ref, as Entire reads
    them (refs first, the branch only for checkpoints no ref holds)."""
    branch, refs = histories
    expected = import_json(branch)
    older = {path: data for path, data in corpus_files().items() if not path.startswith("ac/3f02a3c337/0/")}
    set_ref(refs, BRANCH_REF, write_tree(refs, older), "Checkpoint: ac3f02a3c337")
    repo = Repository(refs)
    assert checkpoint_refs(repo) == [*REFS, BRANCH_REF]
    stats = ParseStats()
    checkpoints = read_checkpoints(repo, stats=stats)
    assert sorted((c.checkpoint_id, c.ref, [s.index for s in c.sessions]) for c in checkpoints) == [
        ("8ece5fc12e98", ref_name("8ece5fc12e98"), [0]),
        ("8feaf84a600f", ref_name("8feaf84a600f"), [0]),
        ("ab2b9748b105", ref_name("ab2b9748b105"), [0]),
        ("ac3f02a3c337", ref_name("ac3f02a3c337"), [0, 2]),
    ]
    assert (stats.records, stats.unreadable) == (4, 0)  # the branch's copies are not read again
    assert checkpoint_session_ids(repo, ["ac3f02a3c337"]) == {
        "ac3f02a3c337": frozenset(
            {"0a0314fb-b206-450f-b895-cd5181a28ae5", "1ed1f046-f456-4f14-9c74-bb83179cf809"}
        )
    }
    assert import_json(refs) == expected
    # A checkpoint only the branch holds is still read from it.
    git(refs, "update-ref", "-d", ref_name("8feaf84a600f"))
    found = {c.checkpoint_id: c.ref for c in read_checkpoints(repo)}
    assert found["8feaf84a600f"] == BRANCH_REF and found["ac3f02a3c337"] == ref_name("ac3f02a3c337")


def test_refs_entire_would_not_read_are_skipped_and_counted(histories: tuple[Path, Path]) -> None:
    """A ref pointing at a blob, at a tree, at a missing object, a commit without metadata.json, and a
    checkpoint under the wrong shard (Entire's ParseRef refuses it): each is counted, none is read, and the
    import goes on."""
    _, refs = histories
    good = ref_name("8ece5fc12e98")
    blob = git(refs, "rev-parse", f"{good}:metadata.json").strip()
    tree = git(refs, "rev-parse", f"{good}^{{tree}}").strip()
    git(refs, "update-ref", "refs/entire/checkpoints/a0/0123456789a0", blob)
    git(refs, "update-ref", "refs/entire/checkpoints/b1/0123456789b1", tree)
    (refs / ".git" / "refs" / "entire" / "checkpoints" / "c2").mkdir()
    (refs / ".git" / "refs" / "entire" / "checkpoints" / "c2" / "0123456789c2").write_text("1" * 40 + "\n")
    set_ref(refs, "refs/entire/checkpoints/d3/0123456789d3", write_tree(refs, {"0/full.jsonl": b"{}"}), "x")
    git(refs, "update-ref", "refs/entire/checkpoints/8e/8ece5fc12e98", good)  # sharded like the branch
    repo = Repository(refs)
    assert [(t.ref, t.checkpoint_id, t.kind, t.readable) for t in checkpoint_ref_tips(repo)] == [
        ("refs/entire/checkpoints/05/ab2b9748b105", "ab2b9748b105", "commit", True),
        ("refs/entire/checkpoints/0f/8feaf84a600f", "8feaf84a600f", "commit", True),
        ("refs/entire/checkpoints/37/ac3f02a3c337", "ac3f02a3c337", "commit", True),
        ("refs/entire/checkpoints/8e/8ece5fc12e98", None, "commit", False),
        ("refs/entire/checkpoints/98/8ece5fc12e98", "8ece5fc12e98", "commit", True),
        ("refs/entire/checkpoints/a0/0123456789a0", "0123456789a0", "blob", False),
        ("refs/entire/checkpoints/b1/0123456789b1", "0123456789b1", "tree", False),
        ("refs/entire/checkpoints/c2/0123456789c2", "0123456789c2", "missing", False),
        ("refs/entire/checkpoints/d3/0123456789d3", "0123456789d3", "commit", True),
    ]
    stats = ParseStats()
    assert sorted(c.checkpoint_id for c in read_checkpoints(repo, stats=stats)) == sorted(IDS)
    assert (stats.records, stats.unreadable) == (9, 5)
    result = import_json(refs)
    assert credited(result) == CREDITED
    assert result["skipped"] == ["5 checkpoint folder(s) or ref(s) could not be read"]


def test_a_ulid_checkpoint_ref(repo: Path) -> None:
    """Checkpoints the git-refs store creates have ULID ids, sharded on their last two characters."""
    ulid = "01KWYEY397QTF97M32TKG1AKSY"
    assert ref_name(ulid) == "refs/entire/checkpoints/SY/01KWYEY397QTF97M32TKG1AKSY"
    meta = {"checkpoint_id": ulid, "strategy": "manual-commit", "files_touched": ["a.py"]}
    tree = write_tree(
        repo,
        {
            "metadata.json": json.dumps(meta).encode(),
            "0/metadata.json": json.dumps({"session_id": "s-1", "agent": "Claude Code"}).encode(),
            "0/full.jsonl": b'{"type":"user","sessionId":"s-1"}\n',
        },
    )
    set_ref(repo, ref_name(ulid), tree, f"Checkpoint: {ulid}")
    (checkpoint,) = read_checkpoints(Repository(repo))
    assert (checkpoint.checkpoint_id, checkpoint.files_touched) == (ulid, ("a.py",))
    assert [(s.session_id, s.agent, s.transcript_size) for s in checkpoint.sessions] == [
        ("s-1", "claude-code", 34)
    ]


@pytest.mark.parametrize(
    ("ref", "checkpoint_id", "shaped"),
    [
        ("refs/entire/checkpoints/98/8ece5fc12e98", "8ece5fc12e98", True),
        ("refs/entire/checkpoints/8e/8ece5fc12e98", None, True),  # the branch's shard, not Entire's
        ("refs/entire/checkpoints/SY/01KWYEY397QTF97M32TKG1AKSY", "01KWYEY397QTF97M32TKG1AKSY", True),
        ("refs/entire/checkpoints/98/8ece5fc12e98/x", None, False),
        ("refs/entire/checkpoints/v1.1", None, False),  # Entire 0.7's retired branch-shaped ref
        ("refs/entire/checkpoints/v2/main", None, False),  # the retired checkpoints v2 experiment
        ("refs/heads/entire/checkpoints/v1", None, False),
    ],
)
def test_ref_names(ref: str, checkpoint_id: str | None, shaped: bool) -> None:
    assert (parse_ref(ref), is_checkpoint_shaped(ref)) == (checkpoint_id, shaped)
