"""An SQLite file through the standard library's ``sqlite3``: what an SQLite server's store runs
on instead of SQLAlchemy (its journal, its history and read model, its dead letters).

SQLAlchemy is a fifth of an SQLite server's memory (20 MB, kept for as long as it runs) and a
third of its restart, for statements that are few and plain. These run on the same tables
(:mod:`cronlapse.service.store.sql.schema`, made by the SQLAlchemy migrations), with the same
settings as the SQLAlchemy engine's connections (WAL, ``synchronous=FULL``, a busy timeout:
:mod:`cronlapse.service.store.sql.db`), and keep the same promises
(``tests/service/store_contract.py`` holds the SQLite store and the PostgreSQL one to them).

Each thread has a connection of its own (a commit runs on a worker thread, reads on others); a
write is one ``BEGIN IMMEDIATE`` transaction; every ``sqlite3`` error is raised as the store's
:class:`~cronlapse.service.store.errors.StoreFailure`, with the driver's words.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from cronlapse.service.store.errors import StoreFailure

P = ParamSpec("P")
R = TypeVar("R")

BUSY_TIMEOUT_MS = 5000
PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
)
"""How every connection to an SQLite database is set up, SQLAlchemy's engine's too: a commit is
on disk when it returns, readers do not block the writer, and a busy database is waited for."""
UNIX_JULIAN_DAY = 2440587.5
"""The Julian day of the Unix epoch: SQLite's clock reads in days since another epoch."""
NOW_SECONDS = f"((julianday('now') - {UNIX_JULIAN_DAY}) * 86400.0)"
"""The database's clock in Unix seconds (a float), as SQL: the store's clock on SQLite."""


def translated(method: Callable[P, R]) -> Callable[P, R]:
    """``method``, raising :class:`StoreFailure` for an ``sqlite3`` error."""

    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except sqlite3.Error as error:
            raise StoreFailure(str(error), error.__class__.__name__) from error

    return call


class SqliteDb:
    """One database file: a ``sqlite3`` connection per thread, set up as the SQLAlchemy engine's
    are, all closed by :meth:`close`."""

    def __init__(self, database: str) -> None:
        self.database = database
        self._local = threading.local()
        self._lock = threading.Lock()
        self._opened: list[sqlite3.Connection] = []

    def connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.database, isolation_level=None, check_same_thread=False)
            for pragma in PRAGMAS:
                conn.execute(pragma)
            with self._lock:
                self._opened.append(conn)
            self._local.conn = conn
        return conn

    def read(self, sql: str, parameters: tuple | list = ()) -> list[tuple]:
        return self.connection().execute(sql, parameters).fetchall()

    def write(self, statements: Callable[[sqlite3.Connection], R]) -> R:
        """Run ``statements`` in one write transaction, committed (durably) or rolled back."""
        conn = self.connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = statements(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return done

    def close(self) -> None:
        with self._lock:
            opened, self._opened = self._opened, []
        for conn in opened:
            conn.close()
        self._local = threading.local()
