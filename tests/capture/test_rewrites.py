"""Credits across history rewrites, through the installed hooks and real git commands.

amend (with and without the post-rewrite hook), interactive rebase (pick, reword, squash, fixup) onto a
moved upstream while another agent session is live, cherry-pick, revert, `reset --soft` + recommit, a
forge squash-merge recorded with `git intent carry`, blame's content fallback for commits without a
note, and the capture queue seen through `git intent status` and drained by `record --pending`.

Every git command that should fire a hook runs with GIT_INTENT_HOOK_SYNC=1, so the worker records in the
foreground and the note is there when git returns.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import NOTES_REF, SYNC, ClaudeSession, git, install, note_records, note_text, run_cli
from support import claude_session as session
from support import commit_synced as commit

# --- helpers --------------------------------------------------------------------------------------------


def hgit(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """git with the hooks running in the foreground."""
    return git(repo, *args, env={**SYNC, **(env or {})})


def head(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", rev).strip()


Credit = tuple[str, str, str | None]  # session_id, message_id, derived_from


def credited(repo: Path, rev: str) -> dict[tuple[str, str], Credit]:
    """(path, line text) -> credit, for every line the note of `rev` credits; checks the note's shape:
    exactly one commit record (about `rev` itself) and one session record per credited session."""
    sha = head(repo, rev)
    recs = note_records(repo, sha)
    commits = [r for r in recs if r["kind"] == "commit"]
    assert [c["commit"] for c in commits] == [sha], recs
    out: dict[tuple[str, str], Credit] = {}
    for r in recs:
        if r["kind"] != "lines":
            continue
        text = git(repo, "show", f"{sha}:{r['path']}").split("\n")
        for n in range(r["start"], r["end"] + 1):
            key = (r["path"], text[n - 1])
            if not key[1].strip():
                continue  # a blank line inside a credited range
            assert key not in out, f"{key} credited twice in {recs}"
            out[key] = (r["session_id"], r["message_id"], r.get("derived_from"))
    sessions = {r["session_id"] for r in recs if r["kind"] == "session"}
    assert sessions == {c[0] for c in out.values()}, recs
    assert commits[0]["lines_attributed"] == len(out), recs
    return out


def blame_line(repo: Path, path: str, text: str) -> dict[str, Any]:
    """The `git intent blame --json` answer for the one line of `path` (work tree) that reads `text`."""
    lines = (repo / path).read_text(encoding="utf-8").splitlines()
    assert lines.count(text) == 1, f"{text!r} occurs {lines.count(text)} times in {path}"
    proc = run_cli("blame", f"{path}:{lines.index(text) + 1}", "--json", cwd=repo)
    assert proc.stdout, proc.stderr
    answer: dict[str, Any] = json.loads(proc.stdout)["lines"][0]
    assert answer["content"] == text
    return answer


def who(repo: Path, path: str, text: str) -> tuple[str, str | None, str | None, str | None]:
    """(status, session_id, message_id, derived_from) that blame gives the line."""
    got = blame_line(repo, path, text)
    a = got["attribution"]
    if a is None:
        return got["status"], None, None, None
    assert a["method"] == "note", got
    return got["status"], a["session_id"], a["message_id"], a.get("derived_from")


def all_notes_are_json_lines(repo: Path) -> set[str]:
    """Every note on refs/notes/intent parses line by line as JSON objects; returns the annotated commits."""
    noted: set[str] = set()
    for row in git(repo, "notes", "--ref", NOTES_REF, "list").splitlines():
        blob, annotated = row.split()
        text = git(repo, "cat-file", "blob", blob)
        assert text.strip(), f"empty note on {annotated}"
        for line in text.splitlines():
            if line.strip():
                assert isinstance(json.loads(line), dict), line
        noted.add(annotated)
    return noted


def new_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "commit.gpgsign", "false")
    for name, text in files.items():
        (path / name).write_text(text, encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path.resolve()


# --- 1. amend ---------------------------------------------------------------------------------------------

APP = "def parse_config(path):\n    with open(path) as handle:\n        return json.load(handle)\n"
APP_MORE = (
    "\n"
    "def validate_config(config):\n"
    "    missing = [k for k in REQUIRED_KEYS if k not in config]\n"
    "    return not missing\n"
)
PERSON_LINE = "REQUIRED_KEYS = ('name', 'version')  # typed by the person"


def clone_with_notes(theirs: Path, mine: Path) -> Path:
    """This machine clones a teammate's repository, fetches its notes and installs git-intent. The
    teammate's transcripts stay on the teammate's machine (another work tree path, never discovered
    here), so the teammate's commits are known here from their notes alone."""
    mine = mine.resolve()
    git(mine.parent, "clone", "-q", str(theirs), str(mine))
    git(mine, "fetch", "-q", "origin", f"{NOTES_REF}:{NOTES_REF}")
    git(mine, "config", "commit.gpgsign", "false")
    install(mine)
    return mine


