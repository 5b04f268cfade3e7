"""The core every layer shares: value types (`models`), errors, terminal escaping, private state files, named crash
points for fault tests, the version, and linear-time patterns. Standard library only but for `linear` (google-re2)
and `models` (pydantic, loaded lazily): the hook's fast path imports `private` and `errors` from here."""
