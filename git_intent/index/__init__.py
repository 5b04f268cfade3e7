"""The session index: `<git common dir>/intent/index.db`, a rebuildable SQLite cache of every session's
messages and edits with FTS5 over their text, kept current by incremental ingest.

Notes and the backup stay the truth (every SQLite file is a cache): deleting index.db loses nothing, the next
`ingest` rebuilds it, and a damaged index.db is moved aside and rebuilt. `store` opens the database
(settings, locks, damage), `migrations` shapes it, `rows` turns sessions into rows, `load` writes them.
"""

from __future__ import annotations

from .base import stamp
from .load import BATCH_SIZE, IngestResult, ingest, repair, unchanged
from .migrations import MIGRATIONS, migrate
from .store import INDEX_NAME, damaged, index_path, open_index

__all__ = [
    "BATCH_SIZE",
    "INDEX_NAME",
    "MIGRATIONS",
    "IngestResult",
    "damaged",
    "index_path",
    "ingest",
    "migrate",
    "open_index",
    "repair",
    "stamp",
    "unchanged",
]