def teammate_commit(tmp_path: Path) -> tuple[Path, str, ClaudeSession, str]:
    """A teammate's agent writes app.py and commits it through the hook; this machine clones it."""
    theirs = new_repo(tmp_path / "teammate", {"README.md": "# config tools\n"})
    install(theirs)
    agent = session(theirs)
    agent.prompt("Add a config parser in app.py")
    write_id = agent.write("Writing app.py.", theirs / "app.py", APP)
    agent.save()
    old = commit(theirs, "config parser")
    mine = clone_with_notes(theirs, tmp_path / "mine")
    assert set(credited(mine, old).values()) == {(agent.session_id, write_id, None)}
    return mine, old, agent, write_id


def amend_with_agent_and_person(root: Path, flags: tuple[str, ...]) -> tuple[str, ClaudeSession, str]:
    """An agent session here adds a validator, the person adds a line of their own, and HEAD is amended."""
    second = session(root)
    second.prompt("Add validate_config below parse_config")
    edit_id = second.edit(
        "Adding the validator.", root / "app.py", "json.load(handle)\n", "json.load(handle)\n" + APP_MORE
    )
    second.save()
    (root / "app.py").write_text(PERSON_LINE + "\n" + (root / "app.py").read_text(encoding="utf-8"))
    old = head(root)
    new = commit(root, "config parser and validator", "--amend", *flags)
    assert new != old and git(root, "rev-parse", "HEAD@{1}").strip() == old
    return new, second, edit_id


AMEND_FLAGS = pytest.mark.parametrize("flags", [(), ("--no-post-rewrite",)], ids=["amend", "no-post-rewrite"])


def assert_amended(root: Path, new: str, old: str, first: Credit, second: Credit) -> None:
    assert credited(root, new) == {
        **{("app.py", t): first for t in APP.splitlines()},
        **{("app.py", t): second for t in APP_MORE.splitlines() if t},
    }
    assert who(root, "app.py", "    with open(path) as handle:") == ("agent", *first)
    assert who(root, "app.py", "    return not missing") == ("agent", *second)
    assert who(root, "app.py", PERSON_LINE) == ("human", None, None, None)
    assert all_notes_are_json_lines(root) == {old, new}


def base_and_install(root: Path, files: dict[str, str]) -> dict[str, Path]:
    """Commit `files` as the person's base, then install git-intent's hooks; returns their paths."""
    paths = {name: root / name for name in files}
    for name, text in files.items():
        paths[name].write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    install(root)
    return paths


