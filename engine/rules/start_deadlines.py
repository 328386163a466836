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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model.records import Job, OccurrenceState
from engine.parts.timers import TimerKind

if TYPE_CHECKING:
    from engine.core import Engine

S = OccurrenceState


class StartDeadlines:
    """Checks each run of a job with a start deadline once; owns no state beyond the jobs."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def start(self, job: Job) -> None:
        """Set the timer for the job's first run (a new job with a start deadline)."""
        self._watch(job, job.next_due)

    def check(self, job_id: str, scheduled: int) -> None:
        """The run at ``scheduled`` had until the tick before to start: expire it if it still
        waits for a worker, then watch the job's next run."""
        engine = self._engine
        job = engine.jobs[job_id]
        if job.start_next != scheduled:
            return  # stale
        if engine.occurrence_state(job_id, scheduled) is S.QUEUED:
            record = engine.occurrences.get((job_id, scheduled))
            if record is None or not record.attempts:
                engine.lifecycle.expire(job, scheduled)
        self._watch(job, None if job.deleted else job.first_fire(scheduled + 1))

    def _watch(self, job: Job, scheduled: int | None) -> None:
        engine = self._engine
        engine.journal.touch(job)
        job.start_next = scheduled
        deadline = job.spec.start_deadline
        if scheduled is not None and deadline is not None:
            engine.timers.add(
                scheduled + deadline + 1, TimerKind.START_DEADLINE, (job.job_id, scheduled)
            )
