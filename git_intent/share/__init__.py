"""Sharing records with a team: push/fetch of notes and evidence, what is collected for the evidence ref,
audit.

google-re2 is imported only by `redaction.detectors`, which only the redaction path loads (never the hook).
"""