@AMEND_FLAGS
def test_amend_carries_old_credits_and_adds_live_ones(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """The pre-amend commit's lines are known only from its note (a teammate's agent wrote them): they
    must be carried (derived_from = the pre-amend commit); the new agent lines are credited live; the
    person's line stays null. Without --no-post-rewrite git also copies the old note onto the new commit
    (notes.rewriteRef) and runs post-rewrite; with it, only the post-commit job runs and must find the
    pre-amend commit in HEAD@{1} itself."""
    root, old, first, write_id = teammate_commit(tmp_path)
    new, second, edit_id = amend_with_agent_and_person(root, flags)
    assert_amended(root, new, old, (first.session_id, write_id, old), (second.session_id, edit_id, None))
    # which jobs recorded the new commit: post-commit and post-rewrite, or post-commit alone
    log = (root / ".git" / "intent" / "hook.log").read_text(encoding="utf-8")
    assert log.count(f"{new[:12]}: ") == (1 if flags else 2), log


@AMEND_FLAGS
def test_amend_keeps_derived_from_while_the_old_session_is_on_disk(
    repo: Path, flags: tuple[str, ...]
) -> None:
    """The common case: the session that wrote the pre-amend lines is still on disk, so a live edit
    explains them too. The carried credit must still win (same session and message, plus derived_from):
    the note may not depend on whether the agent has deleted its transcript yet."""
    root = repo.resolve()
    install(root)
    first = session(root)
    first.prompt("Add a config parser in app.py")
    write_id = first.write("Writing app.py.", root / "app.py", APP)
    first.save()
    old = commit(root, "config parser")
    assert set(credited(root, old).values()) == {(first.session_id, write_id, None)}
    new, second, edit_id = amend_with_agent_and_person(root, flags)
    assert_amended(root, new, old, (first.session_id, write_id, old), (second.session_id, edit_id, None))


# --- 2. interactive rebase onto a moved upstream --------------------------------------------------------

F_BASE = (
    '"""Order totals."""\n\nimport os\n\n\ndef base_one():\n    return 1\n\n\ndef base_two():\n    return 2\n'
)
G_BASE = (
    '"""Labels."""\n\nimport logging\n\n\ndef base_label():\n    return "base"\n\n\n'
    'def base_other():\n    return "other"\n'
)
UPSTREAM = "# SPDX-License-Identifier: MIT\n# Copyright 2025 Example Corp, all rights reserved\n"

ALPHA = "\n\ndef alpha_total(items):\n    return sum(item.price for item in items)\n"
ALPHA_PERSON = 'ALPHA_CURRENCY = "EUR"'
BETA = '\n\ndef beta_label(name):\n    logger = logging.getLogger(__name__)\n    return f"beta:{name}"\n'
GAMMA = "\n\ndef gamma_discount(total):\n    return total * 0.95 if total > 100 else total\n"
DELTA = "\n\ndef delta_tax(total, rate=0.2):\n    return round(total * (1 + rate), 2)\n"
EPSILON = '\n\ndef epsilon_label(code):\n    return f"eps-{code:04d}"\n'
TODO = "sed -i -e '2s/^pick/reword/' -e '4s/^pick/squash/' -e '5s/^pick/fixup/'"
REWORD = "sed -i -e '1s/^add beta label$/add beta label (reworded)/'"


def append_edit(agent: ClaudeSession, path: Path, text: str, why: str) -> str:
    """An Edit that appends `text` after the file's last line (old_string = that line)."""
    last = path.read_text(encoding="utf-8").splitlines(keepends=True)[-1]
    return agent.edit(why, path, last, last + text)


def lines_of(text: str) -> list[str]:
    return [t for t in text.splitlines() if t.strip()]


def agent_commit(
    root: Path, agent: ClaudeSession, path: Path, text: str, subject: str, person: str | None = None
) -> tuple[str, dict[tuple[str, str], Credit]]:
    """The agent appends `text` to `path` (the person may append a line too); committed through the hook.
    Returns the commit and the credits a carried copy of its note must give: derived_from = it."""
    message = append_edit(agent, path, text, f"Adding {subject}.")
    agent.save()
    if person is not None:
        path.write_text(path.read_text(encoding="utf-8") + person + "\n", encoding="utf-8")
    sha = commit(root, subject)
    want = {(path.name, t): (agent.session_id, message, sha) for t in lines_of(text)}
    assert credited(root, sha) == {k: (s, m, None) for k, (s, m, _) in want.items()}
    return sha, want


def test_interactive_rebase_carries_each_commits_credits_and_ignores_the_live_session(repo: Path) -> None:
    """pick, reword, squash and fixup onto a moved upstream: each replayed commit's note credits exactly
    its old commits' lines at their new line numbers (derived_from = the old commit; a squash target the
    union of its old commits), never the session that is live during the rebase."""
    root = repo.resolve()
    files = base_and_install(root, {"f.py": F_BASE, "g.py": G_BASE})
    f, g = files["f.py"], files["g.py"]
    git(root, "checkout", "-q", "-b", "feature")
    one, two = session(root), session(root)
    one.prompt("Add alpha_total, then gamma_discount, then epsilon_label")
    two.prompt("Add beta_label and delta_tax")
    a, want_a = agent_commit(root, one, f, ALPHA, "add alpha total", person=ALPHA_PERSON)
    b, want_b = agent_commit(root, two, g, BETA, "add beta label")
    c, want_c = agent_commit(root, one, f, GAMMA, "add gamma discount")
    d, want_d = agent_commit(root, two, f, DELTA, "add delta tax")
    e, want_e = agent_commit(root, one, g, EPSILON, "add epsilon label")

    # Upstream moves: a person prepends a license header to both files (every line number shifts).
    git(root, "checkout", "-q", "main")
    for path in (f, g):
        path.write_text(UPSTREAM + path.read_text(encoding="utf-8"), encoding="utf-8")
    upstream = commit(root, "license headers")
    git(root, "checkout", "-q", "feature")

    # Another agent session works while the person rebases. It edits other lines of the same files, but
    # two lines it writes read exactly like lines of alpha (one the agent's, one the person's), so
    # stamping the live session onto the replayed commits would show. Its work is autostashed.
    live = session(root)
    live.prompt("Add a cached alpha_total and a beta fallback")
    live.edit(
        "Adding alpha_total_cached.",
        f,
        "    return 1\n",
        "    return 1\n\n\ndef alpha_total_cached(items):\n    "
        + ALPHA_PERSON
        + "\n    return sum(item.price for item in items)\n",
    )
    live.edit(
        "Adding a fallback label.",
        g,
        '    return "base"\n',
        '    return "base"\n\n\ndef fallback_label():\n    return "fallback"\n',
    )
    live.save()

    hgit(
        root,
        "rebase",
        "-q",
        "-i",
        "--autostash",
        "main",
        env={"GIT_SEQUENCE_EDITOR": TODO, "GIT_EDITOR": REWORD},
    )
    assert git(root, "log", "--format=%s", "main..HEAD").splitlines() == [
        "add gamma discount",
        "add beta label (reworded)",
        "add alpha total",
    ]
    new_c, new_b, new_a = git(root, "rev-list", "main..HEAD").split()
    assert head(root, "HEAD~3") == upstream
    assert git(root, "status", "--porcelain") == " M f.py\n M g.py\n"  # the live session's work is back
    actions = {s.split(":")[0] for s in git(root, "log", "-g", "--format=%gs", "-12").splitlines()}
    assert {"rebase (pick)", "rebase (reword)", "rebase (squash)", "rebase (fixup)"} <= actions, actions

    assert credited(root, new_a) == want_a
    assert credited(root, new_b) == want_b
    assert credited(root, new_c) == {**want_c, **want_d, **want_e}  # squash and fixup: the union
    assert all_notes_are_json_lines(root) >= {a, b, c, d, e, upstream, new_a, new_b, new_c}

    git(root, "stash", "-q")  # park the live session's uncommitted lines; blame the committed files
    assert who(root, "f.py", "    return sum(item.price for item in items)") == (
        "agent",
        *want_a[("f.py", "    return sum(item.price for item in items)")],
    )
    assert who(root, "f.py", ALPHA_PERSON) == ("human", None, None, None)
    assert who(root, "f.py", "    return round(total * (1 + rate), 2)") == (
        "agent",
        two.session_id,
        want_d[("f.py", "def delta_tax(total, rate=0.2):")][1],
        d,
    )
    assert who(root, "g.py", '    return f"eps-{code:04d}"')[3] == e
    assert who(root, "g.py", '    return f"beta:{name}"')[3] == b
    assert b != new_b and a != new_a and c != new_c


def test_reword_does_not_stamp_the_live_session(repo: Path) -> None:
    root = repo.resolve()
    f = base_and_install(root, {"f.py": F_BASE})["f.py"]
    git(root, "checkout", "-q", "-b", "feature")
    agent = session(root)
    agent.prompt("Add alpha_total")
    a, want = agent_commit(root, agent, f, ALPHA, "add alpha total", person=ALPHA_PERSON)
    live = session(root)  # at work during the rebase; one line it writes reads like the person's line
    live.prompt("Add a currency constant")
    live.edit("Adding the constant.", f, "    return 1\n", "    return 1\n\n\n" + ALPHA_PERSON + "\n")
    live.save()
    hgit(
        root,
        "rebase",
        "-q",
        "-i",
        "--autostash",
        "main",
        env={
            "GIT_SEQUENCE_EDITOR": "sed -i -e '1s/^pick/reword/'",
            "GIT_EDITOR": "sed -i -e '1s/^add alpha total$/add alpha total (reworded)/'",
        },
    )
    new = head(root)
    assert git(root, "log", "-1", "--format=%s").strip() == "add alpha total (reworded)" and new != a
    git(root, "stash", "-q")  # park the live session's uncommitted lines; blame the committed file
    assert who(root, "f.py", ALPHA_PERSON) == ("human", None, None, None)
    assert credited(root, new) == want  # and the note holds exactly the carried records
    assert all_notes_are_json_lines(root) == {a, new}


# --- 3. cherry-pick and revert --------------------------------------------------------------------------

LIB_BASE = '"""Retry helpers."""\n\nimport time\n'
RETRY = (
    "\n\ndef retry(call, attempts=3, delay=0.5):\n"
    "    for attempt in range(attempts):\n"
    "        try:\n"
    "            return call()\n"
    "        except OSError:\n"
    "            time.sleep(delay * 2 ** attempt)\n"
    "    raise RuntimeError(f'gave up after {attempts} attempts')\n"
)
RETRY_PERSON = "MAX_DELAY_SECONDS = 30  # set by the person"


def test_cherry_pick_carries_from_the_picked_commit_without_live_sessions(repo: Path) -> None:
    root = repo.resolve()
    lib = base_and_install(root, {"lib.py": LIB_BASE})["lib.py"]
    git(root, "branch", "release")
    agent = session(root)
    agent.prompt("Add a retry helper with exponential backoff")
    picked, want = agent_commit(root, agent, lib, RETRY, "add retry", person=RETRY_PERSON)

    git(root, "checkout", "-q", "release")
    (root / "CHANGES.md").write_text("release notes\n", encoding="utf-8")
    commit(root, "release notes")
    # A live session writes, in lib.py, a line that reads like the person's line of the picked commit;
    # the person shelves that work before cherry-picking.
    live = session(root)
    live.prompt("Cap the delay")
    live.edit("Capping the delay.", lib, "import time\n", "import time\n\n" + RETRY_PERSON + "\n")
    live.save()
    git(root, "stash", "-q")
    hgit(root, "cherry-pick", picked)
    new = head(root)
    assert new != picked and git(root, "log", "-g", "-1", "--format=%gs").startswith("cherry-pick")

    assert credited(root, new) == want
    assert who(root, "lib.py", "    raise RuntimeError(f'gave up after {attempts} attempts')") == (
        "agent",
        *want[("lib.py", "def retry(call, attempts=3, delay=0.5):")],
    )
    assert who(root, "lib.py", RETRY_PERSON) == ("human", None, None, None)


def test_revert_of_a_removal_credits_the_original_session(repo: Path) -> None:
    root = repo.resolve()
    lib = base_and_install(root, {"lib.py": LIB_BASE})["lib.py"]
    agent = session(root)
    agent.prompt("Add a retry helper with exponential backoff")
    added, want = agent_commit(root, agent, lib, RETRY, "add retry")
    # The person deletes the helper, then thinks better of it and reverts the deletion.
    lib.write_text(LIB_BASE, encoding="utf-8")
    removal = commit(root, "remove retry")
    assert credited(root, removal) == {}
    hgit(root, "revert", "--no-edit", removal)
    new = head(root)
    assert git(root, "log", "-g", "-1", "--format=%gs").startswith("revert")

    assert credited(root, new) == want  # derived_from = the commit whose note credited the lines
    assert {v[2] for v in want.values()} == {added}
    assert who(root, "lib.py", "            time.sleep(delay * 2 ** attempt)") == (
        "agent",
        agent.session_id,
        want[("lib.py", "            return call()")][1],
        added,
    )


def conflicting_agent_commit(root: Path) -> tuple[ClaudeSession, str, dict[tuple[str, str], Credit]]:
    """base on main, then the agent's retry helper on `feature` (recorded through the hook)."""
    lib = base_and_install(root, {"lib.py": LIB_BASE})["lib.py"]
    git(root, "checkout", "-q", "-b", "feature")
    agent = session(root)
    agent.prompt("Add a retry helper with exponential backoff")
    sha, want = agent_commit(root, agent, lib, RETRY, "add retry")
    return agent, sha, want


def test_conflicted_cherry_pick_carries_from_the_picked_commit(repo: Path) -> None:
    root = repo.resolve()
    agent, picked, want = conflicting_agent_commit(root)
    git(root, "checkout", "-q", "main")
    lib = root / "lib.py"
    lib.write_text(LIB_BASE + RETRY_PERSON + "\n", encoding="utf-8")
    commit(root, "cap the delay")
    proc = subprocess.run(
        ["git", "cherry-pick", picked], cwd=root, capture_output=True, text=True, env={**os.environ, **SYNC}
    )
    assert proc.returncode != 0 and "CONFLICT" in proc.stdout + proc.stderr
    lib.write_text(LIB_BASE + RETRY_PERSON + "\n" + RETRY, encoding="utf-8")
    git(root, "add", "lib.py")
    hgit(root, "cherry-pick", "--continue", env={"GIT_EDITOR": "true"})
    new = head(root)
    assert git(root, "log", "-g", "-1", "--format=%gs").startswith("commit (cherry-pick)")
    assert credited(root, new) == want


def test_conflicted_revert_credits_the_original_session(repo: Path) -> None:
    root = repo.resolve()
    agent, added, want = conflicting_agent_commit(root)
    lib = root / "lib.py"
    lib.write_text(LIB_BASE, encoding="utf-8")
    removal = commit(root, "remove retry")
    lib.write_text(LIB_BASE + RETRY_PERSON + "\n", encoding="utf-8")
    commit(root, "cap the delay")
    proc = subprocess.run(
        ["git", "revert", "--no-edit", removal],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, **SYNC},
    )
    assert proc.returncode != 0 and "CONFLICT" in proc.stdout + proc.stderr
    lib.write_text(LIB_BASE + RETRY + RETRY_PERSON + "\n", encoding="utf-8")
    git(root, "add", "lib.py")
    hgit(root, "revert", "--continue", env={"GIT_EDITOR": "true"})
    new = head(root)
    assert git(root, "log", "-1", "--format=%B").strip().endswith(f"This reverts commit {removal}.")
    assert credited(root, new) == want


