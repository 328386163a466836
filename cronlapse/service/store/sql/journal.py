"""The journal, its snapshots and meta in SQL (see :mod:`cronlapse.service.store.journal` for
what they promise).

An append is one transaction: the fence check (a scheduler elected by an advisory lock), the
rows in one ``INSERT ... RETURNING`` (SQLAlchemy's "insertmanyvalues": one round trip for a
batch), what the active scheduler publishes with them (inbox answers, the read model, the due
notices) and the wake-up of the journal's followers, sent at commit.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence

from sqlalchemy import Connection, delete, func, insert, select
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.store.coordination import Channel, Election
from cronlapse.service.store.errors import Fenced
from cronlapse.service.store.journal import SNAPSHOTS_KEPT, Publication, Snapshot
from cronlapse.service.store.rows import Entry, JournalRow
from cronlapse.service.store.sql.db import holds_fence, notify
from cronlapse.service.store.sql.failures import translated
from cronlapse.service.store.sql.inbox import write_answers
from cronlapse.service.store.sql.outbox import write_due
from cronlapse.service.store.sql.paging import rows_in_chunks
from cronlapse.service.store.sql.schema import journal, meta, snapshots
from cronlapse.service.store.sql.urls import sqlite_file
from cronlapse.service.store.sql.views import write_views


def rows_after(conn: Connection, seq: int, limit: int) -> list[JournalRow]:
    """At most ``limit`` rows after position ``seq``, in order: one query by key."""
    columns = (journal.c.seq, journal.c.tick, journal.c.phase, journal.c.verb, journal.c.args)
    query = select(*columns).where(journal.c.seq > seq).order_by(journal.c.seq).limit(limit)
    return [
        JournalRow(row.seq, row.tick, row.phase, row.verb, json.loads(row.args))
        for row in conn.execute(query)
    ]


def last_seq(conn: Connection) -> int:
    return int(conn.execute(select(func.coalesce(func.max(journal.c.seq), 0))).scalar())


def get_meta(conn: Connection, key: str) -> str | None:
    return conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar()


class SqlJournal:
    def __init__(self, db: SqlEngine, url: str) -> None:
        self.db = db
        self.url = url
        self.fence: int | None = None
        """PostgreSQL: the election session whose lock every append checks."""

    def fence_with(self, election: Election) -> None:
        self.fence = election.session

    @translated
    def append(self, entries: Sequence[Entry], publication: Publication | None = None) -> list[int]:
        wall = time.time()
        values = [
            {
                "tick": entry.tick,
                "phase": entry.phase,
                "verb": entry.verb,
                "args": json.dumps(entry.args, separators=(",", ":")),
                "wall": wall,
            }
            for entry in entries
        ]
        with self.db.begin() as conn:
            if self.fence is not None and not holds_fence(conn, self.fence):
                raise Fenced("another scheduler holds the journal: this one appends nothing")
            seqs = []
            if values:
                inserted = conn.execute(
                    insert(journal).returning(journal.c.seq, sort_by_parameter_order=True), values
                )
                seqs = [int(seq) for seq in inserted.scalars()]
            if publication is not None:
                write_answers(conn, publication.answers)
                if publication.views is not None:
                    position = seqs[-1] if seqs else last_seq(conn)
                    write_views(conn, publication.views, position)
                if publication.due is not None:
                    write_due(conn, publication.due)
            notify(conn, Channel.JOURNAL.value)
        return seqs

    def rows_after(self, seq: int, limit: int | None = None) -> Iterator[JournalRow]:
        return rows_in_chunks(self._chunk, seq, limit)

    @translated
    def _chunk(self, seq: int, limit: int) -> list[JournalRow]:
        with self.db.connect() as conn:
            return rows_after(conn, seq, limit)

    @translated
    def last_seq(self) -> int:
        with self.db.connect() as conn:
            return last_seq(conn)

    @translated
    def count(self) -> int:
        with self.db.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(journal)).scalar() or 0)

    @translated
    def save_snapshot(self, seq: int, state: bytes) -> None:
        with self.db.begin() as conn:
            conn.execute(insert(snapshots).values(seq=seq, wall=time.time(), state=state))
            kept = select(snapshots.c.seq).order_by(snapshots.c.seq.desc()).limit(SNAPSHOTS_KEPT)
            conn.execute(delete(snapshots).where(snapshots.c.seq.not_in(kept.scalar_subquery())))

    @translated
    def has_snapshot(self, seq: int) -> bool:
        with self.db.connect() as conn:
            found = conn.execute(select(snapshots.c.seq).where(snapshots.c.seq == seq)).first()
        return found is not None

    @translated
    def latest_snapshot(self) -> Snapshot | None:
        with self.db.connect() as conn:
            row = conn.execute(
                select(snapshots.c.seq, snapshots.c.state).order_by(snapshots.c.seq.desc()).limit(1)
            ).first()
        return None if row is None else Snapshot(row.seq, row.state)

    @translated
    def oldest_snapshot(self) -> Snapshot | None:
        with self.db.connect() as conn:
            row = conn.execute(
                select(snapshots.c.seq, snapshots.c.state).order_by(snapshots.c.seq).limit(1)
            ).first()
        return None if row is None else Snapshot(row.seq, row.state)

    @translated
    def compact(self, before: int) -> int:
        with self.db.begin() as conn:
            oldest = conn.execute(select(func.min(snapshots.c.seq))).scalar()
            if oldest is None:
                return 0
            done = conn.execute(
                delete(journal).where(journal.c.seq < oldest, journal.c.tick < before)
            )
        return done.rowcount

    @translated
    def compacted(self) -> int:
        with self.db.connect() as conn:
            first = conn.execute(select(func.min(journal.c.seq))).scalar()
        return 0 if first is None else int(first) - 1

    @translated
    def latest_snapshot_seq(self) -> int | None:
        with self.db.connect() as conn:
            found = conn.execute(select(func.max(snapshots.c.seq))).scalar()
        return None if found is None else int(found)

    @translated
    def get_meta(self, key: str) -> str | None:
        with self.db.connect() as conn:
            return get_meta(conn, key)

    @translated
    def set_meta(self, key: str, value: str) -> None:
        with self.db.begin() as conn:
            conn.execute(delete(meta).where(meta.c.key == key))
            conn.execute(insert(meta).values(key=key, value=value))

    def size_on_disk(self) -> int | None:
        database = sqlite_file(self.url)
        if database is None:
            return None
        files = [database, database + "-wal"]
        return sum(os.path.getsize(path) for path in files if os.path.exists(path))
