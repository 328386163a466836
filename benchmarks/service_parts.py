"""Pieces the service benchmarks share: a free loopback port, a batched journal, a settable wall.

Imported from the benchmark scripts' own folder (Python puts a script's folder first on the import
path). It imports ``cronlapse`` from wherever the importing script has arranged:
``benchmarks/service.py`` puts its own checkout first, ``benchmarks/restart_history.py`` takes the
interpreter's, so it can measure another checkout's code.
"""

from __future__ import annotations

import json
import socket

from sqlalchemy import insert

from cronlapse.service.store import Entry
from cronlapse.service.store.sql import SqlStore
from cronlapse.service.store.sql.schema import journal


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class BatchedJournal:
    """The store's journal, committing appends in batches of rows: the rows a live server would
    write, faster."""

    BATCH = 20_000

    def __init__(self, store: SqlStore) -> None:
        self.inner = store.journal
        self.db = store.db
        self.pending: list[dict] = []
        self.next_seq = self.inner.last_seq() + 1

    def append(self, entries: list[Entry], publication: None = None) -> list[int]:
        seqs = []
        for entry in entries:
            args = json.dumps(entry.args, separators=(",", ":"))
            row = {"tick": entry.tick, "phase": entry.phase, "verb": entry.verb, "args": args}
            self.pending.append({"seq": self.next_seq, **row, "wall": 0.0})
            seqs.append(self.next_seq)
            self.next_seq += 1
        if len(self.pending) >= self.BATCH:
            self.flush()
        return seqs

    def flush(self) -> None:
        if self.pending:
            with self.db.begin() as conn:
                conn.execute(insert(journal), self.pending)
            self.pending = []

    def save_snapshot(self, seq: int, state: bytes) -> None:
        self.flush()
        self.inner.save_snapshot(seq, state)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


class Wall:
    """A wall clock the builder sets: the journal's rows carry the time it says."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
