"""The engine: applies commands, advances time event by event, emits events.

Time model. ``now`` is a tick whose processing may still be open: ``advance(to)`` processes every
tick from ``now`` up to (not including) ``to`` at which something can happen, jumping over idle
ticks, and leaves ``now == to`` with that tick not yet processed. Processing a tick ("settling" it)
runs, in this order: the engine's own events of the tick (attempt completions, then backoff
expiries), then, with automatic dispatch, the creation of occurrences falling due and dispatch.
Commands given at a tick run between ``settle()`` and the next ``advance``.

Lazy occurrences. Each job keeps a cursor, ``next_due``: every schedule tick before it has been
materialised. Once due, a job's cursor occurrence waits in the ready queue as one *implicit* entry;
the occurrences behind it are implicit too (QUEUED by arithmetic), and nothing is created until a
worker takes one. A backlog of a million due runs therefore costs one queue entry per job.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from enum import IntEnum
from itertools import count

from engine import events as ev
from engine.commands import (
    Advance,
    Command,
    Complete,
    Dispatch,
    Outcome,
    RegisterWorker,
    Result,
    ScheduleJob,
    ScriptFailure,
)
from engine.model import (
    Attempt,
    AttemptOutcome,
    Job,
    JobSpec,
    Occurrence,
    OccurrenceState,
    Worker,
)
from engine.ordering import java_order_key
from engine.policies import (
    CompletionMode,
    DispatchMode,
    Policy,
    WorkerPool,
    make_ready_queue,
)
from engine.ready import ReadyEntry
from engine.schedules import Once

S = OccurrenceState


class TimerKind(IntEnum):
    """What a timer does when its tick comes; the value orders timers within one tick."""

    ATTEMPT_END = 0
    BACKOFF_END = 1


@dataclass(frozen=True, slots=True)
class Assignment:
    """One attempt started by a dispatch."""

    job_id: str
    scheduled: int
    attempt: int
    worker_id: str


class Engine:
    """The one scheduling engine behind every facade, scenario and view."""

    def __init__(self, policy: Policy | None = None, seed: int = 0) -> None:
        self.policy = policy or Policy()
        self.now = 0
        self.jobs: dict[str, Job] = {}
        self.workers: dict[str, Worker] = {}
        self.occurrences: dict[tuple[str, int], Occurrence] = {}
        self.by_state: dict[OccurrenceState, dict[tuple[str, int], None]] = {s: {} for s in S}
        self.log = ev.EventLog()
        self.rng = random.Random(seed)
        self.created_through = -1
        """Latest tick at which due occurrences were created (by a dispatch, or every tick in auto)."""
        self.dispatches = 0
        """How many times due occurrences were created; a job scheduled after the last one has none."""
        self._auto = self.policy.dispatch is DispatchMode.AUTO
        self._simulated = self.policy.completion is CompletionMode.SIMULATED
        self._ready = make_ready_queue(self.policy)
        self._fronts: dict[str, ReadyEntry] = {}
        self._due: list[tuple[int, int, str]] = []
        self._timers: list[tuple[int, int, int, tuple]] = []
        self._idle = WorkerPool()
        self._ranks = count()
        self._seq = count()
        self._submissions = count()

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
        raise TypeError(f"not a command: {command!r}")

    def register_worker(self, worker_id: str) -> Result:
        if worker_id in self.workers:
            return Result(Outcome.CONFLICT, message=f"worker {worker_id!r} is already registered")
        key = java_order_key(worker_id)
        self.workers[worker_id] = Worker(worker_id, key, since=self.now)
        self._idle.add(worker_id, key)
        self.log.append(ev.WorkerRegistered(self.now, worker_id))
        return Result(Outcome.CREATED, worker_id)

    def schedule(self, spec: JobSpec) -> Result:
        problem = self._check_spec(spec)
        if problem is not None:
            return problem
        first = spec.schedule.first_at_or_after(self.now)
        job = Job(
            spec=spec,
            submission=next(self._submissions),
            order_key=java_order_key(spec.job_id),
            next_due=first,
            fail_attempts=set(spec.fail_attempts),
            dispatches_at_submit=self.dispatches,
        )
        self.jobs[spec.job_id] = job
        self.log.append(ev.JobScheduled(self.now, spec.job_id, spec.schedule.describe()))
        dead_dependency = None
        for dependency_id in spec.depends_on:
            dependency = self.jobs[dependency_id]
            dependency.dependents.append(spec.job_id)
            state = self._single_state(dependency)
            if state is S.FAILED or state is S.CANCELLED:
                dead_dependency = dead_dependency or self._cascade_root(dependency)
            elif state is not S.SUCCEEDED:
                job.unmet_dependencies += 1
        if job.unmet_dependencies == 0:
            job.runnable_since = self.now
        if dead_dependency is not None:
            self._cancel_job(job, dead_dependency)
        elif first is not None:
            heapq.heappush(self._due, (first, job.submission, spec.job_id))
        return Result(Outcome.CREATED, spec.job_id)

    def script_failure(self, job_id: str, attempt: int) -> Result:
        job = self.jobs.get(job_id)
        if job is None:
            return Result(Outcome.NOT_FOUND, message=f"no job {job_id!r}")
        if attempt < 1:
            return Result(Outcome.INVALID, message="attempt numbers start at 1")
        job.fail_attempts.add(attempt)
        return Result(Outcome.OK)

    def dispatch(self) -> list[Assignment]:
        """Create every due occurrence, then assign ready ones to idle workers, best first."""
        self._create_due()
        return self._assign()

    def complete(self, job_id: str, scheduled: int, attempt: int, succeeded: bool) -> Result:
        occurrence = self.occurrences.get((job_id, scheduled))
        running = occurrence.running_attempt if occurrence is not None else None
        if running is None:
            return Result(Outcome.CONFLICT, message=f"{job_id}@{scheduled} has no running attempt")
        if running.number != attempt:
            return Result(
                Outcome.CONFLICT,
                message=f"{job_id}@{scheduled} runs attempt {running.number}, not {attempt}",
            )
        self._finish_attempt(occurrence, running, succeeded)
        return Result(Outcome.OK)

    def advance(self, to: int) -> Result:
        """Process every tick in ``[now, to)`` where something can happen; O(events), not O(ticks)."""
        if to < self.now:
            return Result(
                Outcome.INVALID, message=f"time {to} is before the current time {self.now}"
            )
        while self.now < to:
            self.settle()
            upcoming = self.next_event_tick()
            self.now = to if upcoming is None or upcoming > to else upcoming
        return Result(Outcome.OK)

    def settle(self) -> None:
        """Process the current tick: its timers, then (automatic dispatch) due occurrences and dispatch."""
        now = self.now
        timers = self._timers
        while timers and timers[0][0] <= now:
            _, kind, _, payload = heapq.heappop(timers)
            if kind == TimerKind.ATTEMPT_END:
                self._attempt_ended(*payload)
            else:
                self._backoff_ended(*payload)
        if self._auto:
            self.dispatch()

    def next_event_tick(self) -> int | None:
        """The first tick after ``now`` at which the engine has something to do, if any."""
        candidates = []
        if self._timers:
            candidates.append(self._timers[0][0])
        if self._auto and self._due:
            candidates.append(self._due[0][0])
        upcoming = min(candidates, default=None)
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
        if job is None or job.next_due is None or scheduled < job.next_due:
            return None
        if not job.spec.schedule.contains(scheduled):
            return None
        if self.is_created(job, scheduled):
            return S.QUEUED
        return S.SCHEDULED

    def is_created(self, job: Job, scheduled: int) -> bool:
        """Whether a dispatch after the job's submission has created ``scheduled`` (if not final)."""
        return scheduled <= self.created_through and self.dispatches > job.dispatches_at_submit

    # ---------------------------------------------------------------- internals

    def _check_spec(self, spec: JobSpec) -> Result | None:
        if spec.job_id in self.jobs:
            return Result(Outcome.CONFLICT, message=f"job {spec.job_id!r} already exists")
        if spec.max_attempts < 1:
            return Result(Outcome.INVALID, message="max_attempts must be at least 1")
        if spec.duration < 1:
            return Result(Outcome.INVALID, message="duration must be at least 1")
        for dependency_id in spec.depends_on:
            dependency = self.jobs.get(dependency_id)
            if dependency is None:
                return Result(Outcome.NOT_FOUND, message=f"unknown dependency {dependency_id!r}")
            if not isinstance(dependency.spec.schedule, Once):
                return Result(
                    Outcome.INVALID,
                    message=f"dependency {dependency_id!r} must be a one-time job",
                )
        return None

    def _set_state(self, occurrence: Occurrence, state: OccurrenceState) -> None:
        del self.by_state[occurrence.state][occurrence.key]
        occurrence.state = state
        self.by_state[state][occurrence.key] = None

    def _materialise(
        self, job: Job, scheduled: int, state: OccurrenceState, rank: int
    ) -> Occurrence:
        occurrence = Occurrence(
            key=(job.job_id, scheduled),
            state=state,
            max_attempts=job.spec.max_attempts,
            priority=job.spec.priority,
            ready_since=max(scheduled, job.runnable_since or 0),
            rank=rank,
        )
        self.occurrences[occurrence.key] = occurrence
        self.by_state[state][occurrence.key] = None
        return occurrence

    def _create_due(self) -> None:
        self.created_through = self.now
        self.dispatches += 1
        due = self._due
        while due and due[0][0] <= self.now:
            tick, _, job_id = heapq.heappop(due)
            job = self.jobs.get(job_id)
            if job is not None and job.next_due == tick:
                self._release(job)

    def _release(self, job: Job) -> None:
        """Walk a job's cursor over its created occurrences until one can wait in the ready queue."""
        while job.next_due is not None and job.next_due <= self.created_through:
            scheduled = job.next_due
            if job.unmet_dependencies:
                occurrence = self._materialise(job, scheduled, S.BLOCKED, next(self._ranks))
                job.blocked.append(occurrence.key)
                self.log.append(ev.OccurrenceBlocked(self.now, job.job_id, scheduled))
                self._advance_cursor(job)
                continue
            ready_since = max(scheduled, job.runnable_since or 0)
            entry = ReadyEntry(
                job.job_id,
                scheduled,
                job.order_key,
                job.spec.priority,
                ready_since,
                next(self._ranks),
                None,
            )
            self._fronts[job.job_id] = entry
            self._ready.push(entry)
            return
        if job.next_due is not None:
            heapq.heappush(self._due, (job.next_due, job.submission, job.job_id))

    def _advance_cursor(self, job: Job) -> None:
        schedule = job.spec.schedule
        upcoming = schedule.first_at_or_after(job.next_due + 1)
        while upcoming is not None and (job.job_id, upcoming) in self.occurrences:
            upcoming = schedule.first_at_or_after(upcoming + 1)
        job.next_due = upcoming

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
                del self._fronts[job.job_id]
                occurrence = self._materialise(job, entry.scheduled, S.QUEUED, entry.rank)
                occurrence.ready_since = entry.ready_since
                self._advance_cursor(job)
                self._release(job)
            worker_id = idle.pop()
            assert worker_id is not None
            assignments.append(self._start_attempt(occurrence, self.workers[worker_id]))
        return assignments

    def _start_attempt(self, occurrence: Occurrence, worker: Worker) -> Assignment:
        now, key, worker_id = self.now, occurrence.key, worker.worker_id
        job_id, scheduled = key
        number = len(occurrence.attempts) + 1
        occurrence.attempts.append(Attempt(number, worker_id, now))
        occurrence.eligible_at = None
        self._set_state(occurrence, S.RUNNING)
        worker.running = key
        worker.since = now
        self.log.append(ev.AttemptStarted(now, job_id, scheduled, number, worker_id))
        if self._simulated:
            duration = self.jobs[job_id].spec.duration
            self._add_timer(now + duration, TimerKind.ATTEMPT_END, (job_id, scheduled, number))
        return Assignment(job_id, scheduled, number, worker_id)

    def _add_timer(self, tick: int, kind: TimerKind, payload: tuple) -> None:
        heapq.heappush(self._timers, (tick, kind, next(self._seq), payload))

    def _attempt_ended(self, job_id: str, scheduled: int, number: int) -> None:
        occurrence = self.occurrences[(job_id, scheduled)]
        attempt = occurrence.running_attempt
        if attempt is None or attempt.number != number:
            return
        job = self.jobs[job_id]
        self._finish_attempt(occurrence, attempt, number not in job.fail_attempts)

    def _finish_attempt(self, occurrence: Occurrence, attempt: Attempt, succeeded: bool) -> None:
        now = self.now
        attempt.ended = now
        worker = self.workers[attempt.worker_id]
        worker.busy_ticks += now - worker.since
        worker.since = now
        worker.running = None
        self._idle.add(worker.worker_id, worker.order_key)
        job_id, scheduled = occurrence.key
        if succeeded:
            attempt.outcome = AttemptOutcome.SUCCEEDED
            self._set_state(occurrence, S.SUCCEEDED)
            self.log.append(
                ev.AttemptSucceeded(now, job_id, scheduled, attempt.number, worker.worker_id)
            )
            self._dependency_succeeded(self.jobs[job_id])
            return
        attempt.outcome = AttemptOutcome.FAILED
        self.log.append(ev.AttemptFailed(now, job_id, scheduled, attempt.number, worker.worker_id))
        if attempt.number < occurrence.max_attempts:
            delay = self.policy.backoff.delay(attempt.number, self.rng)
            occurrence.eligible_at = now + delay
            self._set_state(occurrence, S.RETRY_PENDING)
            self.log.append(
                ev.RetryScheduled(now, job_id, scheduled, attempt.number + 1, now + delay, delay)
            )
            if delay == 0:
                self._push_ready(occurrence)
            else:
                self._add_timer(now + delay, TimerKind.BACKOFF_END, occurrence.key)
            return
        self._set_state(occurrence, S.FAILED)
        self.log.append(ev.OccurrenceFailed(now, job_id, scheduled, attempt.number))
        self._cascade(self.jobs[job_id])

    def _backoff_ended(self, job_id: str, scheduled: int) -> None:
        occurrence = self.occurrences.get((job_id, scheduled))
        if occurrence is not None and occurrence.state is S.RETRY_PENDING:
            self._push_ready(occurrence)

    def _push_ready(self, occurrence: Occurrence) -> None:
        self._ready.push(
            ReadyEntry(
                occurrence.job_id,
                occurrence.scheduled,
                self.jobs[occurrence.job_id].order_key,
                occurrence.priority,
                occurrence.ready_since,
                occurrence.rank,
                occurrence,
            )
        )

    # ------------------------------------------------------------- dependencies

    def _single_state(self, job: Job) -> OccurrenceState | None:
        """The state of a one-time job's only occurrence."""
        assert isinstance(job.spec.schedule, Once)
        return self.occurrence_state(job.job_id, job.spec.schedule.at)

    def _cascade_root(self, dependency: Job) -> str:
        """The job whose failure doomed ``dependency`` (itself if it failed)."""
        occurrence = self.occurrences[(dependency.job_id, dependency.spec.schedule.at)]
        return occurrence.cancel_cause or dependency.job_id

    def _dependency_succeeded(self, job: Job) -> None:
        for dependent_id in job.dependents:
            dependent = self.jobs[dependent_id]
            dependent.unmet_dependencies -= 1
            if dependent.unmet_dependencies:
                continue
            dependent.runnable_since = self.now
            blocked, dependent.blocked = dependent.blocked, []
            for key in blocked:
                occurrence = self.occurrences[key]
                if occurrence.state is not S.BLOCKED:
                    continue
                occurrence.ready_since = self.now
                self._set_state(occurrence, S.QUEUED)
                self.log.append(ev.OccurrenceUnblocked(self.now, *key))
                self._push_ready(occurrence)

    def _cascade(self, failed: Job) -> None:
        """Cancel every job that transitively depends on ``failed``, breadth first, once each."""
        seen = {failed.job_id}
        level = [failed]
        while level:
            next_level = []
            for job in level:
                for dependent_id in job.dependents:
                    if dependent_id not in seen:
                        seen.add(dependent_id)
                        next_level.append(self.jobs[dependent_id])
            next_level.sort(key=lambda job: job.submission)
            for job in next_level:
                self._cancel_job(job, failed.job_id)
            level = next_level

    def _cancel_job(self, job: Job, cause: str) -> None:
        """A dependency failed for good: every occurrence of ``job`` not yet final is cancelled."""
        keys = job.blocked
        job.blocked = []
        if isinstance(job.spec.schedule, Once) and job.next_due is not None:
            occurrence = self._materialise(job, job.next_due, S.SCHEDULED, next(self._ranks))
            keys.append(occurrence.key)
        job.next_due = None
        for key in keys:
            occurrence = self.occurrences[key]
            if occurrence.state.is_final:
                continue
            occurrence.cancel_cause = cause
            self._set_state(occurrence, S.CANCELLED)
            self.log.append(ev.OccurrenceCancelled(self.now, *key, cause))
