"""An SQLite database's journal, snapshots and meta through the standard library's ``sqlite3``
(:mod:`cronlapse.service.store.sql.sqlite_db`).

The journal is what a restart reads (its schema version, the clock, the latest snapshot, the rows
after it) and what every input writes. Through SQLAlchemy, a restart on SQLite imported it first:
a third of the time to the first run with 20,000 jobs stored. An append that publishes with its
rows (the active scheduler's, which runs on PostgreSQL only) goes through SQLAlchemy
(:class:`~cronlapse.service.store.sql.journal.SqlJournal`), loaded on first use.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from cronlapse.service.store.journal import SNAPSHOTS_KEPT, Publication, Snapshot
from cronlapse.service.store.rows import Entry, JournalRow
from cronlapse.service.store.sql.paging import rows_in_chunks
from cronlapse.service.store.sql.sqlite_db import SqliteDb, translated
from cronlapse.service.store.sql.version import VERSION_KEY

if TYPE_CHECKING:
    from cronlapse.service.store.coordination import Election
    from cronlapse.service.store.sql.journal import SqlJournal


class SqliteJournal:
    """:class:`cronlapse.service.store.Journal` on an SQLite file; ``publishing`` is the
    SQLAlchemy journal of the same database, for appends with a publication."""

    def __init__(self, db: SqliteDb, publishing: Callable[[], SqlJournal]) -> None:
        self.db = db
        self._publishing = publishing

    def schema_version(self) -> int | None:
        """The version the database's ``meta`` holds; None if it has no table or no version row
        (the SQLAlchemy migrations then decide). Read on the journal's connection, which stays
        open: closing a database's last connection checkpoints its write-ahead log, which after
        a kill can take longer than the read."""
        try:
            found = self.db.read("SELECT value FROM meta WHERE key = ?", (VERSION_KEY,))
        except sqlite3.Error:
            return None
        return int(found[0][0]) if found else None

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

        return self.db.write(inserted) if rows else []

    def fence_with(self, election: Election) -> None:
        self._publishing().fence_with(election)

    def rows_after(self, seq: int, limit: int | None = None) -> Iterator[JournalRow]:
        return rows_in_chunks(self._chunk, seq, limit)

    @translated
    def _chunk(self, seq: int, limit: int) -> list[JournalRow]:
        found = self.db.read(
            "SELECT seq, tick, phase, verb, args FROM journal WHERE seq > ? ORDER BY seq LIMIT ?",
            (seq, limit),
        )
        return [
            JournalRow(s, tick, phase, verb, json.loads(args))
            for s, tick, phase, verb, args in found
        ]

    @translated
    def last_seq(self) -> int:
        return int(self.db.read("SELECT coalesce(max(seq), 0) FROM journal")[0][0])

    @translated
    def count(self) -> int:
        return int(self.db.read("SELECT count(*) FROM journal")[0][0])

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

        self.db.write(saved)

    @translated
    def has_snapshot(self, seq: int) -> bool:
        return bool(self.db.read("SELECT 1 FROM snapshots WHERE seq = ?", (seq,)))

    @translated
    def latest_snapshot(self) -> Snapshot | None:
        found = self.db.read("SELECT seq, state FROM snapshots ORDER BY seq DESC LIMIT 1")
        # The snapshot's pages would stay in the connection's cache: 2 MB of a restarted
        # server's resident size for its life, with 20,000 jobs stored.
        self.db.read("PRAGMA shrink_memory")
        return Snapshot(found[0][0], found[0][1]) if found else None

    @translated
    def oldest_snapshot(self) -> Snapshot | None:
        found = self.db.read("SELECT seq, state FROM snapshots ORDER BY seq LIMIT 1")
        return Snapshot(found[0][0], found[0][1]) if found else None

    @translated
    def compact(self, before: int) -> int:
        def deleted(conn: sqlite3.Connection) -> int:
            oldest = conn.execute("SELECT min(seq) FROM snapshots").fetchone()[0]
            if oldest is None:
                return 0
            done = conn.execute("DELETE FROM journal WHERE seq < ? AND tick < ?", (oldest, before))
            return done.rowcount

        return self.db.write(deleted)

    @translated
    def compacted(self) -> int:
        first = self.db.read("SELECT min(seq) FROM journal")[0][0]
        return 0 if first is None else int(first) - 1

    @translated
    def latest_snapshot_seq(self) -> int | None:
        found = self.db.read("SELECT max(seq) FROM snapshots")[0][0]
        return None if found is None else int(found)

    @translated
    def get_meta(self, key: str) -> str | None:
        found = self.db.read("SELECT value FROM meta WHERE key = ?", (key,))
        return found[0][0] if found else None

    @translated
    def set_meta(self, key: str, value: str) -> None:
        def written(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM meta WHERE key = ?", (key,))
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))

        self.db.write(written)

    def size_on_disk(self) -> int | None:
        files = [self.db.database, self.db.database + "-wal"]
        return sum(os.path.getsize(path) for path in files if os.path.exists(path))
