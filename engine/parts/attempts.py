"""The life of an attempt: started by a dispatch, ended by its duration, a report, a timeout or
its worker's crash; then the occurrence succeeds, waits out a backoff for its retry, or fails. A
run whose job has a ``run_timeout`` also fails, retries or not, once that long has passed since
its first attempt started (Kubernetes' ``activeDeadlineSeconds``).

Attempts are numbered from 1 per occurrence, never reused, and an occurrence has at most one
running attempt: a report or a timer for any other attempt is stale and changes nothing.
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
from engine.parts.timers import TimerKind

if TYPE_CHECKING:
    from engine.core import Engine

S = OccurrenceState
RUNNING, SUCCEEDED, FAILED = AttemptOutcome.RUNNING, AttemptOutcome.SUCCEEDED, AttemptOutcome.FAILED
"""Read once: in Python 3.11 an enum member read through its class costs a tenth of a
microsecond (the enum metaclass's ``__getattr__`` hook), and every attempt reads several."""
ATTEMPT_END = TimerKind.ATTEMPT_END

_ATTEMPT_ENDED = {
    AttemptOutcome.SUCCEEDED: ev.AttemptSucceeded,
    AttemptOutcome.FAILED: ev.AttemptFailed,
    AttemptOutcome.TIMED_OUT: ev.AttemptTimedOut,
    AttemptOutcome.LOST: ev.AttemptLost,
}


class Attempts:
    """Starts and ends attempts; owns no state beyond the records it changes."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._simulated = engine.policy.completion is CompletionMode.SIMULATED

    def start(self, occurrence: Occurrence, worker: Worker) -> int:
        """Start the occurrence's next attempt on ``worker``; its number."""
        engine = self._engine
        now, key, worker_id = engine.now, occurrence.key, worker.worker_id
        job_id, scheduled = key
        attempts = occurrence.attempts
        number = len(attempts) + 1
        job = engine.jobs[job_id]
        spec = job.spec
        engine.journal.touch(occurrence)
        attempts.append(Attempt(number, worker_id, now))
        occurrence.eligible_at = None
        occurrence.retry_delay = None
        engine.store.set_state(occurrence, job, S.RUNNING)
        engine.workforce.occupy(worker, key)
        if spec.pool is not None:
            engine.pools.occupy(spec.pool)
        engine.log.add(ev.AttemptStarted, now, job_id, scheduled, number, worker_id)
        payload = (job_id, scheduled, number)
        if self._simulated and number not in spec.hang_attempts:
            engine.timers.add(now + occurrence.duration, ATTEMPT_END, payload)
        if occurrence.timeout is not None:
            engine.timers.add(now + occurrence.timeout, TimerKind.TIMEOUT, payload)
        if number == 1 and spec.run_timeout is not None:
            engine.timers.add(now + spec.run_timeout, TimerKind.RUN_TIMEOUT, key)
        return number

    def complete(self, job_id: str, scheduled: int, attempt: int, succeeded: bool) -> Result:
        """A worker's report; accepted only for the occurrence's running attempt."""
        occurrence = self._engine.occurrences.get((job_id, scheduled))
        running = occurrence.running_attempt if occurrence is not None else None
        if running is None:
            message = f"{job_id}@{scheduled} has no running attempt"
            return refused(Outcome.CONFLICT, Code.NO_RUNNING_ATTEMPT, message, "scheduled")
        if running.number != attempt:
            message = f"{job_id}@{scheduled} runs attempt {running.number}, not {attempt}"
            return refused(Outcome.CONFLICT, Code.WRONG_ATTEMPT, message, "attempt")
        assert occurrence is not None
        outcome = AttemptOutcome.SUCCEEDED if succeeded else AttemptOutcome.FAILED
        self.end(occurrence, running, outcome)
        return DONE

    def lose(self, key: tuple[str, int]) -> None:
        """The worker running ``key``'s attempt went down."""
        occurrence = self._engine.occurrences[key]
        attempt = occurrence.running_attempt
        assert attempt is not None
        self.end(occurrence, attempt, AttemptOutcome.LOST)

    def duration_over(self, job_id: str, scheduled: int, number: int) -> None:
        """A simulated attempt's duration has passed: it fails where scripted (or drawn)."""
        engine = self._engine
        occurrence = engine.occurrences[(job_id, scheduled)]
        attempts = occurrence.attempts
        attempt = attempts[-1] if attempts else None
        if attempt is None or attempt.number != number or attempt.outcome is not RUNNING:
            return  # a stale timer
        job = engine.jobs[job_id]
        rate = job.spec.failure_rate
        failed = number in job.fail_attempts or (rate > 0 and engine.rng.random() < rate)
        self.end(occurrence, attempt, FAILED if failed else SUCCEEDED)

    def timeout_reached(self, job_id: str, scheduled: int, number: int) -> None:
        attempt = self._running(job_id, scheduled, number)
        if attempt is not None:
            occurrence = self._engine.occurrences[(job_id, scheduled)]
            self.end(occurrence, attempt, AttemptOutcome.TIMED_OUT)

    def run_timeout_reached(self, job_id: str, scheduled: int) -> None:
        """The run's ``run_timeout`` has passed since its first attempt started: a run not over
        fails for good, its running attempt timed out, its retries unused. Kubernetes' Job
        ``activeDeadlineSeconds`` "takes precedence over backoffLimit": once the Job has been
        active that long its pods are terminated and it fails with ``DeadlineExceeded``."""
        engine = self._engine
        occurrence = engine.occurrences[(job_id, scheduled)]
        if occurrence.state.is_final:
            return  # over in time (or cancelled): the timer is stale
        limit = engine.jobs[job_id].spec.run_timeout
        attempt = occurrence.running_attempt
        if attempt is not None:
            self.end(occurrence, attempt, AttemptOutcome.TIMED_OUT, run_timeout=limit)
            return
        engine.journal.touch(occurrence)
        occurrence.eligible_at = None  # it waited for its retry: it has none now
        occurrence.retry_delay = None
        self._fail(occurrence, limit)

    def backoff_ended(self, job_id: str, scheduled: int) -> None:
        engine = self._engine
        occurrence = engine.occurrences[(job_id, scheduled)]
        if occurrence.state is S.RETRY_PENDING and occurrence.eligible_at == engine.now:
            engine.dispatcher.push_ready(occurrence)

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
        engine = self._engine
        now = engine.now
        engine.journal.touch(occurrence)
        attempt.ended = now
        attempt.outcome = outcome
        job_id, scheduled = occurrence.key
        job = engine.jobs[job_id]
        engine.log.add(
            _ATTEMPT_ENDED[outcome], now, job_id, scheduled, attempt.number, attempt.worker_id
        )
        engine.workforce.release(engine.workers[attempt.worker_id])
        if job.spec.pool is not None:
            engine.pools.free(job.spec.pool)
        outbox = engine.notifications
        notifies = bool(job.spec.notify)  # most jobs subscribe nothing: no call to the outbox
        if outcome is SUCCEEDED:
            engine.store.set_state(occurrence, job, S.SUCCEEDED)
            if notifies:
                outbox.notify(occurrence, NotifyOn.SUCCEEDED)
            if job.dependents:  # most jobs have none: no call
                engine.dependencies.succeeded(job)
            if job.spec.overlap is not None:
                engine.overlap.freed(job)
            if job.backfill is not None:
                engine.backfills.ended(job, scheduled)
            return
        if outcome is AttemptOutcome.LOST:
            occurrence.max_attempts += 1
        elif notifies:
            timed_out = outcome is AttemptOutcome.TIMED_OUT
            outbox.notify(occurrence, NotifyOn.TIMED_OUT if timed_out else NotifyOn.FAILED)
        retries = attempt.number < occurrence.max_attempts and not self._taken_back(outcome)
        if retries and run_timeout is None:
            self._retry(occurrence, attempt, lost=outcome is AttemptOutcome.LOST)
            return
        self._fail(occurrence, run_timeout)

    def _fail(self, occurrence: Occurrence, run_timeout: int | None) -> None:
        """The occurrence fails for good; ``run_timeout`` when its time ran out (the event says
        so, since it may have had retries left)."""
        engine = self._engine
        job_id, scheduled = occurrence.key
        job = engine.jobs[job_id]
        engine.store.set_state(occurrence, job, S.FAILED)
        attempts = len(occurrence.attempts)
        engine.log.add(ev.OccurrenceFailed, engine.now, job_id, scheduled, attempts, run_timeout)
        if job.spec.notify:
            engine.notifications.notify(occurrence, NotifyOn.RETRIES_EXHAUSTED)
        if job.dependents:
            engine.dependencies.failed(job)
        if job.spec.overlap is not None:
            engine.overlap.freed(job)
        if job.backfill is not None:
            engine.backfills.ended(job, scheduled)

    def terminate(self, occurrence: Occurrence) -> None:
        """End the running attempt because a newer run takes the run's place (its job's overlap
        rule); the caller cancels the run. Its timers go stale."""
        engine = self._engine
        attempt = occurrence.running_attempt
        assert attempt is not None
        engine.journal.touch(occurrence)
        attempt.ended = engine.now
        attempt.outcome = AttemptOutcome.TERMINATED
        engine.log.add(
            ev.AttemptTerminated, engine.now, *occurrence.key, attempt.number, attempt.worker_id
        )
        engine.workforce.release(engine.workers[attempt.worker_id])
        pool = engine.jobs[occurrence.job_id].spec.pool
        if pool is not None:
            engine.pools.free(pool)

    def _retry(self, occurrence: Occurrence, attempt: Attempt, lost: bool) -> None:
        """RETRY_PENDING until the backoff passes; a lost attempt retries at once."""
        engine = self._engine
        now = engine.now
        engine.journal.touch(occurrence)
        job = engine.jobs[occurrence.job_id]
        delay = 0
        if not lost:
            backoff = job.spec.backoff or engine.policy.backoff
            delay = backoff.delay(attempt.number, engine.rng)
        occurrence.eligible_at = now + delay
        occurrence.retry_delay = delay
        engine.store.set_state(occurrence, job, S.RETRY_PENDING)
        job_id, scheduled = occurrence.key
        engine.log.add(
            ev.RetryScheduled, now, job_id, scheduled, attempt.number + 1, now + delay, delay
        )
        if delay == 0:
            engine.dispatcher.push_ready(occurrence)
        else:
            engine.timers.add(now + delay, TimerKind.BACKOFF_END, occurrence.key)

    def _taken_back(self, outcome: AttemptOutcome) -> bool:
        """Whether a timed-out run ends here, its retries unused (``OnTimeout.NEXT_RUN``): the
        job's next run comes at its schedule's next tick, as for any run that failed for good."""
        return (
            outcome is AttemptOutcome.TIMED_OUT
            and self._engine.policy.on_timeout is OnTimeout.NEXT_RUN
        )

    def _running(self, job_id: str, scheduled: int, number: int) -> Attempt | None:
        """The attempt ``number`` of an occurrence if it is still running (timers go stale)."""
        attempt = self._engine.occurrences[(job_id, scheduled)].running_attempt
        return attempt if attempt is not None and attempt.number == number else None
