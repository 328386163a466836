"""The service's own replay of its journal, row by row, for tools that read a database without
serving it (``cronlapse export --scenario``, ``cronlapse status``).

It is :class:`~cronlapse.service.live.LiveService`'s applying of a row
(:meth:`~cronlapse.service.live.LiveService.apply_row`), exactly as a restart runs it, with nothing
written back: no catch-up input, no worker slots matched, no snapshot. Rows that no longer read
are skipped, as a restart skips them. Reading while a server writes is safe: SQLite's WAL mode
lets a reader see the last committed rows without blocking the writer. (A snapshot is unpickled:
only ever point it at a service's own database, see :mod:`cronlapse.service.store.journal`.)
The engine's generator counts the 32-bit words it draws, so an exported stretch can continue
it (``seed_skip``).
"""

from __future__ import annotations

from collections.abc import Iterable

from cronlapse.service.clock import Anchor, LiveClock
from cronlapse.service.codec import CLOCK, DOWNTIME
from cronlapse.service.config import Config
from cronlapse.service.live import LiveService, snapshot_state
from cronlapse.service.store import (
    JournalRow,
    RowUnreadable,
    Snapshot,
    Store,
    open_store,
    pausable_jobs,
)
from engine.core import Engine
from engine.model.commands import Result
from engine.model.records import OccurrenceState
from engine.parts.notifications import NotificationKey, NotificationState
from engine.scenario.vocabulary import VERBS
from engine.schedules.kinds import Every, Once

PENDING = NotificationState.PENDING
WAITING_STATES = (
    OccurrenceState.QUEUED,
    OccurrenceState.RUNNING,
    OccurrenceState.RETRY_PENDING,
    OccurrenceState.BLOCKED,
)
"""Runs in these states are in flight: a scenario cannot start in the middle of them."""


def open_journal(url: str) -> Store:
    """The store of an existing database;
    :class:`~cronlapse.service.store.NoJournal` for an SQLite file that does not exist (opening
    it would create one)."""
    return open_store(url, existing=True)


class UnknownInput(ValueError):
    """A journal row whose verb this version cannot apply (a newer server wrote it)."""


class JournalReplay:
    """A live service's state rebuilt from its journal, one row at a time."""

    def __init__(self, store: Store) -> None:
        # The clock is never read: every row carries its tick.
        self.live = LiveService(store, LiveClock(Anchor(0.0, 0, 1.0)), Config())
        self.rows = 0

    @classmethod
    def latest(cls, store: Store) -> JournalReplay:
        """The state as of the journal's last row: its latest snapshot, then the rows after it
        (what a restart does, without writing anything)."""
        replay = cls(store)
        saved = store.journal.latest_snapshot()
        state = None if saved is None else snapshot_state(saved, store.journal)
        if state is not None:
            replay.live.state = state
        for row in store.journal.rows_after(replay.live.state.seq):
            replay.apply(row)
        return replay

    @classmethod
    def first_kept(cls, store: Store, oldest: Snapshot | None) -> JournalReplay:
        """The state before the journal's first kept row: a new service's for a journal kept
        whole (``oldest`` None), else the oldest kept snapshot's, ``oldest`` (the history's
        retention deleted the rows before it)."""
        replay = cls(store)
        state = None if oldest is None else snapshot_state(oldest, store.journal)
        if state is not None:
            replay.live.state = state
            notifications = replay.engine.query.notifications()
            replay.live.pending = {
                key: None for key, sent in notifications.items() if sent.state is PENDING
            }
        return replay

    @property
    def engine(self) -> Engine:
        return self.live.engine

    @property
    def words(self) -> int:
        """The 32-bit words the engine's generator has drawn so far."""
        return self.engine.random_words

    def apply(self, row: JournalRow) -> Result | None:
        """Apply one row as a restart does; None when it no longer reads (skipped)."""
        if row.verb not in VERBS and row.verb not in (CLOCK, DOWNTIME):
            raise UnknownInput(f"journal row {row.seq}: unknown input {row.verb!r}")
        try:
            result: Result | None = self.live.apply_row(row)
        except RowUnreadable:
            result = None
        self.live.drop_finished()
        self.rows += 1
        return result

    def finish(self, tick: int) -> None:
        """Play the engine through ``tick`` (a clock reading, not journaled)."""
        self.live.play_through(tick)

    def pausable(self) -> list[str]:
        """The jobs a ``downtime`` row would pause now (see LiveService._downtime)."""
        return pausable_jobs(self.engine)


def busy(engine: Engine, pending: Iterable[NotificationKey] | None = None) -> str | None:
    """What is in flight, found cheaply (None: nothing): a run waiting, running or retrying, a
    run due that waits for a worker (the ready queue: at rest with idle workers, dispatch has
    emptied it of stale entries), a notification being delivered: its next try is a timer, or
    its try was made and its report is not journaled yet (reported delivery leaves no timer
    then). ``pending``: the keys of the PENDING notifications, if the caller keeps them
    (:attr:`LiveService.pending`); otherwise the whole outbox is read."""
    query = engine.query
    for state in WAITING_STATES:
        waiting = query.record_keys(state)
        if waiting:
            job_id, scheduled = next(iter(waiting))
            return f"run {job_id}@{scheduled} is {state.name}"
    if not query.ready_queue_empty():
        return "a run that fell due waits for a worker"
    outbox = query.notifications()
    for key in outbox if pending is None else pending:
        if outbox[key].state is PENDING:
            return f"a notification of {key[0]} is still being delivered"
    return None


def in_flight(engine: Engine, tick: int) -> str | None:
    """Why a scenario could not start at ``tick`` from this state (None: it can), the engine
    having applied every row up to ``tick`` and nothing falling due up to it: :func:`busy`, then
    each job (O(jobs), so only for a tick that is not busy).

    A scenario starts from job definitions: every run then is either finished or still to
    come, and each job's schedule, read from ``tick`` on, gives exactly the runs it has to come
    (one-time and interval schedules are rewritten from the job's next run; a calendar's is
    kept, so it must not have a run it will not make, such as one cancelled in advance).
    """
    found = busy(engine)
    if found is not None:
        return found
    for job in engine.query.jobs().values():
        if job.deleted or job.next_due is None:
            continue
        if job.next_due <= tick:
            return f"run {job.job_id}@{job.next_due} is due and waits for a worker"
        if job.paused_through is not None or job.backlog or job.blocked_from is not None:
            return f"job {job.job_id} is paused, blocked or has runs of an older definition"
        schedule = job.spec.schedule
        if (
            not isinstance(schedule, (Once, Every))
            and schedule.first_at_or_after(tick) != job.next_due
        ):
            return f"job {job.job_id}'s schedule has a run before {job.next_due} it will not make"
    return None
