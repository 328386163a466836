"""The life of an attempt: started by a dispatch, ended by its duration, a report, a timeout or
its worker's crash; then the occurrence succeeds, waits out a backoff for its retry, or fails. A
run whose job has a ``run_timeout`` also fails, retries or not, once that long has passed since
its first attempt started (Kubernetes' ``activeDeadlineSeconds``).

Attempts are numbered from 1 per occurrence, never reused, and an occurrence has at most one
running attempt: a report or a timer for any other attempt is stale and changes nothing.

Given the state an attempt reads and writes: the tick clock, the journal, the event log, the
seeded generator, the policy, the occurrence store, the jobs, the workforce, the timers, the
outbox and the pools. Connected after construction (:meth:`Attempts.connect`) to the dispatcher
and the rules that an attempt's end moves on (dependencies, overlap, backfills): each of those
calls back into attempts or into a part that does (a dispatch starts attempts, an overlap rule
terminates one), so none of them can be built first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.commands import DONE, Outcome, Result, refused
from engine.model.policies import CompletionMode, OnTimeout
from engine.model.problems import Code
from engine.model.records import (
    Attempt,
    AttemptOutcome,
    NotifyOn,
    Occurrence,
    OccurrenceState,
    Worker,
)
from engine.parts.timers import TimerKind, Timers

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.model.policies import Policy
    from engine.model.records import Job
    from engine.model.rng import TrackedRandom
    from engine.parts.dispatcher import Dispatcher
    from engine.parts.notifications import Outbox
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.tick_clock import TickClock
    from engine.parts.workers import Workforce
    from engine.rewind.journal import ChangeJournal
    from engine.rules.backfill import Backfills
    from engine.rules.dependencies import Dependencies
    from engine.rules.overlap import OverlapControl
    from engine.rules.pools import Pools

S = OccurrenceState
RUNNING, SUCCEEDED, FAILED = AttemptOutcome.RUNNING, AttemptOutcome.SUCCEEDED, AttemptOutcome.FAILED
"""Read once: in Python 3.11 an enum member read through its class costs a tenth of a
microsecond (the enum metaclass's ``__getattr__`` hook), and every attempt reads several."""
LOST, TIMED_OUT = AttemptOutcome.LOST, AttemptOutcome.TIMED_OUT
ATTEMPT_END, BACKOFF_END = TimerKind.ATTEMPT_END, TimerKind.BACKOFF_END
RUN_RUNNING, RUN_SUCCEEDED, RUN_FAILED = S.RUNNING, S.SUCCEEDED, S.FAILED
RUN_RETRY_PENDING = S.RETRY_PENDING
"""The occurrence states an attempt moves its run to, read once for the same reason: measured
on seed 001 with 3,000 jobs, reading them (and LOST, TIMED_OUT, BACKOFF_END) through their
classes in start, end, _retry and _fail cost 2% of the engine's instructions."""

_ATTEMPT_ENDED = {
    AttemptOutcome.SUCCEEDED: ev.AttemptSucceeded,
    AttemptOutcome.FAILED: ev.AttemptFailed,
    AttemptOutcome.TIMED_OUT: ev.AttemptTimedOut,
    AttemptOutcome.LOST: ev.AttemptLost,
}


class Attempts:
    """Starts and ends attempts; owns no state beyond the records it changes."""

    def __init__(
        self,
        clock: TickClock,
        journal: ChangeJournal,
        log: EventLog,
        rng: TrackedRandom,
        policy: Policy,
        store: OccurrenceStore,
        jobs: dict[str, Job],
        workforce: Workforce,
        timers: Timers,
        outbox: Outbox,
        pools: Pools | None,
    ) -> None:
        self._clock = clock
        self._journal = journal
        self._log = log
        self._rng = rng
        self._policy = policy
        self._store = store
        self._records = store.records
        self._jobs = jobs
        self._workforce = workforce
        self._workers = workforce.workers
        self._timers = timers
        self._outbox = outbox
        self._pools = pools
        self._simulated = policy.completion is CompletionMode.SIMULATED
        self._dispatcher: Dispatcher
        self._dependencies: Dependencies
        self._overlap: OverlapControl
        self._backfills: Backfills

    def connect(
        self,
        dispatcher: Dispatcher,
        dependencies: Dependencies,
        overlap: OverlapControl,
        backfills: Backfills,
    ) -> None:
        """What an attempt's end moves on, built after the attempts (see the module docstring)."""
        self._dispatcher = dispatcher
        self._dependencies = dependencies
        self._overlap = overlap
        self._backfills = backfills

    def start(self, occurrence: Occurrence, worker: Worker) -> int:
        """Start the occurrence's next attempt on ``worker``; its number. The run may be
        RUNNING already: the dispatcher materialises a job's front in that state when it takes
        it to start (a move in the state index fewer per run)."""
        now, key, worker_id = self._clock.now, occurrence.key, worker.worker_id
        job_id, scheduled = key
        attempts = occurrence.attempts
        number = len(attempts) + 1
        job = self._jobs[job_id]
        spec = job.spec
        journal = self._journal
        journal.touch(occurrence)
        attempts.append(Attempt(number, worker_id, now))
        occurrence.eligible_at = None
        occurrence.retry_delay = None
        if occurrence.state is not RUN_RUNNING:
            self._store.set_state(occurrence, job, RUN_RUNNING)
        # The worker is taken here, not through a method of the workforce: a call fewer per attempt.
        journal.touch(worker)
        worker.running = key
        worker.since = now
        if spec.pool is not None:
            self._pools.occupy(spec.pool)
        self._log.add(ev.AttemptStarted, now, job_id, scheduled, number, worker_id)
        payload = (job_id, scheduled, number)
        timers = self._timers
        if self._simulated and number not in spec.hang_attempts:
            timers.add(now + occurrence.duration, ATTEMPT_END, payload)
        if occurrence.timeout is not None:
            timers.add(now + occurrence.timeout, TimerKind.TIMEOUT, payload)
        if number == 1 and spec.run_timeout is not None:
            timers.add(now + spec.run_timeout, TimerKind.RUN_TIMEOUT, key)
        return number

    def complete(self, job_id: str, scheduled: int, attempt: int, succeeded: bool) -> Result:
        """A worker's report; accepted only for the occurrence's running attempt."""
        occurrence = self._records.get((job_id, scheduled))
        running = occurrence.running_attempt if occurrence is not None else None
        if running is None:
            message = f"{job_id}@{scheduled} has no running attempt"
            return refused(Outcome.CONFLICT, Code.NO_RUNNING_ATTEMPT, message, "scheduled")
        if running.number != attempt:
            message = f"{job_id}@{scheduled} runs attempt {running.number}, not {attempt}"
            return refused(Outcome.CONFLICT, Code.WRONG_ATTEMPT, message, "attempt")
        assert occurrence is not None
        outcome = SUCCEEDED if succeeded else FAILED
        self.end(occurrence, running, outcome)
        return DONE

    def lose(self, key: tuple[str, int]) -> None:
        """The worker running ``key``'s attempt went down."""
        occurrence = self._records[key]
        attempt = occurrence.running_attempt
        assert attempt is not None
        self.end(occurrence, attempt, AttemptOutcome.LOST)

    def duration_over(
        self, job_id: str, scheduled: int, number: int, tick: int | None = None
    ) -> None:
        """A simulated attempt's duration has passed: it fails where scripted (or drawn).

        Given its ``tick``, it is its tick's first end (:meth:`~engine.parts.timers.Timers.add`)
        and the ends set after it for the tick follow, each called alone; they leave the timers
        first (an end set for the tick meanwhile is a first again). One method for both, not
        a handler of the tick's ends that calls this one: a call fewer for the run that ends
        alone in its tick (seed 001's every run)."""
        later = self._timers.ends.later.pop(tick) if tick is not None else None
        occurrence = self._records.get((job_id, scheduled))
        # Stale, and passed over: the run is over (and archived), or the attempt is not its last.
        if occurrence is not None and (attempts := occurrence.attempts):
            attempt = attempts[-1]
            if attempt.number == number and attempt.outcome is RUNNING:
                job = self._jobs[job_id]
                rate = job.spec.failure_rate
                failed = number in job.fail_attempts or (rate > 0 and self._rng.random() < rate)
                self.end(occurrence, attempt, FAILED if failed else SUCCEEDED)
        if later is not None:
            duration_over = self.duration_over
            for payload in later:
                duration_over(*payload)

    def timeout_reached(self, job_id: str, scheduled: int, number: int) -> None:
        attempt = self._running(job_id, scheduled, number)
        if attempt is not None:
            occurrence = self._records[(job_id, scheduled)]
            self.end(occurrence, attempt, AttemptOutcome.TIMED_OUT)

    def run_timeout_reached(self, job_id: str, scheduled: int) -> None:
        """The run's ``run_timeout`` has passed since its first attempt started: a run not over
        fails for good, its running attempt timed out, its retries unused. Kubernetes' Job
        ``activeDeadlineSeconds`` "takes precedence over backoffLimit": once the Job has been
        active that long its pods are terminated and it fails with ``DeadlineExceeded``."""
        occurrence = self._records.get((job_id, scheduled))
        if occurrence is None or occurrence.state.is_final:
            return  # over in time (or cancelled, and maybe archived): the timer is stale
        limit = self._jobs[job_id].spec.run_timeout
        attempt = occurrence.running_attempt
        if attempt is not None:
            self.end(occurrence, attempt, AttemptOutcome.TIMED_OUT, run_timeout=limit)
            return
        self._journal.touch(occurrence)
        occurrence.eligible_at = None  # it waited for its retry: it has none now
        occurrence.retry_delay = None
        self._fail(occurrence, limit)

    def backoff_ended(self, job_id: str, scheduled: int) -> None:
        occurrence = self._records.get((job_id, scheduled))
        if (
            occurrence is not None
            and occurrence.state is RUN_RETRY_PENDING
            and occurrence.eligible_at == self._clock.now
        ):
            self._dispatcher.push_ready(occurrence)

    def end(
        self,
        occurrence: Occurrence,
        attempt: Attempt,
        outcome: AttemptOutcome,
        run_timeout: int | None = None,
    ) -> None:
        """Close a running attempt, free its worker, then succeed, retry or fail the occurrence
        (fail it, retries or not, when ``run_timeout`` says its run's time is up).

        The attempt's own event comes first, so a draining worker goes down after it."""
        now = self._clock.now
        self._journal.touch(occurrence)
        attempt.ended = now
        attempt.outcome = outcome
        job_id, scheduled = occurrence.key
        job = self._jobs[job_id]
        self._log.add(
            _ATTEMPT_ENDED[outcome], now, job_id, scheduled, attempt.number, attempt.worker_id
        )
        self._workforce.release(self._workers[attempt.worker_id])
        spec = job.spec
        if spec.pool is not None:
            self._pools.free(spec.pool)
        outbox = self._outbox
        notifies = spec.notify  # most jobs subscribe nothing: no call to the outbox
        if outcome is SUCCEEDED:
            self._store.set_state(occurrence, job, RUN_SUCCEEDED)
            if notifies:
                outbox.notify(occurrence, NotifyOn.SUCCEEDED)
            if job.dependents:  # most jobs have none: no call
                self._dependencies.succeeded(job)
            if spec.overlap is not None:
                self._overlap.freed(job)
            if job.backfill is not None:
                self._backfills.ended(job, scheduled)
            return
        if outcome is LOST:
            occurrence.max_attempts += 1
        elif notifies:
            timed_out = outcome is TIMED_OUT
            outbox.notify(occurrence, NotifyOn.TIMED_OUT if timed_out else NotifyOn.FAILED)
        retries = attempt.number < occurrence.max_attempts
        taken_back = self._taken_back(outcome)
        if retries and not taken_back and run_timeout is None:
            self._retry(occurrence, attempt, lost=outcome is LOST)
            return
        self._fail(occurrence, run_timeout, exhausted=not (retries and taken_back))

    def _fail(
        self, occurrence: Occurrence, run_timeout: int | None, exhausted: bool = True
    ) -> None:
        """The occurrence fails for good; ``run_timeout`` when its time ran out (the event says
        so, since it may have had retries left). Not ``exhausted``: the reviewer took it back
        with retries unused, which ``retries_exhausted`` subscribers must not be told."""
        job_id, scheduled = occurrence.key
        job = self._jobs[job_id]
        self._store.set_state(occurrence, job, RUN_FAILED)
        attempts = len(occurrence.attempts)
        self._log.add(
            ev.OccurrenceFailed, self._clock.now, job_id, scheduled, attempts, run_timeout
        )
        if job.spec.notify and exhausted:
            self._outbox.notify(occurrence, NotifyOn.RETRIES_EXHAUSTED)
        if job.dependents:
            self._dependencies.failed(job)
        if job.spec.overlap is not None:
            self._overlap.freed(job)
        if job.backfill is not None:
            self._backfills.ended(job, scheduled)

    def terminate(self, occurrence: Occurrence) -> None:
        """End the running attempt because a newer run takes the run's place (its job's overlap
        rule); the caller cancels the run. Its timers go stale."""
        now = self._clock.now
        attempt = occurrence.running_attempt
        assert attempt is not None
        self._journal.touch(occurrence)
        attempt.ended = now
        attempt.outcome = AttemptOutcome.TERMINATED
        self._log.add(ev.AttemptTerminated, now, *occurrence.key, attempt.number, attempt.worker_id)
        self._workforce.release(self._workers[attempt.worker_id])
        pool = self._jobs[occurrence.job_id].spec.pool
        if pool is not None:
            self._pools.free(pool)

    def _retry(self, occurrence: Occurrence, attempt: Attempt, lost: bool) -> None:
        """RETRY_PENDING until the backoff passes; a lost attempt retries at once."""
        now = self._clock.now
        self._journal.touch(occurrence)
        job_id, scheduled = occurrence.key  # not its properties: a call each
        job = self._jobs[job_id]
        delay = 0
        if not lost:
            backoff = job.spec.backoff or self._policy.backoff
            delay = backoff.delay(attempt.number, self._rng)
        occurrence.eligible_at = now + delay
        occurrence.retry_delay = delay
        self._store.set_state(occurrence, job, RUN_RETRY_PENDING)
        self._log.add(
            ev.RetryScheduled, now, job_id, scheduled, attempt.number + 1, now + delay, delay
        )
        if delay == 0:
            self._dispatcher.push_ready(occurrence)
        else:
            self._timers.add(now + delay, BACKOFF_END, occurrence.key)

    def _taken_back(self, outcome: AttemptOutcome) -> bool:
        """Whether a timed-out run ends here, its retries unused (``OnTimeout.NEXT_RUN``): the
        job's next run comes at its schedule's next tick, as for any run that failed for good."""
        return outcome is TIMED_OUT and self._policy.on_timeout is OnTimeout.NEXT_RUN

    def _running(self, job_id: str, scheduled: int, number: int) -> Attempt | None:
        """The attempt ``number`` of an occurrence if it is still running (timers go stale; a
        run that is over may be archived)."""
        occurrence = self._records.get((job_id, scheduled))
        attempt = None if occurrence is None else occurrence.running_attempt
        return attempt if attempt is not None and attempt.number == number else None