# --- 4. reset --soft and one recommit --------------------------------------------------------------------


def test_reset_soft_then_recommit_carries_the_abandoned_commits(tmp_path: Path) -> None:
    """A teammate's agent made two commits; here they are squashed by `reset --soft HEAD~2` and one
    commit. Their sessions exist only on the teammate's machine, so only the carry can credit them."""
    theirs = new_repo(tmp_path / "teammate", {"lib.py": LIB_BASE})
    install(theirs)
    agent = session(theirs)
    agent.prompt("Add a retry helper, then a timeout helper")
    first, want_first = agent_commit(theirs, agent, theirs / "lib.py", RETRY, "add retry")
    second, want_second = agent_commit(theirs, agent, theirs / "lib.py", GAMMA, "add gamma discount")
    root = clone_with_notes(theirs, tmp_path / "mine")

    git(root, "reset", "-q", "--soft", "HEAD~2")
    lib = root / "lib.py"
    lib.write_text(lib.read_text(encoding="utf-8") + RETRY_PERSON + "\n", encoding="utf-8")
    new = commit(root, "retry and discount")
    assert git(root, "log", "-g", "-2", "--format=%gs").splitlines() == [
        "commit: retry and discount",
        "reset: moving to HEAD~2",
    ]
    assert head(root, "HEAD~1") == head(root, f"{first}~1")

    assert credited(root, new) == {**want_first, **want_second}
    assert {v[2] for v in credited(root, new).values()} == {first, second}
    call = "            return call()"
    assert who(root, "lib.py", call) == ("agent", *want_first[("lib.py", call)])
    assert who(root, "lib.py", RETRY_PERSON) == ("human", None, None, None)


