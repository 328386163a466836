"""The service's database: the input journal, engine snapshots and a few settings (SQLAlchemy Core).

The journal is the service's whole input, one row per input (an API command, an executor's
report, a clock reading), appended in its own transaction *before* the input is applied and
before the request that brought it is answered: once a client has its answer, the input survives
a crash. Restart loads the latest snapshot and replays the rows after it.

Snapshots are the engine's state pickled at a journal position. Unpickling runs code chosen by
whoever wrote the bytes, so it is only safe because this database is the server's own (nothing
else writes to it); never point a server at a database someone else can write.

SQLite is the embedded default; PostgreSQL is the other backend. On both a commit is durable when
it returns, so an acknowledged input survives a power cut as well as a killed process. Everything
goes through SQLAlchemy Core: the one place the backends differ is how a connection is opened
(:mod:`cronlapse.service.db`). The tables are created and changed by the numbered steps of
:mod:`cronlapse.service.migrations`, applied when a store opens; the queries here use the tables as
the latest step defines them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sqlalchemy import Connection, delete, func, insert, select
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.db import holds_fence, notify_appended, open_database
from cronlapse.service.migrations import migrate
from cronlapse.service.migrations.v001_journal import journal, meta, snapshots

SNAPSHOTS_KEPT = 2
"""Older snapshots are deleted: the latest is enough, the one before it is a spare."""
_CHUNK = 5000
"""Journal rows fetched per query during replay."""


class Fenced(RuntimeError):
    """An append by a scheduler that no longer holds the journal's lock: nothing was written."""


@dataclass(frozen=True, slots=True)
class Row:
    """One input: the tick and phase it applies at, its verb and arguments."""

    seq: int
    tick: int
    phase: int
    verb: str
    args: dict


class JournalStore:
    """The journal, snapshot and meta tables of one database."""

    def __init__(self, url: str, fence: int | None = None) -> None:
        self.url = url
        self.db: SqlEngine = open_database(url)
        self.fence = fence
        """PostgreSQL: the advisory lock an appender must hold (see :meth:`append_many`)."""
        migrate(self.db)

    def close(self) -> None:
        self.db.dispose()

    def append(self, tick: int, phase: int, verb: str, args: dict) -> int:
        """Commit one input; returns its position. Returns only once the row is durable."""
        return self.append_many([(tick, phase, verb, args)])[0]

    def append_many(
        self,
        rows: list[tuple[int, int, str, dict]],
        extra: Callable[[Connection, list[int]], None] | None = None,
    ) -> list[int]:
        """Commit several inputs ``(tick, phase, verb, args)`` in one transaction (a group
        commit: one wait for the disk); returns their positions, in order.

        A fenced store (a scheduler elected by an advisory lock) first checks, in the same
        transaction, that no other session holds the lock: a scheduler that lost it raises
        :class:`Fenced` and writes nothing, so two engines never append to one journal. The
        commit wakes the processes that follow the journal (LISTEN/NOTIFY on PostgreSQL).
        ``extra(conn, seqs)`` writes more in the same transaction (the scheduler's read model
        and inbox answers: :mod:`cronlapse.service.roles.publish`)."""
        wall = time.time()
        values = [
            {
                "tick": tick,
                "phase": phase,
                "verb": verb,
                "args": json.dumps(args, separators=(",", ":")),
                "wall": wall,
            }
            for tick, phase, verb, args in rows
        ]
        with self.db.begin() as conn:
            if self.fence is not None and not holds_fence(conn, self.fence):
                raise Fenced("another scheduler holds the journal: this one appends nothing")
            # One INSERT of every row, RETURNING their positions in the rows' order
            # (SQLAlchemy's "insertmanyvalues"): a batch costs one round trip, not one a row.
            seqs = []
            if values:
                inserted = conn.execute(
                    insert(journal).returning(journal.c.seq, sort_by_parameter_order=True), values
                )
                seqs = [int(seq) for seq in inserted.scalars()]
            if extra is not None:
                extra(conn, seqs)
            notify_appended(conn)
        return seqs

    def rows_after(self, seq: int) -> Iterator[Row]:
        """The journal's rows after position ``seq``, in order, fetched a chunk at a time."""
        while True:
            with self.db.connect() as conn:
                chunk = conn.execute(
                    select(
                        journal.c.seq,
                        journal.c.tick,
                        journal.c.phase,
                        journal.c.verb,
                        journal.c.args,
                    )
                    .where(journal.c.seq > seq)
                    .order_by(journal.c.seq)
                    .limit(_CHUNK)
                ).all()
            for row in chunk:
                yield Row(row.seq, row.tick, row.phase, row.verb, json.loads(row.args))
            if len(chunk) < _CHUNK:
                return
            seq = chunk[-1].seq

    def last_seq(self) -> int:
        with self.db.connect() as conn:
            return int(conn.execute(select(func.coalesce(func.max(journal.c.seq), 0))).scalar())

    def save_snapshot(self, seq: int, state: bytes) -> None:
        """Store the state as of journal position ``seq``; forget all but the newest few."""
        with self.db.begin() as conn:
            conn.execute(insert(snapshots).values(seq=seq, wall=time.time(), state=state))
            kept = select(snapshots.c.seq).order_by(snapshots.c.seq.desc()).limit(SNAPSHOTS_KEPT)
            conn.execute(delete(snapshots).where(snapshots.c.seq.not_in(kept.scalar_subquery())))

    def has_snapshot(self, seq: int) -> bool:
        """Whether a snapshot at journal position ``seq`` is stored (without reading it)."""
        with self.db.connect() as conn:
            found = conn.execute(select(snapshots.c.seq).where(snapshots.c.seq == seq)).first()
        return found is not None

    def latest_snapshot(self) -> tuple[int, bytes] | None:
        with self.db.connect() as conn:
            row = conn.execute(
                select(snapshots.c.seq, snapshots.c.state).order_by(snapshots.c.seq.desc()).limit(1)
            ).first()
        return None if row is None else (row.seq, row.state)

    def get_meta(self, key: str) -> str | None:
        with self.db.connect() as conn:
            return conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar()

    def set_meta(self, key: str, value: str) -> None:
        with self.db.begin() as conn:
            conn.execute(delete(meta).where(meta.c.key == key))
            conn.execute(insert(meta).values(key=key, value=value))
