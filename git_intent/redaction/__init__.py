"""Redaction: the one choke point every text passes before it may enter a git object."""
