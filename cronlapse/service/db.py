"""Opening a database: the one place where SQLite and PostgreSQL differ.

Everything else (the journal, snapshots, meta, migrations) is SQLAlchemy Core and the same on
both. What differs is how a connection is set up:

- SQLite runs in WAL mode with ``synchronous=FULL`` (a commit is on disk when it returns) and a
  busy timeout; commits run on a worker thread (see :mod:`cronlapse.service.inputs`) and the pool
  hands a connection to one thread at a time, so SQLite's own same-thread check is off.
- PostgreSQL goes through psycopg 3: a plain ``postgresql://`` URL (libpq's own form, what
  ``psql`` takes) is read as ``postgresql+psycopg://``, so a user never names the driver. Its
  default ``synchronous_commit=on`` already makes a commit durable when it returns.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import ColumnElement, Connection, create_engine, event, func, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.exc import ArgumentError

SCHEMA_LOCK = 0x63726F6E  # "cron"
"""The advisory lock key migrations hold on PostgreSQL (an arbitrary constant of cronlapse's)."""
SCHEDULER_LOCK = SCHEMA_LOCK + 1
"""The session-level advisory lock the active scheduler holds (see
cronlapse.service.roles.scheduler)."""
FENCE_LOCK = SCHEMA_LOCK + 2
"""Journal appends hold it shared for their transaction; a new scheduler takes it exclusively
once, after winning SCHEDULER_LOCK, to wait out its predecessor's appends already under way."""
OUTBOX_LOCK = SCHEMA_LOCK + 3
"""The session-level advisory lock of the process that delivers notifications (the outbox
claim, see cronlapse.service.roles.outbox)."""
JOURNAL_CHANNEL = "cronlapse_journal"
"""LISTEN/NOTIFY channel: a journal append's commit wakes whoever follows the journal."""
DISPATCH_CHANNEL = "cronlapse_dispatch"
"""The scheduler wrote attempts for worker processes to claim."""
REPORT_CHANNEL = "cronlapse_reports"
"""A worker process wrote an outcome, or started."""
INBOX_CHANNEL = "cronlapse_inbox"
"""An API process wrote a command to the inbox."""
ANSWER_CHANNEL = "cronlapse_answers"
"""The active scheduler answered inbox rows (the payload: their positions, comma-separated)."""
SQLITE = "sqlite"
SQLITE_NEEDED = (3, 35)
"""The first SQLite with ``RETURNING`` (2021)."""
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
    elif sqlite3.sqlite_version_info < SQLITE_NEEDED:
        raise UnsupportedDatabase(
            f"this Python's SQLite is {sqlite3.sqlite_version}; cronlapse needs "
            f"{'.'.join(map(str, SQLITE_NEEDED))} or later (a journal append returns its "
            "rows' positions with RETURNING)"
        )
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


def try_lock(conn: Connection, key: int) -> bool:
    """Take the session-level advisory lock ``key`` on ``conn`` if it is free (PostgreSQL)."""
    return bool(conn.execute(select(func.pg_try_advisory_lock(key))).scalar())


def drain_fence(conn: Connection) -> None:
    """Wait until every journal append under way (holding FENCE_LOCK shared) has ended."""
    conn.execute(select(func.pg_advisory_lock(FENCE_LOCK)))
    conn.execute(select(func.pg_advisory_unlock(FENCE_LOCK)))
    conn.commit()


def backend_pid(conn: Connection) -> int:
    return int(conn.execute(select(func.pg_backend_pid())).scalar())


def holds_fence(conn: Connection, holder: int) -> bool:
    """Whether the session ``holder`` (a backend pid) still holds SCHEDULER_LOCK; called in an
    append's transaction, which holds FENCE_LOCK shared until it ends."""
    conn.execute(select(func.pg_advisory_xact_lock_shared(FENCE_LOCK)))
    held = conn.execute(
        text(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND mode = 'ExclusiveLock' AND classid = 0 AND objid = :key AND pid = :pid)"
        ),
        {"key": SCHEDULER_LOCK, "pid": holder},
    ).scalar()
    return bool(held)


def notify_appended(conn: Connection) -> None:
    """Wake the journal's followers when ``conn``'s transaction commits (PostgreSQL only)."""
    if backend(conn.engine) == POSTGRESQL:
        notify(conn, JOURNAL_CHANNEL)


def notify(conn: Connection, channel: str, payload: str = "") -> None:
    """Wake ``channel``'s listeners when ``conn``'s transaction commits (PostgreSQL)."""
    conn.execute(select(wake_up(channel, payload)))


def wake_up(channel: str, payload: str = "") -> ColumnElement:
    """The SQL that NOTIFYs ``channel`` at commit, to select or return with another statement."""
    return func.pg_notify(channel, payload)


def libpq_url(url: str) -> str:
    """``url`` as libpq takes it, for psycopg's own connections (LISTEN)."""
    return database_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
