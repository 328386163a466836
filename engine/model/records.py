"""The engine's records: jobs, occurrences, attempts and workers, and their states.

An occurrence is one scheduled run of a job, identified by ``(job id, scheduled tick)``. Occurrences
that fell due but that nothing has touched yet stay implicit (see :mod:`engine.core`); everything
here is a record the engine has materialised because something happened to it.
"""

from __future__ import annotations

from dataclasses import field
from enum import Enum
from typing import NoReturn

from engine.model.backoff import Backoff
from engine.model.compact_pickle import pickled_compactly
from engine.model.job_rules import OverlapRule, TriggerRule
from engine.model.journaled import (
    BOOKKEEPING,
    IDENTITY,
    VERSIONS,
    copy_rule,
    journaled,
    record_list,
)
from engine.model.values import mutable_record, value
from engine.schedules.kinds import Schedule


class OccurrenceState(Enum):
    """Where an occurrence is in its life. The names are the strings seed 000 reports."""

    SCHEDULED = "SCHEDULED"
    """In the job's schedule, not created yet (not due, or due but no dispatch has created it)."""
    BLOCKED = "BLOCKED"
    """Created, but waiting for the jobs it depends on to succeed."""
    QUEUED = "QUEUED"
    """Waiting for its first attempt."""
    RUNNING = "RUNNING"
    RETRY_PENDING = "RETRY_PENDING"
    """A failed attempt left retries; waiting for backoff to pass or for a worker."""
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"

    # Members are singletons: identity hashing is correct and much faster than Enum's name hash,
    # which matters because every state change updates the engine's by-state index.
    __hash__ = object.__hash__

    @property
    def is_final(self) -> bool:
        return self in FINAL_STATES


FINAL_STATES = frozenset(
    {OccurrenceState.SUCCEEDED, OccurrenceState.FAILED, OccurrenceState.CANCELLED}
)


class AttemptOutcome(Enum):
    """How an attempt ended; RUNNING while it has not."""

    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    TIMED_OUT = "TIMED_OUT"
    """Still running at start + timeout: the reviewer reaped it. Counts as a failed attempt."""
    LOST = "LOST"
    """Its worker went down. Retried without counting against the occurrence's attempts."""
    TERMINATED = "TERMINATED"
    """Ended by its job's overlap rule (Replace, CancelOther, TerminateOther): a newer run took
    its place, and the run is cancelled, not retried."""

    __hash__ = object.__hash__  # as OccurrenceState's: every attempt's end looks its event up


_ATTEMPT_RUNNING = AttemptOutcome.RUNNING
"""Read once: an enum member read through its class is slow, and every report of a worker
asks its run's running attempt (:attr:`Occurrence.running_attempt`)."""


class WorkerState(Enum):
    IDLE = "IDLE"
    BUSY = "BUSY"
    DRAINING = "DRAINING"
    """Finishes its attempt, then takes no more work."""
    DOWN = "DOWN"


class CancelReason(Enum):
    USER = "user"
    """A cancel command."""
    CASCADE = "cascade"
    """A job it depends on failed for good (or was deleted before succeeding)."""
    DELETED = "deleted"
    """Its job was deleted."""
    REPLACED = "replaced"
    """A newer run of its job took its place (its overlap rule: Replace, CancelOther,
    TerminateOther); the cause names the rule."""
    EXPIRED = "expired"
    """It had not started ``start_deadline`` ticks after its scheduled tick (Celery's
    ``expires``)."""


class CatchUp(Enum):
    """What a resumed job does with the occurrences that fell due while it was paused."""

    SKIP = "skip"
    LATEST = "latest"
    ALL = "all"


class BackfillOrder(Enum):
    """How a backfill creates its runs: all at once, or each once the one before is final
    (Airflow's default run order for ``dags backfill``)."""

    PARALLEL = "parallel"
    SEQUENTIAL = "sequential"


@value
class Backfill:
    """A backfill under way (:mod:`engine.rules.backfill`): its next logical tick to create, the
    range's last, and, in order, the run it waits to end."""

    next: int | None
    last: int
    order: BackfillOrder
    waiting_for: int | None = None


class Channel(Enum):
    EMAIL = "email"
    WEBHOOK = "webhook"
    SLACK = "slack"


