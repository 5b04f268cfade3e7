"""The repository's memory: an append-only log of observations from every session, compacted by reflection,
with a derived project state; answers `memory PATH[:LINES]`, MCP `recall`/`intent_for` and the edit guard.

Nothing is imported here: the guard hook (`guard.py`) must start with the standard library alone."""
