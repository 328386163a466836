"""Opening a database: the one place where SQLite and PostgreSQL differ.

Everything else (the journal, snapshots, meta, migrations) is SQLAlchemy Core and the same on
both. What differs is how a connection is set up:

- SQLite runs in WAL mode with ``synchronous=FULL`` (a commit is on disk when it returns) and a
  busy timeout; commits run on a worker thread (see :mod:`service.inputs`) and the pool hands a
  connection to one thread at a time, so SQLite's own same-thread check is off.
- PostgreSQL goes through psycopg 3: a plain ``postgresql://`` URL (libpq's own form, what
  ``psql`` takes) is read as ``postgresql+psycopg://``, so a user never names the driver. Its
  default ``synchronous_commit=on`` already makes a commit durable when it returns.
"""

from __future__ import annotations

from sqlalchemy import Connection, create_engine, event, func, select
from sqlalchemy.engine import URL, make_url
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.exc import ArgumentError

SCHEMA_LOCK = 0x63726F6E  # "cron"
"""The advisory lock key migrations hold on PostgreSQL (an arbitrary constant of cronlapse's)."""
SQLITE = "sqlite"
POSTGRESQL = "postgresql"
BACKENDS = (SQLITE, POSTGRESQL)


class UnsupportedDatabase(ValueError):
    """A URL of a database cronlapse does not run on."""


def database_url(url: str) -> URL:
    """The SQLAlchemy URL for ``url``: psycopg 3 for PostgreSQL; another backend is refused."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend not in BACKENDS:
        raise UnsupportedDatabase(
            f"expected a sqlite:/// or postgresql:// URL, got a {backend} one"
        )
    if backend == POSTGRESQL:
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def open_database(url: str) -> SqlEngine:
    """An engine on ``url``, set up as its backend needs (see the module's docstring)."""
    parsed = database_url(url)
    if parsed.get_backend_name() == SQLITE:
        engine = create_engine(parsed, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(parsed, pool_pre_ping=True)


def shown(url: str) -> str:
    """``url`` as it may be printed: without its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def backend(engine: SqlEngine) -> str:
    return engine.dialect.name


def lock_schema(conn: Connection) -> None:
    """Hold the migration lock until ``conn``'s transaction ends. PostgreSQL: an advisory lock,
    since several processes may start on one database at once. SQLite: nothing, its one server
    process is the only one that migrates."""
    if backend(conn.engine) == POSTGRESQL:
        conn.execute(select(func.pg_advisory_xact_lock(SCHEMA_LOCK)))


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
