"""Explaining a line: blame → note → session → evidence, the one classifier every surface asks, renderings."""
