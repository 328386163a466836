"""The engine: composes its parts, routes commands to them, advances time event by event.

Time model. ``now`` is a tick whose processing may still be open: ``advance(to)`` processes every
tick from ``now`` up to (not including) ``to`` at which something can happen, jumping over idle
ticks, and leaves ``now == to`` with that tick not yet processed. Processing a tick runs, in this
order: the engine's own events of the tick (its timers in the order of their kinds,
:class:`~engine.parts.timers.TimerKind`: attempt ends, timeouts, backoff expiries, notification
tries, deadlines, start deadlines, run timeouts; then, with automatic dispatch, occurrences falling
due: ``begin_tick``), then automatic dispatch (``settle``). Where commands go between those is the
tick driver's business (:mod:`engine.play.ticks`).

The parts, each owning its state and declaring it for keyframes (:mod:`engine.rewind.journal`):

- :class:`~engine.parts.occurrences.OccurrenceStore`: the materialised runs and their state index
  (and, in an engine that archives, the finished runs: :mod:`engine.parts.run_archive`);
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
from heapq import heappop
from typing import Any, ClassVar

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
    JobSpec,
)
from engine.model.rng import TrackedRandom
from engine.parts.attempts import Attempts
from engine.parts.cursors import JobCursors
from engine.parts.dispatcher import Assignment, Dispatcher
from engine.parts.horizon import retention_floors
from engine.parts.lifecycle import Lifecycle, past_run_time
from engine.parts.notifications import Outbox
from engine.parts.occurrences import OccurrenceStore
from engine.parts.ready import make_ready_queue
from engine.parts.tick_clock import TickClock
from engine.parts.timers import TimerKind, Timers
from engine.parts.workers import Workforce
from engine.query.api import Query
from engine.query.engine_parts import EngineParts
from engine.rewind.frames import Frames
from engine.rewind.journal import ChangeJournal
from engine.rewind.live_state import Keyframe, LiveState
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


class Engine:
    """The one scheduling engine behind every facade, scenario and view."""

    _logs_scheduled = True
    """Whether the log keeps ``JobScheduled`` (:attr:`~engine.model.event_log.EventLog.kinds`),
    told once when the engine is built: :meth:`schedule_checked` describes a job's schedule
    only for a log that keeps the event (``cronlapse script``'s drops it: the description and
    the add were 1.9% of seed 001's benchmark instructions with 3,000 jobs, callgrind). A class
    default too, for an engine an older cronlapse pickled: its log kept every kind."""

    def __init__(
        self,
        policy: Policy | None = None,
        seed: int = 0,
        seed_skip: int = 0,
        *,
        archive: bool = False,
        log: ev.EventLog | None = None,
        indexed: bool = True,
    ) -> None:
        """An engine with nothing in it yet. ``seed`` seeds its one random generator;
        ``seed_skip`` words of it are drawn before tick 0, so that an exported stretch of a
        service's journal continues the generator where the service had it.

        ``archive``: finished runs leave the live state for a compact archive
        (:mod:`engine.parts.run_archive`), so memory follows live work (headless runs, the
        service, the dashboard's histories, which rewind it by keyframes).

        ``log``: the event log the parts write to (default: a new, empty ``EventLog``). A front
        end that reads a few kinds of event once, as they happen, may give one that keeps only
        those (the parts call nothing but ``add``), declared in its ``kinds``: an event of
        another kind whose fields cost calls to make may then not be made at all (a
        ``JobScheduled``). Such an engine cannot rewind.

        ``indexed``: the runs are indexed by state, for the queries by state
        (``Query.record_keys``, ``runs`` and ``count_runs`` with a state, which raise
        TypeError without it): a front end that asks none of them may go without."""
        self.policy = policy = policy or Policy()
        self.seed = seed
        # What every part may be given: the clock, the log, the seeded generator, the journal
        # of changes (which records a part is about to change, for keyframes).
        self._clock = clock = TickClock()
        self.log = log = ev.EventLog() if log is None else log
        self._logs_scheduled = log.kinds is None or ev.JobScheduled in log.kinds
        self._rng = rng = TrackedRandom(seed)
        rng.skip(seed_skip)
        self.journal = journal = ChangeJournal()
        # The parts that own state, each built from those before it.
        self._store = store = OccurrenceStore(journal, policy.execution_limit, archive, indexed)
        self._finished = store.finished
        self._horizon: int | None = None
        """The runs to archive before the next command or tick (empty without an archive)."""
        self._cursors = cursors = JobCursors(store)
        jobs = cursors.jobs
        self._timers = timers = Timers()
        self._workforce = workforce = Workforce(clock, journal, log)
        self._outbox = outbox = Outbox(clock, journal, log, timers, jobs, policy.notifications, rng)
        ready = make_ready_queue(policy)
        pools = Pools(policy, ready, jobs, clock) if policy.pools else None
        self._dispatcher = dispatcher = Dispatcher(
            ready, clock, journal, log, cursors, store, workforce, pools
        )
        # The parts and rules that drive a run: they call each other in a circle, closed by
        # connecting each to the siblings it calls once all of them are built.
        self._attempts = attempts = Attempts(
            clock, journal, log, rng, policy, store, jobs, workforce, timers, outbox, pools
        )
        self._lifecycle = lifecycle = Lifecycle(clock, journal, log, policy, cursors, store, outbox)
        self._dependencies = dependencies = Dependencies(
            clock, journal, log, policy, cursors, store
        )
        run_dependencies = RunDependencies(clock, log, cursors, store)
        overlap = OverlapControl(clock, journal, log, policy, cursors, store)
        self._backfills = backfills = Backfills(clock, journal, log, cursors, store)
        workforce.connect(attempts)
        attempts.connect(dispatcher, dependencies, overlap, backfills)
        dispatcher.connect(attempts, run_dependencies, overlap)
        lifecycle.connect(dispatcher, dependencies, run_dependencies, overlap, backfills)
        dependencies.connect(dispatcher, run_dependencies, lifecycle)
        run_dependencies.connect(dispatcher, lifecycle, backfills)
        overlap.connect(dispatcher, attempts, lifecycle, run_dependencies)
        backfills.connect(dispatcher, lifecycle, run_dependencies, overlap)
        # The rules that only react to their timers, outside the circle.
        self._deadlines = deadlines = Deadlines(clock, journal, log, cursors, store, timers, outbox)
        self._start_deadlines = start_deadlines = StartDeadlines(
            journal, cursors, store, timers, lifecycle
        )
        self._on_timer = timer_handlers(attempts, outbox, deadlines, start_deadlines)
        parts = (clock, store, cursors, workforce, timers, outbox, dispatcher)
        parts += () if pools is None else (pools,)
        self._parts = parts
        self._live_state = LiveState(parts, log, rng)
        self._frames: Frames | None = None
        self._auto = policy.dispatch is DispatchMode.AUTO
        self.query = Query(
            EngineParts(
                clock,
                policy,
                cursors,
                store,
                workforce,
                outbox,
                ready,
                pools,
                overlap,
                run_dependencies,
                backfills,
            )
        )
        """The one read API: everything above the kernel reads the engine's state through it."""

    # ------------------------------------------------------- the parts' state

    @property
    def now(self) -> int:
        """The current tick (see the module docstring): the parts' clock, read and set here."""
        return self._clock.now

    @now.setter
    def now(self, tick: int) -> None:
        self._clock.now = tick

    @property
    def archives(self) -> bool:
        """Whether finished runs leave the live state for the archive."""
        return self._store.archive is not None

    @property
    def horizon(self) -> int | None:
        """The tick given to the last :meth:`forget_archived` (the latest), or None."""
        return self._horizon

    def forget_archived(self, before: int | None = None) -> int:
        """Forget the archived runs scheduled before ``before`` (default: now) that no live rule
        reads, so that memory stops growing with the history; returns how many were dropped.

        Each job keeps its archived runs from its *floor* on: ``before``, or the earliest tick
        its cursor, deadlines, backfill or dependent jobs still read if that is earlier
        (:mod:`engine.parts.horizon`); and it keeps its latest run before the floor. The live
        state (waiting and running runs, timers, jobs, workers, notifications) and the event log
        are untouched: every event from then on is the one an engine that forgot nothing emits.

        What reads further back is answered "forgotten" (:meth:`Query.is_forgotten`): a
        backfill whose range reaches behind a job's floor is refused (``run-forgotten``), and
        so is a cancel of a run behind it; a late report for a forgotten run is refused as for
        any finished run (it has no running attempt). The readers of the whole history
        (``Query.records``, ``count_runs``, ``runs``, the latency report) answer for the runs
        kept: call this only where nothing reads the history back, or reads it as it goes
        (``Query.follow_archive``). The due heap's stale entries go too
        (:meth:`~engine.parts.cursors.JobCursors.compact_due`). Raises TypeError for an engine
        that does not archive, and ValueError for a ``before`` after now."""
        if self._store.archive is None:
            raise TypeError("only an engine that archives its finished runs can forget them")
        now = self._clock.now
        before = now if before is None else before
        if before > now:
            raise ValueError(f"cannot forget before {before}: it is after now ({now})")
        if self._horizon is None or before > self._horizon:
            self._horizon = before
        self._cursors.compact_due()
        return self._store.forget_archived(retention_floors(self._cursors.jobs, before))

    @property
    def random_words(self) -> int:
        """How many 32-bit words the seeded generator has drawn, the seed's skip included."""
        return self._rng.words

    # ---------------------------------------------------------------- commands

    def apply(self, command: Command) -> Result:
        """Apply one command; a rejected command changes nothing."""
        if self._finished:
            self._store.archive_finished()
        handler = self._COMMANDS.get(type(command))
        if handler is None:
            raise TypeError(f"not a command: {command!r}")
        return handler(self, command)

    def schedule(self, spec: JobSpec) -> Result:
        """The ``ScheduleJob`` command (seed 001's SUBMIT calls it without the command when
        the definition is beyond :meth:`schedule_checked`'s)."""
        if self._finished:
            self._store.archive_finished()
        if spec.job_id in self._cursors.jobs:
            message = f"job {spec.job_id!r} already exists"
            return refused(Outcome.CONFLICT, Code.JOB_EXISTS, message, "job_id")
        now = self._clock.now
        first = spec.schedule.first_at_or_after(now)
        problem = spec_problem(spec)
        if problem is None and first is None:
            problem = past_run_time(spec.schedule, now)
        if problem is None and spec.depends_on:
            problem = self._dependencies.problem(spec)
        if problem is None and spec.pool is not None:
            unknown = pool_problem(dict(self.policy.pools), spec.pool)
            problem = None if unknown is None else refusal(Code.UNKNOWN_POOL, unknown, "pool")
        if problem is not None:
            return Result(Outcome.INVALID, None, problem)
        job = self._cursors.add(spec, first)
        self.log.add(ev.JobScheduled, now, spec.job_id, spec.schedule.describe())
        if spec.deadline is not None:
            self._deadlines.start(job)
        if spec.start_deadline is not None:
            self._start_deadlines.start(job)
        if spec.depends_on:
            doomed_by = self._dependencies.link(job)
            if doomed_by is not None:
                self._lifecycle.cancel_waiting(job, CancelReason.CASCADE, doomed_by)
                return Result(_CREATED, spec.job_id)
        else:
            job.runnable_since = now
        self._cursors.wait_for_due(job)
        return Result(_CREATED, spec.job_id)

    def schedule_checked(self, spec: JobSpec, first: int) -> bool:
        """:meth:`schedule` for a definition its caller has checked, as seed 000's and seed
        001's facades do: within the limits, every dependency a known job, no pool, deadline or
        start deadline, and ``first`` its schedule's first tick at or after now. Only a job
        that exists already is refused: returns whether the job was created. The events and
        state are :meth:`schedule`'s (a test holds that on drawn definitions); what it skips is
        the checks, the command's route and its result, a tenth of a microsecond each, a
        hundred thousand times on seed 000's maximum workload (and a twentieth of seed 001's
        instructions)."""
        if self._finished:
            self._store.archive_finished()
        cursors = self._cursors
        if spec.job_id in cursors.jobs:
            return False
        now = self._clock.now
        if self._logs_scheduled:
            self.log.add(ev.JobScheduled, now, spec.job_id, spec.schedule.describe())
        if not spec.depends_on:
            cursors.add_runnable(spec, first, now)
            return True
        job = cursors.add(spec, first)
        doomed_by = self._dependencies.link(job)
        if doomed_by is not None:
            self._lifecycle.cancel_waiting(job, CancelReason.CASCADE, doomed_by)
            return True
        cursors.wait_for_due(job)
        return True

    def script_failure(self, job_id: str, attempt: int) -> Result:
        job = self._cursors.jobs.get(job_id)
        if job is None:
            return refused(Outcome.NOT_FOUND, Code.UNKNOWN_JOB, f"no job {job_id!r}", "job_id")
        if attempt < 1:
            message = "attempt numbers start at 1"
            return refused(Outcome.INVALID, Code.OUT_OF_RANGE, message, "attempt")
        self.journal.touch(job)
        job.fail_attempts = job.fail_attempts | {attempt}
        return DONE

    def dispatch(self) -> list[Assignment]:
        """Create every due occurrence, then assign ready ones to idle workers, best first (the
        ``Dispatch`` command without the command: seed 000's facade dispatches this way)."""
        if self._finished:
            self._store.archive_finished()
        self._create_due()
        assignments: list[Assignment] = []
        self._dispatcher.assign(assignments)
        return assignments

    def register_worker(self, worker_id: str) -> Result:
        return self._workforce.register(worker_id)

    def complete(self, job_id: str, scheduled: int, attempt: int, succeeded: bool) -> Result:
        """The ``Complete`` command without the command (seed 000's facade reports this way)."""
        if self._finished:
            self._store.archive_finished()
        return self._attempts.complete(job_id, scheduled, attempt, succeeded)

    def modify(self, job_id: str, changes: dict[str, object]) -> Result:
        return self._lifecycle.modify(job_id, changes)

    def cancel_occurrence(self, job_id: str, scheduled: int | None = None) -> Result:
        return self._lifecycle.cancel(job_id, scheduled)

    def delete(self, job_id: str) -> Result:
        return self._lifecycle.delete(job_id)

    def pause(self, job_id: str) -> Result:
        return self._lifecycle.pause(job_id)

    def resume(self, job_id: str, catch_up: CatchUp | None = None) -> Result:
        return self._lifecycle.resume(job_id, catch_up)

    # -------------------------------------------------------------------- time

    def advance(self, to: int) -> Result:
        """Process every tick in ``[now, to)`` where something can happen: O(events), not ticks.

        The loop is :meth:`settle` then :meth:`next_event_tick`, written out with the heaps'
        first items read in place: it runs once per tick played (seed 001's ``TICK`` to the end
        plays one per attempt)."""
        clock = self._clock
        if to < clock.now:
            message = f"time {to} is before the current time {clock.now}"
            return refused(Outcome.INVALID, Code.BEFORE_NOW, message, "to")
        # The timers' heap is read in place where time moves (a call fewer per tick played).
        # Not kept in an attribute of its own: the service's snapshots pickle the engine, and
        # one an older cronlapse wrote would not have it.
        auto, timers = self._auto, self._timers.heap.items
        if not auto and not timers:
            # Manual dispatch and nothing timed: no tick can do anything on its own.
            clock.now = to
            return DONE
        dispatcher, cursors, finished = self._dispatcher, self._cursors, self._finished
        heap, handlers, assign = self._timers.heap, self._on_timer, dispatcher.assign
        due = cursors.due.items
        while (now := clock.now) < to:
            # ``begin_tick``, written out: a call fewer per tick played.
            if finished:
                self._store.archive_finished()
            while timers and timers[0][0] <= now:
                item = heappop(timers)
                if heap.popped is not None:  # keyframes are recorded (engine.rewind.heap)
                    heap.popped.append(item)
                _, kind, _, payload = item
                handlers[kind](*payload)
            if auto:
                if (due and due[0][0] <= now) or cursors.undispatched_submissions:
                    dispatcher.release_all(cursors.create_due(now))  # as ``begin_tick`` does
                else:
                    cursors.created_through = now
                assign()
            upcoming = timers[0][0] if timers else None
            if auto and due and (upcoming is None or due[0][0] < upcoming):
                upcoming = due[0][0]
            if upcoming is None or upcoming > to:
                upcoming = to
            elif upcoming <= now:
                upcoming = now + 1
            clock.now = upcoming
            if auto:
                # The ticks jumped over were processed too: nothing happened in them, but what
                # fell due in them (behind a job's waiting front) was created.
                cursors.created_through = upcoming - 1
        return DONE

    def begin_tick(self) -> None:
        """Run the engine's own events of the current tick (see the module docstring): each timer
        due, in the order the timers' heap gives them, by its kind's handler. Handlers may set
        more timers meanwhile, so the heap is read again after each."""
        if self._finished:
            self._store.archive_finished()
        heap, handlers, now = self._timers.heap, self._on_timer, self._clock.now
        timers = heap.items
        while timers and timers[0][0] <= now:
            item = heappop(timers)
            if heap.popped is not None:  # keyframes are recorded (engine.rewind.heap)
                heap.popped.append(item)
            _, kind, _, payload = item
            handlers[kind](*payload)
        if self._auto:
            cursors = self._cursors
            due = cursors.due.items
            if (due and due[0][0] <= now) or cursors.undispatched_submissions:
                self._dispatcher.release_all(cursors.create_due(now))  # ``_create_due``
            else:  # nothing falls due: what ``create_due`` does then, without its call
                cursors.created_through = now

    def settle(self) -> None:
        """Finish the current tick: its own events if not yet run, then automatic dispatch."""
        self.begin_tick()
        if self._auto:
            self._dispatcher.assign()

    def own_queues(self) -> tuple[list, list | tuple]:
        """The heaps whose first items are the ticks the engine acts at on its own, as
        :meth:`next_event_tick` reads them: the timers' and, when it dispatches on its own, the
        due runs' (else an empty tuple). Lists changed in place, rewinds included: a loop over
        ticks reads them once and asks :meth:`next_event_tick` only when one holds a tick
        before its next stop (a history's recording, between two commands)."""
        return self._timers.heap.items, self._cursors.due.items if self._auto else ()

    def next_event_tick(self) -> int | None:
        """The first tick after ``now`` at which the engine has something to do, if any."""
        upcoming = self._timers.next_tick()
        due = self._cursors.next_due_tick() if self._auto else None
        if due is not None and (upcoming is None or due < upcoming):
            upcoming = due
        now = self._clock.now
        if upcoming is not None and upcoming <= now:
            return now + 1
        return upcoming

    # ------------------------------------------------------------ time travel

    def keyframe(self) -> Keyframe:
        """A copy of the live state as it is now (:mod:`engine.rewind.live_state`): what
        :meth:`restore` puts back, however often and whatever was played since. Its cost follows
        the live state, which with the archive is live work, not history."""
        return self._live_state.keyframe()

    def restore(self, keyframe: Keyframe) -> None:
        """Return to the state of ``keyframe`` (one of this engine's): replaying the same
        commands from there gives the same events and state as the first time."""
        self._live_state.restore(keyframe)

    def record_keyframes(self, check: bool = False) -> Frames:
        """Keyframes along a recording of this engine, stored by what changes between them
        (:mod:`engine.rewind.frames`): what a history rewinds by. The first is the state now.
        Its records are marked as they change from here on, so an engine has at most one.
        ``check``: the keyframes' debug mode, for tests (:attr:`Frames.check`)."""
        if self.journal.recorded:
            raise TypeError("this engine already records keyframes")
        frames = self._frames = Frames(self._parts, self.log, self._rng, check)
        self.journal.touch = frames.touch
        frames.take(-1)
        return frames

    # ------------------------------------------------------------ the routes

    _COMMANDS: ClassVar[Mapping[type, Callable[[Engine, Any], Result]]] = {
        ScheduleJob: lambda self, c: self.schedule(c.spec),
        Complete: lambda self, c: self._attempts.complete(
            c.job_id, c.scheduled, c.attempt, c.succeeded
        ),
        Dispatch: lambda self, c: Result(Outcome.OK, self.dispatch()),
        Advance: lambda self, c: self.advance(c.to),
        ReportDelivery: lambda self, c: self._outbox.report(c.key, c.delivered),
        RegisterWorker: lambda self, c: self._workforce.register(c.worker_id),
        ScriptFailure: lambda self, c: self.script_failure(c.job_id, c.attempt),
        ModifyJob: lambda self, c: self._lifecycle.modify(c.job_id, dict(c.changes)),
        CancelOccurrence: lambda self, c: self._lifecycle.cancel(c.job_id, c.scheduled),
        DeleteJob: lambda self, c: self._lifecycle.delete(c.job_id),
        PauseJob: lambda self, c: self._lifecycle.pause(c.job_id),
        ResumeJob: lambda self, c: self._lifecycle.resume(c.job_id, c.catch_up),
        BackfillJob: lambda self, c: self._backfills.start(c),
        WorkerDown: lambda self, c: self._workforce.down(c.worker_id),
        WorkerUp: lambda self, c: self._workforce.up(c.worker_id),
        DrainWorker: lambda self, c: self._workforce.drain(c.worker_id),
    }
    """Each command's route, by the command's exact class: one dictionary lookup, where a
    ``match`` over the classes tried them in turn (0.5 to 1 µs for the commands the facades
    send most, more for the ones further down). A table of the class, not of each engine: an
    engine's state must pickle and deep-copy (snapshots, what-ifs), and routes closed over its
    parts would do neither. The vocabulary is the ``Command`` union of
    :mod:`engine.model.commands`; a test holds that each of its classes has a route."""

    # --------------------------------------------------------------- internals

    def _create_due(self) -> None:
        self._dispatcher.release_all(self._cursors.create_due(self._clock.now))
