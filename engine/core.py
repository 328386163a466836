"""The engine: applies commands, advances time event by event, emits events.

Time model. ``now`` is a tick whose processing may still be open: ``advance(to)`` processes every
tick from ``now`` up to (not including) ``to`` at which something can happen, jumping over idle
ticks, and leaves ``now == to`` with that tick not yet processed. Processing a tick runs, in this
order: the engine's own events of the tick (attempt ends, timeouts, backoff expiries, notification
tries, then, with automatic dispatch, occurrences falling due: ``begin_tick``), then automatic
dispatch (``settle``). Commands given at a tick run between the two.

Lazy occurrences. Each job keeps a cursor, ``next_due``: every schedule tick before it has been
materialised (or skipped). Once due, a job's cursor occurrence waits in the ready queue as one
*implicit* entry; the occurrences behind it are implicit too (QUEUED by arithmetic), and nothing is
created until a worker takes one. A backlog of a million due runs costs one queue entry per job.
While a dependency has not succeeded, the due runs from the cursor on are BLOCKED by arithmetic
and the job waits off the queues; a deleted or cascaded job's waiting runs are cancelled as one
range (see :mod:`engine.ranges`).

The job lifecycle commands, dependencies, worker faults and notifications live in mixins, one
module each; this module holds time, dispatch and the life of an attempt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import events as ev
from engine.commands import (
    Advance,
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
    Result,
    ResumeJob,
    ScheduleJob,
    ScriptFailure,
    WorkerDown,
    WorkerUp,
)
from engine.dependencies import DependenciesMixin
from engine.journal import Head, JournalMixin
from engine.lifecycle import LifecycleMixin, past_run_time
from engine.limits import spec_problem
from engine.model import (
    Attempt,
    AttemptOutcome,
    Job,
    JobSpec,
    NotifyOn,
    Occurrence,
    OccurrenceState,
    Worker,
)
from engine.notifications import Notification, NotificationsMixin
from engine.ordering import java_order_key
from engine.policies import CompletionMode, DispatchMode, Policy, WorkerPool, make_ready_queue
from engine.ready import ReadyEntry
from engine.rng import TrackedRandom
from engine.timers import TimerKind
from engine.undo_heap import UndoHeap
from engine.workers import WorkersMixin

S = OccurrenceState


_OK = Result(Outcome.OK)

_ATTEMPT_ENDED = {
    AttemptOutcome.SUCCEEDED: ev.AttemptSucceeded,
    AttemptOutcome.FAILED: ev.AttemptFailed,
    AttemptOutcome.TIMED_OUT: ev.AttemptTimedOut,
    AttemptOutcome.LOST: ev.AttemptLost,
}


@dataclass(frozen=True, slots=True)
class Assignment:
    """One attempt started by a dispatch."""

    job_id: str
    scheduled: int
    attempt: int
    worker_id: str


class Engine(LifecycleMixin, DependenciesMixin, WorkersMixin, NotificationsMixin, JournalMixin):
    """The one scheduling engine behind every facade, scenario and view."""

    def __init__(self, policy: Policy | None = None, seed: int = 0) -> None:
        self.policy = policy or Policy()
        self.seed = seed
        self.now = 0
        self.jobs: dict[str, Job] = {}
        self.workers: dict[str, Worker] = {}
        self.occurrences: dict[tuple[str, int], Occurrence] = {}
        self.by_state: dict[OccurrenceState, dict[tuple[str, int], None]] = {s: {} for s in S}
        self.outbox: dict[tuple[str, int, int, str, str, str], Notification] = {}
        self.log = ev.EventLog()
        self.rng = TrackedRandom(seed)
        self.created_through = -1
        """Latest tick at which due occurrences were created (by dispatch; every tick in auto)."""
        self.dispatches = 0
        """How often due occurrences were created; a job scheduled after the last time has none."""
        self._undispatched_submissions = False
        """Whether a job was scheduled since the last creation of due occurrences."""
        self._auto = self.policy.dispatch is DispatchMode.AUTO
        self._simulated = self.policy.completion is CompletionMode.SIMULATED
        self._ready = make_ready_queue(self.policy)
        self._due = UndoHeap()
        """(tick, submission, job id): the next tick at which each waiting job falls due."""
        self._timers = UndoHeap()
        """(tick, kind, sequence, payload)."""
        self._idle = WorkerPool()
        self._next_seq = 0
        self._next_submission = 0
        self._generation = 0
        self._saves: list[list[tuple[Any, tuple]]] = [[]]
        """Per generation: each record's fields before its first change in that generation."""
        self._undos: list[list] = [[]]
        """Per generation: undo steps for the containers, in the order the changes were made."""
        self._undo: list | None = None
        """The current generation's undo steps; None until the first restore point."""
        self._head: Head | None = None
        """The furthest state reached, kept while the engine is rolled back (see journal)."""

    # ----------------------------------------------------------------- commands

    def apply(self, command: Command) -> Result:
        """Apply one command; a rejected command changes nothing."""
        match command:
            case Advance(to):
                return self.advance(to)
            case Dispatch():
                return Result(Outcome.OK, self.dispatch())
            case Complete(job_id, scheduled, attempt, succeeded):
                return self.complete(job_id, scheduled, attempt, succeeded)
            case ScheduleJob(spec):
                return self.schedule(spec)
            case RegisterWorker(worker_id):
                return self.register_worker(worker_id)
            case ScriptFailure(job_id, attempt):
                return self.script_failure(job_id, attempt)
            case ModifyJob(job_id, changes):
                return self.modify(job_id, dict(changes))
            case CancelOccurrence(job_id, scheduled):
                return self.cancel_occurrence(job_id, scheduled)
            case DeleteJob(job_id):
                return self.delete(job_id)
            case PauseJob(job_id):
                return self.pause(job_id)
            case ResumeJob(job_id, catch_up):
                return self.resume(job_id, catch_up)
            case WorkerDown(worker_id):
                return self.worker_down(worker_id)
            case WorkerUp(worker_id):
                return self.worker_up(worker_id)
            case DrainWorker(worker_id):
                return self.drain_worker(worker_id)
        raise TypeError(f"not a command: {command!r}")

    def schedule(self, spec: JobSpec) -> Result:
        if spec.job_id in self.jobs:
            return Result(Outcome.CONFLICT, message=f"job {spec.job_id!r} already exists")
        problem = spec_problem(spec)
        if problem is None:
            problem = past_run_time(spec.schedule, self.now)
        if problem is None and spec.depends_on:
            problem = self._check_dependencies(spec)
        if problem is not None:
            return Result(Outcome.INVALID, message=problem)
        first = spec.schedule.first_at_or_after(self.now)
        job = Job(
            spec=spec,
            submission=self._take_submission(),
            order_key=java_order_key(spec.job_id),
            next_due=first,
            dispatches_at_submit=self.dispatches,
            fail_attempts=spec.fail_attempts,
            gen=self._generation,
            born=self._generation,
        )
        self.jobs[spec.job_id] = job
        self._undispatched_submissions = True
        self.log.append(ev.JobScheduled(self.now, spec.job_id, spec.schedule.describe()))
        if spec.depends_on:
            doomed_by = self._link_dependencies(job)
            if doomed_by is not None:
                self._cancel_job(job, doomed_by)
                return Result(Outcome.CREATED, spec.job_id)
        else:
            job.runnable_since = self.now
        if first is not None:
            self._due.push((first, job.submission, spec.job_id))
        return Result(Outcome.CREATED, spec.job_id)

    def script_failure(self, job_id: str, attempt: int) -> Result:
        job = self.jobs.get(job_id)
        if job is None:
            return Result(Outcome.NOT_FOUND, message=f"no job {job_id!r}")
        if attempt < 1:
            return Result(Outcome.INVALID, message="attempt numbers start at 1")
        self._touch(job)
        job.fail_attempts = job.fail_attempts | {attempt}
        return Result(Outcome.OK)

    def dispatch(self) -> list[Assignment]:
        """Create every due occurrence, then assign ready ones to idle workers, best first."""
        self._create_due()
        return self._assign()

    def complete(self, job_id: str, scheduled: int, attempt: int, succeeded: bool) -> Result:
        """A worker's report; accepted only for the occurrence's running attempt."""
        occurrence = self.occurrences.get((job_id, scheduled))
        running = occurrence.running_attempt if occurrence is not None else None
        if running is None:
            return Result(Outcome.CONFLICT, message=f"{job_id}@{scheduled} has no running attempt")
        if running.number != attempt:
            return Result(
                Outcome.CONFLICT,
                message=f"{job_id}@{scheduled} runs attempt {running.number}, not {attempt}",
            )
        outcome = AttemptOutcome.SUCCEEDED if succeeded else AttemptOutcome.FAILED
        self._end_attempt(occurrence, running, outcome)
        return Result(Outcome.OK)

    def advance(self, to: int) -> Result:
        """Process every tick in ``[now, to)`` where something can happen: O(events), not ticks."""
        if to < self.now:
            return Result(
                Outcome.INVALID, message=f"time {to} is before the current time {self.now}"
            )
        if not self._auto and not self._timers.items:
            # Manual dispatch and nothing timed: no tick can do anything on its own.
            self.now = to
            return _OK
        while self.now < to:
            self.settle()
            upcoming = self.next_event_tick()
            self.now = to if upcoming is None or upcoming > to else upcoming
            if self._auto:
                # The ticks jumped over were processed too: nothing happened in them, but what
                # fell due in them (behind a job's waiting front) was created.
                self.created_through = self.now - 1
        return _OK

    def begin_tick(self) -> None:
        """Run the engine's own events of the current tick (see the module docstring)."""
        now = self.now
        timers = self._timers
        while timers and timers.peek()[0] <= now:
            _, kind, _, payload = timers.pop()
            if kind == TimerKind.ATTEMPT_END:
                self._attempt_ended(*payload)
            elif kind == TimerKind.TIMEOUT:
                self._timeout_reached(*payload)
            elif kind == TimerKind.BACKOFF_END:
                self._backoff_ended(*payload)
            else:
                self._try_delivery(payload)
        if self._auto:
            self._create_due()

    def settle(self) -> None:
        """Finish the current tick: its own events if not yet run, then automatic dispatch."""
        self.begin_tick()
        if self._auto:
            self._assign()

    def next_event_tick(self) -> int | None:
        """The first tick after ``now`` at which the engine has something to do, if any."""
        timer = self._timers.peek()
        upcoming = timer[0] if timer is not None else None
        due = self._due.peek() if self._auto else None
        if due is not None and (upcoming is None or due[0] < upcoming):
            upcoming = due[0]
        if upcoming is not None and upcoming <= self.now:
            return self.now + 1
        return upcoming

    # ------------------------------------------------------------------ queries

    def occurrence_state(self, job_id: str, scheduled: int) -> OccurrenceState | None:
        """The state of ``(job_id, scheduled)``, by arithmetic for occurrences not materialised."""
        occurrence = self.occurrences.get((job_id, scheduled))
        if occurrence is not None:
            return occurrence.state
        job = self.jobs.get(job_id)
        if job is None:
            return None
        if not job.fires_at(scheduled) or self._is_skipped(job, scheduled):
            return None
        cancelled = job.cancelled_backlog
        if cancelled is not None and cancelled.first <= scheduled <= cancelled.last:
            return S.CANCELLED
        if job.next_due is None or scheduled < job.next_due:
            return None
        if not self.is_created(job, scheduled):
            return S.SCHEDULED
        return S.BLOCKED if job.unmet_dependencies else S.QUEUED

    def is_created(self, job: Job, scheduled: int) -> bool:
        """Whether a dispatch since the job's submission created ``scheduled`` (paused: before)."""
        return (
            scheduled <= self._created_limit(job)
            and self.dispatches > job.dispatches_at_submit
            and not job.deleted
        )

    # ---------------------------------------------------------------- internals

    def _created_limit(self, job: Job) -> int:
        if job.paused_through is not None:
            return min(job.paused_through, self.created_through)
        return self.created_through

    def _set_state(self, occurrence: Occurrence, state: OccurrenceState) -> None:
        self._touch(occurrence)
        key = occurrence.key
        old = occurrence.state
        del self.by_state[old][key]
        occurrence.state = state
        self.by_state[state][key] = None
        if self._undo is not None:
            self._undo.append((self._unindex, key, state, old))
        if state.is_final:
            job = self.jobs[key[0]]
            self._touch(job)
            job.open.pop(key[1], None)

    def _materialise(self, job: Job, scheduled: int, state: OccurrenceState) -> Occurrence:
        spec = job.spec_for(scheduled)
        occurrence = Occurrence(
            key=(job.job_id, scheduled),
            state=state,
            max_attempts=spec.max_attempts,
            priority=spec.priority,
            ready_since=max(scheduled, job.runnable_since or 0),
            duration=spec.duration,
            timeout=spec.timeout,
            gen=self._generation,
            born=self._generation,
        )
        self.occurrences[occurrence.key] = occurrence
        self.by_state[state][occurrence.key] = None
        if self._undo is not None:
            self._undo.append((self._unindex, occurrence.key, state, None))
        if not state.is_final:
            self._touch(job)
            job.open[scheduled] = None
        return occurrence

    def _create_due(self) -> None:
        self.created_through = self.now
        if self._undispatched_submissions:
            # Counted only when it matters, so that settling a tick twice changes nothing.
            self.dispatches += 1
            self._undispatched_submissions = False
        due = self._due
        while due and due.peek()[0] <= self.now:
            tick, _, job_id = due.pop()
            job = self.jobs[job_id]
            if job.next_due == tick and job.paused_through is None:
                self._release(job)

    def _release(self, job: Job) -> None:
        """Walk a job's cursor over its created occurrences until one can wait in the ready queue;
        past them, put the job back on the due heap."""
        if job.front is not None:
            return
        self._touch(job)
        limit = self._created_limit(job)
        while job.next_due is not None and job.next_due <= limit:
            scheduled = job.next_due
            if job.unmet_dependencies:
                # The runs from the cursor on are BLOCKED by arithmetic; the job leaves the due
                # heap until its last dependency succeeds (or a cascade cancels it).
                if job.blocked_from is None:
                    job.blocked_from = scheduled
                    self.log.append(ev.OccurrenceBlocked(self.now, job.job_id, scheduled))
                return
            ready_since = max(scheduled, job.runnable_since or 0)
            entry = ReadyEntry(
                job.job_id,
                scheduled,
                job.order_key,
                job.spec_for(scheduled).priority,
                ready_since,
                job.submission,
                None,
            )
            job.front = entry
            self._ready.push(entry)
            return
        if job.next_due is not None and job.paused_through is None:
            self._due.push((job.next_due, job.submission, job.job_id))

    def _advance_cursor(self, job: Job) -> None:
        """Move ``next_due`` past the occurrence just materialised."""
        self._touch(job)
        job.next_due = self._walk_cursor(job, job.first_fire(job.next_due + 1))

    def _walk_cursor(self, job: Job, candidate: int | None) -> int | None:
        """The first schedule tick from ``candidate`` on that is neither materialised nor skipped;
        skip ranges and backlog definitions the cursor has passed are dropped."""
        self._touch(job)
        while candidate is not None:
            if job.backlog and candidate > job.backlog[0][0]:
                job.backlog = job.backlog[1:]
                continue
            if job.skipped and candidate > job.skipped[0][0]:
                through = job.skipped[0][1]
                if candidate <= through:
                    candidate = job.first_fire(through + 1)
                else:
                    job.skipped = job.skipped[1:]
                continue
            if (job.job_id, candidate) not in self.occurrences:
                return candidate
            candidate = job.first_fire(candidate + 1)
        return None

    def _is_skipped(self, job: Job, scheduled: int) -> bool:
        return any(after < scheduled <= through for after, through in job.skipped)

    def _take_front(self, job: Job) -> ReadyEntry | None:
        """Withdraw a job's implicit front from the ready queue, if it has one."""
        entry = job.front
        if entry is not None:
            self._touch(job)
            job.front = None
            self._ready.remove(entry)
        return entry

    def _unindex(
        self, key: tuple[str, int], state: OccurrenceState, back_to: OccurrenceState | None
    ) -> None:
        """Undo an index change: take ``key`` out of ``state`` (and back into ``back_to``)."""
        del self.by_state[state][key]
        if back_to is not None:
            self.by_state[back_to][key] = None

    def _assign(self) -> list[Assignment]:
        assignments = []
        ready, idle = self._ready, self._idle
        while idle and ready:
            entry = ready.pop(self.now)
            if entry is None:
                break
            occurrence = entry.occurrence
            if occurrence is None:
                job = self.jobs[entry.job_id]
                if job.front is not entry:
                    continue
                self._touch(job)
                job.front = None
                occurrence = self._materialise(job, entry.scheduled, S.QUEUED)
                occurrence.ready_since = entry.ready_since
                self._advance_cursor(job)
                self._release(job)
            elif occurrence.state is not S.QUEUED and occurrence.state is not S.RETRY_PENDING:
                continue
            worker_id = idle.pop()
            assert worker_id is not None
            assignments.append(self._start_attempt(occurrence, self.workers[worker_id]))
        return assignments

    def _start_attempt(self, occurrence: Occurrence, worker: Worker) -> Assignment:
        now, key, worker_id = self.now, occurrence.key, worker.worker_id
        job_id, scheduled = key
        number = len(occurrence.attempts) + 1
        self._touch(occurrence)
        self._touch(worker)
        occurrence.attempts.append(Attempt(number, worker_id, now))
        occurrence.eligible_at = None
        occurrence.retry_delay = None
        self._set_state(occurrence, S.RUNNING)
        worker.running = key
        worker.since = now
        self.log.append(ev.AttemptStarted(now, job_id, scheduled, number, worker_id))
        payload = (job_id, scheduled, number)
        if self._simulated and number not in self.jobs[job_id].spec.hang_attempts:
            self._add_timer(now + occurrence.duration, TimerKind.ATTEMPT_END, payload)
        if occurrence.timeout is not None:
            self._add_timer(now + occurrence.timeout, TimerKind.TIMEOUT, payload)
        return Assignment(job_id, scheduled, number, worker_id)

    def _take_submission(self) -> int:
        self._next_submission += 1
        return self._next_submission

    def _add_timer(self, tick: int, kind: TimerKind, payload: tuple) -> None:
        self._next_seq += 1
        self._timers.push((tick, kind, self._next_seq, payload))

    def _running(self, job_id: str, scheduled: int, number: int) -> Attempt | None:
        """The attempt ``number`` of an occurrence if it is still running (timers go stale)."""
        attempt = self.occurrences[(job_id, scheduled)].running_attempt
        return attempt if attempt is not None and attempt.number == number else None

    def _attempt_ended(self, job_id: str, scheduled: int, number: int) -> None:
        attempt = self._running(job_id, scheduled, number)
        if attempt is None:
            return
        job = self.jobs[job_id]
        failed = number in job.fail_attempts or (
            job.spec.failure_rate > 0 and self.rng.random() < job.spec.failure_rate
        )
        outcome = AttemptOutcome.FAILED if failed else AttemptOutcome.SUCCEEDED
        self._end_attempt(self.occurrences[(job_id, scheduled)], attempt, outcome)

    def _timeout_reached(self, job_id: str, scheduled: int, number: int) -> None:
        attempt = self._running(job_id, scheduled, number)
        if attempt is not None:
            occurrence = self.occurrences[(job_id, scheduled)]
            self._end_attempt(occurrence, attempt, AttemptOutcome.TIMED_OUT)

    def _end_attempt(
        self, occurrence: Occurrence, attempt: Attempt, outcome: AttemptOutcome
    ) -> None:
        """Close a running attempt, free its worker, then succeed, retry or fail the occurrence.

        The attempt's own event comes first, so a draining worker goes down after it."""
        now = self.now
        self._touch(occurrence)
        attempt.ended = now
        attempt.outcome = outcome
        job_id, scheduled = occurrence.key
        self.log.append(
            _ATTEMPT_ENDED[outcome](now, job_id, scheduled, attempt.number, attempt.worker_id)
        )
        self._release_worker(self.workers[attempt.worker_id])
        if outcome is AttemptOutcome.SUCCEEDED:
            self._set_state(occurrence, S.SUCCEEDED)
            self._notify(occurrence, NotifyOn.SUCCEEDED)
            self._dependency_succeeded(self.jobs[job_id])
            return
        if outcome is AttemptOutcome.LOST:
            occurrence.max_attempts += 1
        elif outcome is AttemptOutcome.TIMED_OUT:
            self._notify(occurrence, NotifyOn.TIMED_OUT)
        else:
            self._notify(occurrence, NotifyOn.FAILED)
        if attempt.number < occurrence.max_attempts:
            self._retry(occurrence, attempt, lost=outcome is AttemptOutcome.LOST)
            return
        self._set_state(occurrence, S.FAILED)
        self.log.append(ev.OccurrenceFailed(now, job_id, scheduled, attempt.number))
        self._notify(occurrence, NotifyOn.RETRIES_EXHAUSTED)
        self._dependency_failed(self.jobs[job_id])

    def _retry(self, occurrence: Occurrence, attempt: Attempt, lost: bool) -> None:
        """RETRY_PENDING until the backoff passes; a lost attempt retries at once."""
        self._touch(occurrence)
        delay = 0
        if not lost:
            backoff = self.jobs[occurrence.job_id].spec.backoff or self.policy.backoff
            delay = backoff.delay(attempt.number, self.rng)
        occurrence.eligible_at = self.now + delay
        occurrence.retry_delay = delay
        self._set_state(occurrence, S.RETRY_PENDING)
        job_id, scheduled = occurrence.key
        self.log.append(
            ev.RetryScheduled(
                self.now, job_id, scheduled, attempt.number + 1, self.now + delay, delay
            )
        )
        if delay == 0:
            self._push_ready(occurrence)
        else:
            self._add_timer(self.now + delay, TimerKind.BACKOFF_END, occurrence.key)

    def _backoff_ended(self, job_id: str, scheduled: int) -> None:
        occurrence = self.occurrences[(job_id, scheduled)]
        if occurrence.state is S.RETRY_PENDING and occurrence.eligible_at == self.now:
            self._push_ready(occurrence)

    def _push_ready(self, occurrence: Occurrence) -> None:
        job = self.jobs[occurrence.job_id]
        self._ready.push(
            ReadyEntry(
                occurrence.job_id,
                occurrence.scheduled,
                job.order_key,
                occurrence.priority,
                occurrence.ready_since,
                job.submission,
                occurrence,
            )
        )
