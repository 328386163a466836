"""The schema's version: where a database keeps it, and the one this code migrates to.

Apart from the steps (:mod:`cronlapse.service.store.sql.migrations`, SQLAlchemy), so that a
restart on an SQLite database already at :data:`LATEST` checks it with the standard library's
sqlite3 and never loads SQLAlchemy (:mod:`cronlapse.service.store.sql.sqlite_journal`). A test
holds :data:`LATEST` to the number of steps.
"""

from __future__ import annotations

VERSION_KEY = "schema_version"
"""The ``meta`` row that holds the version."""
LATEST = 6
"""The version the last migration step reaches."""
