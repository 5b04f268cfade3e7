"""Signed provenance: in-toto Statements (v1) of a commit's records in DSSE envelopes signed with the SSH key
git signs commits with, kept on refs/notes/git-intent-attestations, checked against git's allowed signers.

`statement` owns the Statement and its predicate (`https://git-intent.dev/provenance/v1`), `ssh` the signer
and the check (ssh-keygen through securesystemslib's Signer and Key), `store` the notes ref, `make` attesting
a range or a carried commit, `verify` checking a range.
"""
