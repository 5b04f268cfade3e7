"""The reviewer's view of a range: every hunk's added lines explained (who, what was asked, why), as
text, a pull-request comment or JSON. `review_range` builds it; `summarise_sessions` is the seam for
model summaries; `review_text` and `review_markdown` render it."""

from __future__ import annotations

from .build import review_range
from .markdown import review_markdown
from .ranges import RangeError
from .summaries import Summariser, summarise_sessions
from .text import review_text
from .values import ReviewAnswer

__all__ = [
    "RangeError",
    "ReviewAnswer",
    "Summariser",
    "review_markdown",
    "review_range",
    "review_text",
    "summarise_sessions",
]
