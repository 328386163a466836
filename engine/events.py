"""Typed events, named in the past tense, and the append-only log that holds them.

The event log is the engine's output: the dashboard's tables, the headless run's lines, the seed
001 protocol's output and the exports are all views over it. An event's sequence number is its
position in the log.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    """Fell due while a dependency had not succeeded yet."""


@dataclass(frozen=True, slots=True)
class OccurrenceUnblocked(OccurrenceEvent):
    """Its last dependency succeeded; it may run from this tick."""


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
    cause: str | None
    """For a cascade: the job whose permanent failure started it."""


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

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self):
        return iter(self._events)

    def __getitem__(self, index):
        return self._events[index]
