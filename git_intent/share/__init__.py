"""Sharing records with a team: push/fetch of notes, the redacted evidence store, redaction, audit.

google-re2 is imported only by `detectors`, which only the redaction path loads (never the hook).
"""
