"""Watching a running service: its journal replayed into a history the dashboard steps through.

The service journals its inputs and its engine is deterministic, so its state is a function of
the rows (see docs/service.md). Each row becomes the engine command the service applied, by the
service's own reading, which the store's face owns with the rows' format
(:func:`cronlapse.service.store.row_command`, :func:`cronlapse.service.store.downtime_commands`),
appended to the timeline of one
:class:`~engine.play.history.History`: the real run, which the user rewinds and steps through as
through a scenario's. Nothing is replayed twice: rows read once are commands in the timeline, and
the history plays them when the user (or the live head) gets there.

Following the head. :meth:`LiveSource.poll` reads the rows after the last one read (one query by
key) and the service's clock (its anchor, as the service reads it: wall time to ticks), through
the store's read-only :class:`~cronlapse.service.store.JournalReader`, so the head moves with the
clock even when the journal is idle. The head is the history's
``until``: nothing plays past it, since only the journal knows what comes next. A row may arrive
for a tick the history has already played (it was committed just after the clock was read): the
history moves back before it, takes it, and comes back, and the views follow each move.

The user's commands while rewound are the history's user branch: a local what-if, never sent.

A compacted journal (the history's retention deleted its first rows) starts at its oldest kept
snapshot (:mod:`tui.model.live_start`): the history starts there, at the end of the snapshot's
tick, and rewinds no further back.

A service that stops. The head is projected from the clock because a running service journals
what its engine does within milliseconds (a clock reading for each run due, timeout, backoff).
When the service does not answer (:meth:`LiveSource.answered`, from the screen's ``/health``
poll), or the journal stays silent past a tick at which the replay shows the engine had
something to do (the heartbeat), the projection would be runs that never happen: the head goes
back to the journal's last row and stays there until the service answers and journals again.
"""

from __future__ import annotations

import bisect
import enum
import time
from collections.abc import Callable

from cronlapse.service.store import (
    DOWNTIME,
    SERVICE_POLICY,
    JournalReader,
    JournalRow,
    downtime_commands,
    open_journal_reader,
)
from engine.core import Engine
from engine.play.history import History
from engine.play.ticks import TimedCommand
from engine.schedules.clock import Clock
from tui.model.live_start import read_or_skip, snapshot_start
from tui.model.navigator import Change, Navigator
from tui.model.timefmt import compact

STALL_SECONDS = 3.0
"""How long past a tick at which the service had something to do its journal may stay silent
before the service counts as not responding (a running service journals within milliseconds)."""
POLL_ROWS = 2_000
"""Rows read per poll: opening a long journal takes many polls, each a short slice of work."""


class Mode(enum.Enum):
    """What the screen shows of the service."""

    LIVE = "LIVE"
    """The live head, following it: commands go to the service."""
    REWOUND = "REWOUND"
    """Behind the head, in the real history: the head moves on meanwhile."""
    WHAT_IF = "WHAT-IF"
    """A local branch of the user's commands, never sent."""


def service_engine() -> Engine:
    return Engine(SERVICE_POLICY, archive=True)


class LiveHistory(History):
    """The service's history, whose end (the live head) may also move back."""

    def hold(self, until: int) -> None:
        """End the history at ``until``, at or after the current tick, forgetting what was
        played past it: the head was projected there and the service did not get so far, so
        no step may go back there."""
        assert self.tick <= until, "move back before holding"
        self.until = until
        self._recording.forget_after(until)


