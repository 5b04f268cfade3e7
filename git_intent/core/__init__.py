"""The core every layer shares: value types (`values`), errors, terminal escaping, private state files
(`state_files`), named crash points for fault tests, the version, and linear-time patterns. Standard library
only but for `linear` (google-re2) and `values` (pydantic, loaded lazily): the hook's fast path imports
`state_files` and `errors` from here."""
