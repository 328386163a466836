"""The journal: the service's whole input, its snapshots and its few settings.

One row per input (an API command, an executor's report, a clock reading), appended *before* the
input is applied and before the request that brought it is answered, in a transaction that is
durable when it returns: once a client has its answer, the input survives a crash (a killed
process, and a power cut on both backends). Positions grow by one per row, in commit order, and a
row never changes. Restart loads the latest snapshot and replays the rows after it.

The history's retention (``history: {retention: ...}``) compacts the journal: rows behind the
oldest kept snapshot and older than the retention are deleted (:meth:`Journal.compact`), so a
journal's first row may be later than 1; whoever replays it then starts from a snapshot.

Snapshots are the engine's state pickled at a journal position. Unpickling runs code chosen by
whoever wrote the bytes, so it is only safe because the database is the server's own (nothing else
writes to it); never point a server at a database someone else can write.
"""

from __future__ import annotations

import gc
import pickle
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from cronlapse.service.clock import Anchor
from cronlapse.service.store.coordination import Election
from cronlapse.service.store.errors import SnapshotUnreadable
from cronlapse.service.store.outbox import DueChanges
from cronlapse.service.store.rows import Entry, JournalRow
from cronlapse.service.store.views import ViewChanges
from engine.play.ticks import TickDriver

if TYPE_CHECKING:
    from cronlapse.service.live import LiveState

SNAPSHOTS_KEPT = 2
"""Older snapshots are deleted: the latest is enough, the one before it is a spare."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    seq: int
    """The journal position the state is as of."""
    state: bytes

    def driver(self) -> TickDriver:
        """The tick driver and its engine as of :attr:`seq`, a new one each call, for a reader
        that replays the rows after it without the service's own state around it (the live
        dashboard on a compacted journal)."""
        return self.load().driver

    def load(self) -> LiveState:
        """The service's state as of :attr:`seq` (:mod:`cronlapse.service.live`, which
        unpickling imports), a new one each call; :class:`SnapshotUnreadable` if it does not
        load. The collector is off meanwhile (it would walk every object as it is made)."""
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return pickle.loads(self.state)
        except Exception as error:  # whatever rebuilding another version's objects raised
            raise SnapshotUnreadable(
                f"the snapshot at journal row {self.seq} does not load"
                f" ({type(error).__name__}: {error})"
            ) from None
        finally:
            if was_enabled:
                gc.enable()


@dataclass(frozen=True, slots=True)
class Publication:
    """What the active scheduler writes in the transaction of its journal rows, so that what the
    other processes read is never ahead of the journal nor behind what was answered."""

    answers: Mapping[int, str] = field(default_factory=dict)
    """Inbox row -> its answer (the API processes waiting on them are woken)."""
    views: ViewChanges | None = None
    """The read model's changes; its position becomes the batch's last row (the journal's last
    row, when the batch has none)."""
    due: DueChanges | None = None


class Journal(Protocol):
    def append(self, entries: Sequence[Entry], publication: Publication | None = None) -> list[int]:
        """Commit ``entries`` in one transaction (a group commit: one wait for the disk), with
        ``publication``; returns their positions, in order. Returns only once it is durable;
        raises and writes nothing otherwise (:class:`StoreFailure`, :class:`Fenced`). Wakes
        whoever follows the journal (:attr:`Channel.JOURNAL`)."""
        ...

    def fence_with(self, election: Election) -> None:
        """From now on every append first checks, in its own transaction, that ``election``
        holds the scheduler lock (:class:`Fenced` otherwise: nothing written), and keeps a
        successor's :meth:`Election.try_take` waiting until it has committed."""
        ...

    def rows_after(self, seq: int, limit: int | None = None) -> Iterator[JournalRow]:
        """The rows after position ``seq``, in order (at most ``limit``), as committed when each
        chunk is read."""
        ...

    def last_seq(self) -> int:
        """The last row's position (0: an empty journal)."""
        ...

    def count(self) -> int: ...

    def save_snapshot(self, seq: int, state: bytes) -> None:
        """Store the state as of position ``seq``; keep only the newest
        :data:`SNAPSHOTS_KEPT`."""
        ...

    def has_snapshot(self, seq: int) -> bool:
        """Whether a snapshot at ``seq`` is stored (without reading it)."""
        ...

    def latest_snapshot(self) -> Snapshot | None: ...

    def oldest_snapshot(self) -> Snapshot | None:
        """The oldest snapshot kept: where a replay of a compacted journal starts."""
        ...

    def compact(self, before: int) -> int:
        """Delete the rows behind the oldest kept snapshot (positions below its) whose tick is
        before ``before``; returns how many. Positions never go back: the rows from the
        snapshot's on stay, the last one among them."""
        ...

    def compacted(self) -> int:
        """The last position compaction deleted (0: the journal starts at row 1)."""
        ...

    def latest_snapshot_seq(self) -> int | None: ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def size_on_disk(self) -> int | None:
        """Bytes of the database's files (SQLite: the file and its WAL); None where the store
        cannot tell (PostgreSQL, memory)."""
        ...


class JournalReader(Protocol):
    """A journal read by someone who never writes it (the dashboard): it cannot change it, nor
    create a database where there is none."""

    url: str
    name: str
    """The database as a title names it (an SQLite file's name)."""

    def rows_after(self, seq: int, limit: int) -> list[JournalRow]:
        """At most ``limit`` rows after position ``seq``, in order: one cheap read by key;
        :class:`StoreFailure` when the database cannot be read now (it may be locked)."""
        ...

    def last_seq(self) -> int: ...

    def compacted(self) -> int:
        """The last position the history's retention deleted (0: the journal is whole)."""
        ...

    def oldest_snapshot(self) -> Snapshot | None:
        """The oldest snapshot kept: where the history of a compacted journal starts."""
        ...

    def anchor(self) -> Anchor | None:
        """The service's clock (wall time to ticks), as its last start wrote it."""
        ...

    def address(self) -> str | None:
        """Where the service said it listens (``http://HOST:PORT``)."""
        ...

    def close(self) -> None: ...