# --- 5. a squash-merge made on a forge, recorded with `git intent carry` ---------------------------------


def test_carry_records_a_forge_squash_merge_idempotently(repo: Path) -> None:
    root = repo.resolve()
    lib = base_and_install(root, {"lib.py": LIB_BASE})["lib.py"]
    hgit(root, "checkout", "-q", "-b", "feature")  # its post-checkout worker done before the squash exists
    agent = session(root)
    agent.prompt("Add retry and a discount")
    first, want_first = agent_commit(root, agent, lib, RETRY, "add retry", person=RETRY_PERSON)
    second, want_second = agent_commit(root, agent, lib, GAMMA, "add gamma discount")
    # A session still at work here wrote, in its own change to lib.py, a line that reads like the
    # person's line: carry must copy the records only, never credit a live session.
    live = session(root)
    live.prompt("Cap the delay")
    live.edit("Capping the delay.", lib, "import time\n", "import time\n\n" + RETRY_PERSON + "\n")
    live.save()
    git(root, "stash", "-q")

    # The forge squash-merges the pull request: no hook of this machine sees the commit (with the hooks on,
    # the post-checkout worker would carry it by itself: tests/capture/test_landed.py).
    git(root, "checkout", "-q", "main", env={"GIT_INTENT": "0"})
    git(root, "merge", "-q", "--squash", "feature", env={"GIT_INTENT": "0"})
    hgit(root, "commit", "-q", "-m", "Retry and discount (#12)", env={"GIT_INTENT": "0"})
    squash = head(root)
    assert note_text(root, squash) is None

    proc = run_cli("carry", "main..feature", "--onto", "HEAD", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        f"{squash[:12]}: 9 of 10 added lines credited to agent sessions: claude-code:{agent.session_id} (9 "
        f"lines). Note written."
    ), proc.stdout
    text = note_text(root, squash)
    assert credited(root, squash) == {**want_first, **want_second}
    assert {v[2] for v in credited(root, squash).values()} == {first, second}
    assert who(root, "lib.py", "    return total * 0.95 if total > 100 else total") == (
        "agent",
        *want_second[("lib.py", "def gamma_discount(total):")],
    )
    assert who(root, "lib.py", RETRY_PERSON) == ("human", None, None, None)

    again = run_cli("carry", "main..feature", "--onto", squash[:10], cwd=root)
    assert again.returncode == 0, again.stderr
    assert again.stdout.endswith("Note unchanged.\n"), again.stdout
    assert note_text(root, squash) == text


