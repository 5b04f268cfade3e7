"""An organisation's intent in one store: many repositories' records, sessions and line counts loaded into
SQLite (one file, the default) or PostgreSQL, and the questions asked across them.

`rows` holds the plain rows sync hands to the store; `store` opens either back end and answers the queries;
`sync` reads each repository's shared refs into a `RepoSnapshot`.
"""
