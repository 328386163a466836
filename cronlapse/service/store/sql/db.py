"""Opening a database, and what only PostgreSQL has: the one place where the backends differ.

Everything else (the journal, snapshots, meta, the roles' tables, migrations) is SQLAlchemy Core
and the same on both. What differs:

- SQLite runs in WAL mode with ``synchronous=FULL`` (a commit is on disk when it returns) and a
  busy timeout; commits run on a worker thread (see :mod:`cronlapse.service.inputs`) and the pool
  hands a connection to one thread at a time, so SQLite's own same-thread check is off.
- PostgreSQL goes through psycopg 3 (:func:`~cronlapse.service.store.sql.urls.database_url`). Its
  default ``synchronous_commit=on`` already makes a commit durable when it returns. It adds the
  advisory locks (the migrations', the scheduler election's, the fence of the journal and the
  dispatch table, the outbox claim) and LISTEN/NOTIFY.
- The store's clock (a heartbeat, an inbox row's age) is the database's, so that machines whose
  clocks differ agree: ``clock_timestamp()`` on PostgreSQL, SQLite's ``julianday('now')``.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, create_engine, event, func, literal, select, text
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.sql.dml import Insert

from cronlapse.service.store.sql.sqlite_db import PRAGMAS, UNIX_JULIAN_DAY
from cronlapse.service.store.sql.urls import POSTGRESQL, SQLITE, database_url

SCHEMA_LOCK = 0x63726F6E  # "cron"
"""The advisory lock key migrations hold on PostgreSQL (an arbitrary constant of cronlapse's)."""
SCHEDULER_LOCK = SCHEMA_LOCK + 1
"""The session-level advisory lock the active scheduler holds (the election)."""
FENCE_LOCK = SCHEMA_LOCK + 2
"""Journal appends and dispatch assignments hold it shared for their transaction; a new
scheduler takes it exclusively once, after winning SCHEDULER_LOCK, to wait out its predecessor's
ones already under way."""
OUTBOX_LOCK = SCHEMA_LOCK + 3
"""The session-level advisory lock of the process that delivers notifications (the outbox
claim)."""


def open_database(url: str) -> SqlEngine:
    """An engine on ``url``, set up as its backend needs (see the module's docstring)."""
    parsed = database_url(url)
    if parsed.get_backend_name() == SQLITE:
        engine = create_engine(parsed, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(parsed, pool_pre_ping=True)


def backend(engine: SqlEngine) -> str:
    return engine.dialect.name


def is_postgresql(conn: Connection) -> bool:
    return backend(conn.engine) == POSTGRESQL


def now_seconds(conn: Connection) -> ColumnElement:
    """The database's clock, in Unix seconds (a float), as an SQL expression."""
    if is_postgresql(conn):
        return func.extract("epoch", func.clock_timestamp())
    return (func.julianday("now") - literal(UNIX_JULIAN_DAY)) * 86400.0


def insert_for(conn: Connection, table) -> Insert:
    """An INSERT of the connection's dialect, which takes ``on_conflict_do_...`` (the dialect
    imported here: SQLAlchemy's PostgreSQL dialect is a tenth of a server's imports on SQLite)."""
    if is_postgresql(conn):
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table)


def lock_schema(conn: Connection) -> None:
    """Hold the migration lock until ``conn``'s transaction ends. PostgreSQL: an advisory lock,
    since several processes may start on one database at once. SQLite: nothing, its one server
    process is the only one that migrates."""
    if is_postgresql(conn):
        conn.execute(select(func.pg_advisory_xact_lock(SCHEMA_LOCK)))


def try_lock(conn: Connection, key: int) -> bool:
    """Take the session-level advisory lock ``key`` on ``conn`` if it is free (PostgreSQL)."""
    return bool(conn.execute(select(func.pg_try_advisory_lock(key))).scalar())


def drain_fence(conn: Connection) -> None:
    """Wait until every fenced write under way (a journal append, a dispatch assignment: each
    holds FENCE_LOCK shared) has ended."""
    conn.execute(select(func.pg_advisory_lock(FENCE_LOCK)))
    conn.execute(select(func.pg_advisory_unlock(FENCE_LOCK)))
    conn.commit()


def backend_pid(conn: Connection) -> int:
    return int(conn.execute(select(func.pg_backend_pid())).scalar())


def holds_fence(conn: Connection, holder: int) -> bool:
    """Whether the session ``holder`` (a backend pid) still holds SCHEDULER_LOCK; called in a
    fenced write's transaction, which holds FENCE_LOCK shared until it ends."""
    conn.execute(select(func.pg_advisory_xact_lock_shared(FENCE_LOCK)))
    held = conn.execute(
        text(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND mode = 'ExclusiveLock' AND classid = 0 AND objid = :key AND pid = :pid)"
        ),
        {"key": SCHEDULER_LOCK, "pid": holder},
    ).scalar()
    return bool(held)


def notify(conn: Connection, channel: str, payload: str = "") -> None:
    """Wake ``channel``'s listeners when ``conn``'s transaction commits (PostgreSQL only: SQLite
    has no listeners)."""
    if is_postgresql(conn):
        conn.execute(select(wake_up(channel, payload)))


def wake_up(channel: str, payload: str = "") -> ColumnElement:
    """The SQL that NOTIFYs ``channel`` at commit, to select or return with another statement
    (PostgreSQL)."""
    return func.pg_notify(channel, payload)


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    for pragma in PRAGMAS:
        cursor.execute(pragma)
    cursor.close()