# --- 6. blame on a commit without a note ---------------------------------------------------------------


def test_blame_without_a_note_matches_content_or_says_it_does_not_know(repo: Path) -> None:
    root = repo.resolve()
    agent = session(root)
    agent.prompt("Add a retry helper")
    write_id = agent.write("Writing lib.py.", root / "lib.py", LIB_BASE + RETRY)
    agent.save()
    lib = root / "lib.py"
    lib.write_text(lib.read_text(encoding="utf-8") + RETRY_PERSON + "\n", encoding="utf-8")
    sha = commit(root, "retry, committed with no hook installed")
    assert note_text(root, sha) is None

    got = blame_line(root, "lib.py", "            time.sleep(delay * 2 ** attempt)")
    assert (got["commit"], got["status"]) == (sha, "agent")
    assert got["attribution"] == {
        "agent": "claude-code",
        "session_id": agent.session_id,
        "message_id": write_id,
        "tool": "Write",
        "method": "content",
        "confidence": 0.7,
        "derived_from": None,
        "model": "claude-opus-4-5-20251101",
    }
    assert got["evidence"] and got["evidence"][0]["text"] == "Add a retry helper"

    lines = lib.read_text(encoding="utf-8").splitlines()
    proc = run_cli("blame", f"lib.py:{lines.index(RETRY_PERSON) + 1}", "--json", cwd=root)
    # "unrecorded" is an answer, as git blame's is: exit 0, the reason in the JSON only
    assert (proc.returncode, proc.stderr) == (0, "")
    got = json.loads(proc.stdout)["lines"][0]
    assert (got["commit"], got["status"], got["attribution"], got["evidence"]) == (
        sha,
        "unrecorded",
        None,
        [],
    )
    assert "does not know" in got["reason"]


