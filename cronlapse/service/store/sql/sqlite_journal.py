"""An SQLite database's journal, snapshots and meta through the standard library's ``sqlite3``.

The journal is what a restart reads (its schema version, the clock, the latest snapshot, the rows
after it) and what every input writes. Through SQLAlchemy, a restart on SQLite imported it first:
a third of the time to the first run with 20,000 jobs stored, and 20 MB of the server's memory
for as long as it runs. These statements are few and plain, so an SQLite journal runs them itself,
on the same tables (:mod:`cronlapse.service.store.sql.schema`), with the same promises
(:class:`cronlapse.service.store.Journal`; ``tests/service/store_contract.py`` holds both
implementations to them) and the same settings as the SQLAlchemy engine's connections (WAL,
``synchronous=FULL``, a busy timeout: :mod:`cronlapse.service.store.sql.db`). The rest of the
store, and an append that publishes with its rows (the active scheduler's, on PostgreSQL), go
through SQLAlchemy (:class:`~cronlapse.service.store.sql.journal.SqlJournal`), loaded on first use.

Each thread has a connection of its own (a commit runs on a worker thread, reads on others); a
write is one ``BEGIN IMMEDIATE`` transaction; every ``sqlite3`` error is raised as the store's
:class:`~cronlapse.service.store.errors.StoreFailure`, with the driver's words.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from cronlapse.service.store.errors import StoreFailure
from cronlapse.service.store.journal import SNAPSHOTS_KEPT, Publication, Snapshot
from cronlapse.service.store.rows import Entry, JournalRow
from cronlapse.service.store.sql.paging import rows_in_chunks
from cronlapse.service.store.sql.version import VERSION_KEY

if TYPE_CHECKING:
    from cronlapse.service.store.coordination import Election
    from cronlapse.service.store.sql.journal import SqlJournal

P = ParamSpec("P")
R = TypeVar("R")

BUSY_TIMEOUT_MS = 5000


def translated(method: Callable[P, R]) -> Callable[P, R]:
    """``method``, raising :class:`StoreFailure` for an ``sqlite3`` error."""

    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except sqlite3.Error as error:
            raise StoreFailure(str(error), error.__class__.__name__) from error

    return call


class Connections:
    """One ``sqlite3`` connection per thread to one database file, set up as the SQLAlchemy
    engine's are, all closed by :meth:`close`."""

    def __init__(self, database: str) -> None:
        self.database = database
        self._local = threading.local()
        self._lock = threading.Lock()
        self._opened: list[sqlite3.Connection] = []

    def get(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.database, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            with self._lock:
                self._opened.append(conn)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        with self._lock:
            opened, self._opened = self._opened, []
        for conn in opened:
            conn.close()
        self._local = threading.local()


class SqliteJournal:
    """:class:`cronlapse.service.store.Journal` on an SQLite file; ``publishing`` is the
    SQLAlchemy journal of the same database, for appends with a publication."""

    def __init__(self, database: str, publishing: Callable[[], SqlJournal]) -> None:
        self.database = database
        self.connections = Connections(database)
        self._publishing = publishing

    def schema_version(self) -> int | None:
        """The version the database's ``meta`` holds; None if it has no table or no version row
        (the SQLAlchemy migrations then decide). Read on the journal's connection, which stays
        open: closing a database's last connection checkpoints its write-ahead log, which after
        a kill can take longer than the read."""
        try:
            found = self._read("SELECT value FROM meta WHERE key = ?", (VERSION_KEY,))
        except sqlite3.Error:
            return None
        return int(found[0][0]) if found else None

    def _read(self, sql: str, parameters: tuple = ()) -> list[tuple]:
        return self.connections.get().execute(sql, parameters).fetchall()

    def _write(self, statements: Callable[[sqlite3.Connection], R]) -> R:
        """Run ``statements`` in one write transaction, committed (durably) or rolled back."""
        conn = self.connections.get()
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = statements(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return done

    @translated
    def append(self, entries: Sequence[Entry], publication: Publication | None = None) -> list[int]:
        if publication is not None:
            return self._publishing().append(entries, publication)
        wall = time.time()
        rows = [
            (
                entry.tick,
                entry.phase,
                entry.verb,
                json.dumps(entry.args, separators=(",", ":")),
                wall,
            )
            for entry in entries
        ]
        insert = (
            "INSERT INTO journal (tick, phase, verb, args, wall) VALUES (?, ?, ?, ?, ?) "
            "RETURNING seq"
        )

        def inserted(conn: sqlite3.Connection) -> list[int]:
            return [int(conn.execute(insert, row).fetchall()[0][0]) for row in rows]

        return self._write(inserted) if rows else []

    def fence_with(self, election: Election) -> None:
        self._publishing().fence_with(election)

    def rows_after(self, seq: int, limit: int | None = None) -> Iterator[JournalRow]:
        return rows_in_chunks(self._chunk, seq, limit)

    @translated
    def _chunk(self, seq: int, limit: int) -> list[JournalRow]:
        found = self._read(
            "SELECT seq, tick, phase, verb, args FROM journal WHERE seq > ? ORDER BY seq LIMIT ?",
            (seq, limit),
        )
        return [
            JournalRow(s, tick, phase, verb, json.loads(args))
            for s, tick, phase, verb, args in found
        ]

    @translated
    def last_seq(self) -> int:
        return int(self._read("SELECT coalesce(max(seq), 0) FROM journal")[0][0])

    @translated
    def count(self) -> int:
        return int(self._read("SELECT count(*) FROM journal")[0][0])

    @translated
    def save_snapshot(self, seq: int, state: bytes) -> None:
        def saved(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO snapshots (seq, wall, state) VALUES (?, ?, ?)",
                (seq, time.time(), state),
            )
            conn.execute(
                "DELETE FROM snapshots WHERE seq NOT IN "
                "(SELECT seq FROM snapshots ORDER BY seq DESC LIMIT ?)",
                (SNAPSHOTS_KEPT,),
            )

        self._write(saved)

    @translated
    def has_snapshot(self, seq: int) -> bool:
        return bool(self._read("SELECT 1 FROM snapshots WHERE seq = ?", (seq,)))

    @translated
    def latest_snapshot(self) -> Snapshot | None:
        found = self._read("SELECT seq, state FROM snapshots ORDER BY seq DESC LIMIT 1")
        return Snapshot(found[0][0], found[0][1]) if found else None

    @translated
    def oldest_snapshot(self) -> Snapshot | None:
        found = self._read("SELECT seq, state FROM snapshots ORDER BY seq LIMIT 1")
        return Snapshot(found[0][0], found[0][1]) if found else None

    @translated
    def compact(self, before: int) -> int:
        def deleted(conn: sqlite3.Connection) -> int:
            oldest = conn.execute("SELECT min(seq) FROM snapshots").fetchone()[0]
            if oldest is None:
                return 0
            done = conn.execute("DELETE FROM journal WHERE seq < ? AND tick < ?", (oldest, before))
            return done.rowcount

        return self._write(deleted)

    @translated
    def compacted(self) -> int:
        first = self._read("SELECT min(seq) FROM journal")[0][0]
        return 0 if first is None else int(first) - 1

    @translated
    def latest_snapshot_seq(self) -> int | None:
        found = self._read("SELECT max(seq) FROM snapshots")[0][0]
        return None if found is None else int(found)

    @translated
    def get_meta(self, key: str) -> str | None:
        found = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return found[0][0] if found else None

    @translated
    def set_meta(self, key: str, value: str) -> None:
        def written(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM meta WHERE key = ?", (key,))
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))

        self._write(written)

    def size_on_disk(self) -> int | None:
        files = [self.database, self.database + "-wal"]
        return sum(os.path.getsize(path) for path in files if os.path.exists(path))

    def close(self) -> None:
        self.connections.close()
