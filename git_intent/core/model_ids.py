"""Model ids as models.dev writes them (`anthropic/claude-…`), for the Agent Trace records git-intent
writes."""

from __future__ import annotations

# models.dev's provider prefixes for the model ids transcripts record (`claude-opus-4-5-20251101`).
_PROVIDERS = (
    ("claude", "anthropic"),
    ("gpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("codex", "openai"),
    ("gemini", "google"),
)


def models_dev_id(model: str | None) -> str | None:
    """A model id models.dev style (`anthropic/claude-…`), at most 250 characters; None for none."""
    if not isinstance(model, str) or not model:
        return None
    if "/" in model:
        return model[:250]
    provider = next((p for prefix, p in _PROVIDERS if model.lower().startswith(prefix)), None)
    return (f"{provider}/{model}" if provider else model)[:250]
