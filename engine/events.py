"""Typed events, named in the past tense, and the append-only log that holds them.

The event log is the engine's output: the dashboard's tables, the headless run's lines, the seed
001 protocol's output and the exports are all views over it. An event's sequence number is its
position in the log.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model import CancelReason, CatchUp


@dataclass(frozen=True, slots=True)
class Event:
    tick: int


@dataclass(frozen=True, slots=True)
class WorkerRegistered(Event):
    worker_id: str


@dataclass(frozen=True, slots=True)
class JobScheduled(Event):
    job_id: str
    schedule: str
    """The schedule's description."""


@dataclass(frozen=True, slots=True)
class OccurrenceEvent(Event):
    """An event about one occurrence, ``(job_id, scheduled)``."""

    job_id: str
    scheduled: int


@dataclass(frozen=True, slots=True)
class OccurrenceBlocked(OccurrenceEvent):
    """Fell due while a dependency had not succeeded yet: the first run of its job's blocked
    range. The job's runs that fall due after it, until it is unblocked, are BLOCKED too,
    without an event each."""


@dataclass(frozen=True, slots=True)
class OccurrenceUnblocked(OccurrenceEvent):
    """Its job's last dependency succeeded: this run, the first of its job's blocked range, and
    every run of the job BLOCKED with it may run from this tick (one event for the range)."""


@dataclass(frozen=True, slots=True)
class AttemptStarted(OccurrenceEvent):
    attempt: int
    worker_id: str


@dataclass(frozen=True, slots=True)
class AttemptSucceeded(OccurrenceEvent):
    attempt: int
    worker_id: str


@dataclass(frozen=True, slots=True)
class AttemptFailed(OccurrenceEvent):
    attempt: int
    worker_id: str


@dataclass(frozen=True, slots=True)
class RetryScheduled(OccurrenceEvent):
    next_attempt: int
    eligible_at: int
    delay: int
    """The backoff that set ``eligible_at``, in ticks."""


@dataclass(frozen=True, slots=True)
class OccurrenceFailed(OccurrenceEvent):
    """Its last allowed attempt failed: a permanent failure."""

    attempts: int


@dataclass(frozen=True, slots=True)
class OccurrenceCancelled(OccurrenceEvent):
    reason: CancelReason
    cause: str | None
    """For a cascade: the job whose permanent failure (or deletion) started it."""


@dataclass(frozen=True, slots=True)
class AttemptTimedOut(OccurrenceEvent):
    """The reviewer reaped an attempt still running at start + timeout; a failed attempt."""

    attempt: int
    worker_id: str


@dataclass(frozen=True, slots=True)
class AttemptLost(OccurrenceEvent):
    """The attempt's worker went down; the attempt does not count against the retries."""

    attempt: int
    worker_id: str


@dataclass(frozen=True, slots=True)
class OccurrencesSkipped(Event):
    """A resumed job's occurrences scheduled in ``(after, through]`` fell due while it was paused
    and will never run."""

    job_id: str
    after: int
    through: int


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class JobModified(Event):
    job_id: str
    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class JobDeleted(Event):
    job_id: str


@dataclass(frozen=True, slots=True)
class JobPaused(Event):
    job_id: str


@dataclass(frozen=True, slots=True)
class JobResumed(Event):
    job_id: str
    catch_up: CatchUp
    """What the resume did with the runs that fell due while paused (the job's own choice or
    the command's)."""


@dataclass(frozen=True, slots=True)
class WorkerWentDown(Event):
    worker_id: str


@dataclass(frozen=True, slots=True)
class WorkerCameUp(Event):
    worker_id: str


@dataclass(frozen=True, slots=True)
class WorkerDrainStarted(Event):
    worker_id: str


@dataclass(frozen=True, slots=True)
class NotificationEvent(Event):
    """An event about one notification, identified by its idempotency key."""

    key: tuple[str, int, int, str, str, str]
    """(job id, scheduled tick, attempt, happening, channel, target)."""


@dataclass(frozen=True, slots=True)
class NotificationQueued(NotificationEvent):
    pass


@dataclass(frozen=True, slots=True)
class NotificationDelivered(NotificationEvent):
    tries: int


@dataclass(frozen=True, slots=True)
class NotificationRetried(NotificationEvent):
    """A delivery try failed (channel down); the next try is at ``next_try``."""

    tries: int
    next_try: int


@dataclass(frozen=True, slots=True)
class NotificationDeadLettered(NotificationEvent):
    tries: int


class EventLog:
    """Append-only list of events; ``mark()`` and ``since(mark)`` give a command's own events."""

    __slots__ = ("_events",)

    def __init__(self) -> None:
        self._events: list[Event] = []

    def append(self, event: Event) -> None:
        self._events.append(event)

    def mark(self) -> int:
        return len(self._events)

    def since(self, mark: int) -> list[Event]:
        return self._events[mark:]

    def truncate(self, length: int) -> None:
        """Forget the events after the first ``length`` (a rewind)."""
        del self._events[length:]

    def first_index_at(self, tick: int) -> int:
        """Index of the first event at or after ``tick``: events are appended in tick order."""
        events = self._events
        low, high = 0, len(events)
        while low < high:
            middle = (low + high) // 2
            if events[middle].tick < tick:
                low = middle + 1
            else:
                high = middle
        return low

    def extend(self, events: list[Event]) -> None:
        """Append events recorded before (a return to a later state)."""
        self._events.extend(events)

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self):
        return iter(self._events)

    def __getitem__(self, index):
        return self._events[index]
