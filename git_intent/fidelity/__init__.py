"""Fidelity: topics, digests, the per-session fidelity choices and rendering a session within a token
budget."""