class NotifyOn(Enum):
    """The happenings a job's subscribers can be notified of."""

    SUCCEEDED = "succeeded"
    """An occurrence succeeded."""
    FAILED = "failed"
    """An attempt failed (timed out and lost attempts excluded)."""
    RETRIES_EXHAUSTED = "retries_exhausted"
    """An occurrence failed for good."""
    TIMED_OUT = "timed_out"
    DEADLINE_MISSED = "deadline_missed"
    """A run had not finished ``deadline`` ticks after its scheduled tick."""
    CANCELLED = "cancelled"


PRIORITY_LEVELS = {"high": 2, "medium": 1, "low": 0}
"""Seed 003's named priorities; plain integers may be used between and beyond them."""


@value
class Subscription:
    on: frozenset[NotifyOn]
    channel: Channel
    target: str


@value
class JobSpec:
    """Everything a user says about a job when scheduling it. Values, so history can replay them."""

    job_id: str
    schedule: Schedule
    max_attempts: int = 1
    """First attempt plus retries: seed 000's ``maxRetries + 1``, seed 001's ``maxAttempts``."""
    priority: int = 0
    """Higher is more urgent."""
    duration: int = 1
    """Ticks an attempt runs when completion is simulated."""
    depends_on: tuple[str, ...] = ()
    """Jobs it waits for: a one-time job must have SUCCEEDED before any run of this job may run;
    of a recurring job, each run waits for the upstream run for its tick (its latest run at or
    before it), judged by ``trigger_rule`` (:mod:`engine.rules.run_dependencies`)."""
    fail_attempts: frozenset[int] = frozenset()
    """Attempt numbers (per occurrence) scripted to fail when they complete."""
    hang_attempts: frozenset[int] = frozenset()
    """Attempt numbers (per occurrence) scripted never to complete: only a timeout ends them."""
    failure_rate: float = 0.0
    """Chance that an attempt not otherwise scripted fails, drawn from the engine's seeded RNG."""
    timeout: int | None = None
    """Execution limit in ticks: an attempt still running at start + timeout is timed out."""
    backoff: Backoff | None = None
    """This job's retry backoff; None uses the policy's."""
    payload: str | None = None
    """Opaque data for the job's code; the engine only stores it."""
    notify: tuple[Subscription, ...] = ()
    catch_up: CatchUp = CatchUp.SKIP
    overlap: OverlapRule | None = None
    """The job's limit on active runs (``max_active``, ``overlap``); None: runs may overlap."""
    pool: str | None = None
    """The policy's pool whose slots its attempts draw from (Airflow pools); None: no pool."""
    trigger_rule: TriggerRule = TriggerRule.ALL_SUCCESS
    """How its runs judge the runs of the recurring jobs it depends on."""
    catch_up_window: int | None = None
    """On resume, missed runs scheduled more than this many ticks before are skipped
    (Temporal's catch-up window, Kubernetes' startingDeadlineSeconds)."""
    max_missed: int | None = None
    """On resume, more missed runs than this (within the window): a warning, and only the
    latest runs (Kubernetes: 100)."""
    deadline: int | None = None
    """Ticks after its scheduled tick by which a run should have finished; a run still going
    then raises a ``deadline_missed`` notification (:mod:`engine.rules.deadlines`)."""
    start_deadline: int | None = None
    """Ticks after its scheduled tick by which a run must have started; one still waiting for a
    worker then expires (:mod:`engine.rules.start_deadlines`)."""
    run_timeout: int | None = None
    """Ticks from its first attempt's start by which a run must be over, retries and backoffs
    included: past them its running attempt is timed out and the run fails, its retries unused
    (Kubernetes' ``activeDeadlineSeconds``: :mod:`engine.parts.attempts`)."""


@value
class CancelledRange:
    """A job's created runs scheduled in ``[first, last]`` that had no record when they were
    cancelled together (``BacklogCancelled``); the ticks that are not runs of the job, or that
    have a record of their own, are not part of it."""

    first: int
    last: int
    reason: CancelReason
    cause: str | None
    """For a cascade: the job whose permanent failure (or deletion) started it."""


