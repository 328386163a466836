"""Database URLs: which backends cronlapse runs on, and a URL as it may be printed.

SQLite and PostgreSQL only. A plain ``postgresql://`` URL (libpq's own form, what ``psql``
takes) is read as ``postgresql+psycopg://``, so a user never names the driver.

SQLAlchemy parses URLs, but a plain SQLite file's (``sqlite:///path``, nothing in the path that
SQLAlchemy would unquote or quote back) is read here without it: an SQLite server's restart
does not load SQLAlchemy (:mod:`cronlapse.service.store.sql.sqlite_journal`).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from cronlapse.service.store.errors import UnsupportedDatabase

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

SQLITE = "sqlite"
SQLITE_NEEDED = (3, 35)
"""The first SQLite with ``RETURNING`` (2021)."""
POSTGRESQL = "postgresql"
BACKENDS = (SQLITE, POSTGRESQL)


PLAIN_SQLITE = "sqlite:///"
"""The prefix of a plain SQLite file's URL, its path after it."""
_NOT_PLAIN = frozenset("%?@:#")
"""Characters SQLAlchemy reads or writes specially in a URL (quoting, a query, a password)."""


def plain_sqlite_file(url: str) -> str | None:
    """The file a plain SQLite URL names (``sqlite:///path``, read as SQLAlchemy reads it),
    without loading SQLAlchemy; None for any other URL."""
    if not url.startswith(PLAIN_SQLITE):
        return None
    database = url[len(PLAIN_SQLITE) :]
    if not database or _NOT_PLAIN.intersection(database):
        return None
    return database


def check_sqlite() -> None:
    """:class:`UnsupportedDatabase` if this Python's SQLite is too old for cronlapse."""
    if sqlite3.sqlite_version_info < SQLITE_NEEDED:
        raise UnsupportedDatabase(
            f"this Python's SQLite is {sqlite3.sqlite_version}; cronlapse needs "
            f"{'.'.join(map(str, SQLITE_NEEDED))} or later (a journal append returns its "
            "rows' positions with RETURNING)"
        )


def database_url(url: str) -> URL:
    """The SQLAlchemy URL for ``url``: psycopg 3 for PostgreSQL; another backend is refused
    (:class:`UnsupportedDatabase`; a URL that does not parse raises ``ArgumentError``)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend not in BACKENDS:
        raise UnsupportedDatabase(
            f"expected a sqlite:/// or postgresql:// URL, got a {backend} one"
        )
    if backend == POSTGRESQL:
        parsed = parsed.set(drivername="postgresql+psycopg")
    else:
        check_sqlite()
    return parsed


def backend_of(url: str) -> str | None:
    """``sqlite`` or ``postgresql`` for a URL of either, else None (another or no backend)."""
    if plain_sqlite_file(url) is not None:
        return SQLITE
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError:
        return None
    return backend if backend in BACKENDS else None


def shown(url: str) -> str:
    """``url`` as it may be printed: without its password."""
    if plain_sqlite_file(url) is not None:
        return url
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def sqlite_file(url: str) -> str | None:
    """The file an SQLite URL names (None for another backend or an in-memory database)."""
    plain = plain_sqlite_file(url)
    if plain is not None:
        return plain
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() != SQLITE or database in (None, "", ":memory:"):
        return None
    return database


def libpq_url(url: str) -> str:
    """``url`` as libpq takes it, for psycopg's own connections (LISTEN)."""
    return database_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
