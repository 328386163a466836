"""Typed events, named in the past tense, and the append-only log that holds them.

The event log is the engine's output: the dashboard's tables, the headless run's lines, the seed
001 protocol's output and the exports are all views over it. An event's sequence number is its
position in the log.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import overload

from engine.model import CancelReason, CatchUp
from engine.values import value


@value
class Event:
    tick: int


@value
class WorkerRegistered(Event):
    worker_id: str


@value
class JobScheduled(Event):
    job_id: str
    schedule: str
    """The schedule's description."""


@value
class OccurrenceEvent(Event):
    """An event about one occurrence, ``(job_id, scheduled)``."""

    job_id: str
    scheduled: int


@value
class OccurrenceBlocked(OccurrenceEvent):
    """Fell due while a dependency had not succeeded yet: the first run of its job's blocked
    range. The job's runs that fall due after it, until it is unblocked, are BLOCKED too,
    without an event each."""


@value
class OccurrenceUnblocked(OccurrenceEvent):
    """Its job's last dependency succeeded: this run, the first of its job's blocked range, and
    every run of the job BLOCKED with it may run from this tick (one event for the range)."""


@value
class AttemptStarted(OccurrenceEvent):
    attempt: int
    worker_id: str


@value
class AttemptSucceeded(OccurrenceEvent):
    attempt: int
    worker_id: str


@value
class AttemptFailed(OccurrenceEvent):
    attempt: int
    worker_id: str


@value
class RetryScheduled(OccurrenceEvent):
    next_attempt: int
    eligible_at: int
    delay: int
    """The backoff that set ``eligible_at``, in ticks."""


@value
class OccurrenceFailed(OccurrenceEvent):
    """Its last allowed attempt failed: a permanent failure."""

    attempts: int


@value
class OccurrenceCancelled(OccurrenceEvent):
    reason: CancelReason
    cause: str | None
    """For a cascade: the job whose permanent failure (or deletion) started it."""


@value
class AttemptTimedOut(OccurrenceEvent):
    """The reviewer reaped an attempt still running at start + timeout; a failed attempt."""

    attempt: int
    worker_id: str


@value
class AttemptLost(OccurrenceEvent):
    """The attempt's worker went down; the attempt does not count against the retries."""

    attempt: int
    worker_id: str


@value
class AttemptTerminated(OccurrenceEvent):
    """Ended because a newer run of its job took its place (the overlap rule in the
    ``OccurrenceCancelled`` event that follows)."""

    attempt: int
    worker_id: str


@value
class OccurrenceSkipped(OccurrenceEvent):
    """It never runs, ``because`` of a rule: an overlap rule (Forbid, Skip, or BufferOne with a
    run already waiting) while its job had ``max_active`` runs active, or a trigger rule (such
    as all_success) whose upstream runs were skipped."""

    because: str


@value
class OccurrenceHeld(OccurrenceEvent):
    """Fell due while its job had ``max_active`` runs active, under a rule that buffers it
    (``policy``): it waits for a slot. Under BufferAll (and max_active_runs) every later run of
    the job is held with it, without an event each, until the buffer empties."""

    policy: str


@value
class OccurrenceReleased(OccurrenceEvent):
    """A held run took a free slot: it waits for a worker from this tick. ``emptied``: no run of
    its job is held any more."""

    emptied: bool


@value
class TooManyMissedRuns(Event):
    """A resumed job missed more runs than its ``max_missed`` (Kubernetes: "too many missed
    start times (> 100)"): none of them runs."""

    job_id: str
    missed: int
    """How many were counted: counting stops at ``limit + 1``."""
    limit: int


@value
class DeadlineMissed(OccurrenceEvent):
    """The run had not finished ``deadline`` ticks after its scheduled tick (it waited, was
    blocked, ran or waited for a retry): its job's ``deadline_missed`` subscribers are told."""

    deadline: int


@value
class OccurrencesSkipped(Event):
    """A resumed job's occurrences scheduled in ``(after, through]`` fell due while it was paused
    and will never run."""

    job_id: str
    after: int
    through: int


@value
class BacklogCancelled(Event):
    """A job's occurrences that were created and waiting implicitly (QUEUED or BLOCKED), scheduled
    in ``[first, last]``, are cancelled together (each answers CANCELLED), by its deletion or by a
    cascade: the one event for ``runs`` cancelled occurrences that have no record."""

    job_id: str
    first: int
    last: int
    runs: int
    reason: CancelReason
    cause: str | None
    """For a cascade: the job whose permanent failure (or deletion) started it."""


@value
class JobModified(Event):
    job_id: str
    fields: tuple[str, ...]


@value
class JobDeleted(Event):
    job_id: str


@value
class JobPaused(Event):
    job_id: str


@value
class JobResumed(Event):
    job_id: str
    catch_up: CatchUp
    """What the resume did with the runs that fell due while paused (the job's own choice or
    the command's)."""


@value
class WorkerWentDown(Event):
    worker_id: str


@value
class WorkerCameUp(Event):
    worker_id: str


@value
class WorkerDrainStarted(Event):
    worker_id: str