class _NoOpenRuns(dict):
    """The empty ``Job.open`` every job without an open run shares (:data:`NO_OPEN_RUNS`): an
    empty dictionary of its own was 64 bytes a job, 1.3 MB of a server with 20,000 jobs stored.
    It refuses to be written; the first run a job opens gives it a dictionary of its own."""

    __slots__ = ()

    def _refused(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("NO_OPEN_RUNS is shared by every job: give the job a dictionary")

    __setitem__ = __delitem__ = __ior__ = update = setdefault = popitem = clear = _refused

    def __reduce__(self) -> str:
        return "NO_OPEN_RUNS"  # pickled by name: loads as the one shared

    # Hashed by identity, as the one object it is: so it may be ``Job.open``'s plain default,
    # which ``dataclass`` refuses to an unhashable value. A factory's call was a tenth of a
    # Job's construction (a hundred thousand jobs on seed 000's maximum workload).
    __hash__ = object.__hash__


NO_OPEN_RUNS: dict[int, None] = _NoOpenRuns()


@pickled_compactly
@journaled(hot=("next_due", "open", "front"))
@mutable_record
class Job:
    """A scheduled job and the engine's bookkeeping for walking its schedule lazily.

    Its rarely changed collections are tuples, replaced on change: they cost nothing per job
    (the empty tuple is shared), and Python's cycle collector has fewer objects to walk."""

    spec: JobSpec
    submission: int = field(metadata=IDENTITY)
    """Position in submission order (0, 1, 2, ...)."""
    order_key: bytes = field(metadata=IDENTITY)
    """The job id's Java sort key, computed once."""
    next_due: int | None
    """The earliest schedule tick whose occurrence has not been materialised; None when done."""
    dispatches_at_submit: int
    """The engine's dispatch count at submission: only later dispatches create its runs."""
    first_run: int | None = field(default=None, metadata=IDENTITY)
    """Its first run's tick when it was scheduled (None: no run): no run of it comes before."""
    fail_attempts: frozenset[int] = frozenset()
    """Scripted failures; starts as the spec's and may grow by later commands."""
    unmet_dependencies: int = 0
    runnable_since: int | None = None
    """Tick at which the last dependency succeeded (or submission tick when there were none)."""
    dependents: tuple[str, ...] = ()
    """Jobs that depend on this one, in submission order."""
    upstream_runs: tuple[str, ...] = ()
    """The recurring jobs it depends on: each of its runs waits for theirs, run by run."""
    deadline_next: int | None = None
    """With a deadline: the scheduled tick of the next run whose deadline is to be checked."""
    start_next: int | None = None
    """With a start deadline: the scheduled tick of the next run whose start is to be checked."""
    blocked_from: int | None = None
    """While dependencies are unmet and runs have fallen due: the scheduled tick of the run that
    opened the blocked range (its ``OccurrenceBlocked`` event). The blocked runs stay
    implicit: every created run from the cursor on is BLOCKED while dependencies are unmet."""
    open: dict[int, None] = field(default=NO_OPEN_RUNS, metadata=copy_rule(tuple, dict.fromkeys))
    """Scheduled ticks of this job's materialised occurrences that are not final, in order made;
    :data:`NO_OPEN_RUNS` (read-only) until the job opens one."""
    paused_through: int | None = None
    """While paused: the last tick whose occurrences were created before the pause."""
    skipped: tuple[tuple[int, int], ...] = ()
    """Ranges ``(after, through]`` of schedule ticks skipped on resume; they never run."""
    deleted: bool = False
    backlog: tuple[tuple[int, JobSpec], ...] = ()
    """Definitions modified away while occurrences created under them still waited implicitly:
    ``(last tick covered, the definition then)``, oldest first; dropped as the cursor passes."""
    spec_since: int = 0
    """The tick from which the current definition's schedule applies (its last modify's tick)."""
    doomed_by: str | None = None
    """Set when a cascade cancelled the job: the job whose failure means it can never run."""
    cancelled_backlog: CancelledRange | None = None
    """The created runs without a record that its deletion or a cascade cancelled, as one range
    (each answers CANCELLED by arithmetic); a job's runs stop being created then, so one at most."""
    held: int | None = None
    """Under a BufferOne or BufferLatest rule: the scheduled tick of the run (a QUEUED record,
    not in the ready queue) that waits for a slot."""
    held_from: int | None = None
    """Under a BufferAll rule, while runs wait for a slot: the scheduled tick of the first (its
    ``OccurrenceHeld`` event). They stay implicit, from the cursor on, and are released one by
    one (``OccurrenceReleased``) as slots free."""
    backfill: Backfill | None = None
    """A backfill under way: the logical ticks it still has to create (engine/rules/backfill.py)."""
    front: tuple | None = field(default=None, compare=False, repr=False)
    """This job's implicit entry in the ready queue: its earliest due occurrence not yet taken (a
    bare tuple, read as :mod:`engine.parts.ready_entry` says)."""
    gen: int = field(default=0, compare=False, repr=False, metadata=BOOKKEEPING)
    """The keyframe stamp that last marked this record changed (see :mod:`engine.rewind.frames`)."""
    versions: object = field(default=None, init=False, compare=False, repr=False, metadata=VERSIONS)
    """Its values at the keyframes that saved it (:data:`~engine.model.journaled.VERSIONS`)."""

    @property
    def job_id(self) -> str:
        return self.spec.job_id

    def spec_for(self, tick: int) -> JobSpec:
        """The definition an occurrence at ``tick`` was (or will be) created with."""
        for through, spec in self.backlog:
            if tick <= through:
                return spec
        return self.spec

    def first_fire(self, tick: int) -> int | None:
        """The first schedule tick at or after ``tick``, across the backlog's definitions."""
        for through, spec in self.backlog:
            if tick <= through:
                found = spec.schedule.first_at_or_after(tick)
                if found is not None and found <= through:
                    return found
                tick = through + 1
        since = self.spec_since  # not ``max``: a builtin's call per run taken
        return self.spec.schedule.first_at_or_after(tick if tick >= since else since)

    def fires_at(self, tick: int) -> bool:
        for through, spec in self.backlog:
            if tick <= through:
                return spec.schedule.contains(tick)
        return tick >= self.spec_since and self.spec.schedule.contains(tick)


@pickled_compactly
@journaled
@mutable_record
class Attempt:
    """One try of an occurrence on one worker."""

    number: int = field(metadata=IDENTITY)
    worker_id: str = field(metadata=IDENTITY)
    started: int = field(metadata=IDENTITY)
    ended: int | None = None
    outcome: AttemptOutcome = AttemptOutcome.RUNNING


@pickled_compactly
@journaled(hot=("state", "attempts"))
@mutable_record
class Occurrence:
    """A materialised run of a job. ``(job_id, scheduled)`` is its identity, kept as ``key``."""

    key: tuple[str, int] = field(metadata=IDENTITY)
    state: OccurrenceState
    max_attempts: int
    priority: int
    ready_since: int
    """Tick from which it could run (dependencies met); aging counts from here and never resets."""
    duration: int
    timeout: int | None
    attempts: list[Attempt] = field(default_factory=list, metadata=record_list(Attempt))
    eligible_at: int | None = None
    """For RETRY_PENDING: the tick its backoff ends."""
    retry_delay: int | None = None
    """For RETRY_PENDING: the backoff that set ``eligible_at``."""
    cancel_reason: CancelReason | None = None
    cancel_cause: str | None = None
    """For a cascade cancellation: the job whose failure started it."""
    gen: int = field(default=0, compare=False, repr=False, metadata=BOOKKEEPING)
    versions: object = field(default=None, init=False, compare=False, repr=False, metadata=VERSIONS)

    @property
    def job_id(self) -> str:
        return self.key[0]

    @property
    def scheduled(self) -> int:
        return self.key[1]

    @property
    def running_attempt(self) -> Attempt | None:
        attempts = self.attempts
        if attempts and (last := attempts[-1]).outcome is _ATTEMPT_RUNNING:
            return last
        return None


@pickled_compactly
@journaled
@mutable_record
class Worker:
    worker_id: str = field(metadata=IDENTITY)
    order_key: bytes = field(metadata=IDENTITY)
    running: tuple[str, int] | None = None
    """The occurrence whose attempt this worker runs, if any."""
    since: int = 0
    """Tick of the last change between idle and busy."""
    busy_ticks: int = 0
    """Ticks spent busy before ``since``: utilisation without replaying history."""
    registered: int = field(default=0, metadata=IDENTITY)
    down: bool = False
    draining: bool = False
    gen: int = field(default=0, compare=False, repr=False, metadata=BOOKKEEPING)
    versions: object = field(default=None, init=False, compare=False, repr=False, metadata=VERSIONS)

    @property
    def state(self) -> WorkerState:
        if self.down:
            return WorkerState.DOWN
        if self.draining:
            return WorkerState.DRAINING
        return WorkerState.IDLE if self.running is None else WorkerState.BUSY

    def busy_ticks_at(self, now: int) -> int:
        return self.busy_ticks + (now - self.since if self.running is not None else 0)
