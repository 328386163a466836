"""Where a live dashboard's history starts: before the journal's first row, or, in a journal the
history's retention compacted (``history: {retention: ...}``), at its oldest kept snapshot.

The rows before that snapshot are deleted, so the dashboard cannot replay them: its history
starts from the snapshot's state (the service's own engine, unpickled), played to the end of the
snapshot's tick with the rows of that tick that follow it, and goes back no further. That
engine forgot the finished runs before it (the service forgets before each snapshot); the
history's keyframes are all taken after, which its archive rewinds to (see
:mod:`engine.parts.run_archive`). A snapshot is unpickled: only ever point the dashboard at a
service's own database, as ``cronlapse status`` and ``cronlapse export`` (see
:mod:`cronlapse.service.store.journal`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from cronlapse.service.store import (
    DOWNTIME,
    JournalReader,
    JournalRow,
    RowUnreadable,
    Snapshot,
    downtime_commands,
    row_command,
)
from engine.core import Engine
from engine.play.ticks import TimedCommand

log = logging.getLogger("cronlapse.tui")


@dataclass(frozen=True)
class SnapshotStart:
    """A compacted journal's start: its oldest kept snapshot and the rows of the same tick
    after it."""

    snapshot: Snapshot
    tick: int
    """The snapshot's tick: the history's first, at its end."""
    rows: tuple[JournalRow, ...]
    """The readable rows after the snapshot at its tick, applied before the history starts."""
    seq: int
    """The last row the start read: the dashboard reads the rows after it."""
    skipped: int
    """Rows among those that no longer read: logged and left out, as everywhere else."""

    def engine(self) -> Engine:
        """A new engine as of the end of the start's tick (one each call: a history's futures
        each play their own)."""
        driver = self.snapshot.driver()
        for row in self.rows:
            if row.verb == DOWNTIME:
                for timed in downtime_commands(driver.engine, int(row.args["since"]), row.tick):
                    driver.apply(timed)
                continue
            timed = row_command(row)
            if timed is not None:
                driver.apply(timed)
        driver.finish(self.tick)
        return driver.engine


def snapshot_start(reader: JournalReader, chunk: int) -> SnapshotStart | None:
    """The start of the journal ``reader`` reads if the history's retention compacted it; None
    for a whole journal (its history starts before its first row). Reads the rows after the
    snapshot ``chunk`` at a time while they are at its tick."""
    if not reader.compacted():
        return None
    oldest = reader.oldest_snapshot()
    if oldest is None:  # compacted, then every snapshot deleted: cannot happen
        raise AssertionError("a compacted journal keeps the snapshot it was compacted behind")
    tick = oldest.driver().engine.now
    rows: list[JournalRow] = []
    seq, skipped = oldest.seq, 0
    while batch := reader.rows_after(seq, chunk):
        same = [row for row in batch if row.tick == tick]
        for row in same:
            if row.verb == DOWNTIME or read_or_skip(row)[0]:
                rows.append(row)
            else:
                skipped += 1
            seq = row.seq
        if len(same) < len(batch):
            break
    return SnapshotStart(oldest, tick, tuple(rows), seq, skipped)


def read_or_skip(row: JournalRow) -> tuple[bool, TimedCommand | None]:
    """Whether ``row`` still reads, and the command it applies (:func:`row_command`). A row
    that no longer reads is logged and left out, as the service's replay leaves it out: the
    dashboard's start and its following read rows alike."""
    try:
        return True, row_command(row)
    except RowUnreadable as error:
        log.warning("journal row %d no longer reads (%s): skipped", row.seq, error)
        return False, None
