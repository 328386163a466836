"""Start deadlines: a run that has not started ``start_deadline`` ticks after its scheduled tick
expires (Celery's ``expires``; Kubernetes' ``startingDeadlineSeconds`` as users expect it to
act on the start, docs/semantics.md).

A job with a start deadline keeps one timer: at ``scheduled + start_deadline + 1`` for its next
run to check (``Job.start_next``), so a run may start up to ``scheduled + start_deadline``
included. When it fires, a run still waiting for a worker (QUEUED, no attempt started yet)
expires: a ``RunExpired`` event, and it is cancelled with reason ``expired`` (its slot, its
downstream runs and its subscribers learn it as of any cancellation). A run that started,
is blocked on a dependency, was skipped, or was not created yet (its job paused) is left alone;
then the timer moves to the job's next run, so a run created after its own check (caught up on
resume, backfilled) is not judged by it. The cost is one timer per run of a job with the rule;
a job without it pays nothing.

Given the journal, the job cursors (a run's state), the occurrence store, the timers and the
lifecycle (which cancels an expired run); built after the lifecycle, which never calls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model.records import Job, OccurrenceState
from engine.parts.timers import TimerKind

if TYPE_CHECKING:
    from engine.parts.cursors import JobCursors
    from engine.parts.lifecycle import Lifecycle
    from engine.parts.occurrences import OccurrenceStore
    from engine.parts.timers import Timers
    from engine.rewind.journal import ChangeJournal

S = OccurrenceState


class StartDeadlines:
    """Checks each run of a job with a start deadline once; owns no state beyond the jobs."""

    def __init__(
        self,
        journal: ChangeJournal,
        cursors: JobCursors,
        store: OccurrenceStore,
        timers: Timers,
        lifecycle: Lifecycle,
    ) -> None:
        self._journal = journal
        self._cursors = cursors
        self._jobs = cursors.jobs
        self._records = store.runs
        self._timers = timers
        self._lifecycle = lifecycle

    def start(self, job: Job) -> None:
        """Set the timer for the job's first run (a new job with a start deadline)."""
        self._watch(job, job.next_due)

    def check(self, job_id: str, scheduled: int) -> None:
        """The run at ``scheduled`` had until the tick before to start: expire it if it still
        waits for a worker, then watch the job's next run."""
        job = self._jobs[job_id]
        if job.start_next != scheduled:
            return  # stale
        if self._cursors.occurrence_state(job_id, scheduled) is S.QUEUED:
            record = self._records.get((job_id, scheduled))
            if record is None or not record.attempts:
                self._lifecycle.expire(job, scheduled)
        self._watch(job, None if job.deleted else job.first_fire(scheduled + 1))

    def _watch(self, job: Job, scheduled: int | None) -> None:
        self._journal.touch(job)
        job.start_next = scheduled
        deadline = job.spec.start_deadline
        if scheduled is not None and deadline is not None:
            self._timers.add(
                scheduled + deadline + 1, TimerKind.START_DEADLINE, (job.job_id, scheduled)
            )
