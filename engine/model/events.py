"""Typed events, named in the past tense, and the append-only log that holds them.

The event log (:mod:`engine.model.event_log`) is the engine's output: the dashboard's tables, the
headless run's lines, the seed 001 protocol's output and the exports are all views over it. An
event's sequence number is its position in the log.
"""

from __future__ import annotations

from engine.model.event_log import EventLog as EventLog
from engine.model.event_log import EventRecords as EventRecords
from engine.model.event_log import register_kinds
from engine.model.records import CancelReason, CatchUp
from engine.model.values import value


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
    """Its last allowed attempt failed, or its time ran out: a permanent failure."""

    attempts: int
    run_timeout: int | None = None
    """Set when the run failed because its job's ``run_timeout`` passed from its first attempt's
    start, whatever retries it had left (Kubernetes: the Job fails with ``DeadlineExceeded``)."""


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
    start times (> 100)"): only the latest of them runs (none under ``catch_up: skip``)."""

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
class BackfillStarted(Event):
    """A backfill of the job's logical ticks in ``[first, last]`` began: it will create up to
    ``runs`` runs (those of the range that do not exist yet), in ``order``."""

    job_id: str
    first: int
    last: int
    order: str
    runs: int


@value
class RunBackfilled(OccurrenceEvent):
    """A backfill created this run, for its logical tick (a run of the job like any other)."""


@value
class BackfillRunExists(OccurrenceEvent):
    """A backfill found this run already there (or left to the job's schedule): not created
    twice."""


@value
class BackfillFinished(Event):
    job_id: str


@value
class RunExpired(OccurrenceEvent):
    """It had not started ``start_deadline`` ticks after its scheduled tick, still waiting for
    a worker: it never runs (cancelled, reason ``expired``)."""

    start_deadline: int


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


ATTEMPT_ENDS = (AttemptSucceeded, AttemptFailed, AttemptTimedOut, AttemptLost, AttemptTerminated)
"""The events that end an attempt. Each is stored as ``AttemptStarted`` is, ``(tick, job_id,
scheduled, attempt, worker_id)``, so a reader of the stored fields treats them alike."""

EVENT_KINDS = register_kinds(Event)
