"""Patch formats shared by the adapters: Codex apply_patch envelopes, unified diffs, text diffs."""

from __future__ import annotations

import difflib
import random
from collections import Counter

from git_intent.core.values import AddedLine
from git_intent.transcripts import patches
from git_intent.transcripts.patches import FilePatch, parse_apply_patch, text_diff_added, unified_diff_added

ENVELOPE = """apply_patch <<'EOF'
*** Begin Patch
*** Add File: docs/new.md
+# Title
+
+body
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
 keep = 1
-old = 2
+new = 2
+extra = 3
@@
 tail = 4
-gone = 5
*** End of File
*** Delete File: legacy.py
*** End Patch
EOF
trailing noise
"""


def test_parse_apply_patch_add_update_move_delete() -> None:
    assert parse_apply_patch(ENVELOPE) == [
        FilePatch(
            path="docs/new.md",
            kind="create",
            new_lines=["# Title", "", "body"],
            added=["# Title", "", "body"],
        ),
        FilePatch(
            path="src/app.py",
            kind="update",
            move_to="src/main.py",
            old_lines=["keep = 1", "old = 2", "tail = 4", "gone = 5"],
            new_lines=["keep = 1", "new = 2", "extra = 3", "tail = 4"],
            added=["new = 2", "extra = 3"],
        ),
        FilePatch(path="legacy.py", kind="delete"),
    ]


def test_parse_apply_patch_blank_context_line_is_kept() -> None:
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n a\n\n-b\n+c\n*** End Patch"
    (file,) = parse_apply_patch(patch)
    assert (file.old_lines, file.new_lines, file.added) == (["a", "", "b"], ["a", "", "c"], ["c"])


def test_parse_apply_patch_ignores_lines_after_end_and_without_envelope() -> None:
    assert parse_apply_patch("no patch here\n+not added") == []
    patch = "*** Begin Patch\n*** Add File: a.py\n+x\n*** End Patch\n*** Add File: b.py\n+y\n"
    assert [(f.path, f.added) for f in parse_apply_patch(patch)] == [("a.py", ["x"])]


def test_parse_apply_patch_paths_with_spaces_and_absolute() -> None:
    patch = "*** Begin Patch\n*** Update File: /Users/me/my project/a b.py  \n@@\n-x\n+y\n*** End Patch"
    (file,) = parse_apply_patch(patch)
    assert file.path == "/Users/me/my project/a b.py"


def test_parse_apply_patch_added_line_that_looks_like_a_marker() -> None:
    patch = "*** Begin Patch\n*** Update File: notes.md\n@@\n-x\n+*** bold ***\n+@@ not a hunk\n*** End Patch"
    (file,) = parse_apply_patch(patch)
    assert file.added == ["*** bold ***", "@@ not a hunk"]


def test_unified_diff_added_line_numbers() -> None:
    diff = "\n".join(
        [
            "--- a/x.py",
            "+++ b/x.py",
            "@@ -1,3 +1,4 @@",
            " keep",
            "-old",
            "+new",
            "+newer",
            " keep2",
            "@@ -10 +11,2 @@ def f():",
            " ctx",
            "+tail",
            "\\ No newline at end of file",
        ]
    )
    assert unified_diff_added(diff) == [
        AddedLine(text="new", line=2),
        AddedLine(text="newer", line=3),
        AddedLine(text="tail", line=12),
    ]


def test_unified_diff_added_without_file_headers_and_count_omitted() -> None:
    # Codex patch_apply_end.unified_diff has hunks only
    diff = "@@ -31,3 +31,3 @@\n func f() {\n-\ta := 1\n+\ta := 2\n \treturn\n@@ -0,0 +50 @@\n+// end\n"
    assert unified_diff_added(diff) == [
        AddedLine(text="\ta := 2", line=32),
        AddedLine(text="// end", line=50),
    ]


def test_unified_diff_added_across_two_files() -> None:
    diff = "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+A\n--- a/b\n+++ b/b\n@@ -5,0 +6 @@\n+B\n"
    assert unified_diff_added(diff) == [AddedLine(text="A", line=1), AddedLine(text="B", line=6)]


def test_unified_diff_added_ignores_text_before_first_hunk() -> None:
    assert unified_diff_added("+not in a hunk\n diff header\n") == []


def test_unified_diff_removed_sql_comment_does_not_end_the_hunk() -> None:
    diff = "@@ -1,2 +1,3 @@\n-- old comment\n+-- new comment\n+select 1;\n keep\n"
    assert unified_diff_added(diff) == [
        AddedLine(text="-- new comment", line=1),
        AddedLine(text="select 1;", line=2),
    ]
    diff = "@@ -1,2 +1,2 @@\n--- old\n+-- new\n keep\n"
    assert unified_diff_added(diff) == [AddedLine(text="-- new", line=1)]


