"""The engine: composes its parts, routes commands to them, advances time event by event.

Time model. ``now`` is a tick whose processing may still be open: ``advance(to)`` processes every
tick from ``now`` up to (not including) ``to`` at which something can happen, jumping over idle
ticks, and leaves ``now == to`` with that tick not yet processed. Processing a tick runs, in this
order: the engine's own events of the tick (its timers in the order of their kinds,
:class:`~engine.parts.timers.TimerKind`: attempt ends, timeouts, backoff expiries, notification
tries, deadlines, start deadlines, run timeouts; then, with automatic dispatch, occurrences falling
due: ``begin_tick``), then automatic dispatch (``settle``). Where commands go between those is the
tick driver's business (:mod:`engine.play.ticks`).

The parts, each owning its state and declaring it to the journal (:mod:`engine.rewind.journal`):

- :class:`~engine.parts.occurrences.OccurrenceStore`: the materialised runs and their state index;
- :class:`~engine.parts.cursors.JobCursors`: the jobs, the lazy walk of their schedules, the
  due heap;
- :class:`~engine.parts.dispatcher.Dispatcher`: the ready queue and assignment to idle workers;
- :class:`~engine.parts.workers.Workforce`: the workers and the idle pool;
- :class:`~engine.parts.timers.Timers`: attempt ends, timeouts, backoff ends, notification tries;
- :class:`~engine.parts.notifications.Outbox`: the notifications and their delivery tries;
- :class:`~engine.parts.tick_clock.TickClock`: the current tick, ``now``;
- :class:`~engine.rules.pools.Pools` (when the policy has pools): the slots in use;

and, without state of their own, :class:`~engine.parts.attempts.Attempts` (the life of an attempt),
:class:`~engine.parts.lifecycle.Lifecycle` (modify, cancel, delete, pause, resume) and the rules
(:mod:`engine.rules`: dependencies, run dependencies, overlap, backfills, deadlines, start
deadlines).

Composition. This module is the one place that builds the parts: each is given, in its
constructor, the collaborators and values it uses (the clock, the journal, the log, the store, the
cursors, the timers, the policy...), and none holds the engine. The parts that drive a run call
each other in a circle (an attempt's end frees an overlap slot, which cancels a run, which moves
a backfill on, which starts a run...), so those are connected after they are all built, each by
its own ``connect`` method naming the siblings it calls. Each timer kind goes to its handler
through one table, built here (:func:`timer_handlers`).

Lazy occurrences. A job's due runs stay implicit until a worker takes one (see
:mod:`engine.parts.cursors` and :mod:`engine.parts.dispatcher`): a backlog of a million due runs
costs one queue entry per job. Blocked and cancelled runs are ranges (see
:mod:`engine.parts.ranges`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.model import events as ev
from engine.model.commands import (
    DONE,
    Advance,
    BackfillJob,
    CancelOccurrence,
    Command,
    Complete,
    DeleteJob,
    Dispatch,
    DrainWorker,
    ModifyJob,
    Outcome,
    PauseJob,
    RegisterWorker,
    ReportDelivery,
    Result,
    ResumeJob,
    ScheduleJob,
    ScriptFailure,
    WorkerDown,
    WorkerUp,
    refused,
)
from engine.model.limits import spec_problem
from engine.model.policies import DispatchMode, Policy
from engine.model.problems import Code, refusal
from engine.model.records import (
    CancelReason,
    CatchUp,
    Job,
    JobSpec,
    Occurrence,
    OccurrenceState,
    Worker,
)
from engine.model.rng import TrackedRandom
from engine.parts.attempts import Attempts
from engine.parts.cursors import JobCursors
from engine.parts.dispatcher import Assignment, Dispatcher
from engine.parts.lifecycle import Lifecycle, past_run_time
from engine.parts.notifications import Notification, Outbox
from engine.parts.occurrences import OccurrenceStore
from engine.parts.ready import make_ready_queue
from engine.parts.tick_clock import TickClock
from engine.parts.timers import TimerKind, Timers
from engine.parts.workers import Workforce
from engine.query.api import Query
from engine.rewind.journal import Mark, UndoJournal
from engine.rules.backfill import Backfills
from engine.rules.deadlines import Deadlines
from engine.rules.dependencies import Dependencies
from engine.rules.overlap import OverlapControl
from engine.rules.pools import Pools, pool_problem
from engine.rules.run_dependencies import RunDependencies
from engine.rules.start_deadlines import StartDeadlines

__all__ = ["Assignment", "Engine"]

_CREATED = Outcome.CREATED
"""Read once: in Python 3.11 an enum member read through its class costs a tenth of a
microsecond (the enum metaclass's ``__getattr__`` hook)."""

TimerHandlers = Mapping[TimerKind, Callable[..., None]]
"""Each timer kind's handler, called with the timer's payload unpacked."""


def timer_handlers(
    attempts: Attempts, outbox: Outbox, deadlines: Deadlines, start_deadlines: StartDeadlines
) -> TimerHandlers:
    """The table from timer kind to handler. The order in which a tick's timers run is not
    here: it is the kinds' own (:class:`~engine.parts.timers.TimerKind`), by which the timers'
    heap sorts a tick's timers. Every kind must have a handler: a kind without one is refused
    here, when the engine is built, not at the first timer of that kind."""
    handlers: dict[TimerKind, Callable[..., None]] = {
        TimerKind.ATTEMPT_END: attempts.duration_over,
        TimerKind.TIMEOUT: attempts.timeout_reached,
        TimerKind.BACKOFF_END: attempts.backoff_ended,
        TimerKind.NOTIFICATION_TRY: outbox.try_delivery,
        TimerKind.DEADLINE: deadlines.check,
        TimerKind.START_DEADLINE: start_deadlines.check,
        TimerKind.RUN_TIMEOUT: attempts.run_timeout_reached,
    }
    missing = [kind.name for kind in TimerKind if kind not in handlers]
    if missing:
        raise TypeError(f"timer kinds without a handler: {', '.join(missing)}")
    return handlers


def _dispatch(engine: Engine, _: Dispatch) -> Result:
    return Result(Outcome.OK, engine.dispatch())


_HANDLERS: dict[type, Callable[[Engine, Any], Result]] = {
    ScheduleJob: lambda engine, c: engine.schedule(c.spec),
    Complete: lambda engine, c: engine.attempts.complete(
        c.job_id, c.scheduled, c.attempt, c.succeeded
    ),
    Dispatch: _dispatch,
    Advance: lambda engine, c: engine.advance(c.to),
    ReportDelivery: lambda engine, c: engine.notifications.report(c.key, c.delivered),
    RegisterWorker: lambda engine, c: engine.workforce.register(c.worker_id),
    ScriptFailure: lambda engine, c: engine.script_failure(c.job_id, c.attempt),
    ModifyJob: lambda engine, c: engine.lifecycle.modify(c.job_id, dict(c.changes)),
    CancelOccurrence: lambda engine, c: engine.lifecycle.cancel(c.job_id, c.scheduled),
    DeleteJob: lambda engine, c: engine.lifecycle.delete(c.job_id),
    PauseJob: lambda engine, c: engine.lifecycle.pause(c.job_id),
    ResumeJob: lambda engine, c: engine.lifecycle.resume(c.job_id, c.catch_up),
    BackfillJob: lambda engine, c: engine.backfills.start(c),
    WorkerDown: lambda engine, c: engine.workforce.down(c.worker_id),
    WorkerUp: lambda engine, c: engine.workforce.up(c.worker_id),
    DrainWorker: lambda engine, c: engine.workforce.drain(c.worker_id),
}
"""Each command's handler, by the command's exact class: one dictionary lookup, where a
``match`` over the classes tried them in turn (0.5 to 1 µs for the commands the facades send
most, more for the ones further down)."""


class Engine:
    """The one scheduling engine behind every facade, scenario and view."""

    def __init__(self, policy: Policy | None = None, seed: int = 0) -> None:
        self.policy = policy = policy or Policy()
        self.seed = seed
        # What every part may be given: the clock, the log, the seeded generator, the journal.
        self._clock = clock = TickClock()
        self.log = log = ev.EventLog()
        self.rng = rng = TrackedRandom(seed)
        self.journal = journal = UndoJournal(log, rng)
        # The parts that own state, each built from those before it.
        self.store = store = OccurrenceStore(journal, policy.execution_limit)
        self.cursors = cursors = JobCursors(journal, store)
        jobs = cursors.jobs
        self.timers = timers = Timers()
        self.workforce = workforce = Workforce(clock, journal, log)
        self.notifications = outbox = Outbox(
            clock, journal, log, timers, jobs, policy.notifications, rng
        )
        ready = make_ready_queue(policy)
        self.pools = pools = Pools(policy, ready, jobs, clock) if policy.pools else None
        self.dispatcher = dispatcher = Dispatcher(
            ready, clock, journal, log, cursors, store, workforce, pools
        )
        # The parts and rules that drive a run: they call each other in a circle, closed by
        # connecting each to the siblings it calls once all of them are built.
        self.attempts = attempts = Attempts(
            clock, journal, log, rng, policy, store, jobs, workforce, timers, outbox, pools
        )
        self.lifecycle = lifecycle = Lifecycle(clock, journal, log, policy, cursors, store, outbox)
        self.dependencies = dependencies = Dependencies(clock, journal, log, policy, cursors, store)
        self.run_dependencies = run_dependencies = RunDependencies(clock, log, cursors, store)
        self.overlap = overlap = OverlapControl(clock, journal, log, policy, cursors, store)
        self.backfills = backfills = Backfills(clock, journal, log, cursors, store)
        workforce.connect(attempts)
        attempts.connect(dispatcher, dependencies, overlap, backfills)
        dispatcher.connect(attempts, run_dependencies, overlap)
        lifecycle.connect(dispatcher, dependencies, run_dependencies, overlap, backfills)
        dependencies.connect(dispatcher, run_dependencies, lifecycle)
        run_dependencies.connect(dispatcher, lifecycle, backfills)
        overlap.connect(dispatcher, attempts, lifecycle, run_dependencies)
        backfills.connect(dispatcher, lifecycle, run_dependencies, overlap)
        # The rules that only react to their timers, outside the circle.
        self.deadlines = deadlines = Deadlines(clock, journal, log, cursors, store, timers, outbox)
        self.start_deadlines = start_deadlines = StartDeadlines(
            journal, cursors, store, timers, lifecycle
        )
        self._on_timer = timer_handlers(attempts, outbox, deadlines, start_deadlines)
        for part in (clock, store, cursors, workforce, timers, outbox, dispatcher):
            journal.register(part)
        if pools is not None:
            journal.register(pools)
        self._auto = policy.dispatch is DispatchMode.AUTO
        # The parts' tables, for reading: the same objects (the journal changes them in place,
        # never replaces them), so views and hot paths skip a lookup through the part.
        self.jobs: dict[str, Job] = self.cursors.jobs
        self.workers: dict[str, Worker] = self.workforce.workers
        self.occurrences: dict[tuple[str, int], Occurrence] = self.store.records
        self.by_state: dict[OccurrenceState, dict[tuple[str, int], None]] = self.store.index.keys
        self.outbox: dict[tuple[str, int, int, str, str, str], Notification] = (
            self.notifications.records
        )
        self.query = Query(self)

    # ------------------------------------------------------- the parts' state

    @property
    def now(self) -> int:
        """The current tick (see the module docstring): the parts' clock, read and set here."""
        return self._clock.now

    @now.setter
    def now(self, tick: int) -> None:
        self._clock.now = tick

    @property
    def created_through(self) -> int:
        return self.cursors.created_through

    @property
    def dispatches(self) -> int:
        return self.cursors.dispatches

    # ---------------------------------------------------------------- commands

    def apply(self, command: Command) -> Result:
        """Apply one command; a rejected command changes nothing."""
        handler = _HANDLERS.get(type(command))
        if handler is None:
            raise TypeError(f"not a command: {command!r}")
        return handler(self, command)

    def schedule(self, spec: JobSpec) -> Result:
        if spec.job_id in self.jobs:
            message = f"job {spec.job_id!r} already exists"
            return refused(Outcome.CONFLICT, Code.JOB_EXISTS, message, "job_id")
        now = self._clock.now
        first = spec.schedule.first_at_or_after(now)
        problem = spec_problem(spec)
        if problem is None and first is None:
            problem = past_run_time(spec.schedule, now)
        if problem is None and spec.depends_on:
            problem = self.dependencies.problem(spec)
        if problem is None and spec.pool is not None:
            unknown = pool_problem(dict(self.policy.pools), spec.pool)
            problem = None if unknown is None else refusal(Code.UNKNOWN_POOL, unknown, "pool")
        if problem is not None:
            return Result(Outcome.INVALID, None, problem)
        job = self.cursors.add(spec, first)
        self.log.add(ev.JobScheduled, now, spec.job_id, spec.schedule.describe())
        if spec.deadline is not None:
            self.deadlines.start(job)
        if spec.start_deadline is not None:
            self.start_deadlines.start(job)
        if spec.depends_on:
            doomed_by = self.dependencies.link(job)
            if doomed_by is not None:
                self.lifecycle.cancel_waiting(job, CancelReason.CASCADE, doomed_by)
                return Result(_CREATED, spec.job_id)
        else:
            job.runnable_since = now
        self.cursors.wait_for_due(job)
        return Result(_CREATED, spec.job_id)

    def script_failure(self, job_id: str, attempt: int) -> Result:
        job = self.jobs.get(job_id)
        if job is None:
            return refused(Outcome.NOT_FOUND, Code.UNKNOWN_JOB, f"no job {job_id!r}", "job_id")
        if attempt < 1:
            message = "attempt numbers start at 1"
            return refused(Outcome.INVALID, Code.OUT_OF_RANGE, message, "attempt")
        self.journal.touch(job)
        job.fail_attempts = job.fail_attempts | {attempt}
        return DONE

    def dispatch(self) -> list[Assignment]:
        """Create every due occurrence, then assign ready ones to idle workers, best first."""
        self._create_due()
        assignments: list[Assignment] = []
        self.dispatcher.assign(assignments)
        return assignments

    def register_worker(self, worker_id: str) -> Result:
        return self.workforce.register(worker_id)

    def complete(self, job_id: str, scheduled: int, attempt: int, succeeded: bool) -> Result:
        return self.attempts.complete(job_id, scheduled, attempt, succeeded)

    def modify(self, job_id: str, changes: dict[str, object]) -> Result:
        return self.lifecycle.modify(job_id, changes)

    def cancel_occurrence(self, job_id: str, scheduled: int | None = None) -> Result:
        return self.lifecycle.cancel(job_id, scheduled)

    def delete(self, job_id: str) -> Result:
        return self.lifecycle.delete(job_id)

    def pause(self, job_id: str) -> Result:
        return self.lifecycle.pause(job_id)

    def resume(self, job_id: str, catch_up: CatchUp | None = None) -> Result:
        return self.lifecycle.resume(job_id, catch_up)

    # -------------------------------------------------------------------- time

    def advance(self, to: int) -> Result:
        """Process every tick in ``[now, to)`` where something can happen: O(events), not ticks."""
        clock = self._clock
        if to < clock.now:
            message = f"time {to} is before the current time {clock.now}"
            return refused(Outcome.INVALID, Code.BEFORE_NOW, message, "to")
        if not self._auto and not self.timers:
            # Manual dispatch and nothing timed: no tick can do anything on its own.
            clock.now = to
            return DONE
        while clock.now < to:
            self.settle()
            upcoming = self.next_event_tick()
            clock.now = to if upcoming is None or upcoming > to else upcoming
            if self._auto:
                # The ticks jumped over were processed too: nothing happened in them, but what
                # fell due in them (behind a job's waiting front) was created.
                self.cursors.created_through = clock.now - 1
        return DONE

    def begin_tick(self) -> None:
        """Run the engine's own events of the current tick (see the module docstring): each timer
        due, in the order the timers' heap gives them, by its kind's handler."""
        handlers, pop_due, now = self._on_timer, self.timers.pop_due, self._clock.now
        while (timer := pop_due(now)) is not None:
            _, kind, _, payload = timer
            handlers[kind](*payload)
        if self._auto:
            self._create_due()

    def settle(self) -> None:
        """Finish the current tick: its own events if not yet run, then automatic dispatch."""
        self.begin_tick()
        if self._auto:
            self.dispatcher.assign()

    def next_event_tick(self) -> int | None:
        """The first tick after ``now`` at which the engine has something to do, if any."""
        upcoming = self.timers.next_tick()
        due = self.cursors.next_due_tick() if self._auto else None
        if due is not None and (upcoming is None or due < upcoming):
            upcoming = due
        now = self._clock.now
        if upcoming is not None and upcoming <= now:
            return now + 1
        return upcoming

    # ----------------------------------------------------------------- queries

    def get_job(self, job_id: str) -> Result:
        """The job; not found once deleted (seed 003: DELETE "removes the job"), though its
        runs and events stay in the history."""
        job = self.cursors.live(job_id)
        if job is None:
            return refused(Outcome.NOT_FOUND, Code.UNKNOWN_JOB, f"no job {job_id!r}", "job_id")
        return Result(Outcome.OK, job)

    def occurrence_state(self, job_id: str, scheduled: int) -> OccurrenceState | None:
        """The state of ``(job_id, scheduled)``, by arithmetic for occurrences not materialised."""
        return self.cursors.occurrence_state(job_id, scheduled)

    def is_created(self, job: Job, scheduled: int) -> bool:
        """Whether a dispatch since the job's submission created ``scheduled`` (paused: before)."""
        return self.cursors.is_created(job, scheduled)

    # ------------------------------------------------------------ time travel

    @property
    def check_journal(self) -> bool:
        """The journal's debug mode (see :attr:`UndoJournal.check`)."""
        return self.journal.check

    @check_journal.setter
    def check_journal(self, value: bool) -> None:
        self.journal.check = value

    def mark(self, previous: Mark | None = None) -> Mark:
        return self.journal.mark(previous)

    def rollback(self, mark: Mark) -> None:
        self.journal.rollback(mark)

    def restore_head(self) -> Mark:
        return self.journal.restore_head()

    def drop_head(self) -> None:
        self.journal.drop_head()

    @property
    def has_head(self) -> bool:
        return self.journal.head is not None

    def head_log_span(self) -> tuple[int, int] | None:
        return self.journal.head_log_span()

    # --------------------------------------------------------------- internals

    def _create_due(self) -> None:
        release = self.dispatcher.release
        for job in self.cursors.create_due(self._clock.now):
            release(job)
