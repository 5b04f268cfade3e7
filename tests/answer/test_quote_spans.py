"""`quote_spans` finds exactly what the bounded pattern it replaced finds with `re.finditer`.

The pattern read up to 2,000 characters at every unclosed mark (quadratic on an answer full of them); the
scan that replaced it must keep every answer the same. Hypothesis draws texts heavy in both kinds of quote
marks and newlines, with runs whose lengths sit around the 2,000-character bound, and both must agree."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from git_intent.answer.citations import QUOTE_CHARS, quote_spans

OLD = re.compile(r'"(?P<a>[^"\n]{1,2000})"|“(?P<b>[^”\n]{1,2000})”')
MARKS = '"“”\n'

# Short pieces mostly of marks and newlines, and long runs of one letter whose lengths straddle the bound,
# so a quotation one character too long (or just long enough) comes up often.
SHORT = st.text(alphabet=st.sampled_from([*MARKS * 3, "a", "b", " "]), max_size=12)
LONG = st.builds(
    lambda letter, n: letter * n,
    st.sampled_from(["x", "y"]),
    st.integers(min_value=QUOTE_CHARS - 3, max_value=QUOTE_CHARS + 2),
)
TEXTS = st.lists(st.one_of(SHORT, SHORT, LONG), max_size=8).map("".join)


def old_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, words) of each match of the old pattern: the whole quotation's span, the words inside."""
    return [(m.start(), m.end(), m["a"] if m["a"] is not None else m["b"]) for m in OLD.finditer(text)]


def test_the_old_pattern_bound_is_the_one_quote_spans_keeps() -> None:
    assert QUOTE_CHARS == 2000
    assert quote_spans('"' + "x" * 2000 + '"') == [(0, 2002, "x" * 2000)]
    assert quote_spans('"' + "x" * 2001 + '"\n“y”') == [(2004, 2007, "y")]


@settings(max_examples=600, deadline=None)
@given(TEXTS)
def test_quote_spans_equals_the_old_pattern(text: str) -> None:
    assert quote_spans(text) == old_spans(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from([*MARKS, "a", " "]), max_size=60))
def test_quote_spans_equals_the_old_pattern_on_short_texts(text: str) -> None:
    assert quote_spans(text) == old_spans(text)
