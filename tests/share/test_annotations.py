"""`git intent audit RANGE --annotate github`: GitHub workflow annotations for the lines a reviewer should
look at (agent lines without evidence, unrecorded lines), one per run of consecutive lines, placed where each
line stands at the range's end, capped, escaped as GitHub's toolkit escapes them (actions/toolkit,
packages/core/src/command.ts).

The repository: a base commit; git-intent installed; an agent session that writes app.py (its transcript
stays: evidence); a second session writing util.py, whose transcript and backup copy are then removed (its
lines keep their note but lose their evidence); a person's commit made without the hook (unrecorded) that
adds lines to app.py and a file whose name holds a comma and a colon; a commit with a Claude co-author
trailer (an agent line by trailer, no session); and a last recorded human commit that inserts lines at the
top of app.py, so each line's place at the end differs from where its commit added it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support import SYNC, claude_session, commit_all, install, run_cli

APP = "def load(path):\n    with open(path) as handle:\n        return handle.read()\n"
UTIL = "def clamp(value, low, high):\n    return max(low, min(value, high))\n"
PERSON = "\n\ndef save(path, text):\n    with open(path, 'w') as handle:\n\n        handle.write(text)\n"
ODD = "a,b:c\n"
TRAILED = "VERSION = '1.0'\n"
HEADER = "# Loading and saving.\nimport os\n"


def build(repo: Path) -> dict[str, str]:
    """The repository above; {what: commit, or the lost session's and message's ids}."""
    (repo / "README.md").write_text("# app\n", encoding="utf-8")
    made = {"base": commit_all(repo, "base", env={"GIT_INTENT": "0"})}
    install(repo)
    kept = claude_session(repo)
    kept.prompt("Write the loader.")
    kept.write("Writing app.py.", repo / "app.py", APP)
    kept.save()
    made["agent"] = commit_all(repo, "loader", env=SYNC)
    lost = claude_session(repo)
    lost.prompt("Add clamp.")
    made["message"] = lost.write("Writing util.py.", repo / "util.py", UTIL)
    made["session"] = lost.session_id
    transcript = lost.save()
    made["lost"] = commit_all(repo, "clamp", env=SYNC)
    transcript.unlink()
    shutil.rmtree(repo / ".opencode" / "intent" / "sessions")
    with (repo / "app.py").open("a", encoding="utf-8") as handle:
        handle.write(PERSON)
    (repo / "data,v1:x.txt").write_text(ODD, encoding="utf-8")
    made["person"] = commit_all(repo, "save, by hand", env={"GIT_INTENT": "0"})
    (repo / "version.py").write_text(TRAILED, encoding="utf-8")
    made["trailer"] = commit_all(
        repo, "version\n\nCo-Authored-By: Claude <noreply@anthropic.com>", env={"GIT_INTENT": "0"}
    )
    app = (repo / "app.py").read_text(encoding="utf-8")
    (repo / "app.py").write_text(HEADER + app, encoding="utf-8")
    made["header"] = commit_all(repo, "header", env=SYNC)
    return made


def test_audit_annotates_runs_of_lines_where_they_stand_at_the_end(repo: Path) -> None:
    made = build(repo)
    span = f"{made['base']}..HEAD"
    listed = json.loads(run_cli("audit", span, "--lines", "--json", cwd=repo).stdout)["listed"]
    # Where each commit added its lines: the person's app.py lines at 6-9, moved to 8-11 by the header.
    assert [(r["path"], r["line"], r["line_class"]) for r in listed if r["commit"] == made["person"]] == [
        ("app.py", 6, "unrecorded"),
        ("app.py", 7, "unrecorded"),
        ("app.py", 9, "unrecorded"),
        ("data,v1:x.txt", 1, "unrecorded"),
    ]
    proc = run_cli("audit", span, "--annotate", "github", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    text = run_cli("audit", span, cwd=repo).stdout
    person, lost, trailer = (made[k][:12] for k in ("person", "lost", "trailer"))
    unrecorded = (
        f"Its author can record it (`git intent record {person}`, then `git intent push`); records kept in a "
        "fork come with `git intent fetch FORK-URL`."
    )
    assert proc.stdout == text + "".join(
        line + "\n"
        for line in (
            "::warning file=app.py,line=8,endLine=11,title=git-intent%3A unrecorded lines::No git-intent "
            f"record says who wrote lines 8-11 (commit {person}). {unrecorded}",
            "::warning file=data%2Cv1%3Ax.txt,line=1,endLine=1,title=git-intent%3A unrecorded lines::No "
            f"git-intent record says who wrote line 1 (commit {person}). {unrecorded}",
            "::warning file=util.py,line=1,endLine=2,title=git-intent%3A agent lines without evidence::"
            f"claude-code wrote lines 1-2 (session {made['session']}, message {made['message']}, commit "
            f"{lost}), but its messages are not here to quote. Its author can share them: `git config "
            "intent.share evidence`, then `git intent push`.",
            "::warning file=version.py,line=1,endLine=1,title=git-intent%3A agent lines without evidence::"
            f"claude-code is credited with line 1 by a trailer of commit {trailer}, but no session says "
            "which messages wrote them.",
        )
    )

    capped = run_cli("audit", span, "--annotate", "github", "--max-annotations", "1", cwd=repo).stdout
    assert capped.splitlines()[-2:] == [
        proc.stdout.splitlines()[-4],
        f"::notice title=git-intent audit::3 more run(s) of 4 line(s) not annotated (--max-annotations 1): 2 "
        f"of agent lines without evidence, 1 of unrecorded lines; `git intent audit {span} --lines` lists "
        "every line.",
    ]
    refused = run_cli("audit", span, "--annotate", "github", "--json", cwd=repo)
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1] == (
        "Error: --annotate prints workflow commands, not JSON: drop --json or --annotate."
    )
    # A range with nothing to look at prints the audit alone.
    only_agent = run_cli("audit", f"{made['base']}..{made['agent']}", "--annotate", "github", cwd=repo)
    assert only_agent.returncode == 0, only_agent.stderr
    assert only_agent.stdout == run_cli("audit", f"{made['base']}..{made['agent']}", cwd=repo).stdout
    assert "::" not in only_agent.stdout


def test_workflow_command_escapes_follow_githubs_toolkit() -> None:
    from git_intent.share.annotations import Annotation, escape_data, escape_property

    assert escape_data("100%\r\nx:y,z") == "100%25%0D%0Ax:y,z"
    assert escape_property("100%\r\nx:y,z") == "100%25%0D%0Ax%3Ay%2Cz"
    odd = Annotation(path="a\nb:c,d%.py", line=3, end_line=4, line_class="unrecorded", message="50%\nmore")
    assert odd.command() == (
        "::warning file=a%0Ab%3Ac%2Cd%25.py,line=3,endLine=4,title=git-intent%3A unrecorded lines::"
        "50%25%0Amore"
    )
