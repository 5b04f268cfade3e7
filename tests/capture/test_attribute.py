"""attribute(): crediting a commit's added lines to the edits that produced them, or to nobody."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from rapidfuzz import fuzz

from git_intent.capture.attribute import MappedEdit, attribute, is_trivial
from git_intent.core.values import AddedLine, Edit, Session
from git_intent.git.repo import Hunk

SESSION = Session(agent="claude-code", session_id="s1", transcript=Path("/t/s1.jsonl"))
PATH = "src/app.py"


def mapped(order: int, *lines: str, path: str = PATH, session: Session = SESSION) -> MappedEdit:
    edit = Edit(
        path=f"/Users/nobody/x/{path}",
        tool="Edit",
        message_id=f"m{order}",
        added=tuple(AddedLine(text=t) for t in lines),
    )
    return MappedEdit(session=session, edit=edit, path=path, order=order)


def credits(
    hunks: list[Hunk], edits: list[MappedEdit]
) -> list[tuple[int, MappedEdit | None, str | None, float]]:
    return [(c.line, c.credit, c.match, c.confidence) for c in attribute(hunks, edits)]


def test_exact_match_goes_to_the_last_edit_producing_the_line() -> None:
    early, middle, late = mapped(1, "x = compute(1)"), mapped(2, "x = compute(1)"), mapped(3, "y = other()")
    hunk = Hunk(PATH, 10, ("x = compute(1)",))
    # list order must not matter, only `order`
    assert credits([hunk], [middle, late, early]) == [(10, middle, "exact", 1.0)]


def test_last_edit_wins_across_sessions() -> None:
    other = Session(agent="codex", session_id="s2", transcript=Path("/t/s2.jsonl"))
    first, second = mapped(1, "value = load_config()"), mapped(2, "value = load_config()", session=other)
    (credit,) = attribute([Hunk(PATH, 1, ("value = load_config()",))], [second, first])
    assert credit.credit is second
    assert credit.credit.session.session_id == "s2"


def test_match_after_trimming_whitespace() -> None:
    edit = mapped(1, "    value = 42  ")
    (credit,) = attribute([Hunk(PATH, 3, ("\tvalue = 42",))], [edit])
    assert (credit.credit, credit.match, credit.confidence, credit.text, credit.line) == (
        edit,
        "exact",
        1.0,
        "\tvalue = 42",
        3,
    )


def test_inner_whitespace_is_not_trimmed() -> None:
    edit = mapped(1, "value = 42")
    # only the ends are trimmed: an inner change is at best a near match
    assert credits([Hunk(PATH, 1, ("value  =  42",))], [edit]) == [
        (1, edit, "fuzzy", round(fuzz.ratio("value  =  42", "value = 42") / 100 * 0.9, 2))
    ]


def test_trivial_lines_need_a_neighbour_credited_to_the_same_edit() -> None:
    edit = mapped(1, "def total(a, b):", "    s = a + b", "", "    return", "}")
    hunk = Hunk(PATH, 20, ("def total(a, b):", "    s = a + b", "", "    return", "}"))
    assert credits([hunk], [edit]) == [
        (20, edit, "exact", 1.0),
        (21, edit, "exact", 1.0),
        (22, edit, "exact", 1.0),
        (23, edit, "exact", 1.0),
        (24, edit, "exact", 1.0),
    ]


def test_trivial_line_alone_is_never_credited() -> None:
    edit = mapped(1, "}", "return", "")
    hunk = Hunk(PATH, 5, ("}",))
    assert credits([hunk], [edit]) == [(5, None, None, 0.0)]
    assert credits([Hunk(PATH, 1, ("return", "", "}"))], [edit]) == [
        (1, None, None, 0.0),
        (2, None, None, 0.0),
        (3, None, None, 0.0),
    ]


def test_trivial_line_next_to_a_human_line_is_not_credited() -> None:
    edit = mapped(1, "}")
    hunk = Hunk(PATH, 1, ("human_wrote_this_line()", "}"))
    assert credits([hunk], [edit]) == [(1, None, None, 0.0), (2, None, None, 0.0)]


def test_trivial_line_next_to_another_sessions_line_is_not_credited() -> None:
    other = Session(agent="codex", session_id="s2", transcript=Path("/t/s2.jsonl"))
    braces, body = mapped(1, "}", session=other), mapped(2, "total = a + b")
    hunk = Hunk(PATH, 1, ("total = a + b", "}"))
    assert credits([hunk], [braces, body]) == [(1, body, "exact", 1.0), (2, None, None, 0.0)]


def test_trivial_line_goes_to_the_last_edit_of_the_neighbours_session_that_wrote_it() -> None:
    # A function written over several edits: its closing brace came with the first, its body with a later
    # one (entireio/cli: 274 of 23,717 lines were lost when the very same edit was asked for).
    other = Session(agent="codex", session_id="s2", transcript=Path("/t/s2.jsonl"))
    braces, later_braces, elsewhere, body = (
        mapped(1, "}"),
        mapped(2, "}"),
        mapped(3, "}", session=other),
        mapped(4, "total = a + b"),
    )
    hunk = Hunk(PATH, 1, ("total = a + b", "}"))
    assert credits([hunk], [braces, later_braces, elsewhere, body]) == [
        (1, body, "exact", 1.0),
        (2, later_braces, "exact", 1.0),
    ]


def test_of_the_edits_that_wrote_a_line_the_last_made_by_the_author_date_wins() -> None:
    # A rebased commit: its window runs to the committer date, and another session wrote the same text after
    # the author date (73 of the 138 wrong answers on entireio/cli's history).
    other = Session(agent="codex", session_id="s2", transcript=Path("/t/s2.jsonl"))
    authored = datetime(2026, 1, 22, 20, 0, tzinfo=timezone.utc)
    line = "value = load_config()"
    before, after, untimed = (
        timed(1, line, authored - timedelta(minutes=5)),
        timed(2, line, authored + timedelta(minutes=5), session=other),
        mapped(3, "x = 1"),
    )
    hunk = [Hunk(PATH, 1, (line,))]
    assert [c.credit for c in attribute(hunk, [before, after, untimed], authored)] == [before]
    assert [c.credit for c in attribute(hunk, [before, after, untimed])] == [
        after
    ]  # no author date: the last
    # Made only after the author date (an amend that kept it): the last edit still wins.
    assert [c.credit for c in attribute(hunk, [after], authored)] == [after]
    # An edit whose time the transcript does not give counts as made by the author date.
    no_time = mapped(1, line)
    assert [c.credit for c in attribute(hunk, [no_time, after], authored)] == [no_time]


def timed(order: int, line: str, when: datetime, session: Session = SESSION) -> MappedEdit:
    edit = Edit(
        path=f"/Users/nobody/x/{PATH}",
        tool="Edit",
        message_id=f"m{order}",
        timestamp=when,
        added=(AddedLine(text=line),),
    )
    return MappedEdit(session=session, edit=edit, path=PATH, order=order)


def test_trivial_line_takes_the_nearest_neighbour_above_on_a_tie() -> None:
    above, below = mapped(1, "alpha_line_one = 1", "}"), mapped(2, "beta_line_two = 2", "}")
    hunk = Hunk(PATH, 1, ("alpha_line_one = 1", "}", "beta_line_two = 2"))
    assert credits([hunk], [above, below]) == [
        (1, above, "exact", 1.0),
        (2, above, "exact", 1.0),
        (3, below, "exact", 1.0),
    ]


def test_fuzzy_near_match() -> None:
    produced = "result = compute_total(items, tax_rate)"
    committed = "result = compute_total(items, tax_rate2)"
    edit = mapped(1, produced)
    (credit,) = attribute([Hunk(PATH, 7, (committed,))], [edit])
    assert credit.credit is edit
    assert credit.match == "fuzzy"
    assert credit.confidence == round(fuzz.ratio(committed, produced) / 100 * 0.9, 2)
    assert 0.8 < credit.confidence < 1.0


def test_fuzzy_needs_a_long_line_and_a_close_match() -> None:
    edit = mapped(1, "x = 12345", "result = compute_total(items, tax_rate)")
    assert credits([Hunk(PATH, 1, ("x = 12346",))], [edit]) == [(1, None, None, 0.0)]
    assert credits([Hunk(PATH, 1, ("answer = summarize(rows, currency)",))], [edit]) == [(1, None, None, 0.0)]


def test_line_no_edit_produced_is_human() -> None:
    edit = mapped(1, "print('agent')")
    (credit,) = attribute([Hunk(PATH, 4, ("print('human')",))], [edit])
    assert (credit.path, credit.line, credit.text, credit.credit, credit.match, credit.confidence) == (
        PATH,
        4,
        "print('human')",
        None,
        None,
        0.0,
    )
    assert credits([Hunk(PATH, 4, ("anything_at_all()",))], []) == [(4, None, None, 0.0)]


def test_edits_on_another_path_never_credit() -> None:
    elsewhere = mapped(1, "shared_line = make_thing()", "}", path="src/other.py")
    hunk = Hunk(PATH, 1, ("shared_line = make_thing()", "}"))
    assert credits([hunk], [elsewhere]) == [(1, None, None, 0.0), (2, None, None, 0.0)]


def test_several_hunks_and_files_keep_their_order_and_line_numbers() -> None:
    a, b = mapped(1, "first_file_line = 1"), mapped(2, "second_file_line = 2", path="lib/b.py")
    hunks = [
        Hunk(PATH, 3, ("first_file_line = 1", "human_line = 0")),
        Hunk("lib/b.py", 9, ("second_file_line = 2",)),
        Hunk(PATH, 30, ("first_file_line = 1",)),
    ]
    result = attribute(hunks, [a, b])
    assert [(c.path, c.line, c.credit) for c in result] == [
        (PATH, 3, a),
        (PATH, 4, None),
        ("lib/b.py", 9, b),
        (PATH, 30, a),
    ]


def test_is_trivial() -> None:
    for line in ("}", "", "return", "return;", "else:", "});", "end", "pass", "i++", "*/", "None"):
        assert is_trivial(line), line
    for line in ("return x", "x = 1", "total = a + b", "import os"):
        assert not is_trivial(line), line