def test_unified_diff_added_line_starting_with_plus_plus() -> None:
    diff = "@@ -1 +1,3 @@\n keep\n+++ counter\n+after\n"
    assert unified_diff_added(diff) == [AddedLine(text="++ counter", line=2), AddedLine(text="after", line=3)]


def test_text_diff_added_numbers_lines_of_after() -> None:
    before = "a\nb\nc\n"
    after = "a\nB\nc\nd\n"
    assert text_diff_added(before, after) == [AddedLine(text="B", line=2), AddedLine(text="d", line=4)]


def test_text_diff_added_insert_at_top_and_unnumbered() -> None:
    assert text_diff_added("x\ny", "new\nx\ny") == [AddedLine(text="new", line=1)]
    assert text_diff_added("x = 1", "x = 1\ny = 2", numbered=False) == [AddedLine(text="y = 2", line=None)]


def test_text_diff_added_from_empty_and_deletion_only() -> None:
    assert text_diff_added("", "one\ntwo") == [AddedLine(text="one", line=1), AddedLine(text="two", line=2)]
    assert text_diff_added("one\ntwo\n", "one\n") == []
    assert text_diff_added("same\n", "same\n") == []


def test_text_diff_added_keeps_repeated_lines_distinct() -> None:
    before = "}\n}\n"
    after = "}\nreturn\n}\n}\n"
    added = text_diff_added(before, after)
    # which '}' counts as new is the aligner's choice; each added line must point at its own text
    assert sorted(a.text for a in added) == ["return", "}"]
    assert len({a.line for a in added}) == 2
    assert all(a.line is not None and after.splitlines()[a.line - 1] == a.text for a in added)


def _whole_file(before: list[str], after: list[str]) -> list[tuple[str, int]]:
    """difflib over the whole texts: what text_diff_added must give, however it trims."""
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    return [
        (after[j], j + 1)
        for tag, _a, _b, j1, j2 in matcher.get_opcodes()
        if tag in ("insert", "replace")
        for j in range(j1, j2)
    ]


def test_text_diff_added_trims_a_file_of_repeated_lines_edited_near_its_end() -> None:
    """Runs of repeated lines (`}`) far from an edit near the end of a file no longer force the
    whole-file diff (553 of 3,697 edits of entireio/cli's real transcripts did, files of up to 3,200
    lines)."""
    old = [line for i in range(100) for line in (f"func f{i}() {{", "}", "}")] + ["end one", "end two"]
    new = [*old[:-2], "added", *old[-2:]]
    assert patches._common_ends(old, new) == (300, 300, 301)
    assert text_diff_added("\n".join(old), "\n".join(new)) == [AddedLine(text="added", line=301)]
    assert _whole_file(old, new) == [("added", 301)]


def test_text_diff_added_equals_the_whole_file_diff_on_random_edits() -> None:
    """Exactness of the trimming, on edits of files made of few distinct lines (ties and repeats
    everywhere), at the start, middle and end; each way of trimming is taken."""
    rng = random.Random(14)
    alphabet = ["}", "", "x = 1", "return nil", "{"]
    ways: Counter[str] = Counter()
    for _ in range(4000):
        old = [
            rng.choice(alphabet) if rng.random() < 0.6 else f"line {rng.randrange(40)}"
            for _ in range(rng.randrange(0, 40))
        ]
        start = rng.choice([0, len(old), rng.randint(0, len(old))])
        end = rng.randint(start, min(len(old), start + rng.randrange(0, 6)))
        inserted = [
            rng.choice(alphabet) if rng.random() < 0.5 else f"new {rng.randrange(5)}"
            for _ in range(rng.randrange(0, 6))
        ]
        before, after = "\n".join(old), "\n".join([*old[:start], *inserted, *old[end:]])
        old, new = before.splitlines(), after.splitlines()  # a last empty line is no line of the text
        low, old_end, new_end = patches._common_ends(old, new)
        ways[
            "whole"
            if (low, old_end, new_end) == (0, len(old), len(new))
            else "after the leading block"
            if (old_end, new_end) == (len(old), len(new))
            else "before the trailing block"
            if low == 0
            else "middle"
        ] += 1
        got = text_diff_added(before, after)
        assert [(a.text, a.line) for a in got] == _whole_file(old, new), (old, new)
    assert min(ways.values()) >= 100 and len(ways) == 4, ways
