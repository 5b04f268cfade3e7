"""push / fetch of git-intent's refs: merged never overwritten, retried when rejected, concurrent pushes keep
every note, the opt-in pre-push hook, shallow clones, forks, and `share --forget`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import git, run_cli

NOTES = "refs/notes/git-intent"


def clone(remote: Path, path: Path, *extra: str) -> Path:
    git(remote.parent, "clone", "-q", *extra, str(remote), str(path))
    git(path, "config", "commit.gpgsign", "false")
    return path


def bare(path: Path) -> Path:
    git(path.parent, "init", "-q", "--bare", "-b", "main", str(path))
    return path


def seeded(tmp: Path) -> tuple[Path, Path]:
    """A bare remote with one commit on main, and clone A of it."""
    remote = bare(tmp / "remote.git")
    a = clone(remote, tmp / "a")
    (a / "README.md").write_text("# shared\n")
    git(a, "add", "README.md")
    git(a, "commit", "-q", "-m", "initial")
    git(a, "push", "-q", "origin", "main")
    return remote, a


def note(repo: Path, commit: str, text: str) -> None:
    """A git-intent commit record as the note on `commit` (what record writes, minus the attribution)."""
    record = {
        "schema": "git-intent/1",
        "kind": "commit",
        "commit": commit,
        "lines_added": 1,
        "lines_attributed": 0,
        "recorded_by": text,
    }
    git(repo, "notes", "--ref", NOTES, "add", "-f", "-m", json.dumps(record, sort_keys=True), commit)


def commits_with_notes(repo: Path, label: str, count: int) -> list[str]:
    made = []
    for i in range(count):
        (repo / f"{label}-{i}.txt").write_text(f"{label} {i}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"{label} {i}")
        sha = git(repo, "rev-parse", "HEAD").strip()
        note(repo, sha, label)
        made.append(sha)
    return made


def notes_of(repo: Path) -> dict[str, str]:
    pairs = (line.split() for line in git(repo, "notes", "--ref", NOTES, "list", check=False).splitlines())
    return {commit: git(repo, "cat-file", "blob", blob) for blob, commit in pairs}


def test_concurrent_pushes_keep_every_note_and_merge_notes_on_one_commit(tmp_path: Path) -> None:
    remote, a = seeded(tmp_path)
    c = clone(remote, tmp_path / "c")
    base = git(a, "rev-parse", "HEAD").strip()
    note(a, base, "from-a")
    note(c, base, "from-c")  # both annotate the same commit: cat_sort_uniq keeps both lines
    made = commits_with_notes(a, "a", 5) + commits_with_notes(c, "c", 5)
    procs = [
        subprocess.Popen(
            ["git", "intent", "push", "--json"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for repo in (a, c)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    retries = [json.loads(out)["retries"] for out, _ in results]
    assert sum(retries) >= 1  # one of them was rejected, fetched, merged and pushed again
    on_remote = notes_of(remote)
    assert set(on_remote) == {base, *made}
    assert "from-a" in on_remote[base] and "from-c" in on_remote[base]
    # Each clone fetches the other's notes and keeps its own.
    for repo in (a, c):
        proc = run_cli("fetch", cwd=repo)
        assert proc.returncode == 0, proc.stderr
        assert set(notes_of(repo)) == {base, *made}
    assert git(remote, "for-each-ref", "--format=%(refname)") == "refs/heads/main\nrefs/notes/git-intent\n"


def test_fetch_never_overwrites_local_notes_and_needs_no_install(tmp_path: Path) -> None:
    remote, a = seeded(tmp_path)
    base = git(a, "rev-parse", "HEAD").strip()
    note(a, base, "from-a")
    assert run_cli("push", cwd=a).returncode == 0
    b = clone(remote, tmp_path / "b")
    note(b, base, "local-to-b")
    proc = run_cli("fetch", "origin", cwd=b)
    assert proc.returncode == 0, proc.stderr
    assert "notes merged" in proc.stdout
    text = notes_of(b)[base]
    assert "from-a" in text and "local-to-b" in text
    assert (
        git(b, "rev-parse", "refs/notes/remotes/origin/git-intent").strip()
        == git(remote, "rev-parse", NOTES).strip()
    )


def test_push_to_an_unknown_remote_and_a_failing_remote_exit_1(tmp_path: Path) -> None:
    _, a = seeded(tmp_path)
    note(a, git(a, "rev-parse", "HEAD").strip(), "x")
    proc = run_cli("push", "nowhere", cwd=a)
    assert proc.returncode == 1
    assert "no remote named 'nowhere'" in proc.stderr
    git(a, "remote", "add", "broken", str(tmp_path / "missing.git"))
    proc = run_cli("push", "broken", cwd=a)
    assert proc.returncode == 1 and proc.stderr.startswith("error: ")


def test_push_defaults_to_the_upstream_remote_and_works_with_forks(tmp_path: Path) -> None:
    upstream, a = seeded(tmp_path)
    fork = bare(tmp_path / "fork.git")
    git(a, "remote", "rename", "origin", "upstream")
    git(a, "remote", "add", "origin", str(fork))
    git(a, "push", "-q", "-u", "origin", "main")
    base = git(a, "rev-parse", "HEAD").strip()
    note(a, base, "mine")
    assert json.loads(run_cli("push", "--json", cwd=a).stdout)["remote"] == "origin"
    assert git(fork, "rev-parse", "--verify", "-q", NOTES, check=False).strip()
    assert not git(upstream, "rev-parse", "--verify", "-q", NOTES, check=False).strip()
    # Someone pushed notes upstream; fetching from upstream merges them into ours.
    other = clone(upstream, tmp_path / "other")
    note(other, base, "theirs")
    assert run_cli("push", cwd=other).returncode == 0
    assert run_cli("fetch", "upstream", cwd=a).returncode == 0
    assert {"mine", "theirs"} <= {json.loads(line)["recorded_by"] for line in notes_of(a)[base].splitlines()}


def test_shallow_clone_fetch_keeps_notes_of_absent_commits(tmp_path: Path) -> None:
    remote, a = seeded(tmp_path)
    made = commits_with_notes(a, "a", 3)
    git(a, "push", "-q", "origin", "main")
    assert run_cli("push", cwd=a).returncode == 0
    shallow = clone(remote, tmp_path / "shallow", "--depth", "1", "--no-local")
    proc = run_cli("fetch", cwd=shallow)
    assert proc.returncode == 0, proc.stderr
    assert set(made) <= set(notes_of(shallow))
    assert git(shallow, "cat-file", "-t", made[0], check=False) == ""  # the commit itself is not here
    assert run_cli("fetch", cwd=shallow).returncode == 0  # a second fetch prunes nothing
    assert set(made) <= set(notes_of(shallow))


def test_install_push_notes_makes_git_push_carry_the_notes(tmp_path: Path) -> None:
    remote, a = seeded(tmp_path)
    proc = run_cli("install", cwd=a)
    assert "install --push-notes" in proc.stdout  # told once
    assert "install --push-notes" not in run_cli("install", cwd=a).stdout
    legacy = Path(git(a, "rev-parse", "--git-path", "hooks").strip())
    legacy = legacy if legacy.is_absolute() else a / legacy
    (legacy / "pre-push").write_text('#!/bin/sh\ncat > "$(git rev-parse --git-dir)/legacy-saw"\nexit 0\n')
    (legacy / "pre-push").chmod(0o755)
    proc = run_cli("install", "--push-notes", cwd=a)
    assert proc.returncode == 0, proc.stderr
    assert "pre-push.legacy" in proc.stdout
    (a / "new.txt").write_text("new\n")
    git(a, "add", "new.txt")
    git(a, "commit", "-q", "-m", "new", env={"GIT_INTENT": "0"})  # no background worker racing our note
    note(a, git(a, "rev-parse", "HEAD").strip(), "hooked")
    push = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=a, capture_output=True, text=True)
    assert push.returncode == 0, push.stderr
    assert git(remote, "rev-parse", NOTES).strip() == git(a, "rev-parse", NOTES).strip()
    assert "refs/heads/main" in (a / ".git" / "legacy-saw").read_text()  # the earlier hook got git's lines
    assert run_cli("uninstall", cwd=a).returncode == 0
    assert "git-intent" not in (legacy / "pre-push").read_text()


def test_pre_push_hook_never_blocks_the_users_push(tmp_path: Path) -> None:
    remote, a = seeded(tmp_path)
    assert run_cli("install", "--push-notes", cwd=a).returncode == 0
    git(a, "config", "intent.share", "bogus")  # git-intent's push fails: the user's push must not
    (a / "x.txt").write_text("x\n")
    git(a, "add", "x.txt")
    git(a, "commit", "-q", "-m", "x", env={"GIT_INTENT": "0"})
    push = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=a, capture_output=True, text=True)
    assert push.returncode == 0
    assert "git-intent: the notes were not pushed" in push.stderr
    assert git(remote, "rev-parse", "main").strip() == git(a, "rev-parse", "HEAD").strip()