class LiveSource:
    """One service's journal as a growing history, and where the live head is."""

    def __init__(self, reader: JournalReader, wall: Callable[[], float] = time.time) -> None:
        self.reader = reader
        self.wall = wall
        self.start = snapshot_start(reader, POLL_ROWS)
        """Where a compacted journal's history starts (None: the journal is whole)."""
        if self.start is None:
            self.history = LiveHistory(service_engine, (), until=0)
        else:
            tick = self.start.tick
            self.history = LiveHistory(self.start.engine, (), until=tick, start=tick)
        self.navigator = Navigator(self.history)
        self.seq = 0 if self.start is None else self.start.seq
        """The last journal row read."""
        self.total = reader.last_seq()
        """The journal's rows when it was opened (for the progress of the first read)."""
        self.last_row_tick = 0 if self.start is None else self.start.tick
        self.first_tick: int | None = None if self.start is None else self.start.tick
        """Where the service's history starts: the first row's tick, or the oldest kept
        snapshot's in a compacted journal (None: no row yet)."""
        self.unanswered_since: int | None = None
        """The service's tick when it stopped answering (None: it answers)."""
        self.stalled_since: int | None = None
        """The tick at which the service had something to do and journaled nothing since
        (None: its journal keeps up); cleared by the next row."""
        self.skipped = 0 if self.start is None else self.start.skipped
        """Rows that no longer read (logged and left out, as the service's replay does)."""
        self.following = True
        """The user is at the live head and stays there as it moves."""
        self.anchor = reader.anchor()

    # ----------------------------------------------------------------- reading

    @property
    def head(self) -> int:
        """The live tick: the service's clock now, never before the last row; the last row
        while the service does not respond (nothing says what it does meanwhile)."""
        if self.seq and self.not_responding_since() is not None:
            return self.last_row_tick
        return max(self.clock(), self.last_row_tick)

    def clock(self) -> int:
        """The service's clock now, as it reads it (0 before it ever started)."""
        return 0 if self.anchor is None else self.anchor.tick_at(self.wall())

    def not_responding_since(self) -> int | None:
        """The tick since which the service does not respond, if it does not."""
        since = [tick for tick in (self.unanswered_since, self.stalled_since) if tick is not None]
        return min(since, default=None)

    def answered(self, answers: bool) -> None:
        """Whether the service answered the last time it was asked."""
        if answers:
            self.unanswered_since = None
        elif self.unanswered_since is None:
            self.unanswered_since = self.clock()

    def start_note(self, clock: Clock) -> str | None:
        """What a compacted journal's start means to the user (None for a whole journal)."""
        if self.start is None:
            return None
        return (
            f"the history starts at {compact(clock, self.start.tick)}, the oldest snapshot "
            "the service kept: its history's retention deleted the journal before it, so the "
            "dashboard rewinds no further"
        )

    @property
    def loaded(self) -> float:
        """How much of the journal as it was at opening has been read, from 0 to 1."""
        first = 0 if self.start is None else self.start.seq
        left = self.total - first
        return 1.0 if left <= 0 else min(1.0, (self.seq - first) / left)

    def mode(self) -> Mode:
        if self.history.user_commands:
            return Mode.WHAT_IF
        return Mode.LIVE if self.following else Mode.REWOUND

    def behind(self) -> int:
        """Ticks between the history's tick and the live head."""
        return max(0, self.history.until - self.history.tick)  # type: ignore[operator]

    # ----------------------------------------------------------------- polling

    def poll(self, limit: int = POLL_ROWS) -> tuple[list[Change], int]:
        """Read up to ``limit`` new rows into the timeline and move the head to the clock.

        Returns the moves the history made on the way (views absorb them; the history ends
        where it was) and the number of rows read. Moving to the new head is the caller's."""
        rows = self.reader.rows_after(self.seq, limit)
        self.anchor = self.reader.anchor()
        if rows:
            self.last_row_tick = max(self.last_row_tick, rows[-1].tick)
            self.stalled_since = None  # the journal moves
        history = self.history
        history.until = max(history.until or 0, self.head)
        changes: list[Change] = []
        if rows:
            if self.seq == 0:  # the first rows: nothing happens before them, skip to them
                self.first_tick = rows[0].tick
                changes.append(self.navigator.seek(rows[0].tick - 1))
            start = self.navigator.tick
            self._take(rows, changes)
            if self.navigator.tick != start:
                changes.append(self.navigator.seek(start))
        if len(rows) < limit and self.stalled_since is None:  # caught up with the journal
            self.stalled_since = self._unjournaled()
        if self.head < history.until:  # type: ignore[operator]
            self._hold(changes)
        return changes, len(rows)

    def _unjournaled(self) -> int | None:
        """The heartbeat: the first tick after the last row at which the replay shows the
        engine had something to do, if the service's clock passed it ``STALL_SECONDS`` ago
        and no row came (a running service journals a clock reading for it at once). Judged
        on the real history only: a what-if's events are the user's."""
        ticks = self.history.event_ticks
        index = bisect.bisect_right(ticks, self.last_row_tick)
        if self.anchor is None or self.history.user_commands or index == len(ticks):
            return None
        due = ticks[index]
        return due if self.anchor.tick_at(self.wall() - STALL_SECONDS) > due else None

    def _hold(self, changes: list[Change]) -> None:
        """The service stopped responding after the head was projected past its last row:
        back to the last row, and the history ends there. A what-if begun past it is dropped
        (it was built on runs that did not happen)."""
        head = self.head
        user = self.history.user_commands
        if user and user[-1].tick > head:
            changes += self.drop_what_if()
        if self.navigator.tick > head:
            changes.append(self.navigator.seek(head))
        self.history.hold(head)

    def _take(self, rows: list[JournalRow], changes: list[Change]) -> None:
        batch: list[TimedCommand] = []
        for row in rows:
            if row.verb == DOWNTIME:
                self._extend(batch, changes)
                batch = []
                self._downtime(int(row.args["since"]), row.tick, changes)
            else:
                reads, timed = read_or_skip(row)
                self.skipped += not reads
                if timed is not None:
                    batch.append(timed)
            self.seq = row.seq
        self._extend(batch, changes)

    def _extend(self, batch: list[TimedCommand], changes: list[Change]) -> None:
        """Append to the timeline, moving back before the first command if it was played."""
        if not batch:
            return
        if self.navigator.tick >= batch[0].tick:
            changes.append(self.navigator.seek(batch[0].tick - 1))
        self.history.extend(batch)

    def _downtime(self, since: int, tick: int, changes: list[Change]) -> None:
        """The commands of a restart after downtime, read from the real state at ``since``: a
        what-if is set aside meanwhile (its commands are applied again afterwards)."""
        kept = list(self.history.user_commands)
        changes += self.drop_what_if()
        changes.append(self.navigator.seek(since))
        self._extend(downtime_commands(self.navigator.engine, since, tick), changes)
        for timed in kept:
            changes.append(self.navigator.seek(timed.tick))
            changes.append(self.navigator.apply(timed.command)[1])

    # ------------------------------------------------------------------ what-if

    def drop_what_if(self) -> list[Change]:
        """Give up the user's local branch: the history is the service's alone again."""
        user = self.history.user_commands
        if not user:
            return []
        changes = []
        if self.navigator.tick >= user[0].tick:
            changes.append(self.navigator.seek(user[0].tick - 1))
        self.history.drop_user_commands()
        return changes


def open_live(url: str, wall: Callable[[], float] = time.time) -> LiveSource:
    """The source for the service database at ``url``; JournalUnreadable says why not."""
    return LiveSource(open_journal_reader(url), wall)