@value
class NotificationEvent(Event):
    """An event about one notification, identified by its idempotency key."""

    key: tuple[str, int, int, str, str, str]
    """(job id, scheduled tick, attempt, happening, channel, target)."""


@value
class NotificationQueued(NotificationEvent):
    pass


@value
class NotificationDelivered(NotificationEvent):
    tries: int


@value
class NotificationRetried(NotificationEvent):
    """A delivery try failed (channel down); the next try is at ``next_try``."""

    tries: int
    next_try: int


@value
class NotificationDeadLettered(NotificationEvent):
    tries: int


def _kinds() -> list[type[Event]]:
    """Every concrete event class, each given its ``code``: its index in this list."""
    kinds: list[type[Event]] = []
    pending = [Event]
    while pending:
        kind = pending.pop(0)
        kinds.append(kind)
        pending.extend(kind.__subclasses__())
    for code, kind in enumerate(kinds):
        kind.code = code  # type: ignore[attr-defined]
    return kinds


EVENT_KINDS = _kinds()
_CODES = {kind.__name__: code for code, kind in enumerate(EVENT_KINDS)}


class EventLog:
    """Append-only list of events; ``mark()`` and ``since(mark)`` give a command's own events.

    Why events are stored as fields and built when read: the engine writes an event for
    everything that happens, and a headless run or a facade reads few of them. The log keeps each
    event's class as a one-byte code and its fields as a tuple: a tuple of ints and strings costs
    less to make than an event object, and Python's cycle collector stops tracking it once it has
    seen it, where an event object is walked at every full collection for as long as the log
    holds it (on seed 000's maximum workload the events were a quarter of the objects it
    walked). Reading builds a new, equal event each time: compare events with ``==``, never
    ``is``.
    """

    __slots__ = ("_fields", "_kinds")

    def __init__(self) -> None:
        self._kinds = bytearray()
        self._fields: list[tuple] = []

    def add(self, kind: type[Event], *fields: object) -> None:
        """Append the event ``kind(*fields)``."""
        self._kinds.append(kind.code)  # type: ignore[attr-defined]
        self._fields.append(fields)

    def append(self, event: Event) -> None:
        self.add(type(event), *(getattr(event, name) for name in event.__match_args__))

    def mark(self) -> int:
        return len(self._fields)

    def since(self, mark: int) -> list[Event]:
        return self[mark:]

    def stored_since(self, mark: int) -> Iterator[tuple[type[Event], tuple]]:
        """The events after ``mark`` as stored: each one's class and its fields in the class's
        field order. For readers of many events that need a few fields of some kinds (the
        seed 001 protocol prints four kinds of a run's events), without building every event."""
        return zip(
            map(EVENT_KINDS.__getitem__, self._kinds[mark:]), self._fields[mark:], strict=True
        )

    def truncate(self, length: int) -> None:
        """Forget the events after the first ``length`` (a rewind)."""
        del self._kinds[length:]
        del self._fields[length:]

    def first_index_at(self, tick: int) -> int:
        """Index of the first event at or after ``tick``: events are appended in tick order."""
        fields = self._fields
        low, high = 0, len(fields)
        while low < high:
            middle = (low + high) // 2
            if fields[middle][0] < tick:
                low = middle + 1
            else:
                high = middle
        return low

    def records(self, start: int, stop: int) -> EventRecords:
        """Events ``start`` to ``stop`` as stored, for the journal to keep."""
        return EventRecords(self._kinds[start:stop], self._fields[start:stop])

    def extend_records(self, records: EventRecords) -> None:
        """Append events kept before (a return to a later state)."""
        self._kinds += records.kinds
        self._fields += records.fields

    def __len__(self) -> int:
        return len(self._fields)

    def __getstate__(self) -> tuple[list[str], list[tuple]]:
        """Pickled with the classes' names, not their codes: a snapshot written by one version
        of cronlapse reads back right in a later one whose event classes are numbered anew."""
        return [EVENT_KINDS[code].__name__ for code in self._kinds], self._fields

    def __setstate__(self, state: tuple[list[str], list[tuple]]) -> None:
        names, self._fields = state
        self._kinds = bytearray(_CODES[name] for name in names)

    def __iter__(self) -> Iterator[Event]:
        return map(_build, self._kinds, self._fields)

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        if isinstance(index, slice):
            return list(map(_build, self._kinds[index], self._fields[index]))
        return _build(self._kinds[index], self._fields[index])


@dataclass(slots=True)
class EventRecords:
    """A stretch of the log as stored: the events' codes and their fields."""

    kinds: bytearray
    fields: list[tuple]

    def extend(self, later: EventRecords) -> None:
        self.kinds += later.kinds
        self.fields += later.fields

    def truncate(self, length: int) -> None:
        del self.kinds[length:]
        del self.fields[length:]

    def slice(self, start: int, stop: int) -> EventRecords:
        return EventRecords(self.kinds[start:stop], self.fields[start:stop])


def _build(code: int, fields: tuple) -> Event:
    return EVENT_KINDS[code](*fields)