# --- 7. the capture queue: status and record --pending ---------------------------------------------------


def test_record_pending_exits_1_with_json_too_when_work_is_left(repo: Path) -> None:
    root = repo.resolve()
    install(root)
    agent = session(root)
    agent.prompt("Add a retry helper")
    agent.write("Writing lib.py.", root / "lib.py", LIB_BASE + RETRY)
    agent.save()
    lock = (
        root / ".git" / "refs" / "notes" / "intent.lock"
    )  # the notes ref stays locked: the job stays queued
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    commit(root, "retry while the notes ref is locked")
    proc = run_cli("record", "--pending", "--json", cwd=root)
    # the same exit code as the text form: queued work left undone is not an answer
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert (json.loads(proc.stdout)["processed"], json.loads(proc.stdout)["retry"]) == (0, 1)
    lock.unlink()
    done = run_cli("record", "--pending", "--json", cwd=root)
    assert done.returncode == 0 and json.loads(done.stdout)["processed"] == 1, (done.stdout, done.stderr)


def test_status_lists_a_queued_job_and_record_pending_drains_it(repo: Path) -> None:
    root = repo.resolve()
    install(root)
    agent = session(root)
    agent.prompt("Add a retry helper")
    write_id = agent.write("Writing lib.py.", root / "lib.py", LIB_BASE + RETRY)
    agent.save()
    # Another git process holds the notes ref's lock: the worker cannot move refs/notes/intent, a
    # transient failure, so the job must stay queued (the commit itself must succeed).
    lock = root / ".git" / "refs" / "notes" / "intent.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    sha = commit(root, "retry while the notes ref is locked")
    assert note_text(root, sha) is None

    status = run_cli("status", "--json", cwd=root)
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    assert report["worker_running"] is False and report["failed"] == []
    assert [(j["hook"], j["commit"], j["subject"]) for j in report["pending"]] == [
        ("post-commit", sha, "commit: retry while the notes ref is locked")
    ]
    assert report["pending"][0]["name"].endswith(f"-{sha}.job")
    assert any(sha in line and "queued again" in line for line in report["last_errors"]), report[
        "last_errors"
    ]
    text = run_cli("status", cwd=root).stdout
    assert "queued    1 job(s)" in text and "Run `git intent record --pending`" in text

    still = run_cli("record", "--pending", cwd=root)  # the lock is still held: the job stays queued
    assert still.returncode == 1, (still.stdout, still.stderr)
    assert still.stdout.endswith("0 queued job(s) processed, 1 to retry, 0 failed.\n"), still.stdout
    assert [j["commit"] for j in json.loads(run_cli("status", "--json", cwd=root).stdout)["pending"]] == [sha]

    lock.unlink()
    drained = run_cli("record", "--pending", cwd=root)
    assert drained.returncode == 0, drained.stderr
    assert drained.stdout.endswith("1 queued job(s) processed, 0 to retry, 0 failed.\n"), drained.stdout
    assert credited(root, sha) == {
        ("lib.py", t): (agent.session_id, write_id, None) for t in lines_of(LIB_BASE + RETRY)
    }
    after = json.loads(run_cli("status", "--json", cwd=root).stdout)
    assert (after["pending"], after["failed"]) == ([], [])
    assert not list((root / ".git" / "intent" / "queue").iterdir())
