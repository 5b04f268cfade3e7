"""The checkpoint-folder phase of bench/real_history.py: the agents' folders emptied and the
authors' whole `entire/checkpoints/v1` tree given as `backfill --transcript DIR`, as a teammate's or a CI
machine's transcripts come in, scored on the same lines as the agent-folder run.

The folder is the checkpoints branch written out file by file (metadata, prompts, every session's copy in
every checkpoint); blobs the snapshot lacks (a `fetch` snapshot leaves its largest files out) are counted and
left out, as `git archive` cannot write a tree with missing blobs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _entire_truth import CHECKPOINTS


def materialize(truth: Path, folder: Path) -> dict[str, int]:
    """Write every file of the checkpoints branch of the repository `truth` below `folder`; counts of files
    written and of blobs absent from the snapshot."""
    listing = subprocess.run(
        ["git", "-C", str(truth), "ls-tree", "-r", "-z", CHECKPOINTS], capture_output=True, check=True
    ).stdout.split(b"\0")
    rows = [row.split(b"\t", 1) for row in listing if row]
    batch = subprocess.Popen(
        ["git", "-C", str(truth), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert batch.stdin is not None and batch.stdout is not None
    counts: Counter[str] = Counter()
    try:
        for meta, name in rows:
            sha = meta.split()[2]
            batch.stdin.write(sha + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            if header[-1] == b"missing":
                counts["absent"] += 1
                continue
            data = batch.stdout.read(int(header[2]))
            batch.stdout.read(1)
            target = folder / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            counts["written"] += 1
    finally:
        batch.stdin.close()
        batch.wait()
    return dict(counts)


def checkpoint_folder_phase(
    root: Path,
    truth: Path,
    work: Path,
    revision_range: str,
    run: Callable[[list[str]], dict[str, Any]],
    score: Callable[[set[str]], dict[str, Any]],
    say: Callable[[str], None],
) -> dict[str, Any]:
    """Backfill `revision_range` of `work` with the agents' folders empty and the checkpoints folder as
    `--transcript DIR`; `run(args)` runs the CLI and returns backfill's figures, `score(credited)` scores the
    notes it wrote. The agents' folders are put back afterwards."""
    folder = root / "checkpoints"
    written = materialize(truth, folder)
    aside = root / "agent-folders-aside"
    aside.mkdir()
    moved = []
    for home in (Path(os.environ["CLAUDE_CONFIG_DIR"]), Path(os.environ["CODEX_HOME"])):
        for name in ("projects", "sessions"):
            if (home / name).exists():
                target = aside / f"{home.name}-{name}"
                shutil.move(str(home / name), target)
                moved.append((target, home / name))
    try:
        figures = run(["backfill", revision_range, "--json", "--transcript", str(folder)])
        result = figures.pop("result")
        credited = {key.split(":", 1)[1] for key in figures.pop("credited")}
        scored = score(credited)
    finally:
        for target, home in moved:
            shutil.move(str(target), home)
    skipped = result["skipped_files"]
    transcripts_skipped = [s for s in skipped if s["path"].endswith("full.jsonl")]
    found = {
        "folder": {**written, "files": sum(1 for p in folder.rglob("*") if p.is_file())},
        "backfill": figures,
        "recall": scored,
        "skipped": {
            "files": len(skipped),
            "full_jsonl": len(transcripts_skipped),
            "reasons": dict(Counter(_reason(s["reason"]) for s in skipped).most_common()),
        },
        "not_read": result["not_read"],
    }
    say(
        f"checkpoint folder: {written.get('written', 0)} files written ({written.get('absent', 0)} blobs "
        f"absent from the snapshot); agents' folders empty; backfill --transcript {folder}: "
        f"{figures['sessions']} sessions credited {figures['lines_attributed']} of "
        f"{figures['lines_added']} lines in {figures['wall']:.1f} s wall"
    )
    say(
        f"  skipped {len(skipped)} files, of which {len(transcripts_skipped)} full.jsonl; reasons: "
        f"{found['skipped']['reasons']}"
    )
    return found


def _reason(reason: str) -> str:
    """A skip reason without the record types it names (to count reasons)."""
    return reason.split(" (record types")[0]
