"""Explaining a line: blame → note → session → evidence, the content fallback, and text renderings of answers."""
