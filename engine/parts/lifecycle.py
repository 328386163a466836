"""Changing jobs after they are scheduled: modify, cancel, delete, pause, resume.

The rules, which the docs repeat for users:

- An occurrence keeps the definition it was created with (priority, attempts allowed, duration,
  timeout); a modification applies to occurrences created after it. A running attempt is never
  touched. Occurrences that were due and waiting implicitly keep the old definition too: the job
  remembers it for them (``Job.backlog``), at no cost per occurrence. The one exception is a
  priority change under an order that uses priority: a job waits in the ready queue as one
  entry, so its waiting occurrences are then materialised, each keeping its old priority while
  newer ones overtake them (cost: one record per waiting occurrence). A job others depend on
  keeps its schedule. A schedule with no run left from now on is refused, as when scheduling.
- Modifying a job, or cancelling its next run, is a conflict while any of its attempts runs
  (seed 003's PUT answers 409 then), unless the policy allows it (``running_job_changes``).
- Cancelling a given run is allowed while it is SCHEDULED, BLOCKED, QUEUED or RETRY_PENDING, and a
  conflict while it is RUNNING or already final.
- Deleting a job is a conflict while any of its attempts runs; otherwise its waiting occurrences
  are cancelled (an implicit backlog as one range, ``BacklogCancelled``, but listed, counted and
  notified run by run like records) and no more are created. The job is gone (seed 003: DELETE
  "removes the job"): commands and ``get_job`` answer not found, while its runs and events stay
  in the history; its id is not reused.
- While a job is paused no occurrence of it is created; those created before still run. On resume,
  the occurrences that fell due while paused are skipped, or only the latest runs, or all run,
  within the job's catch-up window and missed-run limit (:mod:`engine.rules.missed_runs`).

Given the tick clock, the journal, the event log, the policy, the job cursors, the occurrence
store and the outbox. Connected after construction (:meth:`Lifecycle.connect`) to the dispatcher
and the rules a change moves on (dependencies, run dependencies, overlap, backfills): every one of
them cancels runs through the lifecycle, directly or through another (a cascade, a replaced run),
so the circle is closed by connecting, not by an order of construction.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from engine.model import events as ev
from engine.model.commands import MODIFIABLE_FIELDS, Outcome, Result, refused
from engine.model.limits import spec_problem
from engine.model.policies import DispatchOrder, RunningJobChanges
from engine.model.problems import Code, Problem, refusal
from engine.model.records import (
    CancelledRange,
    CancelReason,
    CatchUp,
    Job,
    NotifyOn,
    Occurrence,
    OccurrenceState,
)
from engine.parts.ranges import Runs, count_runs, implicit_range, runs_in
from engine.rules.missed_runs import skip_through
from engine.schedules.kinds import Once, Schedule

if TYPE_CHECKING:
    from engine.model.events import EventLog
    from engine.model.policies import Policy
    from engine.parts.cursors import JobCursors
    from engine.parts.dispatcher import Dispatcher
    from engine.parts.notifications import Outbox
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.tick_clock import TickClock
    from engine.rewind.journal import ChangeJournal
    from engine.rules.backfill import Backfills
    from engine.rules.dependencies import Dependencies
    from engine.rules.overlap import OverlapControl
    from engine.rules.run_dependencies import RunDependencies

S = OccurrenceState
_CANCELLABLE = frozenset({S.SCHEDULED, S.BLOCKED, S.QUEUED, S.RETRY_PENDING})


def past_run_time(schedule: Schedule, now: int) -> Problem | None:
    """Why a schedule is refused at ``now``: it has no run left, so it would be accepted and
    never run. A recurring schedule that began in the past is fine: it runs from now on."""
    if schedule.first_at_or_after(now) is not None:
        return None
    if isinstance(schedule, Once):
        message = f"run time {schedule.at} is before the current time {now}"
    else:
        message = f"{schedule.describe()} has no run at or after the current time {now}"
    return refusal(Code.PAST_RUN_TIME, message, "schedule")


def _no_job(job_id: str) -> Result:
    return refused(Outcome.NOT_FOUND, Code.UNKNOWN_JOB, f"no job {job_id!r}", "job_id")


def _attempt_running(job_id: str) -> Result:
    message = f"{job_id} has a running attempt"
    return refused(Outcome.CONFLICT, Code.ATTEMPT_RUNNING, message, "job_id")


class Lifecycle:
    """The commands that change a scheduled job; owns no state beyond the job and run records."""

    def __init__(
        self,
        clock: TickClock,
        journal: ChangeJournal,
        log: EventLog,
        policy: Policy,
        cursors: JobCursors,
        store: OccurrenceStore,
        outbox: Outbox,
    ) -> None:
        self._clock = clock
        self._journal = journal
        self._log = log
        self._policy = policy
        self._cursors = cursors
        self._jobs = cursors.jobs
        self._store = store
        self._records = store.records
        self._runs = Runs(store.runs, cursors)
        self._outbox = outbox
        self._dispatcher: Dispatcher
        self._dependencies: Dependencies
        self._run_dependencies: RunDependencies
        self._overlap: OverlapControl
        self._backfills: Backfills

    def connect(
        self,
        dispatcher: Dispatcher,
        dependencies: Dependencies,
        run_dependencies: RunDependencies,
        overlap: OverlapControl,
        backfills: Backfills,
    ) -> None:
        """The dispatcher and the rules a change moves on, built after the lifecycle (see the
        module docstring)."""
        self._dispatcher = dispatcher
        self._dependencies = dependencies
        self._run_dependencies = run_dependencies
        self._overlap = overlap
        self._backfills = backfills

    def modify(self, job_id: str, changes: dict[str, object]) -> Result:
        cursors, now = self._cursors, self._clock.now
        job = cursors.live(job_id)
        if job is None:
            return _no_job(job_id)
        if job.doomed_by is not None:
            message = f"{job_id} can never run: it was cancelled because {job.doomed_by} failed"
            return refused(Outcome.CONFLICT, Code.JOB_DOOMED, message, "job_id")
        if self._refuses_change(job):
            return _attempt_running(job_id)
        unknown = sorted(set(changes) - MODIFIABLE_FIELDS)
        if unknown:
            allowed = ", ".join(sorted(MODIFIABLE_FIELDS))
            message = f"cannot modify {unknown[0]}; can: {allowed}"
            return refused(Outcome.INVALID, Code.NOT_MODIFIABLE, message, unknown[0])
        spec = dataclasses.replace(job.spec, **changes)
        problem = spec_problem(spec)
        if problem is None and "schedule" in changes:
            problem = past_run_time(spec.schedule, now)
        if problem is None and job.dependents and "schedule" in changes:
            message = f"{job_id} keeps its schedule: {', '.join(job.dependents)} depend on it"
            problem = refusal(Code.DEPENDENTS_KEEP_SCHEDULE, message, "schedule")
        if problem is not None:
            return Result(Outcome.INVALID, None, problem)
        if "priority" in changes and self._policy.order is not DispatchOrder.FIFO:
            self._materialise_backlog(job)
        self._journal.touch(job)
        if job.next_due is None:
            # The cursor ran past every remembered definition: none of them applies any more,
            # and a new schedule must start from now, not from a cursor that has ended.
            job.backlog = ()
        limit = cursors.created_limit(job)
        if job.next_due is not None and job.next_due <= limit:
            job.backlog = (*job.backlog, (limit, job.spec))
        job.spec = spec
        if "schedule" in changes:
            job.spec_since = now
            start = job.next_due if job.backlog else now
            job.next_due = cursors.walk(job, job.first_fire(start))
        self._dispatcher.release(job)
        self._log.add(ev.JobModified, now, job_id, tuple(sorted(changes)))
        return Result(Outcome.OK)

    def cancel(self, job_id: str, scheduled: int | None = None) -> Result:
        job = self._cursors.live(job_id)
        if job is None:
            return _no_job(job_id)
        if scheduled is None:
            if self._refuses_change(job):
                return _attempt_running(job_id)
            scheduled = self._next_cancellable(job)
            if scheduled is None:
                message = f"{job_id} has no occurrence to cancel"
                return refused(Outcome.NOT_FOUND, Code.NOTHING_TO_CANCEL, message)
        state = self._cursors.occurrence_state(job_id, scheduled)
        if state is None and self._store.is_forgotten((job_id, scheduled)):
            message = f"{job_id}@{scheduled} is behind the history horizon: it was forgotten"
            return refused(Outcome.CONFLICT, Code.RUN_FORGOTTEN, message, "scheduled")
        if state is None:
            message = f"{scheduled} is not an occurrence of {job_id}"
            return refused(Outcome.NOT_FOUND, Code.UNKNOWN_RUN, message, "scheduled")
        if state not in _CANCELLABLE:
            message = f"{job_id}@{scheduled} is {state.value}"
            return refused(Outcome.CONFLICT, Code.RUN_NOT_CANCELLABLE, message, "scheduled")
        self._cancel_run(job, scheduled, state, CancelReason.USER)
        return Result(Outcome.OK, scheduled)

    def expire(self, job: Job, scheduled: int) -> None:
        """The run waited for a worker past its job's ``start_deadline``: it never runs."""
        deadline = job.spec.start_deadline
        self._log.add(ev.RunExpired, self._clock.now, job.job_id, scheduled, deadline)
        self._cancel_run(job, scheduled, S.QUEUED, CancelReason.EXPIRED)

    def _cancel_run(self, job: Job, scheduled: int, state: S, reason: CancelReason) -> None:
        """Cancel a waiting run, giving an implicit one its record first."""
        occurrence = self._records.get((job.job_id, scheduled))
        if occurrence is None:
            occurrence = self._store.materialise(job, scheduled, state)
            if scheduled == job.next_due:
                self._dispatcher.take_front(job)
                self._cursors.advance(job)
                self._dispatcher.release(job)
        self._cancel(occurrence, reason, None)
        if isinstance(job.spec.schedule, Once):
            self._dependencies.failed(job)
        self._overlap.freed(job)

    def delete(self, job_id: str) -> Result:
        job = self._cursors.live(job_id)
        if job is None:
            return _no_job(job_id)
        if self._running(job):
            return _attempt_running(job_id)
        now = self._clock.now
        if job.backfill is not None:
            self._journal.touch(job)
            job.backfill = None  # its runs are cancelled below; it creates no more
            self._log.add(ev.BackfillFinished, now, job_id)
        self.cancel_waiting(job, CancelReason.DELETED, None)
        job.deleted = True
        self._log.add(ev.JobDeleted, now, job_id)
        if isinstance(job.spec.schedule, Once):
            occurrence = self._dependencies.only_occurrence(job)
            if occurrence is None or occurrence.state is not S.SUCCEEDED:
                self._dependencies.failed(job)
        return Result(Outcome.OK)

    def pause(self, job_id: str) -> Result:
        job = self._cursors.live(job_id)
        if job is None:
            return _no_job(job_id)
        if job.paused_through is not None:
            message = f"{job_id} is already paused"
            return refused(Outcome.CONFLICT, Code.ALREADY_PAUSED, message, "job_id")
        self._journal.touch(job)
        job.paused_through = self._created_through(job)
        self._log.add(ev.JobPaused, self._clock.now, job_id)
        return Result(Outcome.OK)

    def _created_through(self, job: Job) -> int:
        """The last tick whose runs of ``job`` were created: a job defined in this tick, after
        its runs due now were created, has none created before a dispatch, so a pause now
        misses its run due now, as one a tick later misses the next (an outage that begins at
        a run's tick and one that begins a tick later then agree)."""
        cursors = self._cursors
        if cursors.dispatches <= job.dispatches_at_submit:
            return min(cursors.created_through, self._clock.now - 1)
        return cursors.created_through

    def resume(self, job_id: str, catch_up: CatchUp | None = None) -> Result:
        job = self._cursors.live(job_id)
        if job is None:
            return _no_job(job_id)
        paused_through = job.paused_through
        if paused_through is None:
            return refused(Outcome.CONFLICT, Code.NOT_PAUSED, f"{job_id} is not paused", "job_id")
        mode = catch_up or job.spec.catch_up
        now, log = self._clock.now, self._log
        self._journal.touch(job)
        job.paused_through = None
        log.add(ev.JobResumed, now, job_id, mode)
        if job.next_due is not None:
            through = skip_through(now, log, job, mode, paused_through)
            if through is not None:
                job.skipped = (*job.skipped, (paused_through, through))
                log.add(ev.OccurrencesSkipped, now, job_id, paused_through, through)
                if job.front is None:
                    job.next_due = self._cursors.walk(job, job.next_due)
                if job.dependents:
                    self._run_dependencies.changed(job)
        self._dispatcher.release(job)
        return Result(Outcome.OK)

    def cascade(self, occurrence: Occurrence, cause: str) -> None:
        """An upstream run failed (``cause``: the job whose failure started it): Airflow's
        ``upstream_failed``, a cascade cancellation of this one run."""
        self._cancel(occurrence, CancelReason.CASCADE, cause)

    def replaced(self, occurrence: Occurrence, policy: str) -> None:
        """A newer run of the job takes this run's slot (its overlap rule, named by ``policy``)."""
        self._cancel(occurrence, CancelReason.REPLACED, policy)

    def _cancel(self, occurrence: Occurrence, reason: CancelReason, cause: str | None):
        job = self._jobs[occurrence.job_id]
        self._journal.touch(occurrence)
        occurrence.cancel_reason = reason
        occurrence.cancel_cause = cause
        occurrence.eligible_at = None
        self._store.set_state(occurrence, job, S.CANCELLED)
        self._log.add(ev.OccurrenceCancelled, self._clock.now, *occurrence.key, reason, cause)
        self._outbox.notify(occurrence, NotifyOn.CANCELLED)
        if job.dependents and not isinstance(job.spec.schedule, Once):
            self._run_dependencies.changed(job)
        if job.backfill is not None:
            self._backfills.ended(job, occurrence.scheduled)

    def _running(self, job: Job) -> bool:
        """Whether an attempt of ``job`` is running: seed 003 refuses to delete a job "in a
        status running" (409)."""
        records = self._records
        return any(records[(job.job_id, t)].state is S.RUNNING for t in job.open)

    def _refuses_change(self, job: Job) -> bool:
        """Whether the policy refuses to modify ``job`` (or cancel its next run) now: seed 003's
        PUT answers 409 while the job runs."""
        refuses = self._policy.running_job_changes is RunningJobChanges.REFUSE
        return refuses and self._running(job)

    def cancel_waiting(self, job: Job, reason: CancelReason, cause: str | None) -> None:
        """Cancel every run of ``job`` that waits (a running attempt goes on) and create no more:
        its records one by one in the order they were made, then its implicit runs as one range.

        Those runs follow every record (they are behind the cursor, the records before it), so
        their notifications come in the order the same runs as records would give."""
        self._dispatcher.take_front(job)
        self._journal.touch(job)
        waiting = implicit_range(self._runs, job)
        if isinstance(job.spec.schedule, Once) and job.next_due is not None:
            # The one run gets its record, so that a dependent can see why it never ran.
            state = self._cursors.occurrence_state(job.job_id, job.next_due) or S.SCHEDULED
            self._store.materialise(job, job.next_due, state)
            waiting = None
        job.next_due = None
        job.blocked_from = None
        if reason is CancelReason.CASCADE:
            job.doomed_by = cause
        for scheduled in list(job.open):
            occurrence = self._records[(job.job_id, scheduled)]
            if occurrence.state is not S.RUNNING:
                self._cancel(occurrence, reason, cause)
        if waiting is not None:
            self._cancel_range(job, waiting.first, waiting.last, reason, cause)

    def _cancel_range(
        self, job: Job, first: int, last: int, reason: CancelReason, cause: str | None
    ) -> None:
        """Cancel the job's created runs in ``[first, last]`` that have no record, as a range: one
        event, but each run's notifications exactly as a cancelled record would queue them."""
        job.cancelled_backlog = CancelledRange(first, last, reason, cause)
        runs = count_runs(self._runs, job, first, last)
        self._log.add(
            ev.BacklogCancelled, self._clock.now, job.job_id, first, last, runs, reason, cause
        )
        if any(NotifyOn.CANCELLED in subscription.on for subscription in job.spec.notify):
            for scheduled in runs_in(self._runs, job, first, last):
                self._outbox.notify_run(job.job_id, scheduled, 0, NotifyOn.CANCELLED)
        if job.dependents and not isinstance(job.spec.schedule, Once):
            self._run_dependencies.changed(job)

    def _next_cancellable(self, job: Job) -> int | None:
        """The job's earliest occurrence that has not started: materialised or the cursor's."""
        records = self._records
        candidates = [
            scheduled
            for scheduled in job.open
            if records[(job.job_id, scheduled)].state in _CANCELLABLE
        ]
        if job.next_due is not None:
            candidates.append(job.next_due)
        return min(candidates, default=None)

    def _materialise_backlog(self, job: Job) -> None:
        """Turn a job's implicit waiting occurrences into records queued on their own."""
        dispatcher, cursors = self._dispatcher, self._cursors
        front = dispatcher.take_front(job)
        if front is None:
            return
        limit = cursors.created_limit(job)
        while job.next_due is not None and job.next_due <= limit:
            occurrence = self._store.materialise(job, job.next_due, S.QUEUED)
            dispatcher.push_ready(occurrence)
            cursors.advance(job)
