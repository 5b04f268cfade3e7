"""Answers to why and ask questions, with citations checked by code.

Public API: `why`, `ask`, `verify_citations`, `strip_links`, `quotable_text`, `quote_occurs` and the answer
models. Loaded lazily, like the package façade: nothing here imports litellm (only `agent` does, and only
when a model is asked) or the index and search modules until a question needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "Citation",
    "DroppedCitation",
    "Limits",
    "Usage",
    "WhyAnswer",
    "ask",
    "quotable_text",
    "quote_occurs",
    "strip_links",
    "verify_citations",
    "why",
]

_EXPORTS = {
    "Citation": "values",
    "DroppedCitation": "values",
    "Limits": "values",
    "Usage": "values",
    "WhyAnswer": "values",
    "ask": "ask_question",
    "why": "why_line",
    "quotable_text": "citations",
    "quote_occurs": "citations",
    "strip_links": "citations",
    "verify_citations": "citations",
}

if TYPE_CHECKING:
    from .ask_question import ask
    from .citations import quotable_text, quote_occurs, strip_links, verify_citations
    from .values import Citation, DroppedCitation, Limits, Usage, WhyAnswer
    from .why_line import why


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
