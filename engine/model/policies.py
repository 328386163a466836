"""Policies are data: dispatch order, worker choice, backoff and the engine's modes.

The engine asks a ready queue of the policy's order (:func:`engine.parts.ready.make_ready_queue`)
for the next occurrence to run and a :class:`WorkerPool` for the worker to run it on; it never
sorts. Every operation is O(log n).
"""

from __future__ import annotations

from dataclasses import field
from enum import Enum
from heapq import heappop, heappush

from engine.model.backoff import Backoff, BackoffKind
from engine.model.records import Channel
from engine.model.values import value


class DispatchOrder(Enum):
    FIFO = "fifo"
    """Scheduled tick, then job id (Java order): seed 000."""
    PRIORITY = "priority"
    """Priority (higher first), then scheduled tick, then job id: seed 003."""
    AGING = "aging"
    """Priority + floor(waited / aging_step), then the order occurrences fell due: seed 001."""


class DispatchMode(Enum):
    AUTO = "auto"
    """Every tick, as a live scheduler does."""
    MANUAL = "manual"
    """Only an explicit Dispatch command creates due occurrences and assigns them (seed 000)."""


class CompletionMode(Enum):
    SIMULATED = "simulated"
    """Attempts end after their job's duration, failing where scripted."""
    REPORTED = "reported"
    """Attempts end only by a Complete command (seed 000)."""


class DoomedSubmission(Enum):
    """What happens to a job submitted with a dependency that has already failed for good (or
    was cancelled): the cascade of a failure only runs when the failure happens."""

    CANCEL = "cancel"
    """It is cancelled at once, with the failed job as its cause: a scenario's jobs never wait
    for a run that cannot come."""
    WAIT = "wait"
    """It stays pending and is never runnable; a later failure of another of its dependencies
    cancels it in that failure's cascade (seed 001: SUBMIT prints one line, CANCEL is a TICK
    event)."""


class OnTimeout(Enum):
    """What the reviewer does with a run whose attempt outlives its execution limit."""

    RETRY = "retry"
    """The attempt fails (timed out) and the run is retried while it has attempts left."""
    NEXT_RUN = "next_run"
    """Seed 003's reviewer: the run is taken back and fails for good, its worker is freed, and
    the job goes on at its next run of the schedule ("put it back to the created status with
    the defined cadence")."""


class RunningJobChanges(Enum):
    """Whether a job may be modified, or its next run cancelled, while one of its runs runs."""

    REFUSE = "refuse"
    """Seed 003: a PUT on a job "in a status running" answers 409."""
    ALLOW = "allow"
    """The change applies to the runs created after it; the running attempt is never touched
    (for what-ifs that change a job whose runs pile up behind a long one)."""


class DeliveryMode(Enum):
    """Who decides how a notification's delivery try ends."""

    SIMULATED = "simulated"
    """The engine: a try fails exactly when an outage scripts its channel down."""
    REPORTED = "reported"
    """Whoever delivers for real (the service): a try ends only by a ReportDelivery command,
    and the engine's timer only says when the next try is due."""


@value
class ChannelOutage:
    """A notification channel that fails every delivery during ticks ``[start, end)``."""

    channel: Channel
    start: int
    end: int


@value
class NotificationPolicy:
    max_tries: int = 5
    """Delivery tries before a notification is DEAD."""
    backoff: Backoff = field(
        default_factory=lambda: Backoff(BackoffKind.EXPONENTIAL, base=1, cap=60)
    )
    outages: tuple[ChannelOutage, ...] = ()
    delivery: DeliveryMode = DeliveryMode.SIMULATED

    def is_down(self, channel: Channel, tick: int) -> bool:
        return any(o.channel is channel and o.start <= tick < o.end for o in self.outages)


@value
class Policy:
    order: DispatchOrder = DispatchOrder.PRIORITY
    """Seed 003: "higher-priority tasks execute before lower-priority ones"; ties run in the
    order they fell due, as FIFO does."""
    aging_step: int | None = None
    """Required by the aging order."""
    dispatch: DispatchMode = DispatchMode.AUTO
    completion: CompletionMode = CompletionMode.SIMULATED
    backoff: Backoff = field(default_factory=Backoff)
    notifications: NotificationPolicy = field(default_factory=NotificationPolicy)
    doomed_submission: DoomedSubmission = DoomedSubmission.CANCEL
    on_timeout: OnTimeout = OnTimeout.RETRY
    running_job_changes: RunningJobChanges = RunningJobChanges.REFUSE
    execution_limit: int | None = None
    """The timeout, in ticks, of a job that sets none (seed 003: five minutes); None: no limit."""
    scheduling_window: int | None = None
    """Seed 003's status words: a run not created yet is ``scheduled`` from this many ticks
    before its time (two minutes), ``created`` before that (see
    :mod:`engine.query.status_words`)."""
    pools: tuple[tuple[str, int], ...] = ()
    """Airflow pools: ``(name, slots)``; a job in a pool runs only while one of its slots is
    free (see :mod:`engine.rules.pools`)."""

    def __post_init__(self) -> None:
        if self.order is DispatchOrder.AGING and (self.aging_step is None or self.aging_step < 1):
            raise ValueError("The aging order needs an aging_step of at least 1")
        if self.execution_limit is not None and self.execution_limit < 1:
            raise ValueError("An execution limit is at least one tick")
        if self.scheduling_window is not None and self.scheduling_window < 0:
            raise ValueError("A scheduling window is not negative")
        if any(slots < 1 for _, slots in self.pools):
            raise ValueError("A pool has at least one slot")


class WorkerPool:
    """Idle workers, lowest id (Java order) first: seed 000's worker choice.

    The set of idle ids is the truth; the heap may hold ids that are no longer idle (skipped when
    they surface)."""

    __slots__ = ("_heap", "ids")

    def __init__(self) -> None:
        self._heap: list[tuple[bytes, str]] = []
        self.ids: set[str] = set()
        """The idle workers' ids, one set for the pool's life (a restore refills it): the
        dispatcher tests it in place, where the pool's ``__bool__`` was a call per assignment,
        and reads it as a slot, where a property was a call per dispatch (seed 001's benchmark
        script with 3,000 jobs: 0.5% of its instructions, callgrind)."""

    def __setstate__(self, state: tuple) -> None:
        """As pickle restores an object of slots; a pool an older cronlapse pickled (a
        service's snapshot) named its set of idle ids ``_idle``."""
        _, slots = state
        self._heap = slots["_heap"]
        self.ids = slots["ids"] if "ids" in slots else slots["_idle"]

    def add(self, worker_id: str, order_key: bytes) -> None:
        if worker_id not in self.ids:
            self.ids.add(worker_id)
            heappush(self._heap, (order_key, worker_id))

    def discard(self, worker_id: str) -> None:
        self.ids.discard(worker_id)

    def pop(self) -> str | None:
        heap = self._heap
        while heap:
            item = heappop(heap)
            worker_id = item[1]
            if worker_id in self.ids:
                self.ids.remove(worker_id)
                return worker_id
        return None

    def snapshot(self) -> tuple:
        return tuple(self._heap), frozenset(self.ids)

    def restore(self, saved: tuple) -> None:
        """Back to a snapshot, in place (the workforce holds this object)."""
        heap, idle = saved
        self._heap[:] = heap
        self.ids.clear()
        self.ids.update(idle)
